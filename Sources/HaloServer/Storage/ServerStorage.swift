import Foundation
import GRDB
import HaloContentStore
import Logging
import Synchronization

/// Where the server keeps its data, behind one interface: the SQLite file of one process (the
/// default, `ServerDatabase`) or a PostgreSQL database that several processes share
/// (`PostgresStorage`). Routes see transactions only as `SQLExecutor`s and never learn which.
///
/// Stamps: content changes are stamped by `clock` inside write transactions. On SQLite one process
/// owns the file, so its clock alone keeps stamps increasing. On PostgreSQL every write first
/// moves the clock past the latest stamp committed by any process (under the write lock every
/// process takes), so stamps still commit in increasing order, whichever process writes.
final class ServerStorage: Sendable {
    enum Backend: Sendable {
        case sqlite(DatabasePool)
        case postgres(PostgresStorage)
    }

    let backend: Backend
    /// Stamps content changes, device and push records; valid inside `write` only on PostgreSQL.
    let clock: MonotonicClock

    private init(_ backend: Backend, clock: MonotonicClock) {
        self.backend = backend
        self.clock = clock
    }

    /// Opens and migrates the database `configuration` names: PostgreSQL when it has a
    /// `postgres` location, else `halo.sqlite` in its data directory.
    static func open(_ configuration: HaloServerConfiguration, logger: Logger) async throws -> ServerStorage {
        guard let location = configuration.postgres else { return try sqlite(directory: configuration.dataDirectory) }
        // Still the place of large sync answers' spill files, which hold content: private.
        try FileManager.default.createDirectory(
            at: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let storage = try PostgresStorage(location: location, logger: logger)
        do {
            try await PostgresMigrator.migrate(storage, to: ServerDatabase.migrations)
        } catch {
            storage.close()
            if let error = error as? PostgresMigrationError { throw HaloServerStartError(error.description) }
            throw HaloServerStartError("Cannot use the PostgreSQL database \(location): \(PostgresStorageError(error).message)")
        }
        return postgres(storage)
    }

    /// A migrated PostgreSQL database. Each process has its own clock (machines' clocks differ):
    /// writes move it past the stamps the others committed.
    static func postgres(_ storage: PostgresStorage, clock: MonotonicClock = MonotonicClock()) -> ServerStorage {
        ServerStorage(.postgres(storage), clock: clock)
    }

    /// The SQLite database in `directory`, with a clock above every stamp it holds, so a wall
    /// clock set back between two runs cannot hand out stamps an earlier sync window covered.
    static func sqlite(directory: URL) throws -> ServerStorage {
        let pool = try ServerDatabase.open(directory: directory)
        let floor = try pool.read(ContentTables.latestStamp)
        return ServerStorage(.sqlite(pool), clock: MonotonicClock(wallClock: { max(MonotonicClock.systemMilliseconds(), floor + 1) }))
    }

    /// Runs `body` in ONE read transaction (a snapshot).
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        switch backend {
        case .sqlite(let pool): return try await pool.read { db in try body(db) }
        case .postgres(let storage): return try await storage.read { db in try body(db) }
        }
    }

    /// After a bulk load: PostgreSQL's planner statistics and visibility map are brought up to
    /// date at once (autovacuum would get there later; until then every search is planned on
    /// guesses and its index-only scans read the table). SQLite needs neither.
    ///
    /// One VACUUM right after the load does not mark every page visible to all: on PostgreSQL 15
    /// the first pass after seeding 100,000 instances marked none of `content_value`'s 19,000
    /// pages, the second a fifth, the third all (searches took 6× longer meanwhile). A page is
    /// marked once its rows' commit is on disk (the load commits synchronously whatever the
    /// server's setting, `seedBenchmark`) and no snapshot that could miss them is open; which
    /// holder delayed the marking was not pinned down (it happened with commits not waiting for
    /// the disk, and during a busy test run even with a synchronous commit). So tables are
    /// vacuumed again while pages are left, for up to about 10 s; past that, autovacuum marks
    /// them later. `PostgresSchemaTests` checks the outcome.
    func refreshAfterBulkLoad() async throws {
        guard case .postgres(let storage) = backend else { return }
        let tables = ["content_instance", "content_body", "content_value", "content_tag", "content_field"]
        try await storage.runOutsideTransaction("VACUUM (ANALYZE) \(tables.joined(separator: ", "))")
        for pass in 0..<40 {
            let unmarked = try await storage.read { db in
                try db.fetchAll(
                    "SELECT relname FROM pg_class WHERE relname IN (\(tables.map { "'\($0)'" }.joined(separator: ", "))) AND relallvisible < relpages"
                ).map { try $0.get(at: 0, as: String.self) }
            }
            if unmarked.isEmpty { return }
            if pass > 0 { try await Task.sleep(for: .milliseconds(250)) }
            try await storage.runOutsideTransaction("VACUUM \(unmarked.joined(separator: ", "))")
        }
    }

    /// Runs `body` in ONE write transaction; writes of every thread and process take turns.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        switch backend {
        case .sqlite(let pool):
            return try await pool.write { db in try body(db) }
        case .postgres(let storage):
            let clock = self.clock
            return try await storage.write { db in
                clock.advance(past: try ContentTables.latestStamp(in: db))
                return try body(db)
            }
        }
    }

    /// Opens the read snapshot of a sync answer and calls `body` once, on a database thread, with
    /// it (or the error that prevented it) and the snapshot's watermark: every change stamped at
    /// or below the watermark is in the snapshot, and every later one will be stamped above it.
    /// Returns as soon as the snapshot is on its way; `body` may still be running.
    func startSyncRead(_ body: @escaping @Sendable (Result<any SQLExecutor, any Error>, _ watermark: Int64) -> Void) async throws {
        switch backend {
        case .sqlite(let pool):
            // Taken on the writer queue between two writes, the clock's current value covers
            // every committed write, and the snapshot opened right there holds all of them.
            let clock = self.clock
            try await pool.writeWithoutTransaction { _ in
                let now = clock.current()
                pool.asyncConcurrentRead { result in body(result.map { $0 as any SQLExecutor }, now) }
            }
        case .postgres(let storage):
            let called = CalledOnce()
            Task {
                do {
                    try await storage.readAtWatermark { db, watermark in
                        called.mark()
                        body(.success(db), watermark)
                    }
                } catch {
                    if !called.wasMarked { body(.failure(error), 0) }
                }
            }
        }
    }

    /// The `syncTimestamp` of an answer read at `watermark` for a client that asked for
    /// `requested` (`toSync`). SQLite echoes it, as HALO did. PostgreSQL clamps one ahead of the
    /// watermark to it: a later write of another process may still be stamped below a time
    /// beyond the watermark, and the client's next window would miss it (docs/protocol.md §14).
    func syncTimestamp(requested: Int64?, watermark: Int64) -> Int64 {
        switch backend {
        case .sqlite: return requested ?? watermark
        case .postgres: return min(requested ?? watermark, watermark)
        }
    }

    /// Closes PostgreSQL's connections (SQLite's pool closes when released).
    func close() {
        if case .postgres(let storage) = backend { storage.close() }
    }
}

/// Whether a callback already ran.
private final class CalledOnce: Sendable {
    private let flag = Atomic(false)
    func mark() { flag.store(true, ordering: .relaxed) }
    var wasMarked: Bool { flag.load(ordering: .relaxed) }
}
