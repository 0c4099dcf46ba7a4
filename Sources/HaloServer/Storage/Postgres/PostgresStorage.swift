import Foundation
import HaloContentStore
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// The server's PostgreSQL database: a small pool of connections and as many threads, on which
/// transactions run the same synchronous code as GRDB's (`SQLExecutor`).
///
/// - Reads run in `REPEATABLE READ READ ONLY` transactions: one snapshot for the whole request, as
///   a SQLite WAL reader sees.
/// - Writes take one advisory transaction lock (`writeLockKey`) before anything else, so that the
///   processes sharing the database write one at a time, in the order they took the lock, exactly
///   as SQLite's single writer does. Two consequences the rest of the server relies on: a
///   transaction's checks (an `If-Match`, a unique name) hold until it commits, and stamps taken
///   inside the lock commit in increasing order, which is what keeps the sync watermark sound
///   across processes. Reads never wait for it.
/// - A connection that was lost (PostgreSQL restarted, the network dropped) is replaced: a
///   transaction that failed before its first statement reached the server is retried once on a
///   new connection; any other failure is the caller's error, and nothing half-done is committed.
public final class PostgresStorage: Sendable {
    /// `pg_advisory_xact_lock`'s key for writes: "HALO" in ASCII.
    public static let writeLockKey: Int64 = 0x4841_4C4F

    public let location: PostgresLocation
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let threads: NIOThreadPool
    private let pool: ConnectionPool
    private let closed = Atomic(false)

    /// Opens nothing yet: connections are made when the first transactions need them (at most
    /// `maximumConnections`, which is also how many transactions run at once).
    public init(location: PostgresLocation, maximumConnections: Int = 12, logger: Logger = Logger(label: "halo-server.postgres")) throws {
        self.location = location
        self.logger = logger
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        switch location.tls {
        case .disable: break
        case .prefer: configuration.tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: configuration.tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        configuration.options.connectTimeout = .seconds(10)
        // JIT compilation pays off for long analytical queries; a search whose estimated cost
        // crosses `jit_above_cost` spent 30 ms compiling to save a few. String constants are read
        // as the statements (`ESCAPE '\'`) and prepared statements' values are written, whatever
        // the server's default.
        configuration.options.additionalStartupParameters = [("jit", "off"), ("standard_conforming_strings", "on")]
        self.configuration = configuration
        threads = NIOThreadPool(numberOfThreads: maximumConnections)
        threads.start()
        pool = ConnectionPool(capacity: maximumConnections)
    }

    deinit { close() }

    /// Closes every connection and stops the threads (once, however often it is called);
    /// transactions after this fail.
    public func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        for pooled in pool.drain() { try? (pooled.connection.close() as EventLoopFuture<Void>).wait() }
        threads.shutdownGracefully { _ in }
    }

