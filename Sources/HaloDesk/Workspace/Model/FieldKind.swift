import Foundation
import HaloServices

/// How the workspace shows and edits one instance value.
///
/// The kind comes from the module's field type (the workspace asks for modules `withFields`);
/// for a field the module does not describe, it is inferred from the value (`inferred(from:)`).
enum FieldKind: Equatable, Sendable {
    case text, longText, number, boolean, date, link, image, relation, relations, list, object, localized

    /// How a HALO field type is shown and edited.
    init(_ type: FieldType) {
        switch type {
        case .text, .color, .singleChoice, .singleSelectDropdown: self = .text
        case .longText: self = .longText
        case .number: self = .number
        case .boolean: self = .boolean
        case .date, .time: self = .date
        case .website, .youtube, .video, .audio: self = .link
        case .image: self = .image
        case .singleRelation: self = .relation
        case .multipleRelation: self = .relations
        case .list, .multipleChoice, .multipleSelectDropdown: self = .list
        case .object: self = .object
        case .localizedText: self = .localized
        }
    }

    /// The kind for a HALO field type name (PROTOCOL §9.3), nil for names we do not know.
    init?(fieldTypeName: String) {
        guard let type = FieldType(name: fieldTypeName) else { return nil }
        self.init(type)
    }

    /// Guesses the kind from a stored value. Dates are epoch milliseconds on the wire, so a whole
    /// number between 2001 and 2286 in milliseconds is taken as a date; 24-hex strings are instance ids.
    static func inferred(from value: JSONValue) -> FieldKind {
        switch value {
        case .bool: return .boolean
        case .number(let number):
            return number.rounded() == number && (1e12..<1e13).contains(number) ? .date : .number
        case .string(let text):
            if isInstanceID(text) { return .relation }
            if let url = URL(string: text), url.scheme == "http" || url.scheme == "https" {
                return looksLikeImage(url) ? .image : .link
            }
            return text.count > 120 || text.contains("\n") || text.contains("<p>") ? .longText : .text
        case .array(let items):
            return !items.isEmpty && items.allSatisfy({ $0.stringValue.map(isInstanceID) ?? false }) ? .relations : .list
        case .object(let members):
            return !members.isEmpty && members.keys.allSatisfy(isLocaleCode) && members.values.allSatisfy({ $0.stringValue != nil })
                ? .localized : .object
        case .null: return .text
        }
    }

    /// Kinds edited as JSON text in the editor.
    var isStructured: Bool { self == .list || self == .object || self == .localized }

    static func isInstanceID(_ text: String) -> Bool {
        text.count == 24 && text.allSatisfy(\.isHexDigit)
    }

    private static func looksLikeImage(_ url: URL) -> Bool {
        let host = url.host ?? ""
        return ["jpg", "jpeg", "png", "gif", "webp", "svg"].contains(url.pathExtension.lowercased())
            || host.contains("cloudinary.com") || host.contains("picsum.photos")
    }

    private static func isLocaleCode(_ key: String) -> Bool {
        let parts = key.split(separator: "-")
        return parts.count == 2 && parts[0].count == 2 && parts[1].count == 2
    }
}

/// One named field of an instance as the detail pane presents it.
struct FieldDescriptor: Equatable, Sendable {
    let name: String
    let kind: FieldKind
}

extension FieldDescriptor {
    /// The fields to show for `instance`: the module's declared fields in order when known, then
    /// any other stored values (sorted by name) with inferred kinds.
    static func fields(of instance: ContentInstance, module: Module?) -> [FieldDescriptor] {
        var result: [FieldDescriptor] = []
        for field in module?.fields ?? [] {
            let kind =
                field.fieldType?.type.map { FieldKind($0) }
                ?? instance.values[field.name].map(FieldKind.inferred) ?? .text
            result.append(FieldDescriptor(name: field.name, kind: kind))
        }
        let declared = Set(result.map(\.name))
        for (name, value) in instance.values.sorted(by: { $0.key < $1.key }) where !declared.contains(name) {
            result.append(FieldDescriptor(name: name, kind: FieldKind.inferred(from: value)))
        }
        return result
    }
}
