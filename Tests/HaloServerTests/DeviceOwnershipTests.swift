import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `halo-server` child process on `TestBackEnd.current` (SQLite, or PostgreSQL with
/// `HALO_TEST_BACKEND=postgres`), with the data opened for administration beside it.
final class ChildDeployment: @unchecked Sendable {
    let directory: URL
    let admin: HaloServerAdmin
    let child: ChildServer
    let baseURL: URL
    let session = URLSession(configuration: .ephemeral)
    var port: Int { baseURL.port ?? 0 }

    private init(directory: URL, admin: HaloServerAdmin, child: ChildServer, baseURL: URL) {
        self.directory = directory
        self.admin = admin
        self.child = child
        self.baseURL = baseURL
    }

    /// Starts the process once `prepare` has set the data up (clients, users) through `admin`.
    static func start(
        directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("halo-devices-\(UUID().uuidString)"),
        _ prepare: (HaloServerAdmin) async throws -> Void = { _ in }
    ) async throws -> ChildDeployment {
        let admin = try await TestBackEnd.current.admin(for: directory)
        try await prepare(admin)
        let child = try ChildServer(binary: try ChildServer.builtBinary(), directory: directory)
        let base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(try child.waitForPort())"))
        return ChildDeployment(directory: directory, admin: admin, child: child, baseURL: base)
    }

    func stop() {
        child.kill()
        admin.close()
        try? FileManager.default.removeItem(at: directory)
    }

    @discardableResult
    func call(
        _ method: String, _ path: String, token: String? = nil, body: HTTPBody? = nil, headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        try await TestServer.call(method, path, baseURL: baseURL, session: session, token: token, body: body, headers: headers)
    }

    /// A client-credentials token of `client` (§3.2).
    func token(_ client: ClientCredentials) async throws -> String {
        let answer = try await call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret)]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return try XCTUnwrap(answer.json["access_token"]?.stringValue)
    }

    /// An identified login (§7.2, iOS's JSON) sent with `token` (nil: none) naming `deviceAlias`; the user's token.
    func login(_ email: String, token: String?, deviceAlias: String = "") async throws -> String {
        let answer = try await call(
            "POST", "/api/segmentation/identified/login", token: token,
            body: .json(["email": .string(email), "password": "secret-password", "network": "halo", "deviceId": .string(deviceAlias)]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return try XCTUnwrap(answer.json["token"]?["access_token"]?.stringValue)
    }

    /// Registers a device with `token` (§6.1); its id, alias and stream secret.
    func register(_ token: String, _ body: JSONValue = [:]) async throws -> RegisteredDevice {
        let answer = try await call("POST", "/api/segmentation/appuser", token: token, body: .json(body))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return RegisteredDevice(
            id: try XCTUnwrap(answer.json["id"]?.stringValue), alias: try XCTUnwrap(answer.json["alias"]?.stringValue),
            secret: try XCTUnwrap(answer.json["eventStreamSecret"]?.stringValue))
    }

    /// The stored device row, read behind the server's back.
    func stored(_ id: String) async throws -> DeviceRecord? {
        try await admin.environment.storage.read { db in try DeviceRecord.find(id: id, in: db) }
    }

    func count(_ table: String) async throws -> Int64 {
        try await admin.environment.storage.read { db in try db.fetchValue(Int64.self, "SELECT count(*) FROM \(table)") ?? 0 }
    }
}

/// `XCTAssertEqual` of a value an `await` reads.
func assertEqual<T: Equatable>(
    _ value: @autoclosure () async throws -> T, _ expected: T, _ message: String = "", file: StaticString = #filePath,
    line: UInt = #line
) async throws {
    let actual = try await value()
    XCTAssertEqual(actual, expected, message, file: file, line: line)
}

/// Devices belong to the app client whose token registered them (issue 45, hole 1;
/// docs/protocol.md §23.12), against a real `halo-server` process.
final class DeviceOwnershipTests: XCTestCase {
    var server: ChildDeployment!
    var clientA: ClientCredentials!
    var clientB: ClientCredentials!
    var editorClient: ClientCredentials!
    var appA: String!
    var appB: String!
    var editor: String!

    override func setUp() async throws {
        var clients: [ClientCredentials] = []
        server = try await ChildDeployment.start { admin in
            clients = [try await admin.addClient(name: "A"), try await admin.addClient(name: "B"), try await admin.addClient(editor: true)]
            try await admin.addUser(email: "ana@example.com", password: "secret-password")
            try await admin.addUser(email: "mallory@example.com", password: "secret-password")
        }
        (clientA, clientB, editorClient) = (clients[0], clients[1], clients[2])
        appA = try await server.token(clientA)
        appB = try await server.token(clientB)
        editor = try await server.token(editorClient)
    }

    override func tearDown() async throws { server?.stop() }

    func device(_ id: String) -> String { "/api/segmentation/appuser/\(id)" }

    /// The hole as reported: another app's token renewed the stream secret, took the stream and
    /// renamed the device. Now every one of its calls is a 404 and nothing changes.
    func testAnotherClientsTokenGets404AndTheDeviceAndItsStreamStayTheOwners() async throws {
        let victim = try await server.register(appA, ["alias": "victim-desk", "tags": [["name": "plan", "value": "pro"]]])
        let before = try await server.stored(victim.id)
        XCTAssertEqual(before?.clientId, clientA.clientId)

        let mallory = try await server.login("mallory@example.com", token: appB, deviceAlias: victim.alias)
        for token in [appB!, mallory] {
            assertEnvelope(try await server.call("GET", device(victim.id), token: token), status: 404)
            for body: JSONValue in [
                ["renewEventStreamSecret": true], ["alias": "stolen"], ["tags": []],
                ["devices": [["platform": "linux", "token": "thief"]], "replaceTokens": true],
            ] {
                let answer = try await server.call("PUT", device(victim.id), token: token, body: .json(body))
                XCTAssertTrue(assertEnvelope(answer, status: 404).contains(victim.id))
                XCTAssertNil(answer.json["eventStreamSecret"])
            }
            // With the owner's stream secret too: still none of this token's business.
            let withSecret = try await server.call(
                "PUT", device(victim.id), token: token, body: .json(["renewEventStreamSecret": true]),
                headers: ["X-Halo-Device-Secret": victim.secret])
            assertEnvelope(withSecret, status: 404)
        }
        let after = try await server.stored(victim.id)
        XCTAssertEqual(after?.alias, "victim-desk")
        XCTAssertEqual(after?.tagsJson, before?.tagsJson)
        XCTAssertEqual(after?.devicesJson, before?.devicesJson)
        XCTAssertEqual(after?.streamSecretDigest, before?.streamSecretDigest)
        XCTAssertEqual(after?.clientId, clientA.clientId)
        let stream = try await EventStreamClient.open(port: server.port, token: appA, headers: victim.headers)
        XCTAssertEqual(stream.status, 200, "the owner's secret still opens its stream")

        // Its own client reads and updates it without the secret; editors act on every device.
        try await assertEqual(try await server.call("GET", device(victim.id), token: appA).status, 200)
        try await assertEqual(try await server.call("GET", device(victim.id), token: editor).status, 200)
        let renamed = try await server.call("PUT", device(victim.id), token: editor, body: .json(["alias": "renamed-by-editor"]))
        XCTAssertEqual(renamed.json["alias"], "renamed-by-editor")
        try await assertEqual(try await server.stored(victim.id)?.clientId, clientA.clientId, "an editor does not take the device")
    }

    /// Renewing the stream secret needs the current one (`X-Halo-Device-Secret`) or an editor,
    /// even for the device's own client; alias, tags and push tokens do not.
    func testRenewingTheStreamSecretNeedsTheCurrentOneOrAnEditor() async throws {
        let desk = try await server.register(appA)
        for headers in [[:], ["X-Halo-Device-Secret": "not-the-secret"], ["X-Halo-Device-Secret": String(desk.secret.dropLast())]] {
            let refused = try await server.call(
                "PUT", device(desk.id), token: appA, body: .json(["renewEventStreamSecret": true, "alias": "changed"]), headers: headers)
            XCTAssertTrue(assertEnvelope(refused, status: 403).contains("X-Halo-Device-Secret"))
            try await assertEqual(try await server.stored(desk.id)?.alias, desk.alias, "nothing stored on a refusal")
        }
        try await assertEqual(try await EventStreamClient.open(port: server.port, token: appA, headers: desk.headers).status, 200)

        let updated = try await server.call(
            "PUT", device(desk.id), token: appA,
            body: .json([
                "alias": "desk-2", "tags": [["name": "plan", "value": "free"]], "devices": [["platform": "linux", "token": "t"]],
            ]))
        XCTAssertEqual(updated.status, 200)
        XCTAssertNil(updated.json["eventStreamSecret"])

        let renewed = try await server.call(
            "PUT", device(desk.id), token: appA, body: .json(["renewEventStreamSecret": true]),
            headers: ["X-Halo-Device-Secret": desk.secret])
        let secret = try XCTUnwrap(renewed.json["eventStreamSecret"]?.stringValue)
        try await assertEqual(try await EventStreamClient.open(port: server.port, token: appA, headers: desk.headers).status, 401)
        var current = desk
        current.secret = secret
        try await assertEqual(try await EventStreamClient.open(port: server.port, token: appA, headers: current.headers).status, 200)

        // An editor renews without it.
        let byEditor = try await server.call("PUT", device(desk.id), token: editor, body: .json(["renewEventStreamSecret": true]))
        XCTAssertNotNil(byEditor.json["eventStreamSecret"]?.stringValue)
    }

    /// `appId` is the device's client's app, compared as a number; anything else is a 400 naming
    /// `appId` and nothing is stored.
    func testAppIdMustBeTheAppOfTheDevicesClient() async throws {
        let devices = try await server.count("server_device")
        for appId: JSONValue in [2, "2", 0, "1.5", 1.5] {
            let refused = try await server.call("POST", "/api/segmentation/appuser", token: appA, body: .json(["appId": appId]))
            assertEnvelope(refused, status: 400)
            XCTAssertNotNil(refused.json["error"]?["extra"]?["appId"], "\(appId): \(refused.json)")
        }
        let named = try await server.call("POST", "/api/segmentation/appuser", token: appA, body: .json(["appId": "2"]))
        XCTAssertTrue(assertEnvelope(named, status: 400).contains("'appId' must be 1"))
        try await assertEqual(try await server.count("server_device"), devices)

        // Android sends a string, iOS a number, and saying nothing means the client's app.
        for appId: JSONValue? in ["1", 1, nil] {
            let body: JSONValue = appId.map { ["appId": $0] } ?? [:]
            let accepted = try await server.call("POST", "/api/segmentation/appuser", token: appA, body: .json(body))
            XCTAssertEqual(accepted.json["appId"], 1, "\(String(describing: appId))")
        }
        let desk = try await server.register(appA)
        let moved = try await server.call("PUT", device(desk.id), token: appA, body: .json(["appId": "2", "alias": "moved"]))
        assertEnvelope(moved, status: 400)
        try await assertEqual(try await server.stored(desk.id)?.appId, 1)
        try await assertEqual(try await server.stored(desk.id)?.alias, desk.alias)
        let byEditor = try await server.call("PUT", device(desk.id), token: editor, body: .json(["appId": 2]))
        assertEnvelope(byEditor, status: 400)

        // A client of app 2 registers app-2 devices.
        let clientOfApp2 = try await server.admin.addClient(appId: 2)
        let app2 = try await server.token(clientOfApp2)
        let second = try await server.call("POST", "/api/segmentation/appuser", token: app2, body: .json([:]))
        XCTAssertEqual(second.json["appId"], 2)
        assertEnvelope(try await server.call("POST", "/api/segmentation/appuser", token: app2, body: .json(["appId": 1])), status: 400)
    }

    /// A user token acts for the client of the app token its login was sent with; one without a
    /// client only on the devices its user's logins named.
    func testUserTokensActForTheirLoginsClientOrOnTheDevicesTheirLoginsNamed() async throws {
        let first = try await server.register(appA)
        let second = try await server.register(appA)
        let ofB = try await server.register(appB)

        // A login sent with A's app token, naming `first`: the user's token is A's.
        let withClient = try await server.login("ana@example.com", token: appA, deviceAlias: first.alias)
        for id in [first.id, second.id] {
            try await assertEqual(try await server.call("PUT", device(id), token: withClient, body: .json(["tags": []])).status, 200)
        }
        assertEnvelope(try await server.call("GET", device(ofB.id), token: withClient), status: 404)

        // A login without a token: only what the user's logins named.
        let withoutClient = try await server.login("ana@example.com", token: nil, deviceAlias: second.alias)
        try await assertEqual(try await server.call("GET", device(first.id), token: withoutClient).status, 200)
        try await assertEqual(
            try await server.call("PUT", device(first.id), token: withoutClient, body: .json(["alias": "ana-desk"])).status, 200)
        // `second` was named by a login without a client: an alias is no secret, so that names nothing.
        assertEnvelope(try await server.call("GET", device(second.id), token: withoutClient), status: 404)
        assertEnvelope(try await server.call("PUT", device(ofB.id), token: withoutClient, body: .json(["tags": []])), status: 404)
        let register = try await server.call("POST", "/api/segmentation/appuser", token: withoutClient, body: .json([:]))
        XCTAssertTrue(assertEnvelope(register, status: 403).contains("client"))

        // Another user's login, sent with B's token, naming A's device: names nothing.
        let mallory = try await server.login("mallory@example.com", token: appB, deviceAlias: "ana-desk")
        let malloryAlone = try await server.login("mallory@example.com", token: nil, deviceAlias: "ana-desk")
        for token in [mallory, malloryAlone] {
            assertEnvelope(try await server.call("PUT", device(first.id), token: token, body: .json(["alias": "x"])), status: 404)
        }
        try await assertEqual(try await server.stored(first.id)?.alias, "ana-desk")
    }

    /// iOS logs in again with its expired user token (§3.4): the new token keeps that client. A
    /// revoked token gives none.
    func testALoginKeepsTheClientOfAnExpiredTokenButNotOfARevokedOne() async throws {
        let named = try await server.register(appA)
        let other = try await server.register(appA)
        let first = try await server.login("ana@example.com", token: appA, deviceAlias: named.alias)
        func mark(_ token: String, _ change: String) async throws {
            try await server.admin.environment.storage.write { db in
                _ = try db.execute("UPDATE server_token SET \(change) WHERE access_hash = ?", SecretHasher.tokenDigest(token))
            }
        }
        try await mark(first, "expires_at = 1")
        assertEnvelope(try await server.call("GET", device(other.id), token: first), status: 401)
        let renewed = try await server.login("ana@example.com", token: first)
        try await assertEqual(try await server.call("GET", device(other.id), token: renewed).status, 200, "A's, as its login's token")

        try await mark(renewed, "revoked = 1")
        let clientless = try await server.login("ana@example.com", token: renewed)
        assertEnvelope(try await server.call("GET", device(other.id), token: clientless), status: 404)
        try await assertEqual(try await server.call("GET", device(named.id), token: clientless).status, 200, "named by a login")
    }

    /// The password grant names its client with `client_id` and `client_secret` (ours, HaloServices
    /// sends them); a wrong secret is the usual 401, and without them the token has no client.
    func testThePasswordGrantActsForTheClientItAuthenticates() async throws {
        func grant(_ extra: [(String, String)]) async throws -> HTTPAnswer {
            try await server.call(
                "POST", "/api/oauth/token?_user",
                body: .form([("grant_type", "password"), ("username", "ana@example.com"), ("password", "secret-password")] + extra))
        }
        let desk = try await server.register(appA)
        let granted = try await grant([("client_id", clientA.clientId), ("client_secret", clientA.clientSecret)])
        let withClient = try XCTUnwrap(granted.json["access_token"]?.stringValue)
        try await assertEqual(try await server.call("PUT", device(desk.id), token: withClient, body: .json(["tags": []])).status, 200)
        try await assertEqual(try await server.register(withClient).id.count, 24)

        for extra in [[("client_id", clientA.clientId), ("client_secret", "wrong")], [("client_id", clientA.clientId)]] {
            assertEnvelope(try await grant(extra), status: 401)
        }
        let plain = try await grant([])
        let withoutClient = try XCTUnwrap(plain.json["access_token"]?.stringValue)
        assertEnvelope(try await server.call("GET", device(desk.id), token: withoutClient), status: 404)
    }

    /// A device registered before devices had owners belongs to the first client that updates it.
    func testADeviceFromBeforeOwnersBelongsToTheFirstClientThatUpdatesIt() async throws {
        let old = try await server.register(appA)
        try await server.admin.environment.storage.write { db in
            _ = try db.execute("UPDATE server_device SET client_id = NULL, user_id = NULL WHERE id = ?", old.id)
        }
        try await assertEqual(try await server.call("GET", device(old.id), token: appB).status, 200, "anyone's until claimed")
        try await assertEqual(try await server.call("GET", device(old.id), token: appA).status, 200)
        try await assertEqual(try await server.call("PUT", device(old.id), token: appB, body: .json(["tags": []])).status, 200)
        try await assertEqual(try await server.stored(old.id)?.clientId, clientB.clientId)
        assertEnvelope(try await server.call("GET", device(old.id), token: appA), status: 404)
    }

    /// A database of the release before owners (`Tests/Fixtures/databases`, SQLite): its device has
    /// no client, any app client may read it, the first that updates it owns it, and the device a
    /// user's login named then (`server_user.device_alias`) stays in that user's reach.
    func testAnEarlierReleasesDeviceBelongsToTheFirstClientThatUpdatesIt() async throws {
        try XCTSkipIf(TestBackEnd.current != .sqlite, "the earlier release's database is an SQLite file")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-earlier-\(UUID().uuidString)")
        let file = directory.appendingPathComponent("halo.sqlite")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", Fixtures.root.appendingPathComponent("databases/local-workspace-2fd2e5d.sqlite.gz").path]
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        let output = try FileHandle(forWritingTo: file)
        gzip.standardOutput = output
        try gzip.run()
        gzip.waitUntilExit()
        try output.close()
        let (oldId, oldAlias) = ("6b05056ec512f5b80c4b7307", "anonymous-9wikq3qp38ec4shirh3aq21ds")
        // As if the reader's login had named the device then (the fixture's login named none).
        let queue = try DatabaseQueue(path: file.path)
        try queue.inDatabase { db in
            try db.execute(
                sql: "UPDATE server_user SET device_alias = ? WHERE email = ?", arguments: [oldAlias, "reader@example.com"])
        }
        try queue.close()

        var claimant: ClientCredentials!
        let earlier = try await ChildDeployment.start(directory: directory) { admin in
            claimant = try await admin.addClient(name: "Claimant")
        }
        defer { earlier.stop() }
        let stored = try await earlier.stored(oldId)
        XCTAssertEqual(stored?.alias, oldAlias)
        XCTAssertTrue(stored?.isUnclaimed ?? false)
        let original = try await earlier.token(
            ClientCredentials(clientId: "J1UHh7bdHXtZoj6fS99LlWWi", clientSecret: "KDdF6gkFKgLYQXQcgyWBOyQs8ohtbVAHENC5O4ju"))
        let first = try await earlier.token(claimant)
        try await assertEqual(try await earlier.call("GET", device(oldId), token: original).status, 200)
        try await assertEqual(try await earlier.call("GET", device(oldId), token: first).status, 200)
        try await assertEqual(try await earlier.call("PUT", device(oldId), token: first, body: .json(["tags": []])).status, 200)
        try await assertEqual(try await earlier.stored(oldId)?.clientId, claimant.clientId)
        assertEnvelope(try await earlier.call("GET", device(oldId), token: original), status: 404)
        assertEnvelope(try await earlier.call("PUT", device(oldId), token: original, body: .json(["tags": []])), status: 404)

        // The reader's login without a token: its token reaches the device its earlier login named.
        let login = try await earlier.call(
            "POST", "/api/segmentation/identified/login",
            body: .json(["email": "reader@example.com", "password": "reader-password-1", "network": "halo"]))
        let reader = try XCTUnwrap(login.json["token"]?["access_token"]?.stringValue)
        try await assertEqual(try await earlier.call("GET", device(oldId), token: reader).status, 200)
    }
}
