import Dispatch
import Foundation
import HTTPTypes
import Synchronization

/// Brute-force protection for everything that checks a password or a client secret: the password
/// grant and the client-credentials / refresh grants of `POST /api/oauth/token`, and the identified
/// login `POST /api/segmentation/identified/login`.
///
/// Design (after OWASP's "Blocking Brute Force Attacks" and its device-cookie lockout):
///
/// * **Per account** (the email of a password grant or identified login, the `client_id` of a
///   client grant): after `accountFailureLimit` failures within `accountWindow` the account is
///   locked for `lockDuration`; each further lock doubles it, up to `maxLockDuration`. The doubling
///   is forgotten after `maxLockDuration` without a lock. Attempts on a locked account get 429 at
///   once, without hashing, with a `Retry-After` header. A success resets the failure count.
///   Attempts in flight count as failures until they end, so a burst of concurrent guesses cannot
///   slip past the limit.
/// * **Per client address**: after `addressFailureLimit` failures within `addressWindow` (over all
///   accounts) every attempt from that address gets 429 until the window ends — except …
/// * **Known devices**: an (address, account) pair that logged in successfully before (within
///   `knownDeviceLifetime`) is exempt from the address limit and has its own account lock, apart
///   from the account's general one. Guessers elsewhere can lock an account for everyone else, but
///   not for its owner at an address they used before; guessers at the owner's address (a shared
///   NAT) still get only `accountFailureLimit` guesses per lock.
/// * A lock on one account never affects another account; failures for unknown emails count like
///   any other account, so a lock reveals nothing about which emails exist.
/// * Memory is bounded: each table holds at most `maxTrackedEntries`; entries that no longer
///   matter are dropped first, then the least recently seen.
/// * **Registrations** (`registering`) are budgeted per address too, `registrationLimit` within
///   `registrationWindow`: registration needs only the app token every app ships, and each account
///   may fill a pocket. Kept in the same records, so shared by every process on PostgreSQL.
///
/// Where the counts live (`LoginThrottleRecords`): with SQLite, one process serves, and they are
/// kept in its memory (a restart forgets them); with PostgreSQL, every process reads and writes
/// the same rows in the database, one attempt at a time (the write lock), on the wall clock, so
/// that guesses spread over the processes behind a load balancer add up. An attempt in flight is
/// a row there, which counts for `inFlightExpiry` at most: a process killed mid-attempt does not
/// hold a slot for ever.
public final class LoginThrottle: Sendable {
    /// Thresholds of the throttle (all durations in seconds).
    public struct Settings: Sendable, Equatable {
        /// Off: nothing is counted and nothing is refused.
        public var enabled: Bool
        /// Failures of one account within `accountWindow` that lock it.
        public var accountFailureLimit: Int
        public var accountWindow: TimeInterval
        /// First lock of an account; each further lock doubles it up to `maxLockDuration`.
        public var lockDuration: TimeInterval
        public var maxLockDuration: TimeInterval
        /// Failures from one address (over all accounts) within `addressWindow` that block the address.
        public var addressFailureLimit: Int
        public var addressWindow: TimeInterval
        /// How long a successful login makes its (address, account) pair a known device.
        public var knownDeviceLifetime: TimeInterval
        /// Largest number of accounts, addresses and known devices remembered (each).
        public var maxTrackedEntries: Int
        /// Registrations (`POST /api/segmentation/identified/register`) one address may make
        /// within `registrationWindow`: each account may fill a pocket, so accounts are budgeted too.
        public var registrationLimit: Int
        public var registrationWindow: TimeInterval

        public init(
            enabled: Bool = true,
            accountFailureLimit: Int = 5,
            accountWindow: TimeInterval = 15 * 60,
            lockDuration: TimeInterval = 60,
            maxLockDuration: TimeInterval = 60 * 60,
            addressFailureLimit: Int = 100,
            addressWindow: TimeInterval = 10 * 60,
            knownDeviceLifetime: TimeInterval = 30 * 24 * 3600,
            maxTrackedEntries: Int = 10_000,
            registrationLimit: Int = 10,
            registrationWindow: TimeInterval = 3600
        ) {
            self.enabled = enabled
            self.accountFailureLimit = accountFailureLimit
            self.accountWindow = accountWindow
            self.lockDuration = lockDuration
            self.maxLockDuration = maxLockDuration
            self.addressFailureLimit = addressFailureLimit
            self.addressWindow = addressWindow
            self.knownDeviceLifetime = knownDeviceLifetime
            self.maxTrackedEntries = maxTrackedEntries
            self.registrationLimit = registrationLimit
            self.registrationWindow = registrationWindow
        }

