import Foundation
import HaloContentStore
import XCTest

@testable import HaloServer

/// Issue 47's mutation catalog (Tests/Mutations/catalog.tsv) found rules no test pinned: each test
/// here was written against an entry that survived, and fails with it.
final class MutationGapTests: XCTestCase {
    var server: TestServer!

    /// Small caps, so each edge is a few bytes away.
    static let lists = 3, entries = 4, length = 5

    override func setUp() async throws {
        var limits = ServerLimits()
        limits.pocketReferenceLists = Self.lists
        limits.pocketEntriesPerList = Self.entries
        limits.pocketReferenceLength = Self.length
        server = try await TestServer.start(limits: limits)
    }

    override func tearDown() async throws { await server.stop() }

    static let pocketPath = "/api/segmentation/identified-pocket"

    func save(_ references: JSONValue, _ token: String) async throws -> HTTPAnswer {
        try await server.call("PUT", Self.pocketPath, token: token, body: .json(["references": references]))
    }

    /// Asserts the user's pocket is still at `revision` (a refused save stores nothing).
    func assertRevision(_ token: String, _ revision: Int, file: StaticString = #filePath, line: UInt = #line) async throws {
        let read = try await server.call("GET", Self.pocketPath + "/self", token: token)
        XCTAssertEqual(read.headers["etag"], "\"\(revision)\"", "a refused save stores nothing", file: file, line: line)
    }

    /// `pocket-reference-lists`: exactly the limit in one PUT is saved, one more is a 400; lists
    /// added over several PUTs cannot pass it either, while replacing or deleting one can.
    func testReferenceListsAtTheLimitInOnePutAndOverSeveral() async throws {
        let user = try await server.userToken()
        let three: JSONValue = ["a": ["1"], "b": ["2"], "c": ["3"]]
        assertStatus(try await save(three, user), 200)
        let fourAtOnce: JSONValue = ["a": [], "b": [], "c": [], "d": []]
        let other = try await server.userToken()
        let refused = try await save(fourAtOnce, other)
        XCTAssertTrue(assertEnvelope(refused, status: 400).contains("at most 3 reference lists (got 4)"))
        try await assertRevision(other, 0)

        // The fourth list in a later PUT: the sum is over the cap.
        let fourth = try await save(["d": ["4"]], user)
        XCTAssertTrue(assertEnvelope(fourth, status: 400).contains("at most 3 reference lists; delete one first"))
        try await assertRevision(user, 1)
        // Replacing a stored list, or deleting one and adding another, stays within it.
        assertStatus(try await save(["a": ["x"]], user), 200)
        assertStatus(try await save(["a": .null, "d": ["4"]], user), 200)
    }

    /// `pocket-entries-per-list`: a list of exactly the limit is saved, one entry more is a 400.
    func testEntriesPerListAtTheLimit() async throws {
        let user = try await server.userToken()
        assertStatus(try await save(["l": ["1", "2", "3", "4"]], user), 200)
        let refused = try await save(["l": ["1", "2", "3", "4", "5"]], user)
        XCTAssertTrue(assertEnvelope(refused, status: 400).contains("has 5 entries; a list holds at most 4"))
        try await assertRevision(user, 1)
    }

    /// `pocket-reference-length`, in Unicode scalars (four-byte characters, so bytes would count
    /// otherwise): an entry or a list name of exactly the limit is saved, one more is a 400.
    func testEntryAndListNameLengthAtTheLimit() async throws {
        let user = try await server.userToken()
        let five = String(repeating: "😀", count: Self.length)
        let six = five + "x"
        assertStatus(try await save(.object([five: [.string(five)]]), user), 200)
        let longEntry = try await save(["l": [.string(six)]], user)
        XCTAssertTrue(assertEnvelope(longEntry, status: 400).contains("is longer than 5 characters"))
        let longName = try await save(.object([six: ["x"]]), user)
        XCTAssertTrue(assertEnvelope(longName, status: 400).contains("A reference list name is longer than 5 characters"))
        try await assertRevision(user, 1)
    }
}

/// `LoginThrottle`: a successful login clears its account's failures, wherever the next attempts
/// come from (the existing test retries from the address that succeeded, which is then a known
/// device with a lock of its own, so it passed without the reset). Entry `login-success-resets`.
final class LoginThrottleGapTests: XCTestCase {
    func testASuccessClearsTheAccountsFailuresForEveryAddress() async throws {
        let throttle = LoginThrottle(settings: .init(), now: { 1000 })
        let alice = LoginThrottle.Account.user(email: "alice@example.com")
        func attempt(from address: String, succeeds: Bool) async throws {
            let attempt = try await throttle.begin(alice, address: address)
            try await throttle.finish(attempt, outcome: succeeds)
        }
        for _ in 0..<4 { try await attempt(from: "10.0.0.1", succeeds: false) }
        try await attempt(from: "10.0.0.2", succeeds: true)
        // From a third address (not a known device), the account has its five failures again.
        for index in 0..<5 {
            do { try await attempt(from: "10.0.0.3", succeeds: false) } catch {
                XCTFail("failure \(index + 1) after the success was refused: \(error)")
            }
        }
        do {
            try await attempt(from: "10.0.0.3", succeeds: false)
            XCTFail("the sixth failure in a row is refused")
        } catch let error as APIError {
            XCTAssertEqual(error.status, .tooManyRequests)
        }
    }
}

/// A user token's rights are its user's: a non-editor signing in through an editor app client
/// (the password grant with that client's credentials) gets no edit rights from the client.
/// Entry `auth-user-editor-flag`.
final class EditRightsGapTests: XCTestCase {
    func testANonEditorSigningInThroughAnEditorClientCannotEdit() async throws {
        let server = try await TestServer.start()
        let editorClient = try await server.admin.addClient(name: "Editor app", editor: true)
        try await server.admin.addUser(email: "reader@example.com", password: "secret-password")
        let granted = try await server.call(
            "POST", "/api/oauth/token?_user",
            body: .form([
                ("grant_type", "password"), ("username", "reader@example.com"), ("password", "secret-password"),
                ("client_id", editorClient.clientId), ("client_secret", editorClient.clientSecret),
            ]))
        let user = try XCTUnwrap(granted.json["access_token"]?.stringValue, String(decoding: granted.data, as: UTF8.self))
        assertEnvelope(try await server.call("GET", "/api/push/schedule", token: user), status: 403)
        await server.stop()
    }
}
