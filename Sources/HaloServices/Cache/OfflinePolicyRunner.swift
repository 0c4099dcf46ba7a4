import Foundation

extension HaloCache {
    /// Applies `policy` to one kind of answer.
    ///
    /// - `load`: the network request (its answer's bytes, and the parsed value).
    /// - `key`: where the answer is kept in the cache.
    /// - `decode`: reads a kept answer back.
    /// - `local`: an answer computed from the cache when no answer was kept (e.g. offline search
    ///   over synced instances); nil when there is none.
    ///
    /// Only transport failures (`HaloError.network`) fall back to the cache: a server that
    /// answers "no" must be heard, not hidden behind stale data.
    public func answer<T: Sendable>(
        policy: OfflinePolicy, key: String,
        load: () async throws -> (value: T, body: Data),
        decode: (Data) throws -> T,
        local: () throws -> T? = { nil }
    ) async throws -> T {
        switch policy {
        case .none:
            return try await load().value
        case .loadAndStoreLocalData:
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

    private func localAnswer<T>(key: String, decode: (Data) throws -> T, local: () throws -> T?) throws -> T? {
        if let data = try storedResponse(forKey: key) { return try decode(data) }
        return try local()
    }
}
