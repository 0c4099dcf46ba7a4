import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer

/// One migration list, two databases: PostgreSQL ends with the tables, columns and indexes SQLite
/// has, migrates once however many processes start, and is never left half-migrated.
final class PostgresSchemaTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var database = ""
    private var storage: PostgresStorage!

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        database = try cluster.makeDatabase()
        storage = try makeStorage()
    }

    override func tearDown() {
        storage?.close()
    }

    private func makeStorage() throws -> PostgresStorage {
        try PostgresStorage(
            location: PostgresLocation(cluster.address(database: database), environment: ["PGPASSWORD": PostgresCluster.password]),
            maximumConnections: 2)
    }

    /// A table's columns in order: name, whether it may be null, its default (type casts removed).
    private struct Column: Equatable, CustomStringConvertible {
        var name: String
        var nullable: Bool
        var defaultValue: String?
        var description: String { "\(name)\(nullable ? "" : " NOT NULL")\(defaultValue.map { " DEFAULT \($0)" } ?? "")" }
    }

    func testPostgreSQLGetsTheTablesColumnsAndIndexesOfSQLite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try ServerDatabase.open(directory: directory)
        let applied = try await PostgresMigrator.migrate(storage, to: ServerDatabase.migrations)
        XCTAssertEqual(applied, ServerDatabase.migrations.map(\.name))

        let sqliteSchema: (tables: [String: [Column]], indexes: Set<String>, steps: [String]) = try await sqlite.read { db in
            // The FTS5 trigram index and its shadow tables are SQLite's own (PostgreSQL: pg_trgm).
            let names = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT LIKE 'content_trigram%' AND name <> 'grdb_migrations'
                    """)
            var tables = [String: [Column]]()
            for name in names {
                tables[name] = try Row.fetchAll(db, sql: "PRAGMA table_info(\(name))").map { row in
                    Column(
                        name: row["name"], nullable: row["notnull"] == 0 && row["pk"] == 0,
                        defaultValue: row["dflt_value"])
                }
            }
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            let steps = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            return (tables, Set(indexes), steps)
        }
        let postgresSchema: (tables: [String: [Column]], indexes: Set<String>, steps: [String]) = try await storage.read { db in
            var tables = [String: [Column]]()
            for row in try db.fetchAll(
                """
                SELECT table_name, column_name, is_nullable, column_default FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name <> 'halo_migrations' ORDER BY table_name, ordinal_position
                """)
            {
                let defaultValue = try row.get("column_default", as: String?.self)?
                    .replacingOccurrences(of: #"::[a-z ]+"#, with: "", options: .regularExpression)
                tables[try row.get("table_name"), default: []].append(
                    Column(
                        name: try row.get("column_name"), nullable: try row.get("is_nullable", as: String.self) == "YES",
                        defaultValue: defaultValue))
            }
            let indexes = try db.fetchAll(
                """
                SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()
                AND indexname NOT IN (SELECT conname FROM pg_constraint)
                """
            ).map { try $0.get("indexname", as: String.self) }
            let steps = try db.fetchAll("SELECT identifier FROM halo_migrations ORDER BY position")
                .map { try $0.get("identifier", as: String.self) }
            return (tables, Set(indexes), steps)
        }
        XCTAssertEqual(postgresSchema.steps, sqliteSchema.steps)
        // PostgreSQL lists the keys below the largest that no instance holds (its searches know
        // the instances from them); SQLite counts its instances instead. SQLite counts its writes
        // for the searches' in-memory copies (`content_generation`), which PostgreSQL has none of.
        // An SQLite cache may write value rows on demand (`content_value_policy`,
        // `content_field.indexed`: `ValueIndexOnDemand`); a server writes them with every instance.
        let sqliteOnly: Set<String> = ["content_generation", "content_value_policy"]
        XCTAssertEqual(
            Set(postgresSchema.tables.keys), Set(sqliteSchema.tables.keys).union(["content_key_gap"]).subtracting(sqliteOnly))
        XCTAssertGreaterThanOrEqual(sqliteSchema.tables.count, 17)
        for (table, columns) in sqliteSchema.tables where !sqliteOnly.contains(table) {
            // PostgreSQL's value index reads a bounded prefix of each string from a column of its own.
            let postgresColumns = postgresSchema.tables[table]?.filter { table != "content_value" || $0.name != "str_prefix" }
            let sqliteColumns = columns.filter { table != "content_field" || $0.name != "indexed" }
            XCTAssertEqual(postgresColumns?.description, sqliteColumns.description, table)
        }
        XCTAssertEqual(postgresSchema.tables["content_value"]?.last?.name, "str_prefix")
        // SQLite's COLLATE NOCASE unique email is a column constraint there, an index on lower(email)
        // here; SQLite's FTS5 trigram table, and the index of the strings it leaves out, are two
        // pg_trgm indexes here; SQLite merges the modules' indexes of the "updatedAt" and
        // "publishedAt" orders where PostgreSQL reads one index of that order over every module (its
        // content_instance_published is SQLite's too), and sorts matches by name where PostgreSQL
        // reads an index of names.
        XCTAssertEqual(
            postgresSchema.indexes.subtracting(sqliteSchema.indexes),
            [
                "server_user_email", "content_value_trigram", "content_value_trigram_short", "content_instance_changed",
                "content_instance_name",
            ])
        XCTAssertEqual(
            sqliteSchema.indexes.subtracting(postgresSchema.indexes),
            ["content_value_untrigrammed", "content_instance_module_published"])
    }

    /// A bulk load (seeding) drops the search indexes and builds them again: exactly the ones the
    /// migrations made, with the same definitions.
    func testABulkLoadRebuildsExactlyTheMigratedIndexes() async throws {
        try await PostgresMigrator.migrate(storage, to: ServerDatabase.migrations)
        let definitions: @Sendable (any SQLExecutor) throws -> [String] = { db in
            try db.fetchAll("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname")
                .map { try $0.get("indexdef", as: String.self) }
        }
        let migrated = try await storage.read { try definitions($0) }
        let during = try await storage.write { db in try ContentTables.withSecondaryIndexesDeferred(in: db) { try definitions(db) } }
        let rebuilt = try await storage.read { try definitions($0) }
        XCTAssertEqual(rebuilt, migrated)
        XCTAssertFalse(during.contains { $0.contains("content_value_trigram") || $0.contains("content_value_lookup") })
    }

    /// `content_v6_dense_keys` lists the holes an older database has in its keys (a deleted row,
    /// a key its sequence drew for an update), and searches count the instances right after it.
    func testTheDenseKeysStepListsTheHolesOfAnOlderDatabase() async throws {
        let all = ServerDatabase.migrations
        let before = try XCTUnwrap(all.firstIndex { $0.name == "content_v6_dense_keys" })
        try await PostgresMigrator.migrate(storage, to: Array(all.prefix(before)))
        try await storage.write { db in
            for id in ["a", "b", "c"] {
                try db.execute(
                    "INSERT INTO content_instance (id, module, name, name_folded, created_at) VALUES (?, 'm', ?, ?, 1)", id, id, id)
            }
            try db.execute("DELETE FROM content_instance WHERE id = 'b'")
            _ = try db.select("SELECT nextval(pg_get_serial_sequence('content_instance', 'pk'))", bindings: [])
            try db.execute("INSERT INTO content_instance (id, module, name, name_folded, created_at) VALUES ('d', 'm', 'd', 'd', 1)")
            try db.execute("INSERT INTO content_body (pk, values_json, tags_json) SELECT pk, '{}', '[]' FROM content_instance")
        }
        try await PostgresMigrator.migrate(storage, to: all)
        let (gaps, newKey, total) = try await storage.write { db in
            let gaps = try db.fetchAll("SELECT pk FROM content_key_gap ORDER BY pk").map { try $0.get(at: 0, as: Int64.self) }
            try ContentTables.upsert(WireInstance(id: "e", module: "m", name: "e", createdAt: 2), in: db)
            let newKey = try db.fetchValue(Int64.self, "SELECT pk FROM content_instance WHERE id = 'e'")
            let total = try ContentTables.search(SearchRequest(), in: db).total
            return (gaps, newKey, total)
        }
        XCTAssertEqual(gaps, [2, 4])
        XCTAssertEqual(newKey, 6)
        XCTAssertEqual(total, 4)
    }

    /// After seeding, every page of the searched tables is marked visible to all, so searches'
    /// index-only scans never visit the table. With commits not waiting for the disk (as the
    /// benchmarks run PostgreSQL), one VACUUM right after the load marks none of its pages.
    func testSeedingLeavesTheSearchedTablesVisibleToAll() async throws {
        try cluster.psql("ALTER DATABASE \(database) SET synchronous_commit = off")
        let admin = try await HaloServerAdmin.open(
            postgres: PostgresLocation(cluster.address(database: database), environment: ["PGPASSWORD": PostgresCluster.password]))
        defer { admin.close() }
        try await admin.seedBenchmark(instances: 6_000, modules: 2)
        let pages = try await storage.read { db in
            try db.fetchAll(
                "SELECT relname, relpages, relallvisible FROM pg_class WHERE relname IN ('content_instance', 'content_value')"
            ).map { row in try "\(row.get(at: 0, as: String.self)) \(row.get(at: 1, as: Int64.self)) \(row.get(at: 2, as: Int64.self))" }
        }
        XCTAssertEqual(pages.count, 2)
        for line in pages {
            let parts = line.split(separator: " ")
            XCTAssertGreaterThan(Int(parts[1]) ?? 0, 10, line)
            XCTAssertEqual(parts[1], parts[2], "\(line): pages, pages visible to all")
        }
    }

    func testProcessesStartingTogetherMigrateOnce() async throws {
        let others = try (0..<3).map { _ in try makeStorage() }
        defer { others.forEach { $0.close() } }
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for storage in others + [storage!] {
                group.addTask { try await PostgresMigrator.migrate(storage, to: ServerDatabase.migrations) }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        XCTAssertEqual(applied.filter { !$0.isEmpty }.count, 1, "\(applied)")
        XCTAssertEqual(applied.flatMap { $0 }, ServerDatabase.migrations.map(\.name))
    }

    func testAnOlderSchemaIsMigratedAndANewerOneRefused() async throws {
        let all = ServerDatabase.migrations
        let first = try await PostgresMigrator.migrate(storage, to: Array(all.prefix(6)))
        XCTAssertEqual(first.count, 6)
        let rest = try await PostgresMigrator.migrate(storage, to: all)
        XCTAssertEqual(rest, all.dropFirst(6).map(\.name))

        let future = StorageMigration("server-v99-future", sqlite: { _ in }, postgres: { _ in })
        try await PostgresMigrator.migrate(storage, to: all + [future])
        do {
            try await PostgresMigrator.migrate(storage, to: all)
            XCTFail("an older halo-server used a database a newer one migrated")
        } catch {
            XCTAssertTrue("\(error)".contains("was migrated by a newer halo-server"), "\(error)")
            XCTAssertTrue("\(error)".contains("server-v99-future"), "\(error)")
        }
    }

    func testAFailingStepLeavesTheDatabaseAsItWas() async throws {
        let all = ServerDatabase.migrations
        try await PostgresMigrator.migrate(storage, to: Array(all.prefix(4)))
        let broken = StorageMigration(
            "server-v99-broken", sqlite: { _ in }, postgres: { db in try db.execute("ALTER TABLE no_such_table ADD COLUMN x BIGINT") })
        do {
            try await PostgresMigrator.migrate(storage, to: all + [broken])
            XCTFail("a broken step was applied")
        } catch {
            XCTAssertTrue("\(error)".contains("failed at step 'server-v99-broken', so no step was applied"), "\(error)")
        }
        let (steps, serverTables) = try await storage.read { db in
            (
                try db.fetchValue(Int64.self, "SELECT count(*) FROM halo_migrations"),
                try db.fetchValue(Int64.self, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'server_%'")
            )
        }
        XCTAssertEqual(steps, 4, "the four content steps only")
        XCTAssertEqual(serverTables, 0, "server-v1 … v7 rolled back with the broken step")
    }
}
