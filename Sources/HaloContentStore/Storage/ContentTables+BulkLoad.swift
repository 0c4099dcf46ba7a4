import GRDB

// MARK: - Bulk loads (a first sync into an empty cache, seeding)

extension ContentTables {
    /// Runs `body` — typically many `upsert(contentsOf:in:)` calls — with the read-only secondary
    /// indexes (metadata, value lookup, unindexed strings, tags) dropped, then builds each of
    /// them again in one sorted pass.
    ///
    /// Why: maintaining those B-trees row by row costs a random page access per value row; for
    /// a load of many rows into few stored ones, `CREATE INDEX` after the load (a sort, then a
    /// sequential write) costs a fraction of that. It pays only when the load is large compared
    /// with what is stored (the rebuild covers every row of the tables).
    ///
    /// Must run inside one transaction (a GRDB `write` block): other connections keep seeing the
    /// last commit, indexes included, and a rollback or a killed process brings the dropped
    /// indexes back with everything else. If `body` throws, the indexes are rebuilt before the
    /// error propagates, so the transaction is never left without them even if committed.
    /// Searches run inside `body`, on the same connection, would be slow (no indexes).
    /// The trigram index is not involved: upserts keep maintaining it batch by batch.
    public static func withSecondaryIndexesDeferred<T>(in db: Database, _ body: () throws -> T) throws -> T {
        guard db.isInsideTransaction else {
            throw DatabaseError(message: "withSecondaryIndexesDeferred must run inside a transaction")
        }
        return try deferring(ContentSchema.secondaryIndexes, execute: { try db.execute(sql: $0) }, body)
    }

    /// The same on PostgreSQL (any `SQLExecutor`; SQLite's `Database` goes to the function above).
    /// There the trigram index (GIN, the costliest to maintain row by row) is dropped and rebuilt
    /// too, and one pass leaves compact indexes where row-by-row inserts leave half-full pages.
    /// PostgreSQL's DDL is transactional: a rollback brings the indexes back as well.
    public static func withSecondaryIndexesDeferred<T>(in db: any SQLExecutor, _ body: () throws -> T) throws -> T {
        if let db = db as? Database { return try withSecondaryIndexesDeferred(in: db, body) }
        return try deferring(ContentSchema.postgresSecondaryIndexes, execute: { try db.execute($0) }, body)
    }

    /// Drops `indexes`, runs `body`, and builds them again, also when `body` throws.
    static func deferring<T>(
        _ indexes: [ContentSchema.SecondaryIndex], execute: (String) throws -> Void, _ body: () throws -> T
    ) throws -> T {
        for index in indexes { try execute(index.dropSQL) }
        let result: T
        do {
            result = try body()
        } catch {
            for index in indexes { try execute(index.createSQL) }
            throw error
        }
        for index in indexes { try execute(index.createSQL) }
        return result
    }

    /// Whether a load of `rows` instances pays for `withSecondaryIndexesDeferred`: only when it
    /// is at least as large as everything stored, since the rebuild covers every stored row.
    public static func deferringIndexesPaysOff(forLoadOf rows: Int, in db: any SQLExecutor) throws -> Bool {
        let stored = try db.fetchValue(Int.self, "SELECT count(*) FROM content_instance") ?? 0
        return rows >= stored
    }
}
