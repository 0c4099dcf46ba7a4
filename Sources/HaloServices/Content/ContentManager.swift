import Foundation
import Synchronization

/// Content over the network (the seed's `ContentManager`): modules, search, edition, batch and
/// the raw sync request. Models and query builders live in Content/Models, Search, Sync, Edition.
///
/// Offline policies (`offlinePolicy:`, else `defaultOfflinePolicy`) apply to modules and search
/// through the offline cache; see ContentManager+Offline.swift (also: sync into the cache, outbox).
public final class ContentManager: Sendable {
    private let coreBox: WeakBox<CoreManager>
    /// The last cache failure an edit met (`offlineCacheProblem`).
    let cacheProblemState = Mutex<HaloError?>(nil)

    init(core: CoreManager) { coreBox = WeakBox(core) }

    func core() throws(HaloError) -> CoreManager {
        guard let core = coreBox.value else { throw .configuration(message: "The CoreManager of this ContentManager is gone") }
        return core
    }

    // MARK: Modules

    /// The modules of the app (`GET api/generalcontent/module?skip=true`, §9.1). Either response
    /// shape is accepted; a plain list gets single-page pagination info.
    /// With `withFields`, each module carries its field definitions and their types (§9.3), which
    /// editors use to pick an input and validate values.
    public func getModules(withFields: Bool = false, offlinePolicy: OfflinePolicy? = nil) async throws(HaloError) -> PaginatedModules {
        var query = [URLQueryItem(name: "skip", value: "true")]
        if withFields { query.append(URLQueryItem(name: "withFields", value: "true")) }
        let response = try await core().perform(
            APIRequest(
                .get, "api/generalcontent/module", query: query,
                headers: ["to-cache": "0"], offlinePolicy: offlinePolicy),
            cacheKey: HaloCache.modulesKey)
        return try Self.decodeSourced(PaginatedModules.self, response)
    }

    // The seed's completion-handler form is on the core manager (`Manager.core.getModules`).

    // MARK: Search

    /// Searches instances (§11). Device tags are added when the query segments with the device.
    public func search(query: SearchQuery, offlinePolicy: OfflinePolicy? = nil) async throws(HaloError) -> PaginatedContentInstances {
        try Self.decodeSourced(PaginatedContentInstances.self, try await searchResponse(query: query, offlinePolicy: offlinePolicy))
    }

    /// Searches and returns the raw response body (the seed's `searchAsData`).
    public func searchAsData(query: SearchQuery, offlinePolicy: OfflinePolicy? = nil) async throws(HaloError) -> Data {
        try await searchResponse(query: query, offlinePolicy: offlinePolicy).body
    }

    private func searchResponse(query: SearchQuery, offlinePolicy: OfflinePolicy?) async throws(HaloError) -> HTTPResponse {
        try query.checkPagination()
        let core = try core()
        let body = query.body(deviceTags: core.device?.tagList ?? [])
        return try await core.perform(
            APIRequest(
                .post, "api/generalcontent/instance/search", body: .json(body),
                headers: ["to-cache": String(query.serverCacheSeconds)], offlinePolicy: offlinePolicy,
                cacheTimeToLive: query.cacheTimeToLive),
            cacheKey: "search-" + query.cacheKey(deviceTags: core.device?.tagList ?? []),
            local: { try core.localSearchBody(body) })
    }

