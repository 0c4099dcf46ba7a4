import Foundation
import GRDB
import XCTest

@testable import HaloContentStore
@testable import HaloServices

// What SyncGoldenCorpusTests needs to record today's sync answers, cache rows and search answers
// as stable text and to compare them with the committed golden files (Tests/Fixtures/golden).

/// JSON exactly as written: a number keeps its text (`12`, `12.0` and `1.2e1` stay three different
/// values, which `JSONValue` would fold into one Double). Objects are written with their keys
/// sorted: member order carries no meaning in JSON, and a faster encoder may choose another.
indirect enum GoldenJSON: Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([GoldenJSON])
    case object([String: GoldenJSON])

    subscript(key: String) -> GoldenJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var arrayValue: [GoldenJSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value of a number written as a whole number (`17…`, not `17….0`).
    var integerValue: Int64? {
        if case .number(let text) = self, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }) { return Int64(text) }
        return nil
    }

    /// A value built by the test (a request body): the store's canonical text, read back.
    init(_ value: JSONValue) throws {
        self = try GoldenJSONParser.parse(Data(value.compactJSONText.utf8))
    }

    /// One table cell with its SQLite storage class visible: an integer is written `12`, a real
    /// `12.0` (never `12`), text as a string, a blob as `{"blob": hex}`. Columns holding JSON
    /// text are embedded as parsed JSON (keys sorted, number texts kept).
    init(_ value: DatabaseValue, jsonText: Bool) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .number(String(number))
        case .double(let number): self = .number("\(number)")
        case .string(let text):
            self = jsonText ? (try? GoldenJSONParser.parse(Data(text.utf8))) ?? .string(text) : .string(text)
        case .blob(let data): self = .object(["blob": .string(data.map { String(format: "%02x", $0) }.joined())])
        }
    }

    /// One line of JSON.
    var compactText: String {
        var out = ""
        write(into: &out, depth: 0, expandBelow: 0)
        return out
    }

    /// Readable text with one row per line: containers less than `expandBelow` deep are spread
    /// over lines when they hold containers (or are objects); deeper ones stay on one line, so
    /// that a table row, a synced instance or a query's answer is one line of the file.
    func text(expandBelow: Int) -> String {
        var out = ""
        write(into: &out, depth: 0, expandBelow: expandBelow)
        return out + "\n"
    }

    private func write(into out: inout String, depth: Int, expandBelow: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): JSONValue.writeString(text, into: &out)
        case .array(let items):
            let expand = depth < expandBelow && items.contains { $0.isContainer }
            guard expand, !items.isEmpty else {
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += "," }
                    item.write(into: &out, depth: depth + 1, expandBelow: 0)
                }
                out += "]"
                return
            }
            let indent = String(repeating: "  ", count: depth + 1)
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent
                item.write(into: &out, depth: depth + 1, expandBelow: expandBelow)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: depth) + "]"
        case .object(let members):
            let keys = members.keys.sorted()
            guard depth < expandBelow, !keys.isEmpty else {
                out += "{"
                for (index, key) in keys.enumerated() {
                    if index > 0 { out += "," }
                    JSONValue.writeString(key, into: &out)
                    out += ":"
                    members[key]?.write(into: &out, depth: depth + 1, expandBelow: 0)
                }
                out += "}"
                return
            }
            let indent = String(repeating: "  ", count: depth + 1)
            out += "{\n"
            for (index, key) in keys.enumerated() {
                out += indent
                JSONValue.writeString(key, into: &out)
                out += ": "
                members[key]?.write(into: &out, depth: depth + 1, expandBelow: expandBelow)
                out += index == keys.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: depth) + "}"
        }
    }

    private var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

}

struct GoldenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A strict JSON reader that keeps each number's text (see `GoldenJSON`) and refuses duplicate
/// keys, trailing bytes and anything else that is not JSON: an answer the server garbles fails
/// the test instead of being read leniently.
struct GoldenJSONParser {
    private let bytes: [UInt8]
    private var index = 0

