import Foundation
import GRDB
import HaloContentStore

/// The staging area of imports (our extension, docs/protocol.md §23.11): rows uploaded in chunks,
/// already checked and converted, wait here until the import is committed (copied into the
/// content tables in one transaction) or cancelled. Nothing here is content: a killed server or
/// an abandoned import leaves no instance behind, and stale imports are dropped after a day.
enum ImportStaging {
    struct Record: Sendable {
        var id: String
        var moduleId: String
        /// The user or client that started it (only they may add to it, commit or cancel it).
        var owner: String
        var rows: Int
        var problemCount: Int
        /// The first problems found (up to `ContentImport.problemLimit`), as JSON objects.
        var problems: [JSONValue]
    }

    static let migration = StorageMigration(
        "server-v7-import-staging",
        sqlite: { db in
            try db.create(table: "server_import") { t in
                t.primaryKey("id", .text)
                t.column("module_id", .text).notNull()
                t.column("owner", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.column("rows", .integer).notNull().defaults(to: 0)
                t.column("problem_count", .integer).notNull().defaults(to: 0)
                t.column("problems_json", .text).notNull().defaults(to: "[]")
            }
            try db.create(table: "server_import_row", options: .withoutRowID) { t in
                t.column("import_id", .text).notNull().references("server_import", onDelete: .cascade)
                t.column("line", .integer).notNull()
                t.column("instance_id", .text)
                t.column("row_json", .text).notNull()
                t.primaryKey(["import_id", "line"])
            }
            try db.create(
                index: "server_import_row_instance", on: "server_import_row", columns: ["import_id", "instance_id"], unique: true,
                condition: Column("instance_id") != nil)
        },
        postgres: StorageMigration.statements(
            """
            CREATE TABLE server_import (
                id \(PostgresTypes.text) PRIMARY KEY, module_id \(PostgresTypes.text) NOT NULL, owner \(PostgresTypes.text) NOT NULL, created_at \(PostgresTypes.integer) NOT NULL,
                rows \(PostgresTypes.integer) NOT NULL DEFAULT 0, problem_count \(PostgresTypes.integer) NOT NULL DEFAULT 0,
                problems_json \(PostgresTypes.text) NOT NULL DEFAULT '[]')
            """,
            """
            CREATE TABLE server_import_row (
                import_id \(PostgresTypes.text) NOT NULL REFERENCES server_import(id) ON DELETE CASCADE, line \(PostgresTypes.integer) NOT NULL,
                instance_id \(PostgresTypes.text), row_json \(PostgresTypes.text) NOT NULL, PRIMARY KEY (import_id, line))
            """,
            """
            CREATE UNIQUE INDEX server_import_row_instance ON server_import_row(import_id, instance_id)
            WHERE instance_id IS NOT NULL
            """))

    static func create(id: String, moduleId: String, owner: String, at stamp: Int64, in db: any SQLExecutor) throws {
        try db.execute("INSERT INTO server_import (id, module_id, owner, created_at) VALUES (?, ?, ?, ?)", id, moduleId, owner, stamp)
    }

    static func find(id: String, in db: any SQLExecutor) throws -> Record? {
        try db.fetchOne("SELECT * FROM server_import WHERE id = ?", id).map { row in
            Record(
                id: try row.get("id"), moduleId: try row.get("module_id"), owner: try row.get("owner"), rows: try row.get("rows"),
                problemCount: try row.get("problem_count"),
                problems: (try JSONValue(string: try row.get("problems_json"))).arrayValue ?? [])
        }
    }

    /// The line that already stages `instanceId` in this import, if any.
    static func line(staging instanceId: String, in importId: String, in db: any SQLExecutor) throws -> Int? {
        try db.fetchValue(Int.self, "SELECT line FROM server_import_row WHERE import_id = ? AND instance_id = ?", importId, instanceId)
    }

    static func hasLine(_ line: Int, in importId: String, in db: any SQLExecutor) throws -> Bool {
        try db.fetchValue(Bool.self, "SELECT EXISTS (SELECT 1 FROM server_import_row WHERE import_id = ? AND line = ?)", importId, line)
            ?? false
    }

    static func addRow(line: Int, instanceId: String?, json: String, to importId: String, in db: any SQLExecutor) throws {
        try db.execute(
            "INSERT INTO server_import_row (import_id, line, instance_id, row_json) VALUES (?, ?, ?, ?)", importId, line, instanceId, json)
    }

    /// Counts `added` rows and `problems` (keeping the first `keep` problems of the import).
    static func record(added: Int, problems: [JSONValue], keep: Int, in record: Record, in db: any SQLExecutor) throws {
        let kept = Array((record.problems + problems).prefix(keep))
        try db.execute(
            "UPDATE server_import SET rows = rows + ?, problem_count = problem_count + ?, problems_json = ? WHERE id = ?", added,
            problems.count, JSONValue.array(kept).jsonString(), record.id)
    }

    /// The staged rows after `line`, in line order (at most `limit`).
    static func rows(of importId: String, after line: Int, limit: Int, in db: any SQLExecutor) throws -> [(line: Int, json: String)] {
        try db.fetchAll(
            "SELECT line, row_json FROM server_import_row WHERE import_id = ? AND line > ? ORDER BY line LIMIT ?", importId, line, limit
        ).map { (try $0.get("line"), try $0.get("row_json")) }
    }

    static func delete(_ importId: String, in db: any SQLExecutor) throws {
        try db.execute("DELETE FROM server_import_row WHERE import_id = ?", importId)
        try db.execute("DELETE FROM server_import WHERE id = ?", importId)
    }

    /// Drops imports started before `cutoff` and never committed nor cancelled.
    static func pruneStarted(before cutoff: Int64, in db: any SQLExecutor) throws {
        for id in try db.fetchColumn(String.self, "SELECT id FROM server_import WHERE created_at < ?", cutoff) {
            try delete(id, in: db)
        }
    }
}