        public static let `default` = Settings()
        /// No throttling (tools that drive many logins on purpose).
        public static let disabled = Settings(enabled: false)
    }

    /// What is being logged into.
    enum Account: Sendable, Hashable {
        case user(email: String)
        case client(id: String)

        var key: String {
            switch self {
            case .user(let email): return "user:" + email.lowercased()
            case .client(let id): return "client:" + id
            }
        }
    }

    /// One attempt between `begin` and `finish`.
    struct Attempt: Sendable {
        fileprivate let id: String
        fileprivate let accountKey: String
        fileprivate let lockKey: String
        fileprivate let address: String?
        /// The address logged into this account before: its hash runs in the trusted lane.
        let trusted: Bool
        fileprivate let counted: Bool
        var lane: HashingExecutor.Lane { trusted ? .trusted : .untrusted }
        /// The address whose budget the attempt counts against (none for a known device).
        fileprivate var budgetAddress: String? { trusted ? nil : address }
    }

    struct AccountState: Sendable, Equatable {
        var failures = 0
        var windowStart: Double = 0
        var lockedUntil: Double = 0
        var locks = 0
        var lastSeen: Double = 0
    }

    struct AddressState: Sendable, Equatable {
        var failures = 0
        var windowStart: Double = 0
        var lastSeen: Double = 0
    }

    /// How long an attempt in flight counts at most (a process may die during one).
    static let inFlightExpiry: Double = 120
    /// How often this process deletes the shared records that no longer count: not on every
    /// attempt, as each attempt holds the write lock every process's writes share.
    static let sweepInterval: Double = 60

    let settings: Settings
    private let now: @Sendable () -> Double
    private let memory = Mutex(MemoryRecords())
    /// When this process last swept the shared records.
    private let lastSweep = Mutex(-Double.infinity)
    /// The shared records, or nil to keep them in `memory`.
    private let database: ServerStorage?

    /// Counts in this process. `now` is a monotonic clock in seconds (tests may pass their own).
    init(settings: Settings, now: @escaping @Sendable () -> Double = LoginThrottle.uptime) {
        self.settings = settings
        self.now = now
        database = nil
    }

    /// Counts in `storage`'s database, shared with every process that serves it. `now` is the
    /// wall clock in seconds (the processes share it; tests may pass their own).
    init(settings: Settings, sharedIn storage: ServerStorage, now: @escaping @Sendable () -> Double = LoginThrottle.wallClock) {
        self.settings = settings
        self.now = now
        database = storage
    }

    static let uptime: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    static let wallClock: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    // MARK: Checking

    /// Runs `verify` (which returns nil for wrong credentials) under the throttle: 429 (an
    /// `APIError` with `Retry-After`) without calling it when the account or the address is
    /// blocked; otherwise counts its outcome. Errors thrown by `verify` count as neither.
    func check<T: Sendable>(
        _ account: Account, address: String?, _ verify: (HashingExecutor.Lane) async throws -> T?
    ) async throws -> T? {
        let attempt = try await begin(account, address: address)
        let result: T?
        do {
            result = try await verify(attempt.lane)
        } catch {
            try await finish(attempt, outcome: nil)
            throw error
        }
        try await finish(attempt, outcome: result != nil)
        return result
    }

    /// Starts an attempt, or throws 429 when it must not run.
    func begin(_ account: Account, address: String?) async throws -> Attempt {
        let accountKey = account.key
        let id = UUID().uuidString
        guard settings.enabled else {
            return Attempt(id: id, accountKey: accountKey, lockKey: accountKey, address: address, trusted: false, counted: false)
        }
        let (settings, now) = (self.settings, self.now())
        if let database {
            let sweeping = sweepIsDue(now)
            return try await database.write { db in
                var records = DatabaseRecords(db, sweeping: sweeping)
                return try Self.admit(id: id, accountKey: accountKey, address: address, settings: settings, now: now, in: &records)
            }
        }
        return try memory.withLock { records in
            try Self.admit(id: id, accountKey: accountKey, address: address, settings: settings, now: now, in: &records)
        }
    }

