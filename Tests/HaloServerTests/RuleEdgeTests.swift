import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// Issue 47: the server's rules pinned at their edges, each test written against a bug that the
/// suite let through before (the table). A test here must fail when its bug is put in.
final class RuleEdgeTests: XCTestCase {
    var server: TestServer!

    override func setUp() async throws {
        server = try await TestServer.start()
    }

    override func tearDown() async throws { await server.stop() }

    static let pocketPath = "/api/segmentation/identified-pocket"

    /// `If-Match` compares strongly (RFC 9110 §13.1.1): a weak tag of the CURRENT revision,
    /// `W/"<revision>"`, matches nothing. The save is a 409 and changes nothing. (The bug: a weak
    /// tag also matched.)
    func testAWeakIfMatchOfTheCurrentRevisionIsAConflictThatChangesNothing() async throws {
        let user = try await server.userToken()
        let saved = try await server.call("PUT", Self.pocketPath, token: user, body: .json(["data": ["views": ["a"]]]))
        assertStatus(saved, 200)
        let current = try XCTUnwrap(saved.headers["etag"])
        XCTAssertEqual(current, "\"1\"")

        let weak = try await server.call(
            "PUT", Self.pocketPath, token: user, body: .json(["data": ["views": ["weak"]]]), headers: ["If-Match": "W/" + current])
        XCTAssertTrue(assertEnvelope(weak, status: 409).contains("changed since it was read"))
        XCTAssertEqual(weak.json["error"]?["extra"]?["revision"], .string(current))
        // Nor does the weak tag count inside a list.
        let weakInList = try await server.call(
            "PUT", Self.pocketPath, token: user, body: .json(["data": ["views": ["weak"]]]),
            headers: ["If-Match": "\"7\", W/" + current])
        assertEnvelope(weakInList, status: 409)

        let unchanged = try await server.call("GET", Self.pocketPath + "/self", token: user)
        XCTAssertEqual(unchanged.json["data"], ["views": ["a"]], "a refused save changes nothing")
        XCTAssertEqual(unchanged.headers["etag"], current, "a refused save does not move the revision")

        // The strong tag of the same revision does match.
        let strong = try await server.call(
            "PUT", Self.pocketPath, token: user, body: .json(["data": ["views": ["b"]]]), headers: ["If-Match": current])
        assertStatus(strong, 200)
        XCTAssertEqual(strong.headers["etag"], "\"2\"")
    }

    /// HALO's 2,000 characters of pocket `data` (docs/limits.md: the Unicode scalars of its compact
    /// JSON with sorted keys): exactly 2,000 is saved, 2,001 is a 400 that stores nothing. Four-byte
    /// characters, so bytes would count otherwise. (The bug: `<=` → `<`, caught before only by an
    /// SDK test.)
    func testPocketDataOfExactlyTheLimitIsSavedAndOneCharacterMoreIsRefused() async throws {
        let limit = PocketLimits.dataCharacters
        XCTAssertEqual(limit, 2000)
        // `{"a":1,"t":"…"}`: 14 characters around the text. Keys sent unsorted: the server sorts them.
        func data(_ length: Int) -> JSONValue {
            let text = String(repeating: "😀", count: 10) + String(repeating: "x", count: length - 14 - 10)
            return ["t": .string(text), "a": 1]
        }
        let atLimit = data(limit)
        let over = data(limit + 1)
        XCTAssertEqual(PocketLimits.dataLength(try XCTUnwrap(atLimit.objectValue)), limit, "counted as docs/limits.md says")
        XCTAssertEqual(PocketLimits.dataLength(try XCTUnwrap(over.objectValue)), limit + 1)

        let user = try await server.userToken()
        let saved = try await server.call("PUT", Self.pocketPath, token: user, body: .json(["data": atLimit]))
        assertStatus(saved, 200)
        XCTAssertTrue(saved.json["data"] == atLimit, "the data saved as sent")

        let other = try await server.userToken()
        let refused = try await server.call("PUT", Self.pocketPath, token: other, body: .json(["data": over]))
        let message = assertEnvelope(refused, status: 400)
        XCTAssertTrue(message.contains("2000") && message.contains("2001"), message)
        let empty = try await server.call("GET", Self.pocketPath + "/self", token: other)
        XCTAssertEqual(empty.json["data"], .object([:]), "nothing of a refused save is stored")
        XCTAssertEqual(empty.headers["etag"], "\"0\"")
        // Nor does one more character replace the data of a full pocket.
        let growing = try await server.call("PUT", Self.pocketPath, token: user, body: .json(["data": over]))
        assertEnvelope(growing, status: 400)
        let kept = try await server.call("GET", Self.pocketPath + "/self", token: user)
        XCTAssertTrue(kept.json["data"] == atLimit, "a refused save keeps the data it would have replaced")
    }
}
