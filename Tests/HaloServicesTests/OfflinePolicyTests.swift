import Foundation
import XCTest

@testable import HaloServices

final class OfflinePolicyTests: XCTestCase {
    private var server: OfflineTestServer!

    override func setUp() async throws {
        server = try await OfflineTestServer.start()
        try await server.admin.seedBenchmark(instances: 40, modules: 2)
    }

    override func tearDown() async throws {
        await server.stop()
    }

    /// The module list over the network (E12), as the policy's `load`.
    private func loadModules(from baseURL: URL, authorization: String) async throws -> (value: [Module], body: Data) {
        let request = HTTPRequest(
            method: .get, url: baseURL.appendingPathComponent("api/generalcontent/module"),
            headers: ["Authorization": authorization])
        let body = try await OfflineTestServer.send(request)
        return (try Module.list(wire: JSONValue(data: body)), body)
    }

    private func modules(_ cache: HaloCache, _ policy: OfflinePolicy, baseURL: URL) async throws -> [Module] {
        let authorization = try await server.authorization()
        return try await cache.answer(
            policy: policy, key: HaloCache.modulesKey,
            load: { try await self.loadModules(from: baseURL, authorization: authorization) },
            decode: { data, _ in try Module.list(wire: JSONValue(data: data)) })
    }

    func testModulesUnderEachPolicyWithTheNetworkGone() async throws {
        let cache = try temporaryCache()
        // Nothing stored yet: cache-only has nothing to say.
        do {
            _ = try await modules(cache, .returnLocalDataDontLoad, baseURL: server.baseURL)
            XCTFail("cache-only must fail on an empty cache")
        } catch HaloError.cache {}
        // `.none` stores nothing.
        let networkOnly = try await modules(cache, .none, baseURL: server.baseURL)
        XCTAssertEqual(networkOnly.count, 2)
        XCTAssertNil(try cache.storedResponse(forKey: HaloCache.modulesKey))

        let online = try await modules(cache, .loadAndStoreLocalData, baseURL: server.baseURL)
        XCTAssertEqual(online.compactMap(\.name).sorted(), ["Bench 1", "Bench 2"])

        // The train enters a tunnel.
        let offline = try await modules(cache, .loadAndStoreLocalData, baseURL: unreachableURL())
        XCTAssertEqual(offline, online)
        let cacheOnly = try await modules(cache, .returnLocalDataDontLoad, baseURL: unreachableURL())
        XCTAssertEqual(cacheOnly, online)
        do {
            _ = try await modules(cache, .none, baseURL: unreachableURL())
            XCTFail("network-only must fail offline")
        } catch HaloError.network {}
    }

    /// The time-to-live decides when a kept answer is refreshed, never whether it is shown, and
    /// every answer says where it came from.
    func testTimeToLiveDecidesWhenToRefreshNeverWhetherToShow() async throws {
        let core = try server.core()
        let recorder = RecordingAddon()
        core.registerAddon(recorder)
        core.defaultOfflinePolicy = .loadAndStoreLocalData
        func moduleRequests() -> Int { recorder.requests(to: "/api/generalcontent/module").count }

        // Time-to-live 0 (the default): the server is asked every time.
        let first = try await core.content.getModules()
        XCTAssertEqual(first.source, .server)
        let base = moduleRequests()  // the first may have met a 401 before the token came
        _ = try await core.content.getModules()
        XCTAssertEqual(moduleRequests(), base + 1)

        // Within the time-to-live the kept answer is used, and says when it was stored.
        core.cacheTimeToLive = 3600
        let kept = try await core.content.getModules()
        XCTAssertEqual(moduleRequests(), base + 1, "no request within the time-to-live")
        guard case .cache(let storedAt?) = kept.source else { return XCTFail("\(kept.source)") }
        XCTAssertLessThan(abs(storedAt.timeIntervalSinceNow), 60)
        XCTAssertEqual(kept, first)

        // Past it, the server is asked again and the answer is stored anew.
        core.cacheTimeToLive = 0.05
        try await Task.sleep(for: .milliseconds(100))
        let refreshed = try await core.content.getModules()
        XCTAssertEqual(refreshed.source, .server)
        XCTAssertEqual(moduleRequests(), base + 2)

        // Offline, an expired answer is still shown, with its age.
        try await Task.sleep(for: .milliseconds(100))
        await server.stop()
        let offline = try await core.content.getModules()
        guard case .cache(let offlineStoredAt?) = offline.source else { return XCTFail("\(offline.source)") }
        XCTAssertGreaterThan(Date().timeIntervalSince(offlineStoredAt), 0.05, "expired, and shown anyway")
        XCTAssertEqual(offline, first)
        server = try await server.restarted()

        // A search's own time-to-live overrides the core's.
        let module = try XCTUnwrap(first.modules.first?.id)
        let query = SearchQuery().moduleIds([module]).pagination(page: 1, limit: 5).cacheTimeToLive(3600)
        func searches() -> Int { recorder.requests(to: "/api/generalcontent/instance/search").count }
        let fresh = try await core.content.search(query: query)
        XCTAssertEqual(fresh.source, .server)
        let again = try await core.content.search(query: query)
        XCTAssertTrue(again.source.isFromCache)
        XCTAssertEqual(searches(), 1)
    }

