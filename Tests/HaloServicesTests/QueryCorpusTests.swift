import Foundation
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

/// One search of the committed corpus (`Benchmarks/queries/corpus.txt`).
struct CorpusQuery {
    var name: String
    var filter: SearchFilter?
    var meta: SearchFilter?
    var sort: String?

    /// Reads the corpus (`QueryCorpus`); a filter that does not parse fails with its query's name.
    static func load() throws -> [CorpusQuery] {
        try QueryCorpus.load().map { entry in
            func parse(_ text: String?) throws -> SearchFilter? {
                do { return try text.map { try SearchFilter.parse(expression: $0) } } catch {
                    throw HaloError.invalidInput(message: "\(entry.name): \(error)")
                }
            }
            return CorpusQuery(name: entry.name, filter: try parse(entry.filter), meta: try parse(entry.meta), sort: entry.sort)
        }
    }

    /// The search body over `moduleIds`, first page of 50.
    func body(moduleIds: [String]) -> JSONValue {
        var body: [String: JSONValue] = [
            "moduleIds": .array(moduleIds.map(JSONValue.string)), "pagination": ["page": 1, "limit": 50],
        ]
        if let filter { body["searchValues"] = filter.wireJSON }
        if let meta { body["metaSearch"] = meta.wireJSON }
        if let sort { body["sort"] = .string(sort) }
        return .object(body)
    }
}

/// The committed query corpus answers the same online (the server) and offline (the SDK's cache
/// after a sync), and its text round-trips through the filter language.
final class QueryCorpusTests: XCTestCase {
    func testTheCorpusAnswersAlikeOnlineAndOffline() async throws {
        let queries = try CorpusQuery.load()
        XCTAssertGreaterThanOrEqual(queries.count, 20)
        for query in queries {
            for filter in [query.filter, query.meta].compactMap({ $0 }) {
                XCTAssertEqual(try SearchFilter.parse(expression: filter.expression), filter, query.name)
            }
            // Both trees as one expression (the filter builder's text form, `halo search --filter`).
            let both = SearchFilters(values: query.filter, metadata: query.meta)
            XCTAssertEqual(try SearchFilters.parse(expression: both.expression), both, "\(query.name): \(both.expression)")
        }

        let server = try await OfflineTestServer.start()
        defer { Task { await server.stop() } }
        let bench = try await server.admin.seedBenchmark(instances: 1_200, modules: 2)
        let cache = try temporaryCache()
        let outcomes = await SyncEngine(cache: cache, core: try server.core()).sync(bench.map { SyncQuery(moduleId: $0) })
        for (key, outcome) in outcomes { XCTAssertNoThrow(try outcome.get(), key) }

        var empty: [String] = []
        for query in queries {
            let body = query.body(moduleIds: bench)
            let online = try PaginatedContentInstances(wire: await server.call("POST", "api/generalcontent/instance/search", body))
            let offline = try cache.searchLocally(body: body)
            XCTAssertEqual(offline.instances.map(\.id), online.instances.map(\.id), "\(query.name): items or order differ")
            XCTAssertEqual(offline.paginationInfo, online.paginationInfo, "\(query.name): totals differ")
            if online.instances.isEmpty { empty.append(query.name) }
        }
        // Not vacuous: only the queries meant to find nothing find nothing.
        XCTAssertEqual(empty.sorted(), ["Fields that are always empty (nothing)", "Nothing that expensive (empty)"])
    }
}