    /// Ends an attempt: `true` succeeded, `false` failed (wrong credentials), nil neither (an error).
    func finish(_ attempt: Attempt, outcome succeeded: Bool?) async throws {
        guard attempt.counted else { return }
        let (settings, now) = (self.settings, self.now())
        if let database {
            let sweeping = sweepIsDue(now)
            try await database.write { db in
                var records = DatabaseRecords(db, sweeping: sweeping)
                try Self.record(attempt, outcome: succeeded, settings: settings, now: now, in: &records)
            }
            return
        }
        try memory.withLock { records in try Self.record(attempt, outcome: succeeded, settings: settings, now: now, in: &records) }
    }

    // MARK: Registrations

    /// Runs `register` (which makes an account) under the address's registration budget: 429
    /// with `Retry-After` without calling it when `address` made `registrationLimit`
    /// registrations within `registrationWindow`. The slot is taken before `register` runs, so
    /// concurrent registrations cannot slip past the limit, and given back when it throws (nothing
    /// was made). No address (in-process calls), or the throttle off: not counted.
    ///
    /// The budget is an entry of the accounts' records under the key `registration:ADDRESS`
    /// (no account key has that prefix): `failures` counts the registrations of the window
    /// starting at `windowStart`, and `lockedUntil` is that window's end, which keeps the entry
    /// until then wherever the records live (in memory, or shared by every process on PostgreSQL).
    func registering<T: Sendable>(address: String?, _ register: () async throws -> T) async throws -> T {
        guard settings.enabled, let address else { return try await register() }
        let key = "registration:" + address
        try await updateRegistrations(key) { entry, settings, now in
            if now - entry.windowStart >= settings.registrationWindow {
                entry.failures = 0
                entry.windowStart = now
            }
            guard entry.failures < settings.registrationLimit else {
                throw Self.refusal(
                    "Too many accounts were registered from this address; at most \(settings.registrationLimit) an hour",
                    wait: entry.windowStart + settings.registrationWindow - now)
            }
            entry.failures += 1
            entry.lockedUntil = entry.windowStart + settings.registrationWindow
        }
        do {
            return try await register()
        } catch {
            try? await updateRegistrations(key) { entry, _, _ in entry.failures = max(0, entry.failures - 1) }
            throw error
        }
    }

    /// Changes the registration budget `key` in one step of its records (a write transaction
    /// on PostgreSQL, the lock in memory).
    private func updateRegistrations(
        _ key: String, _ change: @escaping @Sendable (inout AccountState, Settings, Double) throws -> Void
    ) async throws {
        let (settings, now) = (self.settings, self.now())
        if let database {
            let sweeping = sweepIsDue(now)
            try await database.write { db in
                var records = DatabaseRecords(db, sweeping: sweeping)
                try Self.updateRecord(key, change, settings: settings, now: now, in: &records)
            }
            return
        }
        try memory.withLock { records in try Self.updateRecord(key, change, settings: settings, now: now, in: &records) }
    }

    private static func updateRecord<Records: LoginThrottleRecords>(
        _ key: String, _ change: (inout AccountState, Settings, Double) throws -> Void, settings: Settings, now: Double,
        in records: inout Records
    ) throws {
        var entry = try records.account(key) ?? AccountState(windowStart: now)
        entry.lastSeen = now
        try change(&entry, settings, now)
        try records.setAccount(key, entry)
        try records.evict(settings: settings, now: now)
    }

    /// True at most once per `sweepInterval`.
    private func sweepIsDue(_ now: Double) -> Bool {
        lastSweep.withLock { last in
            guard now - last >= Self.sweepInterval else { return false }
            last = now
            return true
        }
    }

    // MARK: The rules

