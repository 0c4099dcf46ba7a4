import Foundation
import GRDB

/// Turns content rows back into `WireInstance`s.
enum ContentReader {
    /// The select list every reader uses, in the order `instance(from:)` expects.
    static let columns = """
        i.pk, i.id, i.module, i.name, i.created_at, i.updated_at, i.published_at, i.removed_at, i.archived_at,
        i.deleted_at, i.created_by, i.updated_by, i.deleted_by, i.customer_id, i.revision,
        b.values_json, b.tags_json, b.extra_json
        """
    /// The place in `columns` of a `content_instance` column.
    static func columnIndex(of column: String) -> Int {
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2) }
        return names.firstIndex { $0 == column } ?? 0
    }
    /// `FROM` clause matching `columns`.
    static let source = "content_instance i JOIN content_body b ON b.pk = i.pk"

    static func instance(from row: some ContentRow) throws -> WireInstance {
        let id = row.text(1) ?? ""
        let valuesText = row.text(15) ?? ""
        let tagsText = row.text(16) ?? ""
        let extraText = row.text(17)
        let values: [String: JSONValue]
        let tags: [WireTag]
        var extra: [String: JSONValue] = [:]
        do {
            guard case .object(let object) = try JSONParser.parse(valuesText),
                case .array(let tagList) = try JSONParser.parse(tagsText)
            else {
                throw JSONValueError("unexpected JSON shape")
            }
            values = object
            tags = try tagList.map(WireTag.init(stored:))
            if let extraText, case .object(let object) = try JSONParser.parse(extraText) { extra = object }
        } catch {
            throw ContentStoreError.corruptData("the stored body of instance \(id) is unreadable (\(error))")
        }
        return WireInstance(
            id: id, module: row.text(2) ?? "", name: row.text(3) ?? "", values: values, tags: tags,
            createdAt: row.integer(4), updatedAt: row.integer(5), publishedAt: row.integer(6), removedAt: row.integer(7),
            archivedAt: row.integer(8), deletedAt: row.integer(9), createdBy: row.text(10), updatedBy: row.text(11),
            deletedBy: row.text(12), customerId: row.integer(13).map(Int.init), revision: row.integer(14).map(Int.init),
            pushSchedule: extra["pushSchedule"], externalId: extra["externalId"])
    }

    /// Appends the wire JSON of the instance in `row` (`columns`): the keys and explicit nulls of
    /// `WireInstance.encode(to:)`, with the stored text of its values and tags copied as it is
    /// (the writer stored them compact, keys sorted). With a `locale` and localized fields in the
    /// instance's module, the values are parsed to keep one locale's text of each of those fields.
    static func writeWireJSON(
        of row: some ContentRow, locale: String?, localizedFields: @autoclosure () -> Set<String>, into out: inout String
    ) throws {
        let id = row.text(1) ?? ""
        let valuesText = row.text(15) ?? ""
        let tagsText = row.text(16) ?? ""
        // The writer stores an object and an array; anything else is damage, not to be sent.
        guard valuesText.utf8.first == UInt8(ascii: "{"), tagsText.utf8.first == UInt8(ascii: "[") else {
            throw ContentStoreError.corruptData("the stored body of instance \(id) is unreadable")
        }
        func string(_ text: String?) {
            if let text { JSONValue.writeString(text, into: &out) } else { out += "null" }
        }
        out += "{\"id\":"
        JSONValue.writeString(id, into: &out)
        out += ",\"module\":"
        string(row.text(2))
        out += ",\"name\":"
        string(row.text(3))
        out += ",\"values\":"
        if let locale, case let fields = localizedFields(), !fields.isEmpty {
            guard case .object(var values) = try? JSONParser.parse(valuesText) else {
                throw ContentStoreError.corruptData("the stored body of instance \(id) is unreadable")
            }
            WireInstance.localize(&values, to: locale, fields: fields)
            JSONValue.writeObject(values, into: &out)
        } else {
            out += valuesText
        }
        out += ",\"tags\":"
        out += tagsText
        // Dates and editors are always present (null when unset); customerId and revision only when set.
        for column in 4...9 {
            out += wireKeys[column - 4]
            out += row.integer(column).map { String($0) } ?? "null"
        }
        for column in 10...12 {
            out += wireKeys[column - 4]
            string(row.text(column))
        }
        for column in 13...14 {
            guard let value = row.integer(column) else { continue }
            out += wireKeys[column - 4]
            out += String(value)
        }
        var extra: [String: JSONValue] = [:]
        if let extraText = row.text(17), case .object(let object)? = try? JSONParser.parse(extraText) { extra = object }
        out += ",\"pushSchedule\":"
        JSONValue.write(extra["pushSchedule"] ?? .null, into: &out)
        out += ",\"externalId\":"
        JSONValue.write(extra["externalId"] ?? .null, into: &out)
        out += "}"
    }

    /// `,"key":` of the metadata columns 4 … 14 of `columns`, in `WireInstance.encode(to:)`'s order.
    private static let wireKeys = [
        "createdAt", "updatedAt", "publishedAt", "removedAt", "archivedAt", "deletedAt",
        "createdBy", "updatedBy", "deletedBy", "customerId", "revision",
    ].map { ",\"\($0)\":" }

    /// Instances by primary key, in the order of `pks` (missing ones skipped).
    static func instances(pks: [Int64], in db: any SQLExecutor) throws -> [WireInstance] {
        var instances: [WireInstance] = []
        try forEachRow(pks: pks, in: db) { instances.append(try instance(from: $0)) }
        return instances
    }

    /// The rows (`columns`) of these primary keys, in the order of `pks` (missing ones skipped).
    static func forEachRow(pks: [Int64], in db: any SQLExecutor, _ body: (any ContentRow) throws -> Void) throws {
        guard let db = db as? Database else {
            for chunk in pks.chunked(into: 5000) {
                let sql = "SELECT \(columns) FROM \(source) WHERE i.pk IN (\(db.dialect.elements(of: .integer)))"
                var byPK: [Int64: SQLRow] = [:]
                for row in try db.select(sql, bindings: [.text(jsonArray(Array(chunk)))]) { byPK[row.integer(0) ?? 0] = row }
                for pk in chunk {
                    if let row = byPK[pk] { try body(row) }
                }
            }
            return
        }
        // Chunked so the JSON argument and the rows held stay small; json_each keeps the
        // statement cacheable. SQLite returns a chunk's rows in its own order: put them in ours.
        var byPK: [Int64: Row] = [:]
        for chunk in pks.chunked(into: 5000) {
            let sql = "SELECT \(columns) FROM \(source) WHERE i.pk IN (SELECT value FROM json_each(?))"
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [jsonArray(Array(chunk))])
            while let row = try rows.next() {
                byPK[row[0]] = row.copy()
            }
            for pk in chunk {
                if let row = byPK[pk] { try body(row) }
            }
            byPK.removeAll(keepingCapacity: true)
        }
    }

    static func jsonArray(_ numbers: [Int64]) -> String {
        "[" + numbers.map(String.init).joined(separator: ",") + "]"
    }

    static func jsonArray(_ strings: [String]) -> String {
        JSONValue.array(strings.map(JSONValue.string)).compactJSONText
    }
}

/// A row of `ContentReader.columns`: from GRDB on SQLite (read in place), or from any executor.
protocol ContentRow {
    func text(_ index: Int) -> String?
    func integer(_ index: Int) -> Int64?
}

extension Row: ContentRow {
    func text(_ index: Int) -> String? { self[index] }
    func integer(_ index: Int) -> Int64? { self[index] }
}

extension SQLRow: ContentRow {
    func text(_ index: Int) -> String? { (try? get(at: index, as: String?.self)) ?? nil }
    func integer(_ index: Int) -> Int64? { (try? get(at: index, as: Int64?.self)) ?? nil }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