    /// Runs `body` in one read-only snapshot.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T) async throws -> T {
        try await transaction(begin: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], awaitingCommit: false, preparing: true, body)
    }

    /// Runs `body` in one write transaction, after every other process's and thread's writes
    /// (see the type's comment). Commits when `body` returns, rolls back when it throws.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T) async throws -> T {
        try await transaction(begin: ["BEGIN ISOLATION LEVEL READ COMMITTED", "SELECT pg_advisory_xact_lock(\(Self.writeLockKey))"], body)
    }

    /// Runs `body` in a read-only snapshot taken while no write is in flight, with the sync
    /// watermark of that snapshot: the latest content stamp it holds. Every write stamped at or
    /// below the watermark is in the snapshot, and every later write is stamped above it
    /// (`ServerStorage.write` moves its clock past the stamps committed before it, under the write lock), so consecutive
    /// sync windows (…, watermark] never miss a write nor report one twice, whichever process
    /// made it and in whatever order their clocks ran.
    ///
    /// The snapshot waits for the write in progress, if any (a shared hold of the write lock
    /// while the snapshot is taken); writes wait only for that instant, not for the read.
    @discardableResult
    public func readAtWatermark<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction, Int64) throws -> T) async throws -> T {
        try await transaction(
            begin: [
                "SELECT pg_advisory_lock_shared(\(Self.writeLockKey))", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                // The snapshot is taken by the transaction's first query (the watermark's), then the
                // writes may go on: none of them can commit into it any more.
            ],
            firstQuery: { db in
                let watermark = try ContentTables.latestStamp(in: db)
                try db.runSimple("SELECT pg_advisory_unlock_shared(\(Self.writeLockKey))")
                return watermark
            },
            releasing: "SELECT pg_advisory_unlock_all()", body)
    }

    private func transaction<T: Sendable>(
        begin: [String], awaitingCommit: Bool = true, preparing: Bool = false,
        _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> T {
        try await transaction(
            begin: begin, firstQuery: { _ in 0 }, releasing: nil, awaitingCommit: awaitingCommit, preparing: preparing
        ) { db, _ in try body(db) }
    }

    /// `begin`'s statements (a BEGIN among them), then `firstQuery` (whose answer `body`
    /// receives), then `body`, then COMMIT; the connection goes back to the pool after
    /// `releasing` (session state to undo) succeeded. Without `awaitingCommit` (a read-only
    /// snapshot: its COMMIT has nothing to make durable and cannot fail but with the connection)
    /// the COMMIT is sent and not waited for, saving a round trip: the connection runs
    /// statements in order, so its next user's BEGIN follows it, and finds a lost connection.
    /// With `preparing` (reads: running one again is harmless) the queries use the connection's
    /// prepared statements, and a read that found one outdated by a migration is run again.
    private func transaction<T: Sendable, First: Sendable>(
        begin: [String], firstQuery: @escaping @Sendable (PostgresTransaction) throws -> First, releasing: String?,
        awaitingCommit: Bool = true, preparing: Bool = false, _ body: @escaping @Sendable (PostgresTransaction, First) throws -> T
    ) async throws -> T {
        try await threads.runIfActive { [self] in
            var retried = false
            var replanned = false
            while true {
                let pooled = try lease()
                let transaction = PostgresTransaction(
                    connection: pooled.connection, logger: logger, statements: preparing ? pooled.statements : nil)
                do {
                    for statement in begin { try transaction.runSimple(statement) }
                } catch let error as PostgresStorageError where error.connectionLost && !retried {
                    // A pooled connection PostgreSQL dropped (a restart): one new connection may do.
                    pool.discard(pooled)
                    retried = true
                    continue
                } catch {
                    pool.discard(pooled)
                    throw error
                }
                do {
                    let value = try body(transaction, try firstQuery(transaction))
                    if awaitingCommit { try transaction.runSimple("COMMIT") } else { transaction.sendSimple("COMMIT") }
                    if let releasing { try transaction.runSimple(releasing) }
                    pool.giveBack(pooled)
                    return value
                } catch {
                    let rolledBack = (try? transaction.runSimple("ROLLBACK")) != nil
                    let released = releasing.map { (try? transaction.runSimple($0)) != nil } ?? true
                    if !pooled.connection.isClosed, rolledBack, released {
                        pool.giveBack(pooled)
                    } else {
                        pool.discard(pooled)
                    }
                    if preparing, !replanned, let failure = error as? PostgresStorageError, failure.outdatedPreparedStatement {
                        replanned = true
                        continue
                    }
                    throw error
                }
            }
        }
    }

    /// Runs one statement outside any transaction (VACUUM refuses to run inside one).
    func runOutsideTransaction(_ sql: String) async throws {
        try await threads.runIfActive { [self] in
            let pooled = try lease()
            do {
                try PostgresTransaction(connection: pooled.connection, logger: logger).runSimple(sql)
                pool.giveBack(pooled)
            } catch {
                pool.discard(pooled)
                throw error
            }
        }
    }

    /// A connection outside the pool, for work that holds one for long (LISTEN); the caller
    /// closes it.
    func dedicatedConnection() async throws -> PostgresConnection {
        do { return try await connect().get() } catch { throw connectionError(error) }
    }

    /// A pooled connection, or a new one when none is idle; waits while `capacity` are in use.
    private func lease() throws -> PooledConnection {
        if let connection = pool.take() { return connection }
        do {
            return PooledConnection(connection: try connect().wait())
        } catch {
            pool.discardSlot()
            throw connectionError(error)
        }
    }

    private func connect() -> EventLoopFuture<PostgresConnection> {
        PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: pool.nextIdentifier(), logger: logger)
    }

    /// A failed connection attempt, naming the database (never the password).
    private func connectionError(_ error: any Error) -> PostgresStorageError {
        let reason = PostgresStorageError(error)
        return PostgresStorageError(sqlState: reason.sqlState, message: "Cannot connect to \(location): \(reason.message)")
    }
}

