import Foundation
import HaloContentStore
import HaloServer
import XCTest

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
