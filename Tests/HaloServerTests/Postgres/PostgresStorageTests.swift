import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer

/// The PostgreSQL storage on a real private cluster (`PostgresCluster`): the same statements
/// give the same answers as on SQLite, writes from separate storages (as from separate processes)
/// never interleave, a failed transaction commits nothing, and a restart of PostgreSQL costs no
/// restart of ours.
final class PostgresStorageTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var database = ""

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        database = try cluster.makeDatabase()
    }

    private func storage(maximumConnections: Int = 4) throws -> PostgresStorage {
        try PostgresStorage(
            location: PostgresLocation(
                cluster.address(database: database), environment: ["PGPASSWORD": PostgresCluster.password]),
            maximumConnections: maximumConnections)
    }

    // MARK: The address and the password

    func testTheAddressNamesEverythingButThePassword() throws {
        let location = try PostgresLocation("postgres://halo@db.example:6543/content?sslmode=require", environment: [:])
        XCTAssertEqual(location.host, "db.example")
        XCTAssertEqual(location.port, 6543)
        XCTAssertEqual(location.user, "halo")
        XCTAssertEqual(location.database, "content")
        XCTAssertEqual(location.tls, .require)
        XCTAssertNil(location.password)
        XCTAssertEqual(try PostgresLocation("postgresql://u@h/d", environment: [:]).port, 5432)
        XCTAssertEqual(try PostgresLocation("postgresql://u@h/d", environment: [:]).tls, .prefer)

        let refusals: [(String, String)] = [
            ("postgres://halo:secret@localhost/content", "Do not put the password in the database address"),
            ("mysql://halo@localhost/content", "is not a PostgreSQL address"),
            ("postgres://halo@localhost/", "names no database"),
            ("postgres://localhost/content", "names no user"),
            ("postgres://halo@localhost/content?sslmode=verify-full", "is not one of disable, prefer, require"),
        ]
        for (address, message) in refusals {
            XCTAssertThrowsError(try PostgresLocation(address, environment: [:]), address) { error in
                XCTAssertTrue("\(error)".contains(message), "\(address): \(error)")
                // The refused password never shows in the message.
                XCTAssertFalse("\(error)".contains("secret"), "\(error)")
            }
        }
    }

    func testThePasswordComesFromTheEnvironmentOrThePasswordFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pgpass")
        try """
        # host:port:database:user:password
        other.example:5432:*:halo:not-this-one
        db.example:*:content:halo:pa\\:ss\\\\word
        *:*:*:*:fallback
        """.write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o600)
        let address = "postgres://halo@db.example/content"
        XCTAssertEqual(try PostgresLocation(address, environment: ["PGPASSFILE": file.path]).password, "pa:ss\\word")
        XCTAssertEqual(
            try PostgresLocation("postgres://bob@else.example/x", environment: ["PGPASSFILE": file.path]).password, "fallback")
        // PGPASSWORD wins, as with libpq.
        XCTAssertEqual(
            try PostgresLocation(address, environment: ["PGPASSFILE": file.path, "PGPASSWORD": "env"]).password, "env")
        // ~/.pgpass when PGPASSFILE is not set; none when neither exists.
        try FileManager.default.copyItem(at: file, to: directory.appendingPathComponent(".pgpass"))
        XCTAssertEqual(try PostgresLocation(address, environment: ["HOME": directory.path]).password, "pa:ss\\word")
        XCTAssertNil(try PostgresLocation(address, environment: ["HOME": "/nonexistent"]).password)
        // A file other users may read is refused, with the fix.
        chmod(file.path, 0o644)
        XCTAssertThrowsError(try PostgresLocation(address, environment: ["PGPASSFILE": file.path])) { error in
            XCTAssertTrue("\(error)".contains("chmod 600"), "\(error)")
        }
    }

    func testAWrongPasswordIsAClearError() async throws {
        let location = try PostgresLocation(cluster.address(database: database), environment: ["PGPASSWORD": "wrong"])
        let storage = try PostgresStorage(location: location, maximumConnections: 1)
        defer { storage.close() }
        do {
            _ = try await storage.read { try $0.fetchValue(Int64.self, "SELECT 1") }
            XCTFail("a wrong password connected")
        } catch {
            XCTAssertTrue("\(error)".contains("Cannot connect to \(location)"), "\(error)")
            XCTAssertTrue("\(error)".contains("password authentication failed"), "\(error)")
            XCTAssertFalse("\(error)".contains("wrong"), "the password is not in the message: \(error)")
        }
    }

    // MARK: One SQL, two databases

    /// The statements code shares between the back ends give the same rows on both: integers,
    /// reals, text with quotes and question marks, blobs, nulls, upserts and RETURNING.
    func testTheSameStatementsGiveTheSameAnswersOnSQLiteAndPostgreSQL() async throws {
        let sqlite = try await DatabaseQueue().write { db in try Self.exercise(db) }
        let storage = try storage()
        defer { storage.close() }
        let postgres = try await storage.write { db in try Self.exercise(db) }
        XCTAssertEqual(postgres, sqlite)
        XCTAssertEqual(postgres.count, 5, "\(postgres)")
        XCTAssertEqual(postgres.last?.values, [.integer(3), .text("no score"), .null, .null, .null])
        XCTAssertEqual(postgres[2].values, [.integer(1), .text("it's ?"), .real(3), .blob([0, 1, 255]), .integer(1)])
    }

    private static func exercise(_ db: some SQLExecutor) throws -> [SQLRow] {
        let blob = db.dialect == .postgres ? "BYTEA" : "BLOB"
        try db.execute(
            "CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL, score DOUBLE PRECISION, data \(blob), flag BIGINT)")
        var rows = [SQLRow]()
        for (id, name, score, flag) in [(1, "it's ?", 1.5, true), (2, "plain", -0.25, false)] {
            rows += try db.fetchAll(
                "INSERT INTO t (id, name, score, data, flag) VALUES (?, ?, ?, ?, ?) RETURNING id, name",
                Int64(id), name, score, [UInt8]([0, 1, 255]), flag)
        }
        try db.execute("INSERT INTO t (id, name) VALUES (?, ?)", Int64(3), "no score")
        let changed = try db.execute(
            "INSERT INTO t (id, name) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name || '?'",
            Int64(2), "upserted")
        XCTAssertEqual(changed, 1)
        XCTAssertEqual(try db.execute("UPDATE t SET score = score * 2 WHERE score IS NOT NULL"), 2)
        XCTAssertEqual(try db.fetchValue(Int64.self, "SELECT count(*) FROM t WHERE name <> ?", "x"), 3)
        XCTAssertNil(try db.fetchValue(Double.self, "SELECT score FROM t WHERE id = ?", Int64(3)))
        let flag = try XCTUnwrap(try db.fetchOne("SELECT flag FROM t WHERE id = 1"))
        XCTAssertEqual(try flag.get("flag", as: Bool.self), true)
        rows += try db.fetchAll("SELECT id, name, score, data, flag FROM t WHERE name LIKE '%?%' OR id = ? ORDER BY id", Int64(3))
        return rows
    }

    func testAStatementErrorNamesPostgreSQLsReason() async throws {
        let storage = try storage()
        defer { storage.close() }
        do {
            _ = try await storage.read { try $0.fetchAll("SELECT * FROM no_such_table") }
            XCTFail("selected from a missing table")
        } catch let error as PostgresStorageError {
            XCTAssertEqual(error.sqlState, "42P01")
            XCTAssertTrue(error.description.contains("relation \"no_such_table\" does not exist"), "\(error)")
        }
    }

    // MARK: Prepared statements

    /// A read's query seen a second time on a connection is prepared there and from then on run
    /// as EXECUTE, its values written as literals: every kind of value reads back the same
    /// (quotes, backslashes, placeholders in text, extreme numbers, every byte), and the
    /// statement is in the connection's `pg_prepared_statements`. The database's default reads
    /// backslashes in string constants as escapes (`standard_conforming_strings = off`); the
    /// storage's connections do not.
    func testARepeatedQueryIsPreparedAndGivesTheSameAnswers() async throws {
        let setUp = try storage(maximumConnections: 1)
        let name = database
        try await setUp.write { try $0.execute("ALTER DATABASE \"\(name)\" SET standard_conforming_strings = off") }
        setUp.close()
        let storage = try storage(maximumConnections: 1)
        defer { storage.close() }
        let values: [SQLValue] = [
            .integer(.min), .integer(.max), .real(0.1), .real(-1e300), .real(-.infinity),
            .text("it's a 'quoted' \\ back\\slash, ? and $1, ✓"), .text(""), .blob([0, 39, 92, 255]),
        ]
        let sql = "SELECT " + values.indices.map { "? AS c\($0)" }.joined(separator: ", ")
        for run in 1...4 {
            let row = try await storage.read { db in try db.select(sql, bindings: values) }
            XCTAssertEqual(row.first?.values, values, "run \(run)")
        }
        let prepared = try await storage.read { db in
            try db.fetchAll("SELECT statement FROM pg_prepared_statements").compactMap { try $0.get(at: 0, as: String?.self) }
        }
        XCTAssertTrue(prepared.contains { $0.contains("SELECT $1 AS c0, $2 AS c1") }, "\(prepared)")
    }

    /// A migration by another process changes the shape of a table under a prepared `SELECT *`
    /// ("cached plan must not change result type"): the read is run again on a fresh statement
    /// and answers with the new column; the caller sees no error.
    func testAQueryPreparedBeforeAMigrationAnswersAfterIt() async throws {
        let storage = try storage(maximumConnections: 1)
        defer { storage.close() }
        try await storage.write { db in
            try db.execute("CREATE TABLE shaped (id BIGINT PRIMARY KEY)")
            try db.execute("INSERT INTO shaped (id) VALUES (1)")
        }
        for _ in 1...3 {
            let rows = try await storage.read { try $0.fetchAll("SELECT * FROM shaped WHERE id = ?", Int64(1)) }
            XCTAssertEqual(rows.first?.values, [.integer(1)])
        }
        let otherProcess = try self.storage()
        defer { otherProcess.close() }
        try await otherProcess.write { try $0.execute("ALTER TABLE shaped ADD COLUMN name TEXT DEFAULT 'new'") }
        let rows = try await storage.read { try $0.fetchAll("SELECT * FROM shaped WHERE id = ?", Int64(1)) }
        XCTAssertEqual(rows.first?.values, [.integer(1), .text("new")])
    }

    // MARK: Transactions

    func testAFailedWriteCommitsNothingAndReadsCannotWrite() async throws {
        let storage = try storage()
        defer { storage.close() }
        try await storage.write { try $0.execute("CREATE TABLE kept (id BIGINT PRIMARY KEY)") }
        struct Refused: Error {}
        do {
            try await storage.write { db in
                try db.execute("INSERT INTO kept (id) VALUES (1)")
                throw Refused()
            }
            XCTFail("the write did not throw")
        } catch is Refused {}
        do {
            try await storage.read { db in try db.execute("INSERT INTO kept (id) VALUES (2)") }
            XCTFail("a read transaction wrote")
        } catch let error as PostgresStorageError {
            XCTAssertEqual(error.sqlState, "25006", "\(error)")  // read_only_sql_transaction
        }
        let count = try await storage.read { try $0.fetchValue(Int64.self, "SELECT count(*) FROM kept") }
        XCTAssertEqual(count, 0)
        // The connections that saw those errors were rolled back and still work.
        try await storage.write { try $0.execute("INSERT INTO kept (id) VALUES (3)") }
        let after = try await storage.read { try $0.fetchValue(Int64.self, "SELECT count(*) FROM kept") }
        XCTAssertEqual(after, 1)
    }

    /// Two storages stand for two server processes. Each write reads a counter, waits, and writes
    /// it back plus one: without the shared write lock, READ COMMITTED lets them read the same value
    /// and updates are lost.
    func testWritesOfSeparateProcessesNeverInterleave() async throws {
        let first = try storage(maximumConnections: 4)
        let second = try storage(maximumConnections: 4)
        defer {
            first.close()
            second.close()
        }
        try await first.write { db in
            try db.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, value BIGINT NOT NULL)")
            try db.execute("INSERT INTO counter VALUES (1, 0)")
        }
        let increments = 16
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<increments {
                let storage = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await storage.write { db in
                        let value = try XCTUnwrap(try db.fetchValue(Int64.self, "SELECT value FROM counter WHERE id = 1"))
                        usleep(5_000)
                        try db.execute("UPDATE counter SET value = ? WHERE id = 1", value + 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        let value = try await first.read { try $0.fetchValue(Int64.self, "SELECT value FROM counter WHERE id = 1") }
        XCTAssertEqual(value, Int64(increments))
    }

    /// PostgreSQL restarted: the pooled connections are dead, and the next transactions open new
    /// ones instead of failing until our process restarts.
    func testTransactionsGoOnAfterPostgreSQLRestarts() async throws {
        let storage = try storage(maximumConnections: 2)
        defer { storage.close() }
        try await storage.write { try $0.execute("CREATE TABLE survivor (id BIGINT PRIMARY KEY)") }
        try await storage.write { try $0.execute("INSERT INTO survivor VALUES (1)") }
        try cluster.restart()
        for id in 2...4 {
            try await storage.write { try $0.execute("INSERT INTO survivor VALUES (?)", Int64(id)) }
        }
        let count = try await storage.read { try $0.fetchValue(Int64.self, "SELECT count(*) FROM survivor") }
        XCTAssertEqual(count, 4)
    }
}
