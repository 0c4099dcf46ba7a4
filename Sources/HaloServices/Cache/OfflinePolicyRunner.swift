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
    /// - `local`: an answer computed from the cache (e.g. offline search over synced instances):
    ///   a complete one is preferred to a kept answer, an incomplete one only used when none was
    ///   kept; nil when the cache cannot compute one.
    ///
    /// Only transport failures (`HaloError.network`) fall back to the cache: a server that
    /// answers "no" must be heard, not hidden behind stale data.
    public func answer<T: Sendable>(
        policy: OfflinePolicy, key: String, timeToLive: TimeInterval = 0,
        load: () async throws -> (value: T, body: Data),
        decode: (Data, _ storedAt: Date?) throws -> T,
        local: () throws -> ComputedAnswer<T>? = { nil }
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
                try await BlockingWork.run(name: "halo-cache-write") { [self] in try storeResponse(body, forKey: key) }
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

    /// The cache's answer: a complete one computed over synced instances first (they follow
    /// every sync and show the edits waiting in the outbox), else the answer kept for this very
    /// request (which no later edit updates), else an incomplete computed one.
    private func localAnswer<T>(key: String, decode: (Data, Date?) throws -> T, local: () throws -> ComputedAnswer<T>?) throws -> T? {
        let computed = try local()
        if let computed, computed.isComplete { return computed.value }
        if let kept = try storedAnswer(forKey: key) { return try decode(kept.body, kept.storedAt) }
        return computed?.value
    }
}

/// An answer the cache computed (rather than kept), and whether it can be trusted over a kept
/// one: an offline search over modules that were synced is complete; one that found nothing
/// where nothing may have been synced is not.
public struct ComputedAnswer<T> {
    public var value: T
    public var isComplete: Bool

    public init(_ value: T, isComplete: Bool) {
        self.value = value
        self.isComplete = isComplete
    }
}
