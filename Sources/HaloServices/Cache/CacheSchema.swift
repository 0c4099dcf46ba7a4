import GRDB
import HaloContentStore

/// The cache's tables: the shared `content_*` tables (so offline search is the server's search)
/// plus the SDK's own bookkeeping, all created by one `DatabaseMigrator`. New versions append
/// migrations; they never edit shipped ones. Columns are snake_case (`cache_v3_snake_case`
/// renamed the camelCase ones of the first steps).
///
/// - `cache_sync_state`: per sync key (module id or name as queried): locale, last
///   `sync_timestamp`, and whether a first sync is under way (then the module's rows are partial).
/// - `cache_sync_module`: the module ids seen under a sync key (a name may cover several ids).
/// - `cache_sync_log`: the sync log (§14.4).
/// - `cache_response`: answers kept for offline policies (module list, pocket, search pages).
///
/// Edits waiting for the server lived here (`cache_outbox`, `cache_outbox_base`) until
/// `cache_v4_outbox_to_data_home` moved them to the pending-edits file (`OutboxSchema`).
enum CacheSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("cache_marker") { db in
            try db.execute(sql: "PRAGMA application_id = \(CacheFileGuard.applicationID)")
        }
        ContentTables.registerMigrations(&migrator)
        migrator.registerMigration("cache_v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE cache_sync_state (
                        syncKey TEXT PRIMARY KEY,
                        locale TEXT,
                        syncTimestamp INTEGER,
                        firstSyncInProgress INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE cache_sync_module (
                        syncKey TEXT NOT NULL,
                        moduleId TEXT NOT NULL,
                        PRIMARY KEY (syncKey, moduleId)
                    ) WITHOUT ROWID;
                    CREATE TABLE cache_sync_log (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        syncKey TEXT NOT NULL,
                        moduleId TEXT,
                        moduleName TEXT,
                        syncDate INTEGER NOT NULL,
                        locale TEXT,
                        creations INTEGER NOT NULL,
                        updates INTEGER NOT NULL,
                        deletions INTEGER NOT NULL
                    );
                    CREATE INDEX cache_sync_log_key ON cache_sync_log(syncKey, seq);
                    CREATE TABLE cache_response (
                        key TEXT PRIMARY KEY,
                        body BLOB NOT NULL,
                        storedAt INTEGER NOT NULL
                    );
                    CREATE TABLE cache_outbox (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        instanceId TEXT,
                        moduleId TEXT NOT NULL,
                        body TEXT NOT NULL,
                        baseUpdatedAt INTEGER,
                        queuedAt INTEGER NOT NULL,
                        state TEXT NOT NULL DEFAULT 'pending',
                        serverCopy TEXT,
                        lastError TEXT
                    );
                    """)
        }
        migrator.registerMigration("cache_v2_outbox_base") { db in
            try db.execute(sql: "CREATE TABLE cache_outbox_base (instanceId TEXT PRIMARY KEY, body TEXT) WITHOUT ROWID")
        }
        migrator.registerMigration("cache_v3_snake_case", migrate: renameColumnsToSnakeCase)
        migrator.registerMigration("cache_v4_outbox_to_data_home", migrate: moveOutboxToItsFile)
        // A first sync stores instances and bodies; each field gets its value rows when an offline
        // search first compares it (`ContentTables.writeValueRowsOnDemand`).
        migrator.registerMigration("cache_v5_values_on_demand", migrate: ContentTables.writeValueRowsOnDemand)
        return migrator
    }

    /// Migration `cache_v4_outbox_to_data_home`: pending edits are user data, not cache. They move
    /// to the attached pending-edits file, in queue order, after any it holds. The two files do
    /// not commit atomically together, so an entry already copied by an interrupted earlier run
    /// is not copied twice.
    static func moveOutboxToItsFile(_ db: Database) throws {
        let outbox = OutboxSchema.schema
        try db.execute(
            sql: """
                INSERT INTO \(outbox).outbox_entry
                    (kind, instance_id, module_id, body, base_updated_at, queued_at, state, server_copy, last_error)
                SELECT kind, instance_id, module_id, body, base_updated_at, queued_at, state, server_copy, last_error
                FROM main.cache_outbox AS old
                WHERE NOT EXISTS (
                    SELECT 1 FROM \(outbox).outbox_entry AS moved
                    WHERE moved.kind = old.kind AND moved.instance_id IS old.instance_id
                        AND moved.queued_at = old.queued_at AND moved.body = old.body)
                ORDER BY seq;
                INSERT OR IGNORE INTO \(outbox).outbox_base(instance_id, body) SELECT instance_id, body FROM main.cache_outbox_base;
                DROP TABLE main.cache_outbox;
                DROP TABLE main.cache_outbox_base;
                """)
    }

    /// The columns `cache_v1` and `cache_v2_outbox_base` named in camelCase, by table, with their
    /// snake_case names.
    static let camelCaseColumnsOfV2: [(table: String, columns: [(old: String, new: String)])] = [
        (
            "cache_sync_state",
            [("syncKey", "sync_key"), ("syncTimestamp", "sync_timestamp"), ("firstSyncInProgress", "first_sync_in_progress")]
        ),
        ("cache_sync_module", [("syncKey", "sync_key"), ("moduleId", "module_id")]),
        (
            "cache_sync_log",
            [("syncKey", "sync_key"), ("moduleId", "module_id"), ("moduleName", "module_name"), ("syncDate", "sync_date")]
        ),
        ("cache_response", [("storedAt", "stored_at")]),
        (
            "cache_outbox",
            [
                ("instanceId", "instance_id"), ("moduleId", "module_id"), ("baseUpdatedAt", "base_updated_at"),
                ("queuedAt", "queued_at"), ("serverCopy", "server_copy"), ("lastError", "last_error"),
            ]
        ),
        ("cache_outbox_base", [("instanceId", "instance_id")]),
    ]

    /// Migration `cache_v3_snake_case`: one naming style in every table (the content tables' own
    /// step is `content_v2_snake_case`). SQLite rewrites `cache_sync_log_key` with the new name;
    /// names are written unquoted so the stored definitions read as if created with them.
    static func renameColumnsToSnakeCase(_ db: Database) throws {
        for (table, columns) in camelCaseColumnsOfV2 {
            for (old, new) in columns {
                try db.execute(sql: "ALTER TABLE \(table) RENAME COLUMN \(old) TO \(new)")
            }
        }
    }
}