    static func parse(_ data: Data) throws -> GoldenJSON {
        var parser = GoldenJSONParser(bytes: [UInt8](data))
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("trailing bytes") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> GoldenError {
        GoldenError("not JSON at byte \(index): \(message)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value() throws -> GoldenJSON {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw error("expected \(word)")
        }
        index += expected.count
    }

    private mutating func object() throws -> GoldenJSON {
        index += 1
        var members: [String: GoldenJSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            guard members[key] == nil else { throw error("duplicate key \(key)") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            members[key] = try value()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    private mutating func array() throws -> GoldenJSON {
        index += 1
        var items: [GoldenJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(items)
        }
    }

    private mutating func string() throws -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard index < bytes.count else { throw error("unexpected end") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        try literal("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("bad \\u escape") }
                    scalars.append(scalar)
                default: throw error("bad escape")
                }
            case 0..<0x20: throw error("control character in a string")
            default: run.append(byte)
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - index >= 4, let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { throw error("bad \\u escape") }
        index += 4
        return code
    }

    /// The number's text as written, checked against JSON's number grammar.
    private mutating func number() throws -> String {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let whole = digits()
        guard whole > 0, whole == 1 || bytes[index - whole] != UInt8(ascii: "0") else { throw error("bad number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("bad number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("bad number") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}

/// Replaces what the server makes up at run time with stable names, and nothing else.
///
/// - Times: every whole number in the run's time window (from the test's start to now) is a
///   stamp the server's clock gave. A write stamp (`createdAt`, `updatedAt`, `deletedAt` and
///   their snake_case columns) becomes `<tN>`, N its rank among all the write stamps recorded (the
///   server's `MonotonicClock` makes every write stamp distinct and increasing, so the ranks
///   follow the order of the test's writes). A sync stamp (`syncTimestamp`, `fromSync`,
///   `sync_timestamp`, `sync_date`) becomes `<sync after tN>`, N the number of write stamps at or
///   before it: the clock hands a sync the current time, which may or may not equal the last
///   write's stamp, so only "after which write" is stable. A time in the window under any other key
///   is an error, so no run-dependent value can slip into a golden file unnoticed.
/// - Server-made ids (module ids: 24 hex digits, seconds since 1970 first) become `<module NAME>`;
///   any such id left over is an error. Instances use ids the test chose, kept as they are.
///
/// Numbers keep their text: `12`, `12.0` and `"12"` stay different, and a time written `….0`
/// is not a stamp (it stays as it is and fails the comparison).
struct GoldenNormalizer {
    static let writeStampKeys: Set<String> = ["createdAt", "updatedAt", "deletedAt", "created_at", "updated_at", "deleted_at"]
    static let syncStampKeys: Set<String> = ["syncTimestamp", "fromSync", "sync_timestamp", "sync_date"]

    let window: ClosedRange<Int64>
    /// Server-made text (ids) → its stable name.
    var names: [String: String] = [:]
    private var writeStamps: [Int64] = []

    init(window: ClosedRange<Int64>) { self.window = window }

    /// Learns the write stamps of `value`; call it on every document before `normalize`.
    mutating func collectStamps(_ value: GoldenJSON, key: String? = nil) {
        switch value {
        case .number:
            if let key, Self.writeStampKeys.contains(key), let stamp = value.integerValue, window.contains(stamp) {
                writeStamps.append(stamp)
            }
        case .array(let items): for item in items { collectStamps(item, key: key) }
        case .object(let members):
            if let table = Self.table(members) {
                for row in table.rows { for (column, cell) in zip(table.columns, row) { collectStamps(cell, key: column) } }
            } else {
                for (member, item) in members { collectStamps(item, key: member) }
            }
        default: break
        }
    }

    /// Call once every document has been collected.
    mutating func rankStamps() {
        writeStamps = Array(Set(writeStamps)).sorted()
    }

    func normalize(_ value: GoldenJSON, key: String? = nil, path: String) throws -> GoldenJSON {
        switch value {
        case .null, .bool: return value
        case .number:
            guard let stamp = value.integerValue, window.contains(stamp) else { return value }
            let before = writeStamps.count(where: { $0 <= stamp })
            if let key, Self.syncStampKeys.contains(key) { return .string("<sync after t\(before)>") }
            if let rank = writeStamps.firstIndex(of: stamp) { return .string("<t\(rank + 1)>") }
            throw GoldenError("\(path): \(stamp) looks like a server time but '\(key ?? "")' is no known stamp key")
        case .string(let text):
            var named = text
            for (made, name) in names where named.contains(made) {
                named = named.replacingOccurrences(of: made, with: name)
            }
            if let id = serverMadeId(in: named) { throw GoldenError("\(path): server-made id \(id) has no stable name (in \(named))") }
            return .string(named)
        case .array(let items):
            return .array(try items.enumerated().map { try normalize($1, key: key, path: "\(path)[\($0)]") })
        case .object(let members):
            if let table = Self.table(members) {
                let rows = try table.rows.enumerated().map { index, row in
                    GoldenJSON.array(
                        try zip(table.columns, row).map { column, cell in
                            try normalize(cell, key: column, path: "\(path).rows[\(index)].\(column)")
                        })
                }
                var normalized = members
                normalized["rows"] = .array(rows)
                return .object(normalized)
            }
            var normalized: [String: GoldenJSON] = [:]
            for (member, item) in members { normalized[member] = try normalize(item, key: member, path: "\(path).\(member)") }
            return .object(normalized)
        }
    }

    /// A table as `GoldenCache` writes it: `{"columns": [names], "rows": [[cells]]}`; its cells are
    /// normalized under their column's name.
    private static func table(_ members: [String: GoldenJSON]) -> (columns: [String], rows: [[GoldenJSON]])? {
        guard members.count == 2, let columns = members["columns"]?.arrayValue?.compactMap(\.stringValue),
            let rows = members["rows"]?.arrayValue?.compactMap(\.arrayValue)
        else { return nil }
        return (columns, rows)
    }

    /// A 24-hex-digit run whose first 8 digits are a time in the window (`Identifiers.objectID`).
    private func serverMadeId(in text: String) -> String? {
        let hex = Array(text.utf8)
        guard hex.count >= 24 else { return nil }
        var start = 0
        while start + 24 <= hex.count {
            let run = hex[start..<(start + 24)]
            if run.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                let seconds = Int64(String(decoding: run.prefix(8), as: UTF8.self), radix: 16),
                window.contains(seconds * 1000) || window.contains(seconds * 1000 + 999)
            {
                return String(decoding: run, as: UTF8.self)
            }
            start += 1
        }
        return nil
    }
}

/// The rows of the SDK's cache that a sync writes, made stable: integer keys that depend on
/// insertion order (`content_instance.pk`, `content_field.field`) are replaced by what they stand
/// for (the instance's id, the field's name), and rows are sorted by content, not by key.
enum GoldenCache {
    /// Columns holding JSON text, embedded as parsed JSON.
    static let jsonColumns: Set<String> = ["values_json", "tags_json", "extra_json"]

    /// `sortKey` turns a server-made id into the name it will be given (so that rows sort the same
    /// in every run).
    static func dump(_ cache: HaloCache, sortKey: @escaping (String) -> String) throws -> GoldenJSON {
        // A writer connection: the trigram index is read through a temporary fts5vocab table.
        try cache.write { db in
            // The cache writes a field's value rows when a search first compares it: the corpus
            // holds them all, as the code before that wrote them with every sync.
            try ContentTables.indexValues(ofFields: Int64.fetchAll(db, sql: "SELECT field FROM content_field WHERE indexed = 0"), in: db)
            var tables: [String: GoldenJSON] = [:]
            var instanceIds: [Int64: String] = [:]
            var instanceModules: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT pk, id, module FROM content_instance") {
                let pk: Int64 = row["pk"]
                instanceIds[pk] = row["id"] as String
                instanceModules[pk] = row["module"] as String
            }
            var fields: [Int64: (module: String, name: String)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT field, module, name FROM content_field") {
                let number: Int64 = row["field"]
                fields[number] = (row["module"] as String, row["name"] as String)
            }
            func instance(_ pk: DatabaseValue) -> GoldenJSON {
                guard let pk = Int64.fromDatabaseValue(pk) else { return .null }
                return .string(instanceIds[pk] ?? "<no instance row, pk \(pk)>")
            }
            func field(_ number: DatabaseValue, of pk: DatabaseValue) -> GoldenJSON {
                guard let number = Int64.fromDatabaseValue(number), let known = fields[number] else {
                    return .string("<no field row, field \(number)>")
                }
                let module = Int64.fromDatabaseValue(pk).flatMap { instanceModules[$0] }
                return .string(module == known.module ? known.name : "\(known.module)/\(known.name)")
            }
            let trigrams = try indexedTexts(db)
            var seenTrigramDocs: Set<Int64> = []

            tables["content_instance"] = try table(db, "SELECT * FROM content_instance", drop: ["pk"]) { row in
                [sortKey(row["id"] ?? "")]
            }
            tables["content_body"] = try table(
                db, "SELECT i.id AS instance_id, b.* FROM content_body AS b LEFT JOIN content_instance AS i ON i.pk = b.pk",
                drop: ["pk"],
                replace: { column, value, row in column == "instance_id" && value.isNull ? instance(row["pk"]) : nil }
            ) { row in [row["instance_id"] ?? "", String(row["pk"] as Int64)] }
            tables["content_field"] = try table(db, "SELECT * FROM content_field", drop: ["field", "indexed"]) { row in
                [sortKey(row["module"] ?? ""), row["name"] ?? ""]
            }
            tables["content_value"] = try table(
                db, "SELECT *, instance AS instance_pk, field AS field_number, '' AS indexed FROM content_value",
                drop: ["instance_pk", "field_number"],
                replace: { column, _, row in
                    switch column {
                    case "instance": return instance(row["instance_pk"])
                    case "field": return field(row["field_number"], of: row["instance_pk"])
                    case "indexed":
                        // What the trigram index holds for this value, rebuilt from its trigrams: true
                        // when it is the value's folded text, null when nothing (a string not indexed,
                        // or shorter than a trigram), else the text it holds.
                        let rowid = trigramRowid(field: row["field_number"], instance: row["instance_pk"], ord: row["ord"])
                        seenTrigramDocs.insert(rowid)
                        guard let indexed = trigrams[rowid] else { return .null }
                        let folded: String? = row["folded"]
                        let text: String? = row["str"]
                        return indexed == (folded ?? text) ? .bool(true) : .string(indexed)
                    default: return nil
                    }
                }
            ) { row in
                let name = field(row["field_number"], of: row["instance_pk"]).stringValue ?? ""
                return [instance(row["instance_pk"]).stringValue ?? "", name, padded(row["ord"])]
            }
            // Index entries no value row accounts for (the writer must remove them with the values).
            let strays = trigrams.keys.filter { !seenTrigramDocs.contains($0) }.sorted()
            tables["content_trigram_without_value"] = .object([
                "columns": .array([.string("field"), .string("instance"), .string("ord"), .string("text")]),
                "rows": .array(
                    strays.map { rowid in
                        let number = rowid >> 40
                        let pk = (rowid >> 8) & 0xFFFF_FFFF
                        return .array([
                            .string(fields[number]?.name ?? "<field \(number)>"), .string(instanceIds[pk] ?? "<pk \(pk)>"),
                            .number(String(rowid & 0xFF)), .string(trigrams[rowid] ?? ""),
                        ])
                    }),
            ])
            tables["content_tag"] = try table(
                db, "SELECT *, instance AS instance_pk FROM content_tag", drop: ["instance_pk"],
                replace: { column, _, row in column == "instance" ? instance(row["instance_pk"]) : nil }
            ) { row in [instance(row["instance_pk"]).stringValue ?? "", padded(row["ord"])] }
            tables["cache_sync_state"] = try table(db, "SELECT * FROM cache_sync_state") { row in [sortKey(row["sync_key"] ?? "")] }
            tables["cache_sync_module"] = try table(db, "SELECT * FROM cache_sync_module") { row in
                [sortKey(row["sync_key"] ?? ""), sortKey(row["module_id"] ?? "")]
            }
            // `seq` counts every sync of the file; the order of one key's entries is what matters.
            tables["cache_sync_log"] = try table(db, "SELECT * FROM cache_sync_log", drop: ["seq"]) { row in
                [sortKey(row["sync_key"] ?? ""), padded(row["seq"])]
            }
            return .object(tables)
        }
    }

    /// Every row of `sql` as `{"columns", "rows"}`, without the `drop` columns, sorted by `sortKey`;
    /// `replace` may give a cell another value (an id instead of a pk).
    private static func table(
        _ db: Database, _ sql: String, drop: Set<String> = [],
        replace: (String, DatabaseValue, Row) -> GoldenJSON? = { _, _, _ in nil }, sortKey: (Row) -> [String]
    ) throws -> GoldenJSON {
        let statement = try db.makeStatement(sql: sql)
        let columns = statement.columnNames.filter { !drop.contains($0) }
        let rows = try Row.fetchAll(statement)
        let keyed = rows.map { row in
            let cells = columns.map { column in
                let value: DatabaseValue = row[column]
                return replace(column, value, row) ?? GoldenJSON(value, jsonText: jsonColumns.contains(column))
            }
            return (key: sortKey(row), cells: cells)
        }
        let sorted = keyed.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        return .object([
            "columns": .array(columns.map(GoldenJSON.string)), "rows": .array(sorted.map { .array($0.cells) }),
        ])
    }

    /// A number as text that sorts like the number.
    private static func padded(_ number: Int64) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// `TrigramIndex`'s rowid of a value row.
    private static func trigramRowid(field: DatabaseValue, instance: DatabaseValue, ord: DatabaseValue) -> Int64 {
        let field = Int64.fromDatabaseValue(field) ?? -1
        let instance = Int64.fromDatabaseValue(instance) ?? -1
        let ord = Int64.fromDatabaseValue(ord) ?? -1
        return (field << 40) | (instance << 8) | ord
    }

    /// The text of each document of the contentless trigram index, rebuilt from its trigrams
    /// and their positions (`detail = full`): the first trigram, then the last character of
    /// each next one. A gap in the positions is written as `…`.
    private static func indexedTexts(_ db: Database) throws -> [Int64: String] {
        try db.execute(sql: "CREATE VIRTUAL TABLE temp.golden_trigram_terms USING fts5vocab(main, content_trigram, instance)")
        defer { try? db.execute(sql: "DROP TABLE temp.golden_trigram_terms") }
        var texts: [Int64: String] = [:]
        var expected: [Int64: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT doc, \"offset\", term FROM temp.golden_trigram_terms ORDER BY doc, \"offset\"") {
            let doc: Int64 = row["doc"]
            let offset: Int64 = row["offset"]
            let term: String = row["term"]
            if let text = texts[doc] {
                let gap = offset != expected[doc] ? "…" : ""
                texts[doc] = text + gap + (gap.isEmpty ? String(term.suffix(1)) : term)
            } else {
                texts[doc] = offset == 0 ? term : "…" + term
            }
            expected[doc] = offset + 1
        }
        return texts
    }
}

/// The golden files: written when `HALO_RECORD_GOLDEN=1`, otherwise compared line by line.
enum GoldenFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/golden")

    static var isRecording: Bool { ProcessInfo.processInfo.environment["HALO_RECORD_GOLDEN"] == "1" }

    /// Records or checks every file; `files` maps file names to their text. Golden `.json` files
    /// that nothing produces any more are a failure too (or deleted when recording).
    static func verify(_ files: [(name: String, text: String)], file: StaticString = #filePath, line: UInt = #line) throws {
        let manager = FileManager.default
        let existing = Set(
            (try? manager.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".json") } ?? [])
        let produced = Set(files.map(\.name))
        if isRecording {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
            for stale in existing.subtracting(produced) { try manager.removeItem(at: directory.appendingPathComponent(stale)) }
            print("SyncGoldenCorpusTests: recorded \(files.count) golden files in \(directory.path)")
            return
        }
        for stale in existing.subtracting(produced).sorted() {
            XCTFail("Tests/Fixtures/golden/\(stale) is no longer produced by the test; re-record or delete it", file: file, line: line)
        }
        // What this run produced, beside the golden files, for `diff -u`.
        let actualDirectory = manager.temporaryDirectory.appendingPathComponent("halo-golden-actual")
        var wroteActual = false
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            guard let golden = try? String(contentsOf: url, encoding: .utf8) else {
                XCTFail(
                    "Tests/Fixtures/golden/\(name) is missing: record the golden files with HALO_RECORD_GOLDEN=1 "
                        + "swift test --skip-build --filter SyncGoldenCorpusTests",
                    file: file, line: line)
                continue
            }
            guard let difference = firstDifference(golden: golden, actual: text) else { continue }
            if !wroteActual {
                try manager.createDirectory(at: actualDirectory, withIntermediateDirectories: true)
                wroteActual = true
            }
            let actualURL = actualDirectory.appendingPathComponent(name)
            try Data(text.utf8).write(to: actualURL)
            XCTFail(
                """
                Tests/Fixtures/golden/\(name) differs from what today's code produced, \(difference)
                Full output of this run: \(actualURL.path) (diff -u Tests/Fixtures/golden/\(name) \(actualURL.path)).
                If the change is intended, re-record with HALO_RECORD_GOLDEN=1 and review the diff of the golden files.
                """,
                file: file, line: line)
        }
    }

    /// Where two texts first differ, as "at line N (column C): golden … / actual …", with how
    /// many lines only one side has (a moved line counts on neither side), or nil.
    static func firstDifference(golden: String, actual: String) -> String? {
        let expected = golden.split(separator: "\n", omittingEmptySubsequences: false)
        let got = actual.split(separator: "\n", omittingEmptySubsequences: false)
        guard
            let first = (0..<max(expected.count, got.count)).first(where: { index in
                (index < expected.count ? expected[index] : nil) != (index < got.count ? got[index] : nil)
            })
        else { return nil }
        var balance: [Substring: Int] = [:]
        for line in expected { balance[line, default: 0] += 1 }
        for line in got { balance[line, default: 0] -= 1 }
        let onlyGolden = balance.values.filter { $0 > 0 }.reduce(0, +)
        let onlyActual = -balance.values.filter { $0 < 0 }.reduce(0, +)
        let a = first < expected.count ? String(expected[first]) : nil
        let b = first < got.count ? String(got[first]) : nil
        let column = zip(Array(a ?? ""), Array(b ?? "")).prefix { $0 == $1 }.count
        func excerpt(_ line: String?) -> String {
            guard let line else { return "<end of file>" }
            let characters = Array(line)
            let from = max(0, column - 80)
            let to = min(characters.count, column + 80)
            return (from > 0 ? "…" : "") + String(characters[from..<to]) + (to < characters.count ? "…" : "")
        }
        return """
            first at line \(first + 1), column \(column + 1) (\(onlyGolden) lines only in the golden file, \(onlyActual) only \
            in this run's output):
              golden: \(excerpt(a))
              actual: \(excerpt(b))
            """
    }
}
