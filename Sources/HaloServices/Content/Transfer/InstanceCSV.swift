import Foundation

/// A module's instances as CSV (RFC 4180), for spreadsheets: a header row, then one row per
/// instance with `id`, `name` and one column per field, a localized field as one column per
/// locale (`title[es-ES]`), relations by instance id. Values are written as text a spreadsheet
/// shows well (dates in ISO 8601, lists and objects as JSON) and read back as text: the server
/// converts each cell for its field's type (docs/protocol.md §23.11), so one set of rules decides.
///
/// Cells a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a
/// carriage return) are written with a leading `'`, which reading removes again.
enum InstanceCSV {
    /// Characters that make a spreadsheet read a cell as a formula.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    // MARK: Writing

    static func write(_ instances: [ContentInstance], fields: [ModuleField]) -> String {
        var columns: [(header: String, value: (ContentInstance) -> JSONValue?, type: FieldType?)] = [
            ("id", { $0.id.map(JSONValue.string) }, nil), ("name", { .string($0.name) }, nil),
        ]
        for field in fields {
            let type = field.fieldType?.type
            if type == .localizedText {
                let locales = Set(instances.flatMap { $0.values[field.name]?.objectValue?.keys.map { $0 } ?? [] }).sorted()
                for locale in locales {
                    columns.append(("\(field.name)[\(locale)]", { $0.values[field.name]?[locale] }, .text))
                }
            } else {
                columns.append((field.name, { $0.values[field.name] }, type))
            }
        }
        var text = columns.map { cell($0.header) }.joined(separator: ",") + "\r\n"
        for instance in instances {
            text +=
                columns.map { column in cell(column.value(instance).map { format($0, as: column.type) } ?? "") }
                .joined(separator: ",") + "\r\n"
        }
        return text
    }

    /// A value as the text of its cell.
    static func format(_ value: JSONValue, as type: FieldType?) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            // Dates in ISO 8601 (a day alone when it is 00:00 UTC); one with milliseconds stays a number.
            if type == .date, number.rounded() == number, Int64(number) % 1000 == 0 {
                let date = Date(timeIntervalSince1970: number / 1000)
                if Int64(number) % 86_400_000 == 0 {
                    return String(ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: .withFullDate))
                }
                return ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: .withInternetDateTime)
            }
            return JSONValue.canonicalText(of: number)
        case .array, .object: return value.jsonString()
        }
    }

    /// Quoted when it must be, neutralised when a spreadsheet would run it.
    static func cell(_ text: String) -> String {
        var text = text
        if let first = text.first, formulaStarts.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Reading

    /// One data row: its line in the file (1 is the header) and its instance object.
    struct Row: Sendable {
        var line: Int
        var instance: [String: JSONValue]
    }

    /// Reads rows into instance objects with text values (the server converts them). Throws, with
    /// the line, for a malformed file or a header that names no field of the module.
    static func read(_ text: String, fields: [ModuleField]) throws(HaloError) -> [Row] {
        let records = try parse(text)
        guard let header = records.first else { throw .invalidInput(message: "The CSV file is empty: it needs a header row") }
        let names = Set(fields.map(\.name))
        let localized = Set(fields.filter { $0.fieldType?.type == .localizedText }.map(\.name))
        enum Column { case id, name, field(String), localized(String, String) }
        let columns = try header.cells.map { title throws(HaloError) -> Column in
            if title == "id" { return .id }
            if title == "name" { return .name }
            if let open = title.firstIndex(of: "["), title.hasSuffix("]") {
                let field = String(title[..<open])
                let locale = String(title[title.index(after: open)..<title.index(before: title.endIndex)])
                if localized.contains(field) { return .localized(field, locale) }
            }
            guard names.contains(title) else {
                throw .invalidInput(
                    message:
                        "Line 1: the column '\(title)' is not a field of this module (fields: \(fields.map(\.name).joined(separator: ", ")))"
                )
            }
            return .field(title)
        }
        return records.dropFirst().compactMap { record -> Row? in
            if record.cells.allSatisfy(\.isEmpty) { return nil }  // a blank line
            var instance: [String: JSONValue] = [:]
            var values: [String: JSONValue] = [:]
            for (index, column) in columns.enumerated() {
                let text = index < record.cells.count ? unneutralised(record.cells[index]) : ""
                switch column {
                case .id: if !text.isEmpty { instance["id"] = .string(text) }
                case .name: instance["name"] = .string(text)
                case .field(let name): if !text.isEmpty { values[name] = .string(text) }
                case .localized(let name, let locale):
                    guard !text.isEmpty else { continue }
                    var perLocale = values[name]?.objectValue ?? [:]
                    perLocale[locale] = .string(text)
                    values[name] = .object(perLocale)
                }
            }
            instance["values"] = .object(values)
            return Row(line: record.line, instance: instance)
        }
    }

    private static func unneutralised(_ text: String) -> String {
        guard text.first == "'", let second = text.dropFirst().first, formulaStarts.contains(second) else { return text }
        return String(text.dropFirst())
    }

    /// RFC 4180 records with the line each starts on (quoted cells may span lines).
    static func parse(_ text: String) throws(HaloError) -> [(line: Int, cells: [String])] {
        var records: [(line: Int, cells: [String])] = []
        var cells: [String] = []
        var cell = ""
        var inQuotes = false
        var line = 1, recordLine = 1
        var characters = text.makeIterator()
        var pending: Character? = nil
        func next() -> Character? {
            if let waiting = pending {
                pending = nil
                return waiting
            }
            return characters.next()
        }
        while let character = next() {
            if inQuotes {
                if character == "\"" {
                    if let following = next() {
                        if following == "\"" { cell.append("\"") } else { inQuotes = false; pending = following }
                    } else {
                        inQuotes = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    cell.append(character)
                }
                continue
            }
            switch character {
            case "\"" where cell.isEmpty: inQuotes = true
            case ",":
                cells.append(cell)
                cell = ""
            case "\n", "\r\n", "\r":
                cells.append(cell)
                records.append((recordLine, cells))
                (cells, cell) = ([], "")
                line += 1
                recordLine = line
            default: cell.append(character)
            }
        }
        if inQuotes { throw .invalidInput(message: "Line \(recordLine): a quoted cell is never closed") }
        if !cell.isEmpty || !cells.isEmpty {
            cells.append(cell)
            records.append((recordLine, cells))
        }
        return records
    }
}
