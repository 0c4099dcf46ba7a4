/// Writes instances into the content tables through any `SQLExecutor` with plain statements: the
/// PostgreSQL writer. It writes the rows `ContentWriter` writes on SQLite (`ContentRows`), without
/// SQLite's devices (prepared-statement binding, the FTS5 trigram index: PostgreSQL's pg_trgm
/// index follows the value rows by itself). Instances go in batches: each batch is a handful of
/// multi-row statements (instances, bodies, value and tag rows), since a round trip to
/// PostgreSQL costs more than writing a row (statement by statement, seeding 100,000 instances
/// took 116 s).
struct PortableContentWriter {
    let db: any SQLExecutor
    /// module → field name → content_field.field.
    private var fieldNumbers: [String: [String: Int64]] = [:]
    /// Fields already marked `multi` by this writer.
    private var multiFields: Set<Int64> = []
    /// Rows per INSERT: 8 values each, within PostgreSQL's 65,535 parameters.
    private static let rowsPerInsert = 1_000
    /// Instances per batch: 15 parameters each in the instance upsert.
    private static let instancesPerBatch = 500

    init(_ db: any SQLExecutor) {
        self.db = db
    }

    /// Inserts or replaces the instances (matched by `id`), in order: an id met again starts a
    /// new batch, as one statement cannot upsert a row twice.
    mutating func upsertAll<S: Sequence>(_ instances: S) throws where S.Element == WireInstance {
        var batch: [WireInstance] = []
        var ids = Set<String>()
        for instance in instances {
            if batch.count == Self.instancesPerBatch || ids.contains(instance.id) {
                try write(batch)
                batch.removeAll(keepingCapacity: true)
                ids.removeAll(keepingCapacity: true)
            }
            batch.append(instance)
            ids.insert(instance.id)
        }
        try write(batch)
    }

    private mutating func write(_ batch: [WireInstance]) throws {
        guard !batch.isEmpty else { return }
        let keys = try keys(for: batch)
        var parameters: [SQLValue] = []
        for (instance, pk) in zip(batch, keys) {
            let createdAt = try ContentRows.validatedCreatedAt(instance)
            parameters += [
                .integer(pk), .text(instance.id), .text(instance.module), .text(instance.name), .text(ContentRows.folded(instance.name)),
                .integer(createdAt), instance.updatedAt.sqlValue, instance.publishedAt.sqlValue, instance.removedAt.sqlValue,
                instance.archivedAt.sqlValue, instance.deletedAt.sqlValue, instance.createdBy.sqlValue, instance.updatedBy.sqlValue,
                instance.deletedBy.sqlValue, instance.customerId.sqlValue, instance.revision.sqlValue,
            ]
        }
        try db.run(ContentRows.upsertInstancesSQL(rows: batch.count, keyed: true), bindings: parameters)
        try insertRows(
            into: "content_body (pk, values_json, tags_json, extra_json)",
            zip(batch, keys).map { instance, pk in
                let body = ContentRows.Body(instance)
                return [.integer(pk), .text(body.values), .text(body.tags), body.extra.sqlValue]
            },
            then: """
                ON CONFLICT (pk) DO UPDATE SET values_json = excluded.values_json, tags_json = excluded.tags_json,
                    extra_json = excluded.extra_json
                """)

        let keyList = SQLValue.text(ContentReader.jsonArray(keys))
        try db.execute("DELETE FROM content_value WHERE instance = ANY(ARRAY(\(db.dialect.elements(of: .integer))))", keyList)
        var values: [[SQLValue]] = []
        for (instance, pk) in zip(batch, keys) {
            for (fieldName, value) in instance.values {
                let field = try fieldNumber(module: instance.module, name: fieldName)
                var ord: Int64 = 0
                try ContentRows.forEachScalar(in: value, depth: 0) { scalar in
                    let row = ContentRows.Value(scalar, instance: pk, field: field, ord: ord)
                    values.append([
                        .integer(pk), .integer(field), .integer(ord), .integer(row.kind.rawValue), row.num.sqlValue, row.str.sqlValue,
                        row.folded.sqlValue, row.trigram.sqlValue,
                    ])
                    ord += 1
                }
                if ord > 1 && !multiFields.contains(field) {
                    try db.execute("UPDATE content_field SET multi = 1 WHERE field = ? AND multi = 0", field)
                    multiFields.insert(field)
                }
            }
        }
        try insertRows(into: "content_value (instance, field, ord, kind, num, str, folded, trigram)", values)

        try db.execute("DELETE FROM content_tag WHERE instance = ANY(ARRAY(\(db.dialect.elements(of: .integer))))", keyList)
        try insertRows(
            into: "content_tag (instance, ord, name, value)",
            zip(batch, keys).flatMap { instance, pk in
                instance.tags.enumerated().map { ord, tag in [.integer(pk), .integer(Int64(ord)), .text(tag.name), .text(tag.value)] }
            })
    }

    /// The batch's keys: a stored instance keeps its own; new ones take the next free keys in
    /// order, so that keys stay dense (`ContentSchema.keepKeysDenseOnPostgres`: a search then
    /// knows every instance without counting them). A sequence would leave a hole for every
    /// update (an upsert draws its key before it finds the conflict). Every write holds the
    /// storage's write lock, so no other writer picks the same keys meanwhile.
    private func keys(for batch: [WireInstance]) throws -> [Int64] {
        var stored: [String: Int64] = [:]
        var nextKey: Int64 = 1
        let rows = try db.select(
            """
            SELECT id, pk FROM content_instance WHERE id = ANY(ARRAY(\(db.dialect.elements(of: .text))))
            UNION ALL SELECT NULL, greatest((SELECT max(pk) FROM content_instance), (SELECT max(pk) FROM content_key_gap))
            """, bindings: [.text(ContentReader.jsonArray(batch.map(\.id)))])
        for row in rows {
            if let id = try row.get(at: 0, as: String?.self) {
                stored[id] = try row.get(at: 1, as: Int64.self)
            } else if let largest = try row.get(at: 1, as: Int64?.self) {
                nextKey = largest + 1
            }
        }
        return batch.map { instance in
            if let pk = stored[instance.id] { return pk }
            defer { nextKey += 1 }
            return nextKey
        }
    }

    /// `INSERT INTO target VALUES (…), (…), … [then]` in chunks.
    private func insertRows(into target: String, _ rows: [[SQLValue]], then suffix: String = "") throws {
        guard let width = rows.first?.count else { return }
        let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + Self.rowsPerInsert, rows.count)]
            try db.run(
                "INSERT INTO \(target) VALUES " + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + " " + suffix,
                bindings: chunk.flatMap { $0 })
            start += chunk.count
        }
    }

    private mutating func fieldNumber(module: String, name: String) throws -> Int64 {
        if let known = fieldNumbers[module]?[name] { return known }
        try db.execute("INSERT INTO content_field (module, name) VALUES (?, ?) ON CONFLICT (name, module) DO NOTHING", module, name)
        guard let number = try db.fetchValue(Int64.self, "SELECT field FROM content_field WHERE name = ? AND module = ?", name, module)
        else {
            throw ContentStoreError.corruptData("field \(name) of module \(module) could not be registered")
        }
        fieldNumbers[module, default: [:]][name] = number
        return number
    }
}
