import Foundation
import XCTest

@testable import HaloServices

/// A malformed sync answer is refused with a clear error and changes nothing in the cache: the
/// sync point stays, the rows stay, and the next (good) answer is applied normally. The answers
/// come from a plain HTTP server that serves the SDK fixtures (the malformed ones among them).
final class MalformedSyncTests: XCTestCase {
    static let module = "571f38b9bb7f372900a14cbc"  // the module of ios/full_sync.json

    func route(_ body: Data) -> StaticHTTPServer.Route {
        StaticHTTPServer.Route(status: 200, contentType: "application/json", body: body)
    }

    /// Count and a digest of the module's cached rows (ids, names, values), for comparing before
    /// and after without printing hundreds of rows on a failure.
    func snapshot(_ cache: HaloCache) throws -> String {
        let body: JSONValue = ["moduleIds": [.string(Self.module)], "pagination": ["skip": true]]
        let rows = try cache.searchLocally(body: body).instances.map { instance in
            "\(instance.id ?? "") \(instance.name) \(String(decoding: JSONValue.object(instance.values).data(sortedKeys: true), as: UTF8.self))"
        }.sorted()
        return "\(rows.count) rows, digest \(rows.joined(separator: "\n").hashValue)"
    }

    func testMalformedAnswersChangeNothingAndTheNextGoodOneApplies() async throws {
        let good = try ContentFixture.data("ios/full_sync.json")
        let server = try StaticHTTPServer(routes: [
            "/api/oauth/token": route(try ContentFixture.data("ios/oauth_success.json")),
            "/api/generalcontent/instance/sync": route(good),
        ])
        defer { server.stop() }
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: "fixture", clientSecret: "fixture")
        configuration.environment = .custom(server.url("/").absoluteString)
        configuration.dataDirectory = try temporaryDirectory("sdk-data")
        configuration.cacheDirectory = try temporaryDirectory("sdk-cache")
        let core = CoreManager(configuration: configuration)
        core.numberOfRetries = 0
        let cache = try temporaryCache()
        let engine = SyncEngine(cache: cache, core: core)

        _ = try await engine.sync(SyncQuery(moduleId: Self.module))
        let state = try XCTUnwrap(cache.syncState(key: Self.module))
        let rows = try snapshot(cache)
        XCTAssertFalse(rows.hasPrefix("0 rows"))

        let nullValues = String(
            decoding: try ContentFixture.data("android/halo-translations/translationsSyncNullValues.json"), as: UTF8.self
        )
        .replacingOccurrences(of: "fakeId", with: Self.module)
        let malformed: [(String, String, String)] = [
            ("the fixture as published (trailing comma, null values)", nullValues, ""),
            ("null values alone", nullValues.replacingOccurrences(of: "},\n  ],", with: "}\n  ],"), "\"values\": null"),
            (
                "a trailing comma alone", String(decoding: good, as: UTF8.self).replacingOccurrences(of: "}\n    ],", with: "},\n    ],"),
                "trailing comma"
            ),
            (
                "created is not a list", #"{"syncTimestamp": 1475046170099, "created": {}, "updated": [], "deleted": []}"#,
                "\"created\" in the sync answer is not a list"
            ),
            ("no sync timestamp", #"{"created": [], "updated": [], "deleted": []}"#, "has no \"syncTimestamp\""),
            ("cut short", String(String(decoding: good, as: UTF8.self).prefix(400)), ""),
            ("not JSON at all", "ExampleResponseTestFromNetWork", ""),
        ]
        for (label, body, expected) in malformed {
            server.setRoute("/api/generalcontent/instance/sync", route(Data(body.utf8)))
            do {
                _ = try await engine.sync(SyncQuery(moduleId: Self.module))
                XCTFail("\(label): accepted")
            } catch let error as HaloError {
                guard case .invalidResponse(_, let message) = error else { XCTFail("\(label): \(error)"); continue }
                if !expected.isEmpty { XCTAssertTrue(message.contains(expected), "\(label): \(message)") }
            }
            XCTAssertEqual(try cache.syncState(key: Self.module), state, "\(label): the sync point moved")
            XCTAssertEqual(try snapshot(cache), rows, "\(label): the cached rows changed")
            XCTAssertEqual(try cache.integrityCheck(), ["ok"])
        }

        // The next good answer (a later window with one more instance) applies as usual.
        let later = String(decoding: good, as: UTF8.self).replacingOccurrences(of: "1475046170088", with: "1475046170999")
        server.setRoute("/api/generalcontent/instance/sync", route(Data(later.utf8)))
        _ = try await engine.sync(SyncQuery(moduleId: Self.module))
        XCTAssertEqual(try cache.syncState(key: Self.module)?.syncTimestamp, 1_475_046_170_999)
    }
}
