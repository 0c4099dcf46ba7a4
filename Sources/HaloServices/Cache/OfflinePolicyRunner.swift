import Foundation

extension HaloCache {
    /// Applies `policy` to one kind of answer.
    ///
    /// - `load`: the network request (its answer's bytes, and the parsed value).
    /// - `key`: where the answer is kept in the cache.
    /// - `timeToLive`: under `.loadAndStoreLocalData`, a kept answer younger than this is used
    ///   without asking the network (0: always ask). It decides when to refresh, never whether to
    ///   show: offline, an answer of any age is used.
    /// - `decode`: reads a kept answer back, with when it was stored.
    /// - `local`: an answer computed from the cache when no answer was kept (e.g. offline search
    ///   over synced instances); nil when there is none.
    ///
    /// Only transport failures (`HaloError.network`) fall back to the cache: a server that
    /// answers "no" must be heard, not hidden behind stale data.
    public func answer<T: Sendable>(
        policy: OfflinePolicy, key: String, timeToLive: TimeInterval = 0,
        load: () async throws -> (value: T, body: Data),
        decode: (Data, _ storedAt: Date?) throws -> T,
        local: () throws -> T? = { nil }
    ) async throws -> T {
        switch policy {
        case .none:
            return try await load().value
        case .loadAndStoreLocalData:
            if timeToLive > 0, let kept = try storedAnswer(forKey: key), Date().timeIntervalSince(kept.storedAt) < timeToLive {
                return try decode(kept.body, kept.storedAt)
            }
            do {
                let (value, body) = try await load()
                try storeResponse(body, forKey: key)
                return value
            } catch HaloError.network(let message) {
                logger.info("Network unavailable (\(message)); answering \(key) from the offline cache.")
                if let value = try localAnswer(key: key, decode: decode, local: local) { return value }
                throw HaloError.network(message: message)
            }
        case .returnLocalDataDontLoad:
            if let value = try localAnswer(key: key, decode: decode, local: local) { return value }
            throw HaloError.cache(message: "Nothing is stored offline for \(key) yet.")
        }
    }

    private func localAnswer<T>(key: String, decode: (Data, Date?) throws -> T, local: () throws -> T?) throws -> T? {
        if let kept = try storedAnswer(forKey: key) { return try decode(kept.body, kept.storedAt) }
        return try local()
    }
}
