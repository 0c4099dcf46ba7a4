import Foundation
import HaloServices

/// How the workspace shows and edits one instance value.
///
/// The kind comes from the module's field type (the workspace asks for modules `withFields`);
/// for a field the module does not describe, it is inferred from the value (`inferred(from:)`).
enum FieldKind: Hashable, Sendable {
    /// `date` is an instant (a day and a time of day); `day` a date without a time (stored as
    /// 00:00 UTC of that day); `time` a time of day (milliseconds since midnight). See
    /// docs/protocol.md, "Dates and times".
    case text, longText, number, boolean, date, day, time, link, image, relation, relations, list, object, localized

    /// How a HALO field type is shown and edited; `format` is the field's options (a Date field
    /// with `"precision": "day"` holds days, our extension).
    init(_ type: FieldType, format: JSONValue? = nil) {
        switch type {
        case .text, .color, .singleChoice, .singleSelectDropdown: self = .text
        case .longText: self = .longText
        case .number: self = .number
        case .boolean: self = .boolean
        case .date: self = format?["precision"]?.stringValue == "day" ? .day : .date
        case .time: self = .time
        case .website, .youtube, .video, .audio: self = .link
        case .image: self = .image
        case .singleRelation: self = .relation
        case .multipleRelation: self = .relations
        case .list, .multipleChoice, .multipleSelectDropdown: self = .list
        case .object: self = .object
        case .localizedText: self = .localized
        }
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
            return !members.isEmpty && members.keys.allSatisfy(LocaleCode.isValid) && members.values.allSatisfy({ $0.stringValue != nil })
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
}

/// One named field of an instance as the detail pane presents it.
struct FieldDescriptor: Equatable, Sendable {
    let name: String
    let kind: FieldKind
    /// The HALO type the module declares; nil when the kind was inferred from a value.
    var type: FieldType?
    /// The values a choice field offers (its `format.values`), in order.
    var choices: [String] = []
    /// The field's `format.default`: a localized text's words for a missing language, a choice
    /// field's usual choice.
    var defaultValue: JSONValue?

    init(name: String, kind: FieldKind, type: FieldType? = nil, choices: [String] = [], defaultValue: JSONValue? = nil) {
        self.name = name
        self.kind = kind
        self.type = type
        self.choices = choices
        self.defaultValue = defaultValue
    }

    /// A field as its module declares it (`getModules(withFields:)`): a type HALO does not
    /// define is edited as text.
    init(declared field: ModuleField) {
        let type = field.fieldType?.type
        self.init(
            name: field.name, kind: type.map { FieldKind($0, format: field.format) } ?? .text, type: type,
            choices: field.choices ?? [],
            defaultValue: field.format?["default"].flatMap { $0 == .null ? nil : $0 })
    }

    /// Choice fields take several values (multiple choice and multiple select drop-downs).
    var takesSeveralChoices: Bool { type == .multipleChoice || type == .multipleSelectDropdown }
}

extension FieldDescriptor {
    /// The fields to show for `instance`: the module's declared fields in order when known, then
    /// any other stored values (sorted by name) with inferred kinds.
    static func fields(of instance: ContentInstance, module: Module?) -> [FieldDescriptor] {
        var result: [FieldDescriptor] = []
        for field in module?.fields ?? [] {
            if field.fieldType?.type == nil {
                let kind = instance.values[field.name].map(FieldKind.inferred) ?? .text
                result.append(FieldDescriptor(name: field.name, kind: kind))
            } else {
                result.append(FieldDescriptor(declared: field))
            }
        }
        let declared = Set(result.map(\.name))
        for (name, value) in instance.values.sorted(by: { $0.key < $1.key }) where !declared.contains(name) {
            result.append(FieldDescriptor(name: name, kind: FieldKind.inferred(from: value)))
        }
        return result
    }
}
