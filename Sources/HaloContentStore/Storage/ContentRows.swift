/// What an instance becomes in the content tables, whichever database stores it: its body texts,
/// its value rows (one per scalar) and the rules they follow. `ContentWriter` (SQLite, prepared
/// statements and the FTS5 trigram index) and `PortableContentWriter` (any `SQLExecutor`:
/// PostgreSQL) both write exactly these rows.
enum ContentRows {
    /// An instance's `values` and `tags` as the JSON text stored in `content_body`.
    struct Body {
        let values: String
        let tags: String
        let extra: String?
        init(_ instance: WireInstance) {
            values = JSONValue.objectText(instance.values)
            tags = ContentRows.tagsText(instance.tags)
            extra = ContentRows.extraText(instance)
        }
    }

    /// One row of `content_value`, but for its keys (instance, field, ord).
    struct Value {
        var kind: ValueKind
        var num: Double?
        var str: String?
        var folded: String?
        var trigram: Bool

        /// The row of one scalar; `trigram` by `TrigramIndex.isIndexable` (the instance, field
        /// and ord only matter to it).
        init(_ scalar: JSONValue, instance: Int64, field: Int64, ord: Int64) {
            num = nil
            str = nil
            folded = nil
            trigram = false
            switch scalar {
            case .bool(let b):
                kind = .bool
                num = b ? 1 : 0
            case .number(let n):
                kind = .number
                num = n
            case .string(let s):
                kind = .string
                str = s
                let lower = ContentRows.folded(s)
                if lower != s { folded = lower }
                trigram = TrigramIndex.isIndexable(folded: lower, instance: instance, field: field, ord: ord)
            default: kind = .null
            }
        }
    }

    /// Inserts or replaces an instance's `content_instance` row (15 arguments: id, module, name,
    /// name_folded, then the metadata in `ContentSchema.camelCaseColumnsOfV1`'s order, customer
    /// and revision); answers its key, which SQLite picks.
    static let upsertInstanceSQL = upsertInstancesSQL(rows: 1, keyed: false) + " RETURNING pk"

    /// The upsert of `rows` instances in one statement: 15 arguments each as above, after the
    /// instance's key (`pk`) when `keyed` (PostgreSQL's writer picks keys itself).
    static func upsertInstancesSQL(rows: Int, keyed: Bool) -> String {
        let tuple = "(" + Array(repeating: "?", count: keyed ? 16 : 15).joined(separator: ", ") + ")"
        return """
            INSERT INTO content_instance (\(keyed ? "pk, " : "")id, module, name, name_folded, created_at, updated_at, published_at,
                removed_at, archived_at, deleted_at, created_by, updated_by, deleted_by, customer_id, revision)
            VALUES \(Array(repeating: tuple, count: rows).joined(separator: ", "))
            ON CONFLICT (id) DO UPDATE SET module = excluded.module, name = excluded.name,
                name_folded = excluded.name_folded, created_at = excluded.created_at, updated_at = excluded.updated_at,
                published_at = excluded.published_at, removed_at = excluded.removed_at,
                archived_at = excluded.archived_at, deleted_at = excluded.deleted_at, created_by = excluded.created_by,
                updated_by = excluded.updated_by, deleted_by = excluded.deleted_by, customer_id = excluded.customer_id,
                revision = excluded.revision
            """
    }

    /// What an instance needs to be stored: an id, a module and createdAt (returned).
    static func validatedCreatedAt(_ instance: WireInstance) throws -> Int64 {
        guard !instance.id.isEmpty else { throw ContentStoreError.invalidInstance("an instance needs an id to be stored") }
        guard !instance.module.isEmpty else {
            throw ContentStoreError.invalidInstance("instance \(instance.id) has no module")
        }
        guard let createdAt = instance.createdAt else {
            throw ContentStoreError.invalidInstance("instance \(instance.id) has no createdAt")
        }
        return createdAt
    }

    /// Lists and objects (localized text) are indexed by their members so that comparisons match
    /// element-wise; an empty list indexes nothing (it counts as absent). Two levels are enough
    /// for every HALO field type; deeper structure is not searchable.
    static func forEachScalar(in value: JSONValue, depth: Int, _ body: (JSONValue) throws -> Void) throws {
        switch value {
        case .array(let elements):
            guard depth < 2 else { return }
            for element in elements { try forEachScalar(in: element, depth: depth + 1, body) }
        case .object(let members):
            guard depth < 2 else { return }
            for key in members.keys.sorted() {
                if let member = members[key] { try forEachScalar(in: member, depth: depth + 1, body) }
            }
        default:
            try body(value)
        }
    }

    /// `text.lowercased()`, without making a new string when it is already lowercase ASCII (most
    /// values of a bulk load: ids, codes, words).
    static func folded(_ text: String) -> String {
        text.containsUTF8Byte(where: { $0 >= 0x80 || (0x41...0x5A).contains($0) }) ? text.lowercased() : text
    }

    static func tagsText(_ tags: [WireTag]) -> String {
        JSONValue.array(tags.map(\.jsonValue)).compactJSONText
    }

    /// pushSchedule / externalId are kept only when a client set them.
    static func extraText(_ instance: WireInstance) -> String? {
        var extra: [String: JSONValue] = [:]
        if let pushSchedule = instance.pushSchedule, !pushSchedule.isNull { extra["pushSchedule"] = pushSchedule }
        if let externalId = instance.externalId, !externalId.isNull { extra["externalId"] = externalId }
        return extra.isEmpty ? nil : JSONValue.objectText(extra)
    }
}
