import HaloContentStore

/// What `LoginThrottle` remembers, behind one interface: per account (or known device's) lock
/// key, per client address, the known devices, and the attempts in flight.
protocol LoginThrottleRecords {
    func knownDevice(_ pair: String) throws -> Double?
    /// nil forgets the pair.
    mutating func setKnownDevice(_ pair: String, seen: Double?) throws
    func address(_ address: String) throws -> LoginThrottle.AddressState?
    mutating func setAddress(_ address: String, _ state: LoginThrottle.AddressState) throws
    func account(_ key: String) throws -> LoginThrottle.AccountState?
    mutating func setAccount(_ key: String, _ state: LoginThrottle.AccountState) throws
    /// Attempts in flight on the lock key, and against the address's budget.
    func inFlight(account key: String, now: Double) throws -> Int
    func inFlight(address: String, now: Double) throws -> Int
    mutating func startAttempt(_ id: String, lockKey: String, address: String?, now: Double) throws
    mutating func endAttempt(_ id: String, lockKey: String, address: String?) throws
    /// Drops what no longer matters (in memory, also keeping each table within `maxTrackedEntries`).
    mutating func evict(settings: LoginThrottle.Settings, now: Double) throws
}

extension LoginThrottle {
    /// The records of one process, in memory, bounded by `maxTrackedEntries`.
    struct MemoryRecords: LoginThrottleRecords {
        var accounts: [String: AccountState] = [:]
        var addresses: [String: AddressState] = [:]
        /// "account key|address" → time of the last successful login.
        var knownDevices: [String: Double] = [:]
        var accountsInFlight: [String: Int] = [:]
        var addressesInFlight: [String: Int] = [:]

        func knownDevice(_ pair: String) -> Double? { knownDevices[pair] }
        mutating func setKnownDevice(_ pair: String, seen: Double?) { knownDevices[pair] = seen }
        func address(_ address: String) -> AddressState? { addresses[address] }
        mutating func setAddress(_ address: String, _ state: AddressState) { addresses[address] = state }
        func account(_ key: String) -> AccountState? { accounts[key] }
        mutating func setAccount(_ key: String, _ state: AccountState) { accounts[key] = state }
        func inFlight(account key: String, now: Double) -> Int { accountsInFlight[key] ?? 0 }
        func inFlight(address: String, now: Double) -> Int { addressesInFlight[address] ?? 0 }

        mutating func startAttempt(_ id: String, lockKey: String, address: String?, now: Double) {
            accountsInFlight[lockKey, default: 0] += 1
            if let address { addressesInFlight[address, default: 0] += 1 }
        }

        mutating func endAttempt(_ id: String, lockKey: String, address: String?) {
            Self.decrement(&accountsInFlight, lockKey)
            if let address { Self.decrement(&addressesInFlight, address) }
        }

        private static func decrement(_ counts: inout [String: Int], _ key: String) {
            guard let count = counts[key] else { return }
            counts[key] = count > 1 ? count - 1 : nil
        }

        /// Drops entries that no longer hold anything (no lock, no failures in their window,
        /// nothing in flight), then the least recently seen.
        mutating func evict(settings: Settings, now: Double) {
            let cap = max(1, settings.maxTrackedEntries)
            Self.bound(&accounts, to: cap, inFlight: accountsInFlight, lastSeen: \.lastSeen) {
                LoginThrottle.matters($0, settings: settings, now: now)
            }
            Self.bound(&addresses, to: cap, inFlight: addressesInFlight, lastSeen: \.lastSeen) {
                LoginThrottle.matters($0, settings: settings, now: now)
            }
            Self.bound(&knownDevices, to: cap, inFlight: [:], lastSeen: { $0 }) { now - $0 <= settings.knownDeviceLifetime }
        }