extension PostgresTransaction {
    /// Sends one statement without parameters and does not wait for its answer (the
    /// connection's next statement waits behind it).
    func sendSimple(_ sql: String) {
        _ = connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// Runs one statement without parameters (BEGIN, COMMIT, the write lock).
    func runSimple(_ sql: String) throws {
        do {
            _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
        } catch {
            throw PostgresStorageError(error)
        }
    }
}

/// A pooled connection and the statements prepared on it (they live as long as it does).
private final class PooledConnection: Sendable {
    let connection: PostgresConnection
    let statements = PostgresPreparedStatements()

    init(connection: PostgresConnection) { self.connection = connection }
}

/// Idle connections and a count of slots: `take` hands out an idle connection or a free slot
/// (nil: connect a new one), waiting while every slot is leased.
private final class ConnectionPool: Sendable {
    private struct State {
        var idle: [PooledConnection] = []
        var leased = 0
        var lastIdentifier = 0
        /// Drained by `close`: connections given back are closed, not kept.
        var drained = false
    }
    private let capacity: Int
    private let state = Mutex(State())
    private let slots: DispatchSemaphore

    init(capacity: Int) {
        self.capacity = capacity
        slots = DispatchSemaphore(value: capacity)
    }

    /// An idle, open connection, or nil after reserving a slot for a new one.
    func take() -> PooledConnection? {
        slots.wait()
        return state.withLock { state in
            state.leased += 1
            while let pooled = state.idle.popLast() {
                if !pooled.connection.isClosed { return pooled }
            }
            return nil
        }
    }

    /// Keeps a connection for the next transaction, or closes it when the storage was closed
    /// while it was leased (PostgresNIO requires every connection to be closed).
    func giveBack(_ pooled: PooledConnection) {
        let kept = state.withLock { state in
            state.leased -= 1
            if !state.drained { state.idle.append(pooled) }
            return !state.drained
        }
        if !kept { try? (pooled.connection.close() as EventLoopFuture<Void>).wait() }
        slots.signal()
    }

    /// Closes a connection that is broken or must not be reused, and frees its slot. Waits for
    /// the close (PostgresNIO requires a connection to be closed before it is released); called
    /// on the storage's threads only.
    func discard(_ pooled: PooledConnection) {
        try? (pooled.connection.close() as EventLoopFuture<Void>).wait()
        discardSlot()
    }

    /// Frees a slot whose connection never opened.
    func discardSlot() {
        state.withLock { $0.leased -= 1 }
        slots.signal()
    }

    func nextIdentifier() -> Int {
        state.withLock { state in
            state.lastIdentifier += 1
            return state.lastIdentifier
        }
    }

    /// Every idle connection, removed from the pool, which keeps none from now on.
    func drain() -> [PooledConnection] {
        state.withLock { state in
            state.drained = true
            defer { state.idle.removeAll() }
            return state.idle
        }
    }
}