    private static func admit<Records: LoginThrottleRecords>(
        id: String, accountKey: String, address: String?, settings: Settings, now: Double, in records: inout Records
    ) throws -> Attempt {
        let pairKey = address.map { accountKey + "|" + $0 }
        var trusted = false
        if let pairKey, let seen = try records.knownDevice(pairKey) {
            if now - seen <= settings.knownDeviceLifetime { trusted = true } else { try records.setKnownDevice(pairKey, seen: nil) }
        }
        let lockKey = trusted ? pairKey ?? accountKey : accountKey

        // The address's budget (known devices are exempt).
        if !trusted, let address {
            var entry = try records.address(address) ?? AddressState(windowStart: now)
            if now - entry.windowStart >= settings.addressWindow {
                entry.failures = 0
                entry.windowStart = now
            }
            entry.lastSeen = now
            try records.setAddress(address, entry)
            if entry.failures + (try records.inFlight(address: address, now: now)) >= settings.addressFailureLimit {
                let wait = entry.windowStart + settings.addressWindow - now
                throw refusal("Too many failed sign-in attempts from this address", wait: wait)
            }
        }

        // The account's (or the known device's) lock.
        var entry = try records.account(lockKey) ?? AccountState(windowStart: now)
        entry.lastSeen = now
        if entry.lockedUntil > now {
            try records.setAccount(lockKey, entry)
            throw refusal("Too many failed sign-in attempts for this account", wait: entry.lockedUntil - now)
        }
        if entry.locks > 0, now - entry.lockedUntil >= settings.maxLockDuration { entry.locks = 0 }
        if now - entry.windowStart >= settings.accountWindow {
            entry.failures = 0
            entry.windowStart = now
        }
        try records.setAccount(lockKey, entry)
        if entry.failures + (try records.inFlight(account: lockKey, now: now)) >= settings.accountFailureLimit {
            throw refusal("Another sign-in attempt for this account is in progress", wait: 1)
        }
        let attempt = Attempt(id: id, accountKey: accountKey, lockKey: lockKey, address: address, trusted: trusted, counted: true)
        try records.startAttempt(attempt.id, lockKey: lockKey, address: attempt.budgetAddress, now: now)
        try records.evict(settings: settings, now: now)
        return attempt
    }

    private static func record<Records: LoginThrottleRecords>(
        _ attempt: Attempt, outcome succeeded: Bool?, settings: Settings, now: Double, in records: inout Records
    ) throws {
        try records.endAttempt(attempt.id, lockKey: attempt.lockKey, address: attempt.budgetAddress)
        if var entry = try records.account(attempt.lockKey) {
            entry.lastSeen = now
            switch succeeded {
            case true?:
                entry.failures = 0
                entry.locks = 0
                entry.windowStart = now
            case false?:
                if now - entry.windowStart >= settings.accountWindow {
                    entry.failures = 0
                    entry.windowStart = now
                }
                entry.failures += 1
                if entry.failures >= settings.accountFailureLimit {
                    entry.locks += 1
                    let doubling = pow(2, Double(min(entry.locks - 1, 40)))
                    entry.lockedUntil = max(entry.lockedUntil, now + min(settings.maxLockDuration, settings.lockDuration * doubling))
                    entry.failures = 0
                    entry.windowStart = now
                }
            case nil:
                break
            }
            try records.setAccount(attempt.lockKey, entry)
        }
        if let address = attempt.budgetAddress, succeeded == false, var entry = try records.address(address) {
            if now - entry.windowStart >= settings.addressWindow {
                entry.failures = 0
                entry.windowStart = now
            }
            entry.failures += 1
            try records.setAddress(address, entry)
        }
        if succeeded == true, let address = attempt.address {
            try records.setKnownDevice(attempt.accountKey + "|" + address, seen: now)
            try records.evict(settings: settings, now: now)
        }
    }

    /// Sizes of the in-memory tables (tests check that memory stays bounded).
    var trackedCounts: (accounts: Int, addresses: Int, knownDevices: Int) {
        memory.withLock { ($0.accounts.count, $0.addresses.count, $0.knownDevices.count) }
    }

    // MARK: Helpers

    private static func refusal(_ reason: String, wait: Double) -> APIError {
        let seconds = max(1, Int(wait.rounded(.up)))
        return APIError(
            .tooManyRequests, "\(reason); try again in \(seconds) second\(seconds == 1 ? "" : "s")",
            retryAfterSeconds: seconds)
    }
}
