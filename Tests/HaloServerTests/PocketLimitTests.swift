import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 45, hole 2: each per-request cap of the pocket held, but nothing capped their product
/// (100 lists × 1,000 entries × 256 four-byte characters: 100 MB a user). The whole pocket, data
/// and references together, is at most `pocket-bytes` UTF-8 bytes of compact sorted JSON (256 KiB
/// by default), announced on every pocket answer; a pocket stored under a higher limit stays
/// readable and may be made smaller. Against a real `halo-server` process, on SQLite and PostgreSQL.
final class PocketLimitTests: XCTestCase {
    /// 4 bytes in UTF-8, one Unicode scalar: bytes ≠ characters.
    static let wide = "😀"

    func testAPocketOfExactlyTheLimitIsStoredAndOneByteMoreIsRefused() async throws {
        let child = try await LimitChild.start()
        defer { child.stop() }
        let limit = PocketLimits.wholePocketBytes
        let atLimit = Self.references(bytes: limit)
        XCTAssertEqual(Self.encodedBytes(atLimit), limit)
        XCTAssertEqual(PocketLimits.pocketBytes(references: atLimit, data: [:]), limit, "the server counts what this test counts")

        let first = try await child.userToken()
        let saved = try await child.call("PUT", "/api/segmentation/identified-pocket", token: first, body: Self.body(atLimit))
        assertStatus(saved, 200)
        XCTAssertEqual(saved.headers["x-halo-pocket-limits"].flatMap(PocketLimits.Values.init(headerValue:)), .defaults)
        let read = try await child.call("GET", "/api/segmentation/identified-pocket/self", token: first)
        assertStatus(read, 200)
        XCTAssertEqual(read.json["references"], Self.body(atLimit)["references"])
        XCTAssertEqual(
            read.headers["x-halo-pocket-limits"],
            "bytes=262144, data-characters=2000, reference-lists=100, entries-per-list=1000, reference-length=256")

        // One byte more: as a new pocket, and as a save growing the full one.
        let over = Self.references(bytes: limit + 1)
        XCTAssertEqual(Self.encodedBytes(over), limit + 1)
        let second = try await child.userToken()
        let refused = try await child.call("PUT", "/api/segmentation/identified-pocket", token: second, body: Self.body(over))
        let message = assertEnvelope(refused, status: 400)
        XCTAssertTrue(message.contains("262,144 bytes"), message)
        XCTAssertTrue(message.contains("262,145 bytes"), message)
        let growing = try await child.call(
            "PUT", "/api/segmentation/identified-pocket", token: first, body: ["data": ["a": 1]])
        XCTAssertTrue(assertEnvelope(growing, status: 400).contains("262,144 bytes"))
        let empty = try await child.call("GET", "/api/segmentation/identified-pocket/self", token: second)
        XCTAssertEqual(empty.json["references"], .object([:]), "nothing of a refused save is stored")
    }

    /// The product of the per-request caps, sent in several saves as the attack did: each save
    /// is refused once the pocket would pass the limit.
    func testManyFullListsCannotAddUp() async throws {
        let child = try await LimitChild.start()
        defer { child.stop() }
        let token = try await child.userToken()
        let entry = String(repeating: Self.wide, count: 256)
        var stored = 0
        for index in 0..<100 {
            let list = JSONValue.array(Array(repeating: .string(entry), count: 1000))
            let answer = try await child.call(
                "PUT", "/api/segmentation/identified-pocket", token: token, body: ["references": .object(["list\(index)": list])])
            if answer.status != 200 {
                XCTAssertTrue(assertEnvelope(answer, status: 400).contains("262,144 bytes"))
                break
            }
            stored += 1
        }
        XCTAssertEqual(stored, 0, "one list of 1,000 entries of 256 four-byte characters is 1 MB: over the limit alone")
        let small = JSONValue.array(Array(repeating: .string(entry), count: 10))
        var lists = 0
        while lists < 100 {
            let answer = try await child.call(
                "PUT", "/api/segmentation/identified-pocket", token: token, body: ["references": .object(["small\(lists)": small])])
            guard answer.status == 200 else {
                assertEnvelope(answer, status: 400)
                break
            }
            lists += 1
        }
        XCTAssertEqual(lists, 25, "lists of about 10,280 bytes each: 25 fit in 256 KiB, the 26th does not")
    }

    /// A pocket stored under a higher limit (here: the default, before a restart with 50,000
    /// bytes) stays readable, may be saved smaller even while still over, and may not grow.
    func testAPocketOverALoweredLimitIsReadableAndCanOnlyShrink() async throws {
        let directory = LimitChild.newDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = Self.references(bytes: 200_000)
        let token: String
        do {
            let child = try await LimitChild.start(directory: directory)
            defer { child.stop(removeData: false) }
            token = try await child.userToken()
            assertStatus(try await child.call("PUT", "/api/segmentation/identified-pocket", token: token, body: Self.body(big)), 200)
        }
        let child = try await LimitChild.start(directory: directory, options: ["--limit", "pocket-bytes=50000"])
        defer { child.stop(removeData: false) }
        let read = try await child.call("GET", "/api/segmentation/identified-pocket/self", token: token)
        assertStatus(read, 200)
        XCTAssertEqual(read.json["references"], Self.body(big)["references"])
        XCTAssertEqual(read.headers["x-halo-pocket-limits"].flatMap(PocketLimits.Values.init(headerValue:))?.wholePocketBytes, 50_000)

        // Growing: refused, naming the limit and the size.
        let grow = try await child.call("PUT", "/api/segmentation/identified-pocket", token: token, body: ["data": ["note": "more"]])
        let message = assertEnvelope(grow, status: 400)
        XCTAssertTrue(message.contains("50,000 bytes") && message.contains("200,000"), message)
        // Shrinking, still over 50,000: saved.
        let firstList = try XCTUnwrap(big.keys.sorted().first)
        let shrink = try await child.call(
            "PUT", "/api/segmentation/identified-pocket", token: token, body: ["references": .object([firstList: .null])])
        assertStatus(shrink, 200)
        var rest = big
        rest[firstList] = nil
        let size = PocketLimits.pocketBytes(references: rest, data: [:])
        XCTAssertGreaterThan(size, 50_000)
        XCTAssertLessThan(size, 200_000)
        XCTAssertEqual(shrink.json["references"]?.objectValue?.count, rest.count)
    }

