import Foundation

/// The pocket's size rules, one definition for the server's check and the SDK's pre-check
/// (docs/limits.md). The 2,000 characters of `data` are HALO's (PROTOCOL §8.1); the caps on
/// `references` and the whole pocket are ours: HALO stated none, and an unbounded pocket is a way
/// to fill the disk.
public enum PocketLimits {
    /// HALO's documented limit of `data`, in characters of its serialized JSON.
    public static let dataCharacters = 2000
    /// Ours: at most this many named reference lists per pocket.
    public static let referenceLists = 100
    /// Ours: at most this many entries in one reference list.
    public static let entriesPerList = 1000
    /// Ours: the longest name of a list and the longest entry, in Unicode scalars.
    public static let referenceLength = 256
    /// Ours: the whole pocket (data and references together), in UTF-8 bytes as `pocketBytes`
    /// counts them. Each cap above holds alone, but their product (100 lists of 1,000 entries of
    /// 256 four-byte characters) is 100 MB.
    public static let wholePocketBytes = 256 * 1024

    /// How `data` is measured against `dataCharacters`: the Unicode scalars of its compact JSON
    /// with sorted keys. Scalars, not grapheme clusters: a letter followed by a million combining
    /// accents is one grapheme but a million scalars, and it is the bytes that must stay small.
    public static func dataLength(_ data: [String: JSONValue]) -> Int {
        JSONValue.object(data).jsonString(sortedKeys: true).unicodeScalars.count
    }

    /// How the whole pocket is measured against `wholePocketBytes`: the UTF-8 bytes of
    /// `{"data":…,"references":…}` as compact JSON with sorted keys (lists deleted are absent).
    public static func pocketBytes(references: [String: JSONValue], data: [String: JSONValue]) -> Int {
        JSONValue.object(["data": .object(data), "references": .object(references)]).jsonString(sortedKeys: true).utf8.count
    }

    /// `pocketBytes` of reference lists held as strings.
    public static func pocketBytes(references: [String: [String]], data: [String: JSONValue]) -> Int {
        pocketBytes(references: references.mapValues { .array($0.map(JSONValue.string)) }, data: data)
    }

    /// The name of the header (ours, docs/protocol.md §23.9) with which the server announces its
    /// pocket limits on every pocket answer, so clients count against the numbers in force.
    public static let header = "X-Halo-Pocket-Limits"

    /// The limits a server enforces: the defaults above unless it was started with others
    /// (`--limit`), as announced in `header`.
    public struct Values: Sendable, Equatable {
        public var dataCharacters = PocketLimits.dataCharacters
        public var referenceLists = PocketLimits.referenceLists
        public var entriesPerList = PocketLimits.entriesPerList
        public var referenceLength = PocketLimits.referenceLength
        public var wholePocketBytes = PocketLimits.wholePocketBytes

        public init() {}

        public static let defaults = Values()

        private static var names: [(String, WritableKeyPath<Values, Int>)] {
            [
                ("bytes", \.wholePocketBytes), ("data-characters", \.dataCharacters), ("reference-lists", \.referenceLists),
                ("entries-per-list", \.entriesPerList), ("reference-length", \.referenceLength),
            ]
        }

        /// The header's value: `bytes=262144, data-characters=2000, reference-lists=100,
        /// entries-per-list=1000, reference-length=256`.
        public var headerValue: String {
            Self.names.map { "\($0.0)=\(self[keyPath: $0.1])" }.joined(separator: ", ")
        }

        /// Reads a header's value; a name it does not know is skipped, one it lacks keeps its
        /// default, and a value that is not a positive whole number makes the whole header unread
        /// (nil), so a garbled header never loosens a check.
        public init?(headerValue: String) {
            for item in headerValue.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { return nil }
                guard let path = Self.names.first(where: { $0.0 == parts[0] })?.1 else { continue }
                guard let value = Int(parts[1]), value > 0 else { return nil }
                self[keyPath: path] = value
            }
        }
    }
}
