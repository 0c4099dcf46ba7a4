import GRDB

/// The content part of a HALO database, as functions over a caller-supplied `Database`.
///
/// The caller owns the connection and the transactions (the server wraps each request in one;
/// the SDK's cache wraps each sync), and may keep its own tables beside these. Every function
/// here is synchronous and must run inside a GRDB `read`/`write` block.
public enum ContentTables {
    /// Registers the migrations that create the `content_*` tables. New versions append
    /// migrations; they never edit shipped ones.
    public static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.register(migrations)
    }

    /// The content tables' schema, step by step, on both back ends (see `ContentSchema`).
    public static let migrations: [StorageMigration] = [
        StorageMigration("content_v1", sqlite: ContentSchema.createTablesV1, postgres: ContentSchema.createTablesOnPostgres),
        // PostgreSQL folds unquoted names to lower case: its tables were made with snake_case names.
        StorageMigration("content_v2_snake_case", sqlite: ContentSchema.renameColumnsToSnakeCase, postgres: { _ in }),
        StorageMigration(
            "content_v3_changed_order", sqlite: ContentSchema.addLastChangedIndex,
            postgres: { db in try db.execute(ContentSchema.lastChangedIndex.createSQL) }),
        StorageMigration(
            "content_v4_one_change_index", sqlite: ContentSchema.dropUpdatedIndexOfModules,
            postgres: { db in try db.execute("DROP INDEX IF EXISTS content_instance_module_updated") }),
        StorageMigration("content_v5_postgres_search", sqlite: { _ in }, postgres: ContentSchema.reindexValuesOnPostgres),
        StorageMigration("content_v6_dense_keys", sqlite: { _ in }, postgres: ContentSchema.keepKeysDenseOnPostgres),
        StorageMigration("content_v7_postgres_orders", sqlite: { _ in }, postgres: ContentSchema.addOrderIndexesOnPostgres),
        StorageMigration("content_v8_postgres_short_trigrams", sqlite: { _ in }, postgres: ContentSchema.splitTrigramIndexOnPostgres),
        StorageMigration("content_v9_sqlite_orders", sqlite: ContentSchema.addOrderIndexesOnSQLite, postgres: { _ in }),
        StorageMigration("content_v10_generation", sqlite: ContentGeneration.createTable, postgres: { _ in }),
        StorageMigration("content_v11_values_on_demand", sqlite: ValueIndexOnDemand.createColumns, postgres: { _ in }),
    ]

    // MARK: Writing
    // Each function advances `ContentGeneration`, which in-memory copies of these tables follow.

    /// Inserts the instance, or replaces the stored one with the same id (values, tags and all
    /// metadata are taken from `instance` as given).
    public static func upsert(_ instance: WireInstance, in db: any SQLExecutor) throws {
        try upsert(contentsOf: [instance], in: db)
    }

    /// The bulk path for seeding and sync: one set of prepared statements for all instances.
    /// Run it inside one transaction (a GRDB `write` block) for speed.
    public static func upsert<S: Sequence>(contentsOf instances: S, in db: any SQLExecutor) throws
    where S.Element == WireInstance {
        if let db = db as? Database {
            try ContentWriter(db).upsertAll(instances)
            try ContentGeneration.advance(in: db)
        } else {
            var writer = PortableContentWriter(db)
            try writer.upsertAll(instances)
        }
    }

    /// Soft-deletes an instance: sets `deleted_at` (and `deleted_by`) and returns the new state, or
    /// nil when there is no such instance. An instance already deleted keeps its first deletion.
    @discardableResult
    public static func softDelete(id: String, at time: Int64, by editor: String?, in db: any SQLExecutor) throws -> WireInstance? {
        try db.execute("UPDATE content_instance SET deleted_at = ?, deleted_by = ? WHERE id = ? AND deleted_at IS NULL", time, editor, id)
        try ContentGeneration.advance(in: db)
        return try instance(id: id, in: db)
    }

    /// Soft-deletes every not-yet-deleted instance of a module; returns how many it deleted.
    @discardableResult
    public static func truncate(moduleId: String, at time: Int64, by editor: String? = nil, in db: any SQLExecutor) throws -> Int {
        let deleted = try db.execute(
            "UPDATE content_instance SET deleted_at = ?, deleted_by = ? WHERE module = ? AND deleted_at IS NULL", time, editor,
            moduleId)
        try ContentGeneration.advance(in: db)
        return deleted
    }

    /// Removes instances and everything indexed about them (no trace left for sync).
    public static func hardDelete(ids: [String], in db: any SQLExecutor) throws {
        try ContentGeneration.advance(in: db)
        for chunk in ids.chunked(into: 5000) {
            let pks = try db.fetchColumn(
                Int64.self, "SELECT pk FROM content_instance WHERE id IN (\(db.dialect.elements(of: .text)))",
                ContentReader.jsonArray(Array(chunk)))
            let list = ContentReader.jsonArray(pks)
            if let db = db as? Database { try TrigramIndex.remove(instances: pks, in: db) }
            for table in ["content_value", "content_tag"] {
                try db.execute("DELETE FROM \(table) WHERE instance IN (\(db.dialect.elements(of: .integer)))", list)
            }
            for table in ["content_body", "content_instance"] {
                try db.execute("DELETE FROM \(table) WHERE pk IN (\(db.dialect.elements(of: .integer)))", list)
            }
        }
    }

    // MARK: Reading

    /// The stored instance with this id (deleted or not), or nil.
    public static func instance(id: String, in db: any SQLExecutor) throws -> WireInstance? {
        let sql = "SELECT \(ContentReader.columns) FROM \(ContentReader.source) WHERE i.id = ?"
        if let db = db as? Database {
            guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [id]) else { return nil }
            return try ContentReader.instance(from: row)
        }
        return try db.fetchOne(sql, id).map { try ContentReader.instance(from: $0) }
    }

    /// The module of the instance with this id and whether it is deleted, without reading the
    /// instance (nil: no such id). For checks over many rows (imports).
    public static func moduleAndDeletion(ofInstanceId id: String, in db: any SQLExecutor) throws -> (module: String, isDeleted: Bool)? {
        let sql = "SELECT module, deleted_at IS NOT NULL FROM content_instance WHERE id = ?"
        if let db = db as? Database {
            return try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [id]).map { ($0[0], $0[1]) }
        }
        return try db.fetchOne(sql, id).map { (try $0.get(at: 0), try $0.get(at: 1)) }
    }

    /// The stored instances with these ids, in the order given (unknown ids skipped).
    public static func instances(ids: [String], in db: any SQLExecutor) throws -> [WireInstance] {
        var result: [WireInstance] = []
        for chunk in ids.chunked(into: 5000) {
            let pks = try db.fetchColumn(
                Int64.self,
                """
                SELECT i.pk FROM content_instance i JOIN (\(db.dialect.elements(of: .text, withPosition: true))) j ON i.id = j.value
                ORDER BY j.position
                """, ContentReader.jsonArray(Array(chunk)))
            result += try ContentReader.instances(pks: pks, in: db)
        }
        return result
    }

    /// The ids of the not-deleted instances of a module, in storage order.
    public static func liveInstanceIds(moduleId: String, in db: any SQLExecutor) throws -> [String] {
        try db.fetchColumn(String.self, "SELECT id FROM content_instance WHERE module = ? AND deleted_at IS NULL ORDER BY pk", moduleId)
    }

    /// The number of not-deleted instances of a module.
    public static func count(moduleId: String, in db: any SQLExecutor) throws -> Int {
        try db.fetchValue(Int.self, "SELECT count(*) FROM content_instance WHERE module = ? AND deleted_at IS NULL", moduleId) ?? 0
    }

    /// The latest creation, update or deletion time stored (ms), 0 when nothing is stored.
    public static func latestStamp(in db: any SQLExecutor) throws -> Int64 {
        let greatest = db.dialect == .postgres ? "greatest" : "max"
        return try db.fetchValue(
            Int64.self,
            """
            SELECT \(greatest)(coalesce(max(created_at), 0), coalesce(max(updated_at), 0), coalesce(max(deleted_at), 0))
            FROM content_instance
            """) ?? 0
    }

    /// Not-deleted instance counts per module id (modules without instances are absent).
    public static func moduleCounts(in db: any SQLExecutor) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try db.fetchAll("SELECT module, count(*) FROM content_instance WHERE deleted_at IS NULL GROUP BY module") {
            counts[try row.get(at: 0)] = try row.get(at: 1)
        }
        return counts
    }
}
