import Foundation
import Synchronization

// The offline layer wired into the managers: the seed's offline policies (modules, search,
// pocket), sync into the cache with the seed's synced-instance functions, and the outbox.

extension HaloCache {
    /// The open caches, by file, with the server each belongs to.
    private static let openCaches = Mutex<[String: (server: String, cache: HaloCache)]>([:])

    /// The process-wide cache of the server at `baseURL` for `account` (one `HaloCache` per file,
    /// so every manager shares one writer). An account's first cache adopts the file the server's
    /// cache had before accounts were kept apart (with its pending edits), if there is one.
    public static func shared(
        for baseURL: URL, account: String? = nil, in directory: URL = XDGDirectories.cache,
        dataDirectory: URL = XDGDirectories.data
    ) throws -> HaloCache {
        let file = CacheLocation.file(for: baseURL, account: account, in: directory)
        let outboxFile = CacheLocation.outboxFile(for: baseURL, account: account, in: dataDirectory)
        return try openCaches.withLock { caches in
            if let open = caches[file.path] { return open.cache }
            if account != nil {
                let earlier = CacheLocation.file(for: baseURL, in: directory)
                if caches[earlier.path] == nil {
                    adoptEarlierFiles(
                        cache: earlier, outbox: CacheLocation.outboxFile(for: baseURL, in: dataDirectory), as: file, outboxFile)
                }
            }
            let cache = try HaloCache(file: file, outboxFile: outboxFile)
            caches[file.path] = (baseURL.absoluteString, cache)
            return cache
        }
    }

    /// Renames a cache of the days of one cache per server (and its pending edits) to an
    /// account's names, when that account has none yet. Best effort: without it, the account
    /// starts an empty copy.
    private static func adoptEarlierFiles(cache earlier: URL, outbox earlierOutbox: URL, as file: URL, _ outboxFile: URL) {
        let manager = FileManager.default
        guard manager.fileExists(atPath: earlier.path), !manager.fileExists(atPath: file.path),
            !manager.fileExists(atPath: outboxFile.path)
        else { return }
        for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: earlier.path + suffix) {
            try? manager.moveItem(atPath: earlier.path + suffix, toPath: file.path + suffix)
        }
        if manager.fileExists(atPath: earlierOutbox.path) {
            for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: earlierOutbox.path + suffix) {
                try? manager.moveItem(atPath: earlierOutbox.path + suffix, toPath: outboxFile.path + suffix)
            }
        }
    }

    /// Closes every shared cache of the server at `baseURL` in `directory`, whatever its account
    /// (e.g. when the app leaves a workspace); the next `shared(for:account:in:)` opens it again.
    public static func closeShared(for baseURL: URL, in directory: URL = XDGDirectories.cache) throws {
        let folder = directory.standardizedFileURL.path
        try openCaches.withLock { caches in
            for (path, open) in caches
            where open.server == baseURL.absoluteString
                && URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path == folder
            {
                caches[path] = nil
                try open.cache.close()
            }
        }
    }

    /// Closes the shared cache at `file` if open, then deletes the file (and its WAL companions).
    /// Its pending edits, in their own file, stay.
    static func removeShared(file: URL) throws {
        try openCaches.withLock { caches in
            if let open = caches.removeValue(forKey: file.path) { try open.cache.close() }
        }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: file.path + suffix) {
            try FileManager.default.removeItem(atPath: file.path + suffix)
        }
    }
}

extension CoreManager {
    /// Whose copy the offline cache is (one per server and account): the identified user, else
    /// the user of the password grant, else nil (the app's own token).
    public var offlineAccount: String? {
        if let user = auth.currentUser { return user.account }
        if authenticationMode == .user, let username = userCredentials?.username { return username }
        return nil
    }

    /// The offline cache of the current environment's server and account.
    public func offlineCache() throws(HaloError) -> HaloCache {
        guard let baseURL = environment.baseURL else {
            throw .configuration(message: "The environment \(environment) has no valid base URL")
        }
        do {
            return try HaloCache.shared(
                for: baseURL, account: offlineAccount, in: configuration.cacheDirectory, dataDirectory: configuration.dataDirectory)
        } catch let error as HaloError {
            throw error
        } catch {
            throw .cache(message: "\(error)")
        }
    }

    /// Removes `account`'s offline copy of this server from the computer (e.g. after signing out
    /// of a shared computer: pass `offlineAccount` as it was before logging out, so that nothing
    /// still running for that account opens the copy again). Edits waiting to be sent are kept:
    /// they are the user's, and go out at their next sign-in. A later read or sync for that
    /// account starts a new copy.
    public func removeOfflineCopy(ofAccount account: String?) throws(HaloError) {
        guard let baseURL = environment.baseURL else {
            throw .configuration(message: "The environment \(environment) has no valid base URL")
        }
        let file = CacheLocation.file(for: baseURL, account: account, in: configuration.cacheDirectory)
        do { try HaloCache.removeShared(file: file) } catch {
            throw .cache(message: "The offline copy \(file.path) could not be removed: \(error)")
        }
    }

    /// Sends `call` under its offline policy (else `defaultOfflinePolicy`), keeping its answer
    /// under `cacheKey`: its body, or what `keep` makes of the response (an answer served from the
    /// cache then has that as its body). `local` computes an answer body from the cache (see
    /// `HaloCache.answer`).
    func perform(
        _ call: APIRequest, cacheKey: String, keep: @escaping (HTTPResponse) -> Data = \.body,
        local: @escaping () throws -> ComputedAnswer<Data>? = { nil }
    ) async throws(HaloError) -> HTTPResponse {
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
                    let response = try await self.perform(call); return (response, keep(response))
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
