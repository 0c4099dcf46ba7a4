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
    /// `FROM` clause matching `columns`.
    static let source = "content_instance i JOIN content_body b ON b.pk = i.pk"

    static func instance(from row: Row) throws -> WireInstance {
        let id: String = row[1]
        let valuesText: String = row[15]
        let tagsText: String = row[16]
        let extraText: String? = row[17]
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
            id: id, module: row[2], name: row[3], values: values, tags: tags,
            createdAt: row[4], updatedAt: row[5], publishedAt: row[6], removedAt: row[7], archivedAt: row[8],
            deletedAt: row[9], createdBy: row[10], updatedBy: row[11], deletedBy: row[12],
            customerId: row[13], revision: row[14],
            pushSchedule: extra["pushSchedule"], externalId: extra["externalId"])
    }

    /// Instances by primary key, in the order of `pks` (missing ones skipped).
    static func instances(pks: [Int64], in db: Database) throws -> [WireInstance] {
        guard !pks.isEmpty else { return [] }
        var byPK: [Int64: WireInstance] = [:]
        // Chunked so the JSON argument stays small; json_each keeps the statement cacheable.
        for chunk in pks.chunked(into: 5000) {
            let sql = "SELECT \(columns) FROM \(source) WHERE i.pk IN (SELECT value FROM json_each(?))"
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [jsonArray(Array(chunk))])
            while let row = try rows.next() {
                byPK[row[0]] = try instance(from: row)
            }
        }
        return pks.compactMap { byPK[$0] }
    }

    static func jsonArray(_ numbers: [Int64]) -> String {
        "[" + numbers.map(String.init).joined(separator: ",") + "]"
    }

    static func jsonArray(_ strings: [String]) -> String {
        JSONValue.array(strings.map(JSONValue.string)).compactJSONText
    }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
