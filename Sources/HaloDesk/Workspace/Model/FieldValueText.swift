import Foundation
import HaloServices

/// Converts instance values to the text the workspace shows and edits, and parses edited text
/// back, validating it by field kind. Bad input becomes a `FieldValueError` sentence.
enum FieldValueText {
    /// Milliseconds in a day: a time-of-day value is below it.
    static let day: Double = 86_400_000

    /// Dates are shown and typed in the user's time zone as `yyyy-MM-dd HH:mm`.
    static func format(date: Date) -> String { DisplayFormat.minute(date) }

    /// The text shown for `value` (read-only display and editor starting text).
    static func display(_ value: JSONValue?, kind: FieldKind) -> String {
        guard let value, value != .null else { return "" }
        switch (kind, value) {
        case (.date, .number(let milliseconds)):
            return format(date: Date(timeIntervalSince1970: milliseconds / 1000))
        case (.day, .number(let milliseconds)): return DisplayFormat.utcDay(milliseconds)
        case (.time, .number(let milliseconds)):
            // HALO's own CMS stored a time as a whole instant: its time of day where the user is.
            return (0..<Self.day).contains(milliseconds)
                ? DisplayFormat.timeOfDay(millisecondsSinceMidnight: milliseconds)
                : DisplayFormat.localTimeOfDay(Date(timeIntervalSince1970: milliseconds / 1000))
        case (.boolean, .bool(let flag)): return flag ? "Yes" : "No"
        case (.number, .number(let number)): return formatNumber(number)
        case (.relations, .array(let ids)): return ids.compactMap(\.stringValue).joined(separator: ", ")
        case (_, .string(let text)): return text
        default: return json(value)
        }
    }

    /// Parses edited text for a field of `kind`. Empty text clears the value (nil) except for
    /// numbers, where it is an error only if the text is not a number.
    static func parse(_ text: String, kind: FieldKind, field: String) throws(FieldValueError) -> JSONValue? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        switch kind {
        case .text, .longText: return .string(text)
        case .link:
            guard WebAddress.isValid(trimmed) else {
                throw FieldValueError("“\(field)” must be a web address starting with https:// or http://.", field: field)
            }
            return .string(trimmed)
        case .number:
            guard let number = Double(trimmed), number.isFinite else {
                throw FieldValueError("“\(field)” must be a number, not “\(trimmed)”.", field: field)
            }
            return .number(number)
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true", "1", "on": return .bool(true)
            case "no", "false", "0", "off": return .bool(false)
            default: throw FieldValueError("“\(field)” must be yes or no, not “\(trimmed)”.", field: field)
            }
        case .date:
            guard let date = parseDate(trimmed) else {
                throw FieldValueError("“\(field)” must be a date like 2026-11-21 or 2026-11-21 14:30, not “\(trimmed)”.", field: field)
            }
            return .number((date.timeIntervalSince1970 * 1000).rounded())
        case .day:
            guard let milliseconds = DisplayFormat.utcMidnight(ofDay: trimmed) else {
                throw FieldValueError("“\(field)” must be a date like 2026-11-21, not “\(trimmed)”.", field: field)
            }
            return .number(milliseconds)
        case .time:
            guard let milliseconds = DisplayFormat.millisecondsSinceMidnight(trimmed) else {
                throw FieldValueError("“\(field)” must be a time of day like 19:30, not “\(trimmed)”.", field: field)
            }
            return .number(milliseconds)
        case .image:
            guard let url = URL(string: trimmed), url.scheme == "http" || url.scheme == "https" else {
                throw FieldValueError("“\(field)” must be an http(s) image address.", field: field)
            }
            return .string(trimmed)
        case .relation:
            guard FieldKind.isInstanceID(trimmed) else {
                throw FieldValueError("“\(field)” must be an instance id (24 hexadecimal characters).", field: field)
            }
            return .string(trimmed)
        case .relations:
            let ids = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if let bad = ids.first(where: { !FieldKind.isInstanceID($0) }) {
                throw FieldValueError("“\(field)” must list instance ids separated by commas; “\(bad)” is not one.", field: field)
            }
            return .array(ids.map(JSONValue.string))
        case .list, .object, .localized:
            let value: JSONValue
            do { value = try JSONDecoder().decode(JSONValue.self, from: Data(trimmed.utf8)) } catch {
                throw FieldValueError("“\(field)” must be valid JSON.", field: field)
            }
            switch (kind, value) {
            case (.list, .array), (.object, .object): return value
            case (.localized, .object(let members)) where members.values.allSatisfy({ $0.stringValue != nil }):
                return value
            case (.list, _): throw FieldValueError("“\(field)” must be a JSON list, like [\"a\", \"b\"].", field: field)
            case (.localized, _): throw FieldValueError("“\(field)” must map locales to texts, like {\"en-US\": \"Hello\"}.", field: field)
            default: throw FieldValueError("“\(field)” must be a JSON object, like {\"key\": \"value\"}.", field: field)
            }
        }
    }

    static func json(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func formatNumber(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    private static func parseDate(_ text: String) -> Date? { DisplayFormat.parseDate(text) }
}

/// What is wrong with an edit, in the user's words, and the field it is about (nil: the edit as
/// a whole, e.g. a missing name). The one shape of field errors in the app: the editor shows it
/// under its field, whether the app or the server found it (`HaloError.fieldProblem`).
struct FieldValueError: Error, Equatable, CustomStringConvertible {
    let description: String
    let field: String?
    init(_ description: String, field: String? = nil) {
        self.description = description
        self.field = field
    }
}
