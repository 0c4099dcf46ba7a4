import GRDB

/// Value rows written when a search first needs them, instead of with every instance (SQLite
/// databases that turn it on: the SDK's offline cache).
///
/// Why: the value index (`content_value`, its two indexes and the trigram index: one row per
/// scalar, eight per instance of a typical module) was most of what a first sync wrote: 100,000
/// instances cost 7 s of CPU with it and 2.6–2.9 s without (`Benchmarks/offline`). A cache is
/// searched on a few fields, if at all: each field gets its rows the first time a search
/// compares it (read from the stored bodies: 1.4 s for three fields of 100,000 instances), and
/// from then on every write keeps them, as on the server. The rows, and so every answer, are the
/// same as if they had been written with the instances.
///
/// - `content_field.indexed` (1 by default) says whether a field's rows are written.
/// - `content_value_policy.on_demand` says whether a field met for the first time starts with 0;
///   fields known before it was turned on keep their rows.
/// - A module's fields go back to 0 when all its instances are removed (a first sync starting
///   again): no rows of them are left to keep.
/// - The search checks, in its own snapshot, that every field it compares is indexed
///   (`ContentTables.fieldsWaitingForIndex`), so it never reads a field half written.
enum ValueIndexOnDemand {
    /// Migration `content_v11_values_on_demand` (SQLite only).
    static func createColumns(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE content_field ADD COLUMN indexed INTEGER NOT NULL DEFAULT 1;
                CREATE TABLE content_value_policy (id INTEGER PRIMARY KEY CHECK (id = 1), on_demand INTEGER NOT NULL);
                INSERT INTO content_value_policy (id, on_demand) VALUES (1, 0);
                """)
    }

    static func isOn(in db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT on_demand FROM content_value_policy")) ?? false
    }
}

extension ContentTables {
    /// From now on, fields met for the first time get their value rows when a search first
    /// compares them (see `ValueIndexOnDemand`). For a cache; a server answers every search.
    public static func writeValueRowsOnDemand(in db: Database) throws {
        try db.execute(sql: "UPDATE content_value_policy SET on_demand = 1")
    }

    /// The fields `request` compares (its value filter and relations, in its modules) whose
    /// value rows wait for a search: `indexValues(ofFields:in:)` must write them before it runs.
    /// A field of a module without instances has no rows to wait for (a module a first sync is
    /// filling, seen from a snapshot before it: the search needs no write, which would wait for
    /// that sync).
    public static func fieldsWaitingForIndex(for request: SearchRequest, schema: SearchSchema, in db: Database) throws -> [Int64] {
        let names = Set((request.relatedTo ?? []).map(\.fieldName) + (request.searchValues?.properties ?? []))
        guard !names.isEmpty else { return [] }
        var sql = """
            SELECT field FROM content_field f WHERE indexed = 0 AND name IN (SELECT value FROM json_each(?))
            AND EXISTS (SELECT 1 FROM content_instance i WHERE i.module = f.module)
            """
        var arguments: StatementArguments = [ContentReader.jsonArray(names.sorted())]
        if let scope = moduleScope(of: request, schema: schema) {
            sql += " AND module IN (SELECT value FROM json_each(?))"
            arguments += [ContentReader.jsonArray(scope)]
        }
        return try Int64.fetchAll(db.cachedStatement(sql: sql + " ORDER BY field"), arguments: arguments)
    }

    /// Writes the value rows of these fields, which waited for a search, from the stored
    /// instances; fields already indexed are skipped. Inside a write transaction.
    public static func indexValues(ofFields fields: [Int64], in db: Database) throws {
        guard !fields.isEmpty else { return }
        let writer = try ContentWriter(db)
        // Rows written into the live value indexes cost a B-tree descent each; when they are at
        // least as many as the rows stored, dropping the two indexes and building them again in
        // one sorted pass costs less (as a bulk load does): the first search of a synced module.
        let list = ContentReader.jsonArray(fields)
        let coming =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM content_field f JOIN content_instance i ON i.module = f.module
                    WHERE f.indexed = 0 AND f.field IN (SELECT value FROM json_each(?))
                    """, arguments: [list]) ?? 0
        let stored = try Int.fetchOne(db, sql: "SELECT count(*) FROM content_value") ?? 0
        if coming >= stored {
            try deferring(ContentSchema.valueIndexes, execute: { try db.execute(sql: $0) }) { try writer.indexValues(ofFields: fields) }
        } else {
            try writer.indexValues(ofFields: fields)
        }
        try ContentGeneration.advance(in: db)
    }

    /// After every instance of `moduleId` was removed: its fields wait for a search again, when
    /// values are written on demand.
    static func resetValueIndex(ofModule moduleId: String, in db: any SQLExecutor) throws {
        guard let db = db as? Database, try ValueIndexOnDemand.isOn(in: db) else { return }
        try db.execute(sql: "UPDATE content_field SET indexed = 0 WHERE module = ?", arguments: [moduleId])
    }
}
