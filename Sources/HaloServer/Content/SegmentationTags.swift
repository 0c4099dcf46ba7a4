import Crypto
import Foundation
import HaloContentStore

/// Tag ids and defaults shared by devices and instances (§6.3).
enum SegmentationTags {
    /// The custom-tag type a tag gets when the client names none.
    static let customTagType = "000000000000000000000002"

    /// Derived from name and value, so one tag keeps one id on every device and instance.
    static func id(name: String, value: String) -> String {
        SHA256.hash(data: Data((name + "\u{0}" + value).utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    static func normalized(_ tag: WireTag) -> WireTag {
        WireTag(
            id: tag.id ?? id(name: tag.name, value: tag.value), name: tag.name, value: tag.value,
            tagType: tag.tagType ?? customTagType)
    }
}
