import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// Requests that once stopped the server or answered 500 (the robustness issue's list): each
/// gets a 4xx with HALO's envelope naming the problem, and the server keeps answering.
final class HostileRequestTests: XCTestCase {
    var server: TestServer!
    var app: String!
    var user: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        _ = try await server.admin.seedDemo()
        app = try await server.appToken()
        user = try await server.userToken()
    }

    override func tearDown() async throws { await server.stop() }

    /// Sends, asserts the status and the envelope, then asserts the server still answers.
    @discardableResult
    private func expect(
        _ status: Int, _ method: String, _ path: String, token: String? = nil, body: HTTPBody? = nil,
        mentioning words: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) async throws -> String {
        let answer = try await server.call(method, path, token: token, body: body)
        let message = assertEnvelope(answer, status: status, file: file, line: line)
        for word in words {
            XCTAssertTrue(message.contains(word), "'\(message)' should mention \(word)", file: file, line: line)
        }
        try await assertAlive(file: file, line: line)
        return message
    }

    private func assertAlive(file: StaticString = #filePath, line: UInt = #line) async throws {
        let version = try await server.call("GET", "/api/authentication/version/current", token: app)
        XCTAssertEqual(version.status, 200, "the server stopped answering", file: file, line: line)
    }

    func testHugeNumbersWhereStringsOrIntegersAreExpected() async throws {
        try await expect(400, "POST", "/api/oauth/token", body: .json(["grant_type": 1e300]), mentioning: ["grant_type"])
        try await expect(
            400, "POST", "/api/segmentation/identified/login", body: .json(["email": 9.3e18, "password": "x"]))
        for key in ["moduleName", "locale"] {
            let body: JSONValue = key == "locale" ? ["moduleName": "Articles", "locale": 9.3e18] : [.init(stringLiteral: key): 1e300]
            let answer = try await server.call("POST", "/api/generalcontent/instance/sync", token: app, body: .json(body))
            XCTAssertTrue((400..<500).contains(answer.status) || answer.status == 200, "\(key): \(answer.status)")
            if answer.status != 200 { assertEnvelope(answer, status: answer.status) }
            try await assertAlive()
        }
        try await expect(400, "POST", "/api/segmentation/appuser", token: app, body: .json(["appId": 9.3e18]))
        try await expect(400, "POST", "/api/segmentation/appuser", token: app, body: .json(["appId": 1e300]))
        try await expect(
            400, "POST", "/api/push/schedule/activity", token: app,
            body: .json(["device": 1e300, "schedule": "s", "action": "bogus"]), mentioning: ["action"])
        let answer = try await server.call(
            "POST", "/api/push/schedule/activity", token: app, body: .json(["device": 1e300, "schedule": "s", "action": "open"]))
        // A number where a string is expected is read as its JSON text; no such notification went out.
        XCTAssertTrue(assertEnvelope(answer, status: 404).contains("Notification s not found"))
        try await expect(
            400, "POST", "/api/segmentation/identified/register", token: app,
            body: .json(["auth": ["email": 9.3e18, "password": "secret-password"], "profile": [:]]), mentioning: ["email"])
        try await expect(
            400, "POST", "/api/generalcontent/instance/sync", token: app,
            body: .json(["moduleName": "Articles", "fromSync": 1e300]), mentioning: ["fromSync"])
    }

    func testQueryParametersOutOfRange() async throws {
        for query in ["limit=9223372036854775807", "page=9223372036854775807", "page=-3", "limit=0", "limit=abc", "page=1e3"] {
            try await expect(400, "GET", "/api/generalcontent/module?\(query)", token: app, mentioning: [String(query.prefix(4))])
        }
        let fine = try await server.call("GET", "/api/generalcontent/module?page=2&limit=2", token: app)
        XCTAssertEqual(fine.status, 200)
        XCTAssertEqual(fine.json["pagination"]?["page"], 2)
    }

    func testSearchLimitsAndSortGrammar() async throws {
        let search = "/api/generalcontent/instance/search"
        try await expect(
            400, "POST", search, token: app,
            body: .json(["moduleName": "Articles", "pagination": ["page": 999_999_999_999, "limit": 999_999_999_999]]),
            mentioning: ["pagination"])
        try await expect(400, "POST", search, token: app, body: .json(["moduleName": "Articles", "pagination": ["page": 1e300]]))
        try await expect(400, "POST", search, token: app, body: .json(["sort": ","]), mentioning: ["empty sort key"])
        try await expect(400, "POST", search, token: app, body: .json(["sort": "name asc,"]), mentioning: ["empty sort key"])
        let many = Array(repeating: "a", count: 5000).joined(separator: ",")
        try await expect(400, "POST", search, token: app, body: .json(["sort": .string(many)]), mentioning: ["5000 sort keys"])
        let pattern = String(repeating: "ab", count: 30_000)
        let message = try await expect(
            400, "POST", search, token: app,
            body: .json(["searchValues": ["operation": "like", "property": "title", "value": .string(pattern)]]),
            mentioning: ["like", "1000"])
        XCTAssertTrue(message.contains("60000"), message)
        let longValue = String(repeating: "é", count: 20_000)
        try await expect(
            400, "POST", search, token: app,
            body: .json(["searchValues": ["operation": "=", "property": "title", "value": .string(longValue)]]),
            mentioning: ["10000"])
        let wide: JSONValue = [
            "searchValues": [
                "condition": "or",
                "operands": .array(
                    (0..<1500).map { index in
                        ["operation": "=", "property": "title", "value": .string("t\(index)")]
                    }),
            ]
        ]
        try await expect(400, "POST", search, token: app, body: .json(wide), mentioning: ["1000"])
        var deep: JSONValue = ["operation": "=", "property": "title", "value": "x"]
        for _ in 0..<40 { deep = ["condition": "and", "operands": [deep]] }
        try await expect(400, "POST", search, token: app, body: .json(["searchValues": deep]), mentioning: ["nested"])
        let ids = JSONValue.array((0..<10_001).map { .string("id\($0)") })
        try await expect(400, "POST", search, token: app, body: .json(["instanceIds": ids]), mentioning: ["instanceIds"])

        // Within the limits the same kinds of request still work.
        let ok = try await server.call(
            "POST", search, token: app,
            body: .json([
                "moduleName": "Articles", "sort": "name asc,createdAt desc", "pagination": ["page": 1, "limit": 1000],
                "searchValues": ["operation": "like", "property": "summary", "value": .string(String(repeating: "a", count: 1000))],
            ]))
        XCTAssertEqual(ok.status, 200, String(decoding: ok.data, as: UTF8.self))
    }

    func testPocketLimitsCountScalarsAndCapReferences() async throws {
        let pocket = "/api/segmentation/identified-pocket"
        // One letter and 3,000,000 combining accents: one grapheme cluster, 6 MB of UTF-8.
        let combining = "a" + String(repeating: "\u{0301}", count: 3_000_000)
        try await expect(400, "PUT", pocket, token: user, body: .json(["data": ["k": .string(combining)]]), mentioning: ["2000"])
        let small = "a" + String(repeating: "\u{0301}", count: 3000)
        try await expect(400, "PUT", pocket, token: user, body: .json(["data": ["k": .string(small)]]), mentioning: ["2000"])

        let lists = JSONValue.object(
            Dictionary(uniqueKeysWithValues: (0...PocketLimits.referenceLists).map { ("l\($0)", JSONValue.array([])) }))
        try await expect(
            400, "PUT", pocket, token: user, body: .json(["references": lists]), mentioning: ["\(PocketLimits.referenceLists)"])
        let longList = JSONValue.array((0...PocketLimits.entriesPerList).map { .string("id\($0)") })
        try await expect(400, "PUT", pocket, token: user, body: .json(["references": ["l": longList]]), mentioning: ["entries"])
        let longEntry = String(repeating: "x", count: PocketLimits.referenceLength + 1)
        try await expect(400, "PUT", pocket, token: user, body: .json(["references": ["l": [.string(longEntry)]]]))

        // Lists added one PUT at a time are capped in total too.
        for index in 0..<PocketLimits.referenceLists {
            let answer = try await server.call("PUT", pocket, token: user, body: .json(["references": .object(["l\(index)": ["x"]])]))
            XCTAssertEqual(answer.status, 200)
        }
        try await expect(400, "PUT", pocket, token: user, body: .json(["references": ["one-more": ["x"]]]), mentioning: ["delete one"])
        let stored = try await server.call("GET", pocket + "/self", token: user)
        XCTAssertEqual(stored.json["references"]?.objectValue?.count, PocketLimits.referenceLists)
    }

    func testMalformedChunkedBodyIsAClientError() async throws {
        let connection = try RawConnection(port: server.server.port)
        try connection.send(
            "POST /api/generalcontent/instance/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer \(app!)\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        let (data, _) = connection.readToEnd(timeout: 5)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 4") || data.isEmpty, "a malformed chunk size is not a server error: \(text.prefix(200))")
        try await assertAlive()
    }
}
