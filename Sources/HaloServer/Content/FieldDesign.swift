import Foundation
import HaloContentStore

/// The rules of module design (our extension, docs/protocol.md §23.10) that concern one field:
/// what a field definition may be, reading one from a request, and how a stored value fares when
/// its field changes type or choices.
enum FieldDesign {
    /// The most choices a choice field lists.
    static let choiceLimit = 500

    /// Refuses a definition no instance could be saved against, by name.
    static func check(_ field: ModuleField) throws {
        let name = field.name
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name == name.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw APIError.badRequest("A field needs a name without leading or trailing spaces")
        }
        guard name.count <= 100 else { throw APIError.badRequest("A field name has at most 100 characters ('\(name.prefix(20))…')") }
        guard !name.contains(where: { $0.isNewline || $0 == "\u{0}" }) else {
            throw APIError.badRequest("A field name is one line of text")
        }
        if let choices = field.choices {
            guard field.type.takesChoices else { throw APIError.badRequest("'\(name)' (\(field.type.name)) has no choices") }
            guard choices.count <= choiceLimit else { throw APIError.badRequest("'\(name)' lists more than \(choiceLimit) choices") }
            guard Set(choices).count == choices.count else { throw APIError.badRequest("'\(name)' lists a choice twice") }
            guard !choices.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
                throw APIError.badRequest("'\(name)' has an empty choice")
            }
        }
    }

    /// A field as a request describes it: `name`, `fieldType` (a type's name such as "Number" or
    /// its id), `description`, `choices`, `dateOnly`. `base` supplies what the request leaves out.
    static func field(from body: [String: JSONValue], base: ModuleField? = nil) throws -> ModuleField {
        let name = try body.optionalString("name") ?? base?.name
        guard let name else { throw APIError.badRequest("'name' is required") }
        let type: FieldType
        if let text = try body.optionalString("fieldType") {
            guard let named = FieldType(name: text) ?? FieldType(id: text) else {
                throw APIError.badRequest(
                    "'fieldType' must be one of \(FieldType.allCases.map(\.name).joined(separator: ", ")), not '\(text.prefix(40))'")
            }
            type = named
        } else if let base {
            type = base.type
        } else {
            throw APIError.badRequest("'fieldType' is required")
        }
        var choices = base?.type == type ? base?.choices : nil
        switch body["choices"] {
        case nil: break
        case .null?: choices = nil
        case .array(let items)?:
            choices = try items.map { item in
                guard let text = item.stringValue else { throw APIError.badRequest("'choices' must be a list of strings") }
                return text
            }
        default: throw APIError.badRequest("'choices' must be a list of strings")
        }
        if !type.takesChoices {
            if case .array? = body["choices"] { throw APIError.badRequest("'\(name)' (\(type.name)) has no choices") }
            choices = nil  // a choice field retyped: its list goes
        }
        let dateOnly = try body.optionalBool("dateOnly") ?? (base?.type == type ? base?.isDateOnly ?? false : false)
        let field = ModuleField(
            name, type, description: try body.optionalString("description") ?? base?.description ?? "", choices: choices,
            isDateOnly: dateOnly)
        try check(field)
        return field
    }

    /// What becomes of a stored value when its field becomes `field`.
    enum Outcome: Equatable {
        /// The value fits as it is.
        case kept
        /// The value fits once converted (a number written as text, one choice as a list, …).
        case converted(JSONValue)
        /// The new field refuses the value.
        case refused
    }

    static func outcome(of value: JSONValue, in field: ModuleField) -> Outcome {
        if FieldValidator.accepts(value, field: field) { return .kept }
        guard let converted = conversion(of: value, to: field.type), FieldValidator.accepts(converted, field: field) else {
            return .refused
        }
        return .converted(converted)
    }

    /// The usual conversions between types; the result is still checked against the new field.
    private static func conversion(of value: JSONValue, to type: FieldType) -> JSONValue? {
        // JSON written as text (a CSV cell) for a type whose values are objects or lists.
        if case .string(let text) = value,
            [.object, .list, .localizedText, .multipleRelation, .multipleChoice, .multipleSelectDropdown]
                .contains(type), let parsed = try? JSONValue(string: text), parsed.arrayValue != nil || parsed.objectValue != nil
        {
            return parsed
        }
        switch type {
        case .text, .longText, .singleChoice, .singleSelectDropdown, .singleRelation, .color, .website, .image, .video, .audio,
            .youtube:
            if case .array(let items) = value, items.count == 1 { return conversion(of: items[0], to: type) ?? items[0] }
            return scalarText(value).map(JSONValue.string)
        case .number:
            guard let text = value.stringValue?.trimmingCharacters(in: .whitespaces), let number = Double(text), number.isFinite
            else { return value.boolValue.map { .number($0 ? 1 : 0) } }
            return .number(number)
        case .boolean:
            switch value.stringValue?.lowercased() ?? value.doubleValue.map({ $0 == 1 ? "true" : $0 == 0 ? "false" : "" }) {
            case "true"?: return .bool(true)
            case "false"?: return .bool(false)
            default: return nil
            }
        case .date, .time:
            if let number = value.doubleValue, number.rounded() == number { return .number(number) }
            guard let text = value.stringValue?.trimmingCharacters(in: .whitespaces) else { return nil }
            let withTime = ISO8601DateFormatter()
            let dayOnly = ISO8601DateFormatter()
            dayOnly.formatOptions = [.withFullDate]
            guard let date = withTime.date(from: text) ?? dayOnly.date(from: text) else { return nil }
            return .number((date.timeIntervalSince1970 * 1000).rounded())
        case .multipleChoice, .multipleSelectDropdown, .multipleRelation, .list:
            if value.arrayValue != nil { return nil }
            return .array([type == .list ? value : scalarText(value).map(JSONValue.string) ?? value])
        case .object, .localizedText:
            return nil
        }
    }

    /// A number, boolean or string written as text (objects and lists have no text form).
    private static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: return nil
        }
    }
}