    func testServerRefusalIsNotHiddenByTheCache() async throws {
        let cache = try temporaryCache()
        _ = try await modules(cache, .loadAndStoreLocalData, baseURL: server.baseURL)
        do {
            _ = try await cache.answer(
                policy: .loadAndStoreLocalData, key: HaloCache.modulesKey,
                load: { try await self.loadModules(from: self.server.baseURL, authorization: "Bearer revoked") },
                decode: { data, _ in try Module.list(wire: JSONValue(data: data)) })
            XCTFail("a 401 must reach the caller")
        } catch HaloError.server(let status, _, _) {
            XCTAssertEqual(status, 401)
        }
    }

    func testSearchFallsBackToTheSyncedContentOffline() async throws {
        let cache = try temporaryCache()
        let moduleIds = try await server.instances(moduleIds: []).compactMap { $0["module"]?.stringValue }
        let module = try XCTUnwrap(Set(moduleIds).sorted().first)
        _ = try await SyncEngine(cache: cache, core: try server.core()).sync(SyncQuery(moduleId: module))
        let query = SearchQuery().moduleIds([module]).searchFilter(gte(property: "price", value: 100)).pagination(page: 1, limit: 5)
        let authorization = try await server.authorization()
        func search(_ baseURL: URL) async throws -> PaginatedContentInstances {
            try await cache.answer(
                policy: .loadAndStoreLocalData, key: "search-\(query.cacheKey())",
                load: {
                    let request = HTTPRequest(
                        method: .post, url: baseURL.appendingPathComponent("api/generalcontent/instance/search"),
                        headers: ["Authorization": authorization, "Content-Type": "application/json"],
                        body: query.body().data(sortedKeys: false))
                    let body = try await OfflineTestServer.send(request)
                    return (try PaginatedContentInstances(wire: JSONValue(data: body)), body)
                },
                decode: { data, _ in try PaginatedContentInstances(wire: JSONValue(data: data)) },
                local: { ComputedAnswer(try cache.searchLocally(query), isComplete: true) })
        }
        let online = try await search(server.baseURL)
        XCTAssertFalse(online.instances.isEmpty)
        try cache.write { db in try db.execute(sql: "DELETE FROM cache_response") }  // only the synced content is left
        let offline = try await search(unreachableURL())
        XCTAssertEqual(offline, online)
    }

    func testManagersUseTheCacheUnderTheDefaultPolicy() async throws {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: server.client.clientId, clientSecret: server.client.clientSecret)
        configuration.environment = .custom(server.baseURL.absoluteString)
        configuration.dataDirectory = try temporaryDirectory("sdk-data")
        configuration.cacheDirectory = try temporaryDirectory("sdk-cache")
        let core = CoreManager(configuration: configuration)
        try await core.startup()
        core.defaultOfflinePolicy = .loadAndStoreLocalData

        let modules = try await core.content.getModules().modules
        XCTAssertEqual(modules.count, 2)
        let module = try XCTUnwrap(modules.compactMap(\.id).sorted().first)
        let entries = try await core.content.syncToCache(query: SyncQuery(moduleId: module))
        XCTAssertEqual(entries.first?.creations, 20)
        XCTAssertEqual(core.content.getSyncedInstances(moduleId: module).count, 20)
        XCTAssertEqual(core.content.getSyncLog(moduleId: module).count, 2)
        let query = SearchQuery().moduleIds([module]).searchFilter(lte(property: "price", value: 600)).pagination(page: 1, limit: 4)
        let online = try await core.content.search(query: query, offlinePolicy: OfflinePolicy.none)

        await server.stop()  // the train enters the tunnel
        let offlineModules = try await core.content.getModules().modules
        XCTAssertEqual(offlineModules, modules)
        let offline = try await core.content.search(query: query)
        XCTAssertEqual(offline, online, "answered by the offline search over the synced module")
        XCTAssertEqual(core.content.getSyncedInstances(moduleId: module).count, 20)
        do {
            _ = try await core.content.getModules(offlinePolicy: OfflinePolicy.none)
            XCTFail("network-only must fail offline")
        } catch {}
        core.content.removeSyncedInstances(moduleId: module)
        XCTAssertEqual(core.content.getSyncedInstances(moduleId: module), [])
    }
}
