/// Writes instances into the content tables through any `SQLExecutor` with plain statements: the
/// PostgreSQL writer. It writes the rows `ContentWriter` writes on SQLite (`ContentRows`), without
/// SQLite's devices (prepared-statement binding, the FTS5 trigram index: PostgreSQL's pg_trgm
/// index follows the value rows by itself), and sends each instance's value and tag rows in one
/// multi-row INSERT.
struct PortableContentWriter {
    let db: any SQLExecutor
    /// module → field name → content_field.field.
    private var fieldNumbers: [String: [String: Int64]] = [:]
    /// Fields already marked `multi` by this writer.
    private var multiFields: Set<Int64> = []
    /// Rows per INSERT: 8 values each, within PostgreSQL's 65,535 parameters.
    private static let rowsPerInsert = 1_000

    init(_ db: any SQLExecutor) {
        self.db = db
    }

    /// Inserts or replaces the instances (matched by `id`), in order.
    mutating func upsertAll<S: Sequence>(_ instances: S) throws where S.Element == WireInstance {
        for instance in instances { try write(instance) }
    }

    private mutating func write(_ instance: WireInstance) throws {
        let createdAt = try ContentRows.validatedCreatedAt(instance)
        let body = ContentRows.Body(instance)
        guard
            let pk = try db.fetchValue(
                Int64.self, ContentRows.upsertInstanceSQL, instance.id, instance.module, instance.name, ContentRows.folded(instance.name),
                createdAt,
                instance.updatedAt, instance.publishedAt, instance.removedAt, instance.archivedAt, instance.deletedAt,
                instance.createdBy, instance.updatedBy, instance.deletedBy, instance.customerId, instance.revision)
        else {
            throw ContentStoreError.corruptData("storing instance \(instance.id) returned no row")
        }
        try db.execute(
            """
            INSERT INTO content_body (pk, values_json, tags_json, extra_json) VALUES (?, ?, ?, ?)
            ON CONFLICT (pk) DO UPDATE SET values_json = excluded.values_json, tags_json = excluded.tags_json,
                extra_json = excluded.extra_json
            """, pk, body.values, body.tags, body.extra)

        try db.execute("DELETE FROM content_value WHERE instance = ?", pk)
        var values: [[SQLValue]] = []
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
        try insertRows(into: "content_value (instance, field, ord, kind, num, str, folded, trigram)", values)

        try db.execute("DELETE FROM content_tag WHERE instance = ?", pk)
        try insertRows(
            into: "content_tag (instance, ord, name, value)",
            instance.tags.enumerated().map { ord, tag in [.integer(pk), .integer(Int64(ord)), .text(tag.name), .text(tag.value)] })
    }

    /// `INSERT INTO target VALUES (…), (…), …` in chunks.
    private func insertRows(into target: String, _ rows: [[SQLValue]]) throws {
        guard let width = rows.first?.count else { return }
        let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + Self.rowsPerInsert, rows.count)]
            try db.run(
                "INSERT INTO \(target) VALUES " + Array(repeating: tuple, count: chunk.count).joined(separator: ", "),
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
