import Foundation
import HaloContentStore

/// Checks instance `values` against the module's fields (§9.3 rules). `null` clears a field and is
/// always accepted; a key that is not a field of the module is refused ("undefined_attribute").
enum FieldValidator {
    struct Problem: Sendable {
        var field: String
        var error: String
        var message: String

        var apiError: APIError {
            APIError.badRequest(
                "One or more fields have validation problems",
                extra: ["field": .string(field), "error": .string(error), "message": .string(message)])
        }
    }

    /// The first problem in key order (deterministic), or nil when every value fits its field.
    static func validate(_ values: [String: JSONValue], fields: [ModuleField]) -> Problem? {
        let byName = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for key in values.keys.sorted() {
            guard let value = values[key] else { continue }
            guard let field = byName[key] else {
                return Problem(field: key, error: "undefined_attribute", message: "'\(key)' is not a field of this module")
            }
            if value.isNull { continue }
            if let (error, message) = check(value, field: field) {
                return Problem(field: key, error: error, message: "'\(key)' (\(field.type.name)) \(message)")
            }
        }
        return nil
    }

    /// Whether `field` takes `value` (null always: it clears the field).
    static func accepts(_ value: JSONValue, field: ModuleField) -> Bool {
        value.isNull || check(value, field: field) == nil
    }

    private static func check(_ value: JSONValue, field: ModuleField) -> (String, String)? {
        let type = field.type
        let errorKey = type.rules.first?.2 ?? "validator.0"
        func fail(_ message: String) -> (String, String) { (errorKey, message) }
        switch type {
        case .text:
            guard let text = value.stringValue else { return fail("must be a string") }
            if text.count > 1000 { return ("validator.10", "must be at most 1000 characters long") }
        case .singleRelation, .longText:
            if value.stringValue == nil { return fail("must be a string") }
        case .number:
            if value.doubleValue == nil { return fail("must be a number") }
        case .website, .image, .video, .audio:
            guard let text = value.stringValue, WebAddress.isValid(text) else { return fail("must be an http(s) URL") }
        case .youtube:
            guard let text = value.stringValue, WebAddress.isValid(text),
                let host = URL(string: text)?.host?.lowercased(), host.hasSuffix("youtube.com") || host.hasSuffix("youtu.be")
            else { return fail("must be a YouTube URL") }
        case .date, .time:
            guard let milliseconds = value.int64Value else { return fail("must be a timestamp in milliseconds") }
            if field.isDateOnly, milliseconds % 86_400_000 != 0 {
                return fail("must be a date without a time of day: 00:00 UTC of that day in milliseconds")
            }
        case .boolean:
            if value.boolValue == nil { return fail("must be true or false") }
        case .color:
            guard let text = value.stringValue, HexColor.isValid(text) else { return fail("must be a hex color such as #1a2b3c") }
        case .multipleRelation:
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                return fail("must be an array of instance ids")
            }
        case .object:
            if value.objectValue == nil { return fail("must be a JSON object") }
        case .list:
            if value.arrayValue == nil { return fail("must be a JSON array") }
        case .localizedText:
            guard let perLocale = value.objectValue else { return fail("must be an object keyed by locale code") }
            if let key = perLocale.keys.sorted().first(where: { !LocaleCode.isValid($0) }) {
                return ("validator.13", "has '\(key)', which is not a locale code")
            }
            if perLocale.values.contains(where: { $0.stringValue == nil }) {
                return ("validator.14", "must map every locale to a string")
            }
        case .multipleChoice, .multipleSelectDropdown:
            guard let items = value.arrayValue else { return fail("must be an array of choices") }
            if let choices = field.choices, let bad = items.first(where: { !choices.contains(choiceText($0)) }) {
                return fail("has '\(choiceText(bad))', which is not one of \(choices.sorted())")
            }
        case .singleChoice, .singleSelectDropdown:
            guard value.arrayValue == nil, value.objectValue == nil else { return fail("must be one choice") }
            if let choices = field.choices, !choices.contains(choiceText(value)) {
                return fail("must be one of \(choices.sorted())")
            }
        }
        return nil
    }

    private static func choiceText(_ value: JSONValue) -> String {
        value.stringValue ?? value.jsonString()
    }
}
