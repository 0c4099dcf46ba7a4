import Foundation
import Synchronization

// The offline layer wired into the managers: the seed's offline policies (modules, search,
// pocket), sync into the cache with the seed's synced-instance functions, and the outbox.

extension HaloCache {
    private static let openCaches = Mutex<[String: HaloCache]>([:])

    /// The process-wide cache of the server at `baseURL` (one `HaloCache` per file, so every
    /// manager shares one writer).
    public static func shared(
        for baseURL: URL, in directory: URL = XDGDirectories.cache, dataDirectory: URL = XDGDirectories.data
    ) throws -> HaloCache {
        let file = CacheLocation.file(for: baseURL, in: directory)
        return try openCaches.withLock { caches in
            if let cache = caches[file.path] { return cache }
            let cache = try HaloCache(file: file, outboxFile: CacheLocation.outboxFile(for: baseURL, in: dataDirectory))
            caches[file.path] = cache
            return cache
        }
    }

    /// Closes the shared cache of the server at `baseURL`, if open (e.g. when the app leaves a
    /// workspace); the next `shared(for:in:)` opens the file again.
    public static func closeShared(for baseURL: URL, in directory: URL = XDGDirectories.cache) throws {
        let file = CacheLocation.file(for: baseURL, in: directory)
        try openCaches.withLock { caches in try caches.removeValue(forKey: file.path)?.close() }
    }
}

extension CoreManager {
    /// The offline cache of the current environment's server.
    public func offlineCache() throws(HaloError) -> HaloCache {
        guard let baseURL = environment.baseURL else {
            throw .configuration(message: "The environment \(environment) has no valid base URL")
        }
        do {
            return try HaloCache.shared(for: baseURL, in: configuration.cacheDirectory, dataDirectory: configuration.dataDirectory)
        } catch let error as HaloError {
            throw error
        } catch {
            throw .cache(message: "\(error)")
        }
    }

    /// Sends `call` under its offline policy (else `defaultOfflinePolicy`), keeping its answer
    /// under `cacheKey`. `local` computes an answer body from the cache (see `HaloCache.answer`).
    func perform(_ call: APIRequest, cacheKey: String, local: @escaping () throws -> ComputedAnswer<Data>? = { nil })
        async throws(HaloError)
        -> HTTPResponse
    {
        let policy = call.offlinePolicy ?? defaultOfflinePolicy
        if policy == .none { return try await perform(call) }
        let cache = try offlineCache()
        let fromCache = { (body: Data, storedAt: Date?) in
            var headers = [AnswerSource.cacheHeader: "cache"]
            if let storedAt { headers[AnswerSource.storedAtHeader] = String(HaloTimestamp.milliseconds(from: storedAt)) }
            return HTTPResponse(statusCode: 200, headers: headers, body: body)
        }
        do {
            return try await cache.answer(
                policy: policy, key: cacheKey, timeToLive: call.cacheTimeToLive ?? cacheTimeToLive,
                load: {
                    let response = try await self.perform(call); return (response, response.body)
                },
                decode: fromCache,
                local: {
                    try local().map { ComputedAnswer(fromCache($0.value, nil), isComplete: $0.isComplete) }
                })
        } catch let error as HaloError { throw error } catch { throw .cache(message: "\(error)") }
    }

    /// A search answer body computed over the synced instances (the `local` of a search). None
    /// when a module the search names was never synced (its rows would be missing, not absent).
    /// Complete when every module named is synced, or, naming none, when it finds something;
    /// an empty answer over no named module is only used when no answer was kept.
    func localSearchBody(_ body: JSONValue) throws -> ComputedAnswer<Data>? {
        let cache = try offlineCache()
        let moduleIds = body["moduleIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for id in moduleIds where try cache.lastSyncDate(moduleId: id) == nil { return nil }
        let page = try cache.searchLocally(body: body)
        let answer: JSONValue = ["pagination": page.paginationInfo.wireJSON, "items": .array(page.instances.map(\.fullJSON))]
        return ComputedAnswer(answer.data(sortedKeys: false), isComplete: !moduleIds.isEmpty || !page.instances.isEmpty)
    }
}

extension ContentManager {
    private func offlineParts() throws(HaloError) -> (core: CoreManager, cache: HaloCache) {
        let core = try core()
        return (core, try core.offlineCache())
    }

    /// The sync engine of the current server (streams answers into the offline cache).
    public func syncEngine() throws(HaloError) -> SyncEngine {
        let (core, cache) = try offlineParts()
        return SyncEngine(cache: cache, core: core)
    }

    /// The outbox of the current server (edits kept until they can be sent).
    public func outbox() throws(HaloError) -> Outbox {
        let (core, cache) = try offlineParts()
        return Outbox(cache: cache, core: core)
    }

    /// Syncs a module into the offline cache (first sync + delta, locale change = full re-sync,
    /// §14.3) and returns the log entries it appended.
    public func syncToCache(query: SyncQuery, progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws(HaloError) -> [SyncLogEntry]
    {
        do { return try await syncEngine().sync(query, progress: progress) } catch let error as HaloError { throw error } catch {
            throw .cache(message: "\(error)")
        }
    }

    /// The synced instances of a module (id or name as used in the `SyncQuery`); [] on a cache error.
    public func getSyncedInstances(moduleId: String) -> [ContentInstance] {
        (try? offlineParts().cache.getSyncedInstances(moduleId: moduleId)) ?? []
    }

    /// When the module's synced copy was last brought up to date (the server's clock); nil when
    /// it was never synced completely, or on a cache error.
    public func lastSyncDate(moduleId: String) -> Date? {
        try? offlineParts().cache.lastSyncDate(moduleId: moduleId)
    }

    /// Forgets the synced instances of a module (its next sync is a first sync).
    public func removeSyncedInstances(moduleId: String) {
        try? offlineParts().cache.removeSyncedInstances(moduleId: moduleId)
    }

    /// The sync log of a module, oldest first; [] on a cache error.
    public func getSyncLog(moduleId: String) -> [SyncLogEntry] {
        (try? offlineParts().cache.getSyncLog(moduleId: moduleId)) ?? []
    }

    /// Empties the sync log of a module.
    public func clearSyncLog(moduleId: String) {
        try? offlineParts().cache.clearSyncLog(moduleId: moduleId)
    }
}