        /// Over `cap` entries: keeps those in flight or that `matters`, then, if still over,
        /// drops the least recently seen down to 90% of the cap.
        private static func bound<Entry>(
            _ table: inout [String: Entry], to cap: Int, inFlight: [String: Int], lastSeen: (Entry) -> Double,
            matters: (Entry) -> Bool
        ) {
            guard table.count > cap else { return }
            table = table.filter { key, entry in inFlight[key] != nil || matters(entry) }
            guard table.count > cap else { return }
            let idle = table.filter { inFlight[$0.key] == nil }.sorted { lastSeen($0.value) < lastSeen($1.value) }
            for (key, _) in idle.prefix(table.count - cap * 9 / 10) { table[key] = nil }
        }
    }

    /// Whether an account entry still holds anything: a lock, failures in its window, or a
    /// doubling not yet forgotten.
    static func matters(_ entry: AccountState, settings: Settings, now: Double) -> Bool {
        entry.lockedUntil > now || (entry.failures > 0 && now - entry.windowStart < settings.accountWindow)
            || (entry.locks > 0 && now - entry.lockedUntil < settings.maxLockDuration)
    }

    static func matters(_ entry: AddressState, settings: Settings, now: Double) -> Bool {
        entry.failures > 0 && now - entry.windowStart < settings.addressWindow
    }

    /// The records in the database, shared by every process serving it; each call runs inside
    /// the caller's write transaction (`ServerStorage.write`, which also serializes attempts).
    /// Times are stored in milliseconds.
    struct DatabaseRecords: LoginThrottleRecords {
        let db: any SQLExecutor
        /// Whether `evict` deletes (`LoginThrottle` asks for it once a minute).
        let sweeping: Bool

        init(_ db: any SQLExecutor, sweeping: Bool) {
            self.db = db
            self.sweeping = sweeping
        }

        func knownDevice(_ pair: String) throws -> Double? {
            try db.fetchValue(Int64.self, "SELECT seen FROM server_login_device WHERE pair = ?", pair).map(Self.seconds)
        }

        func setKnownDevice(_ pair: String, seen: Double?) throws {
            guard let seen else {
                try db.execute("DELETE FROM server_login_device WHERE pair = ?", pair)
                return
            }
            try db.execute(
                "INSERT INTO server_login_device (pair, seen) VALUES (?, ?) ON CONFLICT (pair) DO UPDATE SET seen = excluded.seen", pair,
                Self.ms(seen))
        }

        func address(_ address: String) throws -> AddressState? {
            try db.select(
                "SELECT failures, window_start, last_seen FROM server_login_address WHERE address = ?", bindings: [.text(address)]
            ).first.map { row in
                AddressState(
                    failures: Int(try row.get(at: 0, as: Int64.self)), windowStart: Self.seconds(try row.get(at: 1)),
                    lastSeen: Self.seconds(try row.get(at: 2)))
            }
        }

        func setAddress(_ address: String, _ state: AddressState) throws {
            try db.execute(
                """
                INSERT INTO server_login_address (address, failures, window_start, last_seen) VALUES (?, ?, ?, ?)
                ON CONFLICT (address) DO UPDATE SET failures = excluded.failures, window_start = excluded.window_start,
                    last_seen = excluded.last_seen
                """, address, state.failures, Self.ms(state.windowStart), Self.ms(state.lastSeen))
        }

        func account(_ key: String) throws -> AccountState? {
            try db.select(
                "SELECT failures, window_start, locked_until, locks, last_seen FROM server_login_account WHERE lock_key = ?",
                bindings: [.text(key)]
            ).first.map { row in
                AccountState(
                    failures: Int(try row.get(at: 0, as: Int64.self)), windowStart: Self.seconds(try row.get(at: 1)),
                    lockedUntil: Self.seconds(try row.get(at: 2)), locks: Int(try row.get(at: 3, as: Int64.self)),
                    lastSeen: Self.seconds(try row.get(at: 4)))
            }
        }

        func setAccount(_ key: String, _ state: AccountState) throws {
            try db.execute(
                """
                INSERT INTO server_login_account (lock_key, failures, window_start, locked_until, locks, last_seen)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (lock_key) DO UPDATE SET failures = excluded.failures, window_start = excluded.window_start,
                    locked_until = excluded.locked_until, locks = excluded.locks, last_seen = excluded.last_seen
                """, key, state.failures, Self.ms(state.windowStart), Self.ms(state.lockedUntil), state.locks,
                Self.ms(state.lastSeen))
        }

