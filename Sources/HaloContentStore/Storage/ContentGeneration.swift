import GRDB

/// A number that grows with every write to the content tables (SQLite only): what in-memory
/// copies of them (`SearchMemory`) are valid for.
///
/// It lives in the database, in `content_generation`, and every write of `ContentTables`
/// advances it in the writer's own transaction. So a reader reads, inside its snapshot, exactly
/// the generation of the data it sees: a rolled-back write takes its step back with it, and
/// another process writing the same file (`halo-server user add` beside a running server)
/// advances it too. A counter kept in memory would know neither.
enum ContentGeneration {
    /// Migration `content_v10_generation` (SQLite only).
    static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE content_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
                INSERT INTO content_generation (id, n) VALUES (1, 0);
                """)
    }

    /// Advances the generation; every write function of `ContentTables` calls it on SQLite.
    static func advance(in db: any SQLExecutor) throws {
        guard let db = db as? Database else { return }
        try db.cachedStatement(sql: "UPDATE content_generation SET n = n + 1").execute()
    }

    /// The generation this connection's transaction sees, or nil when there is none to trust: not
    /// SQLite, or a connection that may write (its own uncommitted writes would be counted, and
    /// could be rolled back after copies were made of them).
    static func current(in db: any SQLExecutor) throws -> Int64? {
        guard let db = db as? Database, db.configuration.readonly, db.isInsideTransaction else { return nil }
        return try Int64.fetchOne(db.cachedStatement(sql: "SELECT n FROM content_generation"))
    }
}
