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

    static func create(id: String, moduleId: String, owner: String, at stamp: Int64, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO server_import (id, module_id, owner, created_at) VALUES (?, ?, ?, ?)",
            arguments: [id, moduleId, owner, stamp])
    }

    static func find(id: String, in db: Database) throws -> Record? {
        try Row.fetchOne(db, sql: "SELECT * FROM server_import WHERE id = ?", arguments: [id]).map { row in
            Record(
                id: row["id"], moduleId: row["module_id"], owner: row["owner"], rows: row["rows"], problemCount: row["problem_count"],
                problems: (try JSONValue(string: row["problems_json"])).arrayValue ?? [])
        }
    }

    /// The line that already stages `instanceId` in this import, if any.
    static func line(staging instanceId: String, in importId: String, in db: Database) throws -> Int? {
        try Int.fetchOne(
            db, sql: "SELECT line FROM server_import_row WHERE import_id = ? AND instance_id = ?", arguments: [importId, instanceId])
    }

    static func hasLine(_ line: Int, in importId: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM server_import_row WHERE import_id = ? AND line = ?)", arguments: [importId, line])
            ?? false
    }

    static func addRow(line: Int, instanceId: String?, json: String, to importId: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO server_import_row (import_id, line, instance_id, row_json) VALUES (?, ?, ?, ?)",
            arguments: [importId, line, instanceId, json])
    }

    /// Counts `added` rows and `problems` (keeping the first `keep` problems of the import).
    static func record(added: Int, problems: [JSONValue], keep: Int, in record: Record, in db: Database) throws {
        let kept = Array((record.problems + problems).prefix(keep))
        try db.execute(
            sql: "UPDATE server_import SET rows = rows + ?, problem_count = problem_count + ?, problems_json = ? WHERE id = ?",
            arguments: [added, problems.count, JSONValue.array(kept).jsonString(), record.id])
    }

    /// The staged rows after `line`, in line order (at most `limit`).
    static func rows(of importId: String, after line: Int, limit: Int, in db: Database) throws -> [(line: Int, json: String)] {
        try Row.fetchAll(
            db, sql: "SELECT line, row_json FROM server_import_row WHERE import_id = ? AND line > ? ORDER BY line LIMIT ?",
            arguments: [importId, line, limit]
        ).map { ($0["line"], $0["row_json"]) }
    }

    static func delete(_ importId: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM server_import_row WHERE import_id = ?", arguments: [importId])
        try db.execute(sql: "DELETE FROM server_import WHERE id = ?", arguments: [importId])
    }

    /// Drops imports started before `cutoff` and never committed nor cancelled.
    static func pruneStarted(before cutoff: Int64, in db: Database) throws {
        for id in try String.fetchAll(db, sql: "SELECT id FROM server_import WHERE created_at < ?", arguments: [cutoff]) {
            try delete(id, in: db)
        }
    }
}