        func inFlight(account key: String, now: Double) throws -> Int {
            try db.fetchValue(
                Int.self, "SELECT count(*) FROM server_login_attempt WHERE lock_key = ? AND started_at > ?", key,
                Self.ms(now - LoginThrottle.inFlightExpiry)) ?? 0
        }

        func inFlight(address: String, now: Double) throws -> Int {
            try db.fetchValue(
                Int.self, "SELECT count(*) FROM server_login_attempt WHERE address = ? AND started_at > ?", address,
                Self.ms(now - LoginThrottle.inFlightExpiry)) ?? 0
        }

        func startAttempt(_ id: String, lockKey: String, address: String?, now: Double) throws {
            try db.execute(
                "INSERT INTO server_login_attempt (id, lock_key, address, started_at) VALUES (?, ?, ?, ?)", id, lockKey, address,
                Self.ms(now))
        }

        func endAttempt(_ id: String, lockKey: String, address: String?) throws {
            try db.execute("DELETE FROM server_login_attempt WHERE id = ?", id)
        }

        /// Deletes what no longer holds anything: expired attempts and known devices, and
        /// accounts and addresses without a lock, a failure in their window, or a doubling to
        /// remember (the conditions of `matters`). Tables then hold only what counted within the
        /// last sweep, so no other bound is needed.
        func evict(settings: Settings, now: Double) throws {
            guard sweeping else { return }
            try db.execute("DELETE FROM server_login_attempt WHERE started_at <= ?", Self.ms(now - LoginThrottle.inFlightExpiry))
            try db.execute("DELETE FROM server_login_device WHERE seen < ?", Self.ms(now - settings.knownDeviceLifetime))
            try db.execute(
                """
                DELETE FROM server_login_account WHERE locked_until <= ? AND (failures = 0 OR window_start <= ?)
                AND (locks = 0 OR locked_until <= ?)
                AND lock_key NOT IN (SELECT lock_key FROM server_login_attempt)
                """, Self.ms(now), Self.ms(now - settings.accountWindow), Self.ms(now - settings.maxLockDuration))
            try db.execute(
                """
                DELETE FROM server_login_address WHERE (failures = 0 OR window_start <= ?)
                AND address NOT IN (SELECT address FROM server_login_attempt WHERE address IS NOT NULL)
                """, Self.ms(now - settings.addressWindow))
        }

        private static func ms(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
        private static func seconds(_ ms: Int64) -> Double { Double(ms) / 1000 }
    }

    /// Migration `server-v8-login-throttle`: the tables `DatabaseRecords` keeps (both back ends
    /// have them, as every step of the schema; only PostgreSQL's processes use them).
    static let recordsMigration = StorageMigration(
        "server-v8-login-throttle",
        sqlite: { db in for statement in tables(text: "TEXT", integer: "INTEGER") { try db.execute(sql: statement) } },
        postgres: { db in for statement in tables(text: PostgresTypes.text, integer: PostgresTypes.integer) { try db.execute(statement) } })

    private static func tables(text: String, integer: String) -> [String] {
        [
            """
            CREATE TABLE server_login_account (
                lock_key \(text) PRIMARY KEY, failures \(integer) NOT NULL, window_start \(integer) NOT NULL,
                locked_until \(integer) NOT NULL, locks \(integer) NOT NULL, last_seen \(integer) NOT NULL)
            """,
            """
            CREATE TABLE server_login_address (
                address \(text) PRIMARY KEY, failures \(integer) NOT NULL, window_start \(integer) NOT NULL,
                last_seen \(integer) NOT NULL)
            """,
            "CREATE TABLE server_login_device (pair \(text) PRIMARY KEY, seen \(integer) NOT NULL)",
            """
            CREATE TABLE server_login_attempt (
                id \(text) PRIMARY KEY, lock_key \(text) NOT NULL, address \(text), started_at \(integer) NOT NULL)
            """,
            "CREATE INDEX server_login_attempt_lock_key ON server_login_attempt(lock_key)",
            "CREATE INDEX server_login_attempt_address ON server_login_attempt(address)",
        ]
    }
}
