import Foundation
import HaloContentStore
import Hummingbird
import Logging

/// The services every route shares: database, clock, tokens and limits.
struct ServerEnvironment: Sendable {
    /// SQLite or PostgreSQL; routes see only its transactions (`read`, `write`).
    let storage: ServerStorage
    let tokens: TokenService
    let configuration: HaloServerConfiguration
    let logger: Logger
    /// Caps on concurrent syncs and their database readers.
    let streams: StreamAdmission
    /// Searches running at once (`ServerLimits.searches`).
    let searches: FairGate
    /// In-memory copies of what searches read (`ServerLimits.searchMemoryBytes`); SQLite only.
    let searchMemory: SearchMemory?
    /// Where password hashes run (off the cooperative thread pool).
    let hashing: HashingExecutor
    /// Brute-force protection of logins and token grants.
    let logins: LoginThrottle
    /// Wakes the live event streams when events commit.
    let events: EventBroker
    /// Sends scheduled notifications when they fall due.
    let pushScheduler: PushScheduler

    /// `serving`: a server's environment, which publishes events to its streams and sends
    /// scheduled notifications; an administration command's (`HaloServerAdmin.open`) does neither,
    /// so `halo-server client add` never sends a notification that fell due.
    init(
        storage: ServerStorage, tokens: TokenService, configuration: HaloServerConfiguration, logger: Logger,
        serving: Bool = true
    ) {
        self.storage = storage
        self.tokens = tokens
        self.configuration = configuration
        self.logger = logger
        streams = StreamAdmission(limits: configuration.limits)
        searches = FairGate(width: configuration.limits.searches)
        // Copies are made on the pool's readers in the background, so no search waits for one.
        if case .sqlite(let pool) = storage.backend {
            searchMemory = SearchMemory(maxBytes: configuration.limits.searchMemoryBytes, copyingFrom: pool)
        } else {
            searchMemory = nil
        }
        hashing = HashingExecutor(width: configuration.passwordHashingConcurrency ?? HashingExecutor.defaultWidth)
        // One process serves a SQLite file; PostgreSQL's processes must add up their counts.
        if case .postgres = storage.backend {
            logins = LoginThrottle(settings: configuration.loginThrottle, sharedIn: storage)
        } else {
            logins = LoginThrottle(settings: configuration.loginThrottle)
        }
        events = EventBroker(limits: configuration.limits)
        pushScheduler = PushScheduler()
        if serving {
            events.start(storage, logger: logger)
            pushScheduler.start(storage)
        }
    }

    /// Stamps writes (see `ServerStorage`).
    var clock: MonotonicClock { storage.clock }

    /// Stops the background work (event fan-out, scheduled sends) and closes the database.
    func shutDown() {
        events.stop()
        pushScheduler.stop()
        storage.close()
    }

    var maxBodyBytes: Int { configuration.limits.bodyBytes }
    var limits: ServerLimits { configuration.limits }

    /// Runs `body` in ONE read transaction for an authenticated request. `body` sees the
    /// database only as an `SQLExecutor`: route code does not know which database it talks to.
    func read<T: Sendable>(
        _ request: Request, _ body: @escaping @Sendable (any SQLExecutor, Principal) throws -> T
    ) async throws -> T {
        let authorization = request.headers[.authorization]
        let tokens = self.tokens
        return try await storage.read { db in
            let principal = try tokens.authenticate(authorization: authorization, in: db)
            return try body(db, principal)
        }
    }

    /// Runs `body` in ONE write transaction for an authenticated request. With `requiresEditRights`
    /// a valid token without edit rights gets 403 (bad tokens still get 401).
    func write<T: Sendable>(
        _ request: Request, requiresEditRights: Bool = false,
        _ body: @escaping @Sendable (any SQLExecutor, Principal) throws -> T
    ) async throws -> T {
        let authorization = request.headers[.authorization]
        let tokens = self.tokens
        return try await storage.write { db in
            let principal = try tokens.authenticate(authorization: authorization, in: db)
            if requiresEditRights && !principal.canEdit {
                throw APIError.forbidden(
                    "This token has no edit rights: use an editor account or an app client marked editor")
            }
            return try body(db, principal)
        }
    }
}