    /// The seed's form of `search`.
    public func search(
        query: SearchQuery,
        completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<PaginatedContentInstances?, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await search(query: query))) } catch { handler(nil, .failure(error)) }
        }
    }

    /// The seed's form of `searchAsData`.
    public func searchAsData(
        query: SearchQuery, completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<Data, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await searchAsData(query: query))) } catch { handler(nil, .failure(error)) }
        }
    }

    // MARK: Edition

    /// Creates (no id: `POST instance`) or updates (`PUT instance/{id}`) an instance (§12) and
    /// returns the server's copy — or, when the server cannot be reached, keeps the edit in the
    /// outbox and returns the local copy (`saveOrQueue` tells which happened). When the offline
    /// cache is unusable the edit is sent directly (a warning is logged, `offlineCacheProblem`
    /// says why), and it fails only when the server cannot be reached either.
    public func save(_ instance: ContentInstance) async throws(HaloError) -> ContentInstance {
        try await saveOrQueue(instance).instance
    }

    /// Deletes an instance (soft delete, §12) and returns the server's copy — or, when the server
    /// cannot be reached, keeps the deletion in the outbox and returns the local copy marked
    /// deleted (`deleteOrQueue` tells which happened). Without a usable offline cache, as `save`.
    public func delete(instanceId: String) async throws(HaloError) -> ContentInstance {
        try await deleteOrQueue(instanceId: instanceId).instance
    }

    /// The save request itself (no outbox).
    func sendSave(_ instance: ContentInstance) async throws(HaloError) -> ContentInstance {
        let call: APIRequest =
            if let id = instance.id {
                APIRequest(.put, "api/generalcontent/instance/\(APIRequest.formEncode(id))", body: .json(instance.wireJSON))
            } else {
                APIRequest(.post, "api/generalcontent/instance", body: .json(instance.wireJSON))
            }
        return try Self.decode(ContentInstance.self, try await core().perform(call))
    }

    /// The delete request itself (no outbox).
    func sendDelete(instanceId: String) async throws(HaloError) -> ContentInstance {
        try Self.decode(
            ContentInstance.self,
            try await core().perform(
                APIRequest(.delete, "api/generalcontent/instance/\(APIRequest.formEncode(instanceId))")))
    }

    /// Runs several operations in one request (§13); per-operation failures are in the result.
    public func batch(operations: BatchOperations) async throws(HaloError) -> BatchResult {
        guard !operations.isEmpty else { throw .invalidInput(message: "The batch has no operations") }
        return try Self.decode(
            BatchResult.self,
            try await core().perform(
                APIRequest(.post, "api/generalcontent/instance/batch", body: .json(operations.wireJSON))))
    }

    /// The seed's form of `save`.
    public func save(
        _ instance: ContentInstance,
        completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<ContentInstance?, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await save(instance))) } catch { handler(nil, .failure(error)) }
        }
    }

    /// The seed's form of `delete`.
    public func delete(
        instanceId: String, completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<ContentInstance?, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await delete(instanceId: instanceId))) } catch {
                handler(nil, .failure(error))
            }
        }
    }

    /// The seed's form of `batch`.
    public func batch(
        operations: BatchOperations, completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<BatchResult?, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await batch(operations: operations))) } catch { handler(nil, .failure(error)) }
        }
    }

    // MARK: Sync

    /// One sync request (§14.1) and its parsed response, nothing stored. To sync into the
    /// offline cache (first sync + delta, streamed) use `syncToCache(query:)`.
    public func sync(query: SyncQuery) async throws(HaloError) -> SyncResult {
        var headers: [String: String] = [:]
        if let seconds = query.serverCacheSeconds { headers["to-cache"] = String(seconds) }
        let response = try await core().perform(
            APIRequest(.post, "api/generalcontent/instance/sync", body: .json(query.wireJSON), headers: headers))
        let json = try response.json()
        do { return try SyncResult(wire: json, query: query) } catch {
            throw .invalidResponse(status: response.statusCode, message: "cannot read the sync response: \(error)")
        }
    }

    /// The seed's form of `sync`: syncs into the offline cache (`syncToCache`); the handler gets
    /// the module (id or name, as queried) and the error, if any; read the result with
    /// `getSyncedInstances` / `getSyncLog`.
    public func sync(query: SyncQuery, completionHandler handler: @escaping @Sendable (String, HaloError?) -> Void) {
        Task {
            do throws(HaloError) { _ = try await syncToCache(query: query); handler(query.moduleKey, nil) } catch {
                handler(query.moduleKey, error)
            }
        }
    }

    /// `decode`, noting whether the answer came from the server or the offline cache.
    private static func decodeSourced<T: HaloWireDecodable & SourcedAnswer>(_ type: T.Type, _ response: HTTPResponse) throws(HaloError)
        -> T
    {
        var value = try decode(type, response)
        value.source = AnswerSource(response)
        return value
    }

    private static func decode<T: HaloWireDecodable>(_ type: T.Type, _ response: HTTPResponse) throws(HaloError) -> T {
        let json = try response.json()
        do { return try T(wire: json) } catch {
            throw .invalidResponse(status: response.statusCode, message: "cannot read \(T.self) from the response: \(error)")
        }
    }
}
