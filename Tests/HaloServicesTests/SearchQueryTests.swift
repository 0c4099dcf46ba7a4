import Foundation
import XCTest

@testable import HaloServices

/// Search bodies equal PROTOCOL §11.1/§11.3/§11.4 (compared as parsed JSON).
final class SearchQueryTests: XCTestCase {
    func testEmptyQuerySendsOnlySegmentMode() {
        XCTAssertEqual(SearchQuery().body(), ["segmentMode": "partial"])
        XCTAssertEqual(SearchQuery().serverCacheSeconds, 0)
    }

    func testFullExampleOfProtocol() throws {
        let expected = try JSONValue(
            string: """
                {
                  "moduleName": "News",
                  "searchValues": { "operation": "like", "property": "Title", "value": "road", "type": "string" },
                  "metaSearch": { "operation": "=", "property": "deletedAt", "value": null, "type": "null" },
                  "fields": ["values.Title", "values.Image"],
                  "include": ["all"],
                  "relatedTo": [ { "fieldName": "author", "instanceIds": ["*"] } ],
                  "segmentTags": [ { "name": "Platform Name", "value": "ios", "tagType": "000000000000000000000001" } ],
                  "segmentMode": "partial",
                  "sort": "publishedAt desc",
                  "locale": "en-GB",
                  "pagination": { "page": 2, "limit": 20, "skip": "false" }
                }
                """)
        let query = SearchQuery()
            .moduleName("News")
            .searchFilter(like(property: "Title", value: "road"))
            .metaFilter(eq(property: "deletedAt", value: nil))
            .fields(["values.Title", "values.Image"])
            .populateAll()
            .addAllRelatedInstances(fieldName: "author")
            .segmentWithDevice(true)
            .segmentMode(.partial)
            .addSortBy(field: .publishedAt, order: .descending)
            .locale(.englishUnitedKingdom)
            .pagination(page: 2, limit: 20)
            .serverCache(seconds: 300)
        let deviceTag = Tag(name: "Platform Name", value: "ios", tagType: Tag.systemType)
        XCTAssertEqual(query.body(deviceTags: [deviceTag]), expected)
        // serverCache goes to the to-cache header, never the body.
        XCTAssertEqual(query.serverCacheSeconds, 300)
        XCTAssertNil(query.body(deviceTags: [deviceTag])["serverCache"])
        // Device tags are only sent when segmentWithDevice is on.
        XCTAssertNil(query.segmentWithDevice(false).body(deviceTags: [deviceTag])["segmentTags"])
    }

    /// A page or limit below 1 is refused before anything is sent (here: no server listens, so a
    /// request would be a network error).
    func testInvalidPaginationIsRefusedBeforeSending() async throws {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: "a", clientSecret: "b")
        configuration.environment = .custom(unreachableURL().absoluteString)
        configuration.dataDirectory = try temporaryDirectory("sdk-data")
        configuration.cacheDirectory = try temporaryDirectory("sdk-cache")
        let core = CoreManager(configuration: configuration)
        core.numberOfRetries = 0
        let cases: [(SearchQuery, String)] = [
            (SearchQuery().pagination(page: 0, limit: 10), "The page of a search starts at 1; 0 was asked for."),
            (SearchQuery().pagination(page: -2, limit: 10), "The page of a search starts at 1; -2 was asked for."),
            (SearchQuery().pagination(page: 1, limit: -5), "A search page holds at least 1 instance; a limit of -5 was asked for."),
        ]
        for (query, message) in cases {
            do {
                _ = try await core.content.search(query: query)
                XCTFail("sent: \(message)")
            } catch {
                XCTAssertEqual(error, .invalidInput(message: message))
            }
        }
        // A valid page goes out (and meets no server).
        do {
            _ = try await core.content.search(query: SearchQuery().pagination(page: 1, limit: 10))
        } catch {
            guard case .network = error else { return XCTFail("\(error)") }
        }
    }

    func testPaginationShapes() {
        XCTAssertNil(SearchQuery().body()["pagination"])
        XCTAssertEqual(SearchQuery().skipPagination().body()["pagination"], ["skip": "true"])
        XCTAssertTrue(SearchQuery().skipPagination().isPaginationSkipped)
        XCTAssertEqual(SearchQuery().pagination(page: 3, limit: 5).body()["pagination"], ["page": 3, "limit": 5, "skip": "false"])
        XCTAssertFalse(SearchQuery().pagination(page: 3, limit: 5).isPaginationSkipped)
    }

    func testEveryOtherOption() throws {
        let tag = Tag(name: "brand", value: "Lamborghini")
        let body = SearchQuery()
            .moduleIds(["m1", "m2"])
            .moduleNames(["A", "B"])
            .instanceIds(["i1"])
            .addRelatedInstances(fieldName: "books", instanceIds: ["a1", "a2"])
            .populateFields(["books"])
            .tags([tag])
            .segmentMode(.total)
            .addSortBy(field: .createdAt, order: .ascending)
            .addSortBy(field: .updatedAt, order: .descending)
            .skipPagination()
            .body(deviceTags: [Tag(name: "ignored", value: "x")])
        XCTAssertEqual(
            body,
            [
                "moduleIds": ["m1", "m2"], "moduleNames": ["A", "B"], "instanceIds": ["i1"],
                "relatedTo": [["fieldName": "books", "instanceIds": ["a1", "a2"]]],
                "include": ["books"],
                "segmentTags": [["name": "brand", "value": "Lamborghini", "tagType": "000000000000000000000002"]],
                "segmentMode": "total", "sort": "createdAt asc,updatedAt desc", "pagination": ["skip": "true"],
            ])
    }

    func testCacheKeyIsStableAndDistinguishesQueries() {
        let a = SearchQuery().moduleName("News").skipPagination().locale("es-ES")
        let b = SearchQuery().locale("es-ES").skipPagination().moduleName("News")
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.cacheKey(), b.cacheKey())
        XCTAssertEqual(a.cacheKey().count, 64)
        XCTAssertNotEqual(a.cacheKey(), a.locale("en-US").cacheKey())
        let device = [Tag(name: "Platform Name", value: "linux")]
        XCTAssertEqual(a.cacheKey(deviceTags: device), a.cacheKey(), "device tags only count when segmenting by device")
        XCTAssertNotEqual(a.segmentWithDevice(true).cacheKey(deviceTags: device), a.cacheKey())
        // The key is the SHA-256 of the sorted-key body: fixed for a fixed body.
        XCTAssertEqual(SearchQuery().cacheKey(), "c44756ce61f59fb50e8e48c63a730ad81f5dcd4a4e0470d4b636ffad6100ccbe")
    }
}
