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
///
/// Failures are counted in this process only: a restart forgets them.
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

        public init(
            enabled: Bool = true,
            accountFailureLimit: Int = 5,
            accountWindow: TimeInterval = 15 * 60,
            lockDuration: TimeInterval = 60,
            maxLockDuration: TimeInterval = 60 * 60,
            addressFailureLimit: Int = 100,
            addressWindow: TimeInterval = 10 * 60,
            knownDeviceLifetime: TimeInterval = 30 * 24 * 3600,
            maxTrackedEntries: Int = 10_000
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
        fileprivate let accountKey: String
        fileprivate let lockKey: String
        fileprivate let address: String?
        /// The address logged into this account before: its hash runs in the trusted lane.
        let trusted: Bool
        fileprivate let counted: Bool
        var lane: HashingExecutor.Lane { trusted ? .trusted : .untrusted }
    }

    private struct AccountState {
        var failures = 0
        var windowStart: Double = 0
        var inFlight = 0
        var lockedUntil: Double = 0
        var locks = 0
        var lastSeen: Double = 0
    }

    private struct AddressState {
        var failures = 0
        var windowStart: Double = 0
        var inFlight = 0
        var lastSeen: Double = 0
    }

    private struct State {
        var accounts: [String: AccountState] = [:]
        var addresses: [String: AddressState] = [:]
        /// "account key|address" → time of the last successful login.
        var knownDevices: [String: Double] = [:]
    }

    let settings: Settings
    private let now: @Sendable () -> Double
    private let state = Mutex(State())

    /// `now` is a monotonic clock in seconds (tests may pass their own).
    init(settings: Settings, now: @escaping @Sendable () -> Double = LoginThrottle.uptime) {
        self.settings = settings
        self.now = now
    }

    static let uptime: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    // MARK: Checking

    /// Runs `verify` (which returns nil for wrong credentials) under the throttle: 429 (an
    /// `APIError` with `Retry-After`) without calling it when the account or the address is
    /// blocked; otherwise counts its outcome. Errors thrown by `verify` count as neither.
    func check<T: Sendable>(
        _ account: Account, address: String?, _ verify: (HashingExecutor.Lane) async throws -> T?
    ) async throws -> T? {
        let attempt = try begin(account, address: address)
        let result: T?
        do {
            result = try await verify(attempt.lane)
        } catch {
            finish(attempt, outcome: nil)
            throw error
        }
        finish(attempt, outcome: result != nil)
        return result
    }

    /// Starts an attempt, or throws 429 when it must not run.
    func begin(_ account: Account, address: String?) throws -> Attempt {
        let accountKey = account.key
        guard settings.enabled else {
            return Attempt(accountKey: accountKey, lockKey: accountKey, address: address, trusted: false, counted: false)
        }
        let settings = self.settings
        let now = self.now()
        return try state.withLock { state throws(APIError) -> Attempt in
            let pairKey = address.map { accountKey + "|" + $0 }
            var trusted = false
            if let pairKey, let seen = state.knownDevices[pairKey] {
                if now - seen <= settings.knownDeviceLifetime { trusted = true } else { state.knownDevices[pairKey] = nil }
            }
            let lockKey = trusted ? pairKey ?? accountKey : accountKey

            // The address's budget (known devices are exempt).
            if !trusted, let address {
                var entry = state.addresses[address] ?? AddressState(windowStart: now)
                if now - entry.windowStart >= settings.addressWindow {
                    entry.failures = 0
                    entry.windowStart = now
                }
                entry.lastSeen = now
                state.addresses[address] = entry
                if entry.failures + entry.inFlight >= settings.addressFailureLimit {
                    let wait = entry.windowStart + settings.addressWindow - now
                    throw Self.refusal("Too many failed sign-in attempts from this address", wait: wait)
                }
            }

            // The account's (or the known device's) lock.
            var entry = state.accounts[lockKey] ?? AccountState(windowStart: now)
            entry.lastSeen = now
            if entry.lockedUntil > now {
                state.accounts[lockKey] = entry
                throw Self.refusal("Too many failed sign-in attempts for this account", wait: entry.lockedUntil - now)
            }
            if entry.locks > 0, now - entry.lockedUntil >= settings.maxLockDuration { entry.locks = 0 }
            if now - entry.windowStart >= settings.accountWindow {
                entry.failures = 0
                entry.windowStart = now
            }
            if entry.failures + entry.inFlight >= settings.accountFailureLimit {
                state.accounts[lockKey] = entry
                throw Self.refusal("Another sign-in attempt for this account is in progress", wait: 1)
            }
            entry.inFlight += 1
            state.accounts[lockKey] = entry
            if !trusted, let address { state.addresses[address]?.inFlight += 1 }
            Self.evict(&state, settings: settings, now: now)
            return Attempt(accountKey: accountKey, lockKey: lockKey, address: address, trusted: trusted, counted: true)
        }
    }

    /// Ends an attempt: `true` succeeded, `false` failed (wrong credentials), nil neither (an error).
    func finish(_ attempt: Attempt, outcome succeeded: Bool?) {
        guard attempt.counted else { return }
        let settings = self.settings
        let now = self.now()
        state.withLock { state in
            if var entry = state.accounts[attempt.lockKey] {
                entry.inFlight = max(0, entry.inFlight - 1)
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
                state.accounts[attempt.lockKey] = entry
            }
            if !attempt.trusted, let address = attempt.address, var entry = state.addresses[address] {
                entry.inFlight = max(0, entry.inFlight - 1)
                if succeeded == false {
                    if now - entry.windowStart >= settings.addressWindow {
                        entry.failures = 0
                        entry.windowStart = now
                    }
                    entry.failures += 1
                }
                state.addresses[address] = entry
            }
            if succeeded == true, let address = attempt.address {
                state.knownDevices[attempt.accountKey + "|" + address] = now
                Self.evict(&state, settings: settings, now: now)
            }
        }
    }

    /// Sizes of the tables (tests check that memory stays bounded).
    var trackedCounts: (accounts: Int, addresses: Int, knownDevices: Int) {
        state.withLock { ($0.accounts.count, $0.addresses.count, $0.knownDevices.count) }
    }

    // MARK: Helpers

    private static func refusal(_ reason: String, wait: Double) -> APIError {
        let seconds = max(1, Int(wait.rounded(.up)))
        return APIError(
            .tooManyRequests, "\(reason); try again in \(seconds) second\(seconds == 1 ? "" : "s")",
            retryAfterSeconds: seconds)
    }

    /// Keeps each table within `maxTrackedEntries`: drops entries that no longer hold anything
    /// (no lock, no failures in their window, nothing in flight), then the least recently seen.
    private static func evict(_ state: inout State, settings: Settings, now: Double) {
        let cap = max(1, settings.maxTrackedEntries)
        if state.accounts.count > cap {
            state.accounts = state.accounts.filter { _, entry in
                entry.inFlight > 0 || entry.lockedUntil > now
                    || (entry.failures > 0 && now - entry.windowStart < settings.accountWindow)
                    || (entry.locks > 0 && now - entry.lockedUntil < settings.maxLockDuration)
            }
            if state.accounts.count > cap {
                let drop = state.accounts.count - cap * 9 / 10
                for (key, _) in state.accounts.filter({ $0.value.inFlight == 0 }).sorted(by: { $0.value.lastSeen < $1.value.lastSeen })
                    .prefix(drop)
                {
                    state.accounts[key] = nil
                }
            }
        }
        if state.addresses.count > cap {
            state.addresses = state.addresses.filter { _, entry in
                entry.inFlight > 0 || (entry.failures > 0 && now - entry.windowStart < settings.addressWindow)
            }
            if state.addresses.count > cap {
                let drop = state.addresses.count - cap * 9 / 10
                for (key, _) in state.addresses.filter({ $0.value.inFlight == 0 }).sorted(by: { $0.value.lastSeen < $1.value.lastSeen })
                    .prefix(drop)
                {
                    state.addresses[key] = nil
                }
            }
        }
        if state.knownDevices.count > cap {
            state.knownDevices = state.knownDevices.filter { now - $0.value <= settings.knownDeviceLifetime }
            if state.knownDevices.count > cap {
                let drop = state.knownDevices.count - cap * 9 / 10
                for (key, _) in state.knownDevices.sorted(by: { $0.value < $1.value }).prefix(drop) { state.knownDevices[key] = nil }
            }
        }
    }
}