    // MARK: Pockets of a given size

    /// Reference lists whose pocket `{"data":{},"references":{…}}` is exactly `bytes` bytes, of
    /// four-byte characters (topped up with one-byte ones), at most 100 per list.
    static func references(bytes: Int) -> [String: JSONValue] {
        var lists: [String: [String]] = [:]
        let entry = String(repeating: wide, count: 250)
        var index = 0
        while encodedBytes(lists) + 1100 < bytes {
            let name = String(format: "list%03d", index / 100)
            lists[name, default: []].append(entry)
            index += 1
        }
        // The last entry: fill the bytes left with four-byte characters, then single bytes.
        let name = String(format: "list%03d", index / 100)
        var last = ""
        lists[name, default: []].append(last)
        while encodedBytes(lists) + 4 <= bytes {
            last += wide
            lists[name]![lists[name]!.count - 1] = last
        }
        while encodedBytes(lists) < bytes {
            last += "a"
            lists[name]![lists[name]!.count - 1] = last
        }
        return lists.mapValues { .array($0.map(JSONValue.string)) }
    }

    static func encodedBytes(_ references: [String: JSONValue]) -> Int {
        encodedBytes(references.mapValues { $0.arrayValue?.compactMap(\.stringValue) ?? [] })
    }

    /// The compact sorted JSON of the pocket, written out by hand (no escapes in these strings),
    /// so the test does not count with the code it tests.
    static func encodedBytes(_ lists: [String: [String]]) -> Int {
        let members = lists.keys.sorted().map { name in
            "\"\(name)\":[" + lists[name]!.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
        return ("{\"data\":{},\"references\":{" + members.joined(separator: ",") + "}}").utf8.count
    }

    static func body(_ references: [String: JSONValue]) -> JSONValue {
        ["references": .object(references), "data": .object([:])]
    }
}

/// `halo-server serve` as a child process on `TestBackEnd.current`, its data set up beforehand,
/// with a URLSession to call it.
final class LimitChild: @unchecked Sendable {
    let process: ChildServer
    let directory: URL
    let baseURL: URL
    let client: ClientCredentials
    let editor: ClientCredentials
    let admin: HaloServerAdmin
    let session = URLSession(configuration: .ephemeral)

    private init(
        process: ChildServer, directory: URL, baseURL: URL, client: ClientCredentials, editor: ClientCredentials, admin: HaloServerAdmin
    ) {
        self.admin = admin
        self.process = process
        self.directory = directory
        self.baseURL = baseURL
        self.client = client
        self.editor = editor
    }

    static func newDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("halo-limits-\(UUID().uuidString)")
    }

    /// A child on `directory` (new when nil); an app client and an editor's client are added
    /// first (again on a restart: clients are cheap).
    static func start(directory: URL? = nil, options: [String] = []) async throws -> LimitChild {
        let directory = directory ?? newDirectory()
        let admin = try await TestBackEnd.current.admin(for: directory)
        let client = try await admin.addClient(name: "App")
        let editor = try await admin.addClient(name: "Editor app", editor: true)
        let process = try ChildServer(binary: try ChildServer.builtBinary(), directory: directory, options: options)
        let port: Int
        do { port = try process.waitForPort() } catch {
            process.kill()
            throw error
        }
        let baseURL = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)"))
        return LimitChild(process: process, directory: directory, baseURL: baseURL, client: client, editor: editor, admin: admin)
    }

    func stop(removeData: Bool = true) {
        process.kill()
        if removeData { try? FileManager.default.removeItem(at: directory) }
    }

    @discardableResult
    func call(
        _ method: String, _ path: String, token: String? = nil, body: JSONValue? = nil, headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        try await TestServer.call(
            method, path, baseURL: baseURL, session: session, token: token, body: body.map { .json($0) }, headers: headers)
    }

    func appToken(editor: Bool = false) async throws -> String {
        let client = editor ? self.editor : self.client
        let answer = try await TestServer.call(
            "POST", "/api/oauth/token", baseURL: baseURL, session: session,
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret)]))
        assertStatus(answer, 200)
        return try XCTUnwrap(answer.json["access_token"]?.stringValue)
    }

    /// A new user (added through the data, so no registration is counted), logged in.
    func userToken() async throws -> String {
        let email = "user\(UUID().uuidString.prefix(8))@example.com"
        _ = try await admin.addUser(email: email, password: "secret-password")
        let answer = try await call(
            "POST", "/api/segmentation/identified/login",
            body: ["email": .string(email), "password": "secret-password", "network": "halo", "deviceId": ""])
        assertStatus(answer, 200)
        return try XCTUnwrap(answer.json["token"]?["access_token"]?.stringValue)
    }
}
