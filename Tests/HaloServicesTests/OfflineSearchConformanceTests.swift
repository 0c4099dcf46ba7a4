import Foundation
import GRDB
import HaloServer
import XCTest

@testable import HaloServices

/// The same search requests against HaloServer (online) and against the cache after a sync
/// (offline) must give the same items, in the same order, with the same totals.
final class OfflineSearchConformanceTests: XCTestCase {
    func testOfflineSearchAnswersLikeTheServer() async throws {
        let server = try await OfflineTestServer.start()
        defer { Task { await server.stop() } }
        let bench = try await server.admin.seedBenchmark(instances: 1_200, modules: 2)
        let articles = try await server.admin.addModule(
            ModuleSpec(
                name: "Articles",
                fields: [
                    HaloServer.ModuleField("headline", .localizedText), HaloServer.ModuleField("rank", .number),
                ]))
        let tagIOS: JSONValue = ["name": "Platform Name", "value": "ios", "tagType": "000000000000000000000001"]
        let tagES: JSONValue = ["name": "Spain", "value": "ES", "tagType": "000000000000000000000003"]
        for n in 0..<30 {
            let tags: [JSONValue] = n % 3 == 0 ? [tagIOS] : n % 3 == 1 ? [tagIOS, tagES] : []
            _ = try await server.call(
                "POST", "api/generalcontent/instance",
                [
                    "module": .string(articles), "name": .string("Article \(n)"),
                    "values": [
                        "headline": ["en-US": .string("News \(n)"), "es-ES": .string("Noticia \(n)")], "rank": .number(Double(n % 7)),
                    ],
                    "tags": .array(tags), "publishedAt": n % 4 == 0 ? .null : 1_700_000_000_000,
                ])
        }
        // Some history so that deletions and updates are part of what was synced.
        let first = try await server.instances(moduleIds: [bench[0]])
        for item in first.prefix(15) {
            if let id = item["id"]?.stringValue { _ = try await server.call("DELETE", "api/generalcontent/instance/\(id)") }
        }
        for item in first.dropFirst(15).prefix(15) {
            guard case .object(var fields) = item, let id = fields["id"]?.stringValue else { continue }
            fields["name"] = .string("Zeta " + (fields["name"]?.stringValue ?? ""))
            _ = try await server.call("PUT", "api/generalcontent/instance/\(id)", .object(fields))
        }

        let cache = try temporaryCache()
        let engine = SyncEngine(cache: cache, core: try server.core())
        let outcomes = await engine.sync([SyncQuery(moduleId: bench[0]), SyncQuery(moduleName: "Bench 2"), SyncQuery(moduleId: articles)])
        for (key, outcome) in outcomes { XCTAssertNoThrow(try outcome.get(), key) }
        // The sync wrote no value rows: each field gets them when a search below first compares it.
        func valueRows() throws -> Int { try cache.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM content_value") ?? -1 } }
        XCTAssertEqual(try valueRows(), 0)

        let sample = try XCTUnwrap(first.dropFirst(40).first?["values"]?["title"]?.stringValue)
        let word = String(sample.lowercased().prefix(4))
        let created = try XCTUnwrap(first.dropFirst(100).first?["createdAt"]?.doubleValue)
        let someIds = first.dropFirst(20).prefix(5).compactMap { $0["id"]?.stringValue }
        let ids = JSONValue.array(bench.map(JSONValue.string))
        func f(_ op: String, _ property: String, _ value: JSONValue, _ type: String = "string") -> JSONValue {
            ["operation": .string(op), "property": .string(property), "value": value, "type": .string(type)]
        }
        func all(_ operands: JSONValue...) -> JSONValue { ["condition": "and", "operands": .array(operands)] }
        func any(_ operands: JSONValue...) -> JSONValue { ["condition": "or", "operands": .array(operands)] }

        let cases: [(String, JSONValue)] = [
            (
                "price range, sort name",
                [
                    "moduleIds": ids, "searchValues": all(f(">=", "price", 100, "number"), f("<", "price", 500, "number")),
                    "sort": "name asc", "pagination": ["page": 1, "limit": 20, "skip": "false"],
                ]
            ),
            (
                "bench nested filter",
                [
                    "moduleIds": ids,
                    "searchValues": all(
                        f(">=", "price", 50, "number"), f("<=", "price", 700, "number"), f("=", "inStock", true),
                        f("like", "title", .string(word))),
                    "pagination": ["page": 1, "limit": 50],
                ]
            ),
            (
                "or / in / nesting",
                [
                    "moduleIds": ids,
                    "searchValues": any(
                        f("=", "category", "books"), all(f("in", "category", ["garden", "toys"]), f(">", "rating", 3, "number"))),
                ]
            ),
            (
                "!= and !in",
                [
                    "moduleIds": ids,
                    "searchValues": all(f("!=", "category", "books"), f("!in", "category", ["toys", "tools"]), f("=", "inStock", false)),
                    "sort": "createdAt asc", "pagination": ["page": 3, "limit": 7],
                ]
            ),
            (
                "date comparison",
                [
                    "moduleIds": ids, "searchValues": f("<", "releaseDate", .number(1_700_000_000_000 - 500 * 86_400_000), "date"),
                    "sort": "updatedAt desc,name asc", "pagination": ["page": 2, "limit": 25],
                ]
            ),
            (
                "metaSearch",
                ["moduleIds": ids, "metaSearch": all(f("like", "name", "zeta"), f("=", "deletedAt", .null, "null")), "sort": "name desc"]
            ),
            (
                "metaSearch dates",
                [
                    "moduleIds": ids, "metaSearch": f(">=", "createdAt", .number(created), "date"),
                    "pagination": ["page": 2, "limit": 50],
                ]
            ),
            (
                "module by name",
                ["moduleName": "Bench 2", "searchValues": f(">", "rating", 4, "number"), "pagination": ["page": 1, "limit": 10]]
            ),
            ("instance ids", ["instanceIds": .array(someIds.map(JSONValue.string)), "pagination": ["skip": true]]),
            ("skip pagination", ["moduleIds": ids, "searchValues": f("=", "category", "kitchen"), "pagination": ["skip": "true"]]),
            (
                "empty result",
                ["moduleIds": ids, "searchValues": f(">", "price", 1_000_000, "number"), "pagination": ["page": 1, "limit": 10]]
            ),
            ("past the last page", ["moduleIds": ids, "pagination": ["page": 500, "limit": 10]]),
            (
                "locale",
                ["moduleIds": [.string(articles)], "locale": "en-US", "searchValues": f(">=", "rank", 2, "number"), "sort": "name asc"]
            ),
            ("drafts", ["moduleIds": [.string(articles)], "metaSearch": f("=", "publishedAt", .null, "null"), "locale": "en-US"]),
            (
                "segmentation partial",
                [
                    "moduleIds": [.string(articles)], "segmentTags": [tagES], "segmentMode": "partial", "locale": "en-US",
                    "pagination": ["page": 1, "limit": 100],
                ]
            ),
            (
                "segmentation total",
                [
                    "moduleIds": [.string(articles)], "segmentTags": [tagES, tagIOS], "segmentMode": "total", "locale": "en-US",
                    "pagination": ["page": 1, "limit": 100],
                ]
            ),
        ]
        for (label, body) in cases {
            let online = try PaginatedContentInstances(wire: await server.call("POST", "api/generalcontent/instance/search", body))
            let offline = try cache.searchLocally(body: body)
            XCTAssertEqual(offline.instances.map(\.id), online.instances.map(\.id), "\(label): items or order differ")
            XCTAssertEqual(offline.paginationInfo, online.paginationInfo, "\(label): totals differ")
            XCTAssertEqual(offline.instances, online.instances, "\(label): instance contents differ")
        }
        XCTAssertGreaterThan(try valueRows(), 1_200, "the searches wrote the rows of the fields they compare")
        let waiting = try cache.read { try String.fetchAll($0, sql: "SELECT DISTINCT name FROM content_field WHERE indexed = 0") }
        XCTAssertTrue(waiting.contains("description"), "a field no search compared still waits: \(waiting)")
        // The table is not vacuous: most cases return items, and the filters do filter.
        let nonEmpty = try cases.filter { try !cache.searchLocally(body: $0.1).instances.isEmpty }.count
        XCTAssertGreaterThanOrEqual(nonEmpty, cases.count - 2)

        // Through the public builder too.
        let query = SearchQuery().moduleIds(bench).searchFilter(
            and(gte(property: "price", value: 10), like(property: "title", value: word))
        )
        .addSortBy(field: .name, order: .ascending).pagination(page: 1, limit: 15)
        let online = try PaginatedContentInstances(wire: await server.call("POST", "api/generalcontent/instance/search", query.body()))
        XCTAssertEqual(try cache.searchLocally(query), online)
    }
}
