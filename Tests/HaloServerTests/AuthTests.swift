import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// E1/E2 token grants and the 401/403 rules (§2.2, §3).
final class AuthTests: XCTestCase {
    var server: TestServer!

    override func setUp() async throws { server = try await TestServer.start(tokenLifetimeMilliseconds: 1500) }
    override func tearDown() async throws { await server.stop() }

    func testClientCredentialsGrantMatchesFixtureAndExpiresInMilliseconds() async throws {
        let client = try await server.admin.addClient()
        let answer = try await server.call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret)]))
        XCTAssertEqual(answer.status, 200)
        assertSameShape(answer.json, as: try Fixtures.load("ios/oauth_success.json"))
        assertSameShape(answer.json, as: try Fixtures.load("ios/token.json"))
        assertSameShape(answer.json, as: try Fixtures.load("android/halo-sdk/getToken.json"))
        XCTAssertEqual(answer.json["expires_in"]?.int64Value, 1500)
        XCTAssertEqual(answer.json["token_type"], "Bearer")
        XCTAssertEqual(answer.json["refresh_token"]?.stringValue?.count, 40)
    }

    func testWrongSecretIs401WithFixtureEnvelope() async throws {
        let client = try await server.admin.addClient()
        let answer = try await server.call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", "nope")]))
        XCTAssertEqual(assertEnvelope(answer, status: 401), "Client not found or invalid secret")
        assertSameShape(answer.json, as: try Fixtures.load("ios/oauth_failure.json"))
    }

    func testRefreshGrantRotatesTokens() async throws {
        let client = try await server.admin.addClient()
        let first = try await server.call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret)]))
        let oldAccess = try XCTUnwrap(first.json["access_token"]?.stringValue)
        let refresh = try XCTUnwrap(first.json["refresh_token"]?.stringValue)
        // iOS sends the stale bearer along; it must be ignored.
        let second = try await server.call(
            "POST", "/api/oauth/token?_app", token: oldAccess,
            body: .form([
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client.clientId),
                ("client_secret", client.clientSecret),
            ]))
        XCTAssertEqual(second.status, 200)
        let newAccess = try XCTUnwrap(second.json["access_token"]?.stringValue)
        XCTAssertNotEqual(newAccess, oldAccess)
        let withNew = try await server.call("GET", "/api/authentication/version/current", token: newAccess)
        XCTAssertEqual(withNew.status, 200)
        let withOld = try await server.call("GET", "/api/authentication/version/current", token: oldAccess)
        assertEnvelope(withOld, status: 401)
        // A refresh token works once.
        let replay = try await server.call(
            "POST", "/api/oauth/token?_app",
            body: .form([
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client.clientId),
                ("client_secret", client.clientSecret),
            ]))
        assertEnvelope(replay, status: 401)
    }

    func testPasswordGrantWithBasicHeaderOnly() async throws {
        try await server.admin.addUser(email: "editor@example.com", password: "pa:ss word", editor: true)
        let basic = Data("editor@example.com:pa:ss word".utf8).base64EncodedString()
        let answer = try await server.call(
            "POST", "/api/oauth/token?_user", body: .form([("grant_type", "password")]),
            headers: ["Authorization": "Basic \(basic)"])
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        assertSameShape(answer.json, as: try Fixtures.load("ios/oauth_success.json"))
        let bad = Data("editor@example.com:wrong".utf8).base64EncodedString()
        let refused = try await server.call(
            "POST", "/api/oauth/token?_user", body: .form([("grant_type", "password")]),
            headers: ["Authorization": "Basic \(bad)"])
        assertEnvelope(refused, status: 401)
    }

    func testBadTokensAre401AndNever403() async throws {
        let path = "/api/authentication/version"
        let missing = try await server.call("GET", path)
        XCTAssertTrue(assertEnvelope(missing, status: 401).contains("Authentication required"))
        let malformed = try await server.call("GET", path, headers: ["Authorization": "Token abc"])
        XCTAssertTrue(assertEnvelope(malformed, status: 401).contains("Malformed"))
        let unknown = try await server.call("GET", path, token: "not-a-token")
        XCTAssertEqual(assertEnvelope(unknown, status: 401), "Invalid access token")

        let token = try await server.appToken()
        let valid = try await server.call("GET", path, token: token)
        XCTAssertEqual(valid.status, 200)
        let existed = try await server.admin.revokeToken(token)
        XCTAssertTrue(existed)
        let revoked = try await server.call("GET", path, token: token)
        XCTAssertTrue(assertEnvelope(revoked, status: 401).contains("revoked"))

        let shortLived = try await server.appToken()
        try await Task.sleep(nanoseconds: 1_700_000_000)
        let expired = try await server.call("GET", path, token: shortLived)
        XCTAssertTrue(assertEnvelope(expired, status: 401).contains("expired"))
    }

    func testPlainAppTokenCannotWriteButEditorsCan() async throws {
        let moduleId = try await server.admin.addModule(ModuleSpec(name: "Notes", fields: [ModuleField("text", .text)]))
        let body = HTTPBody.json(["module": .string(moduleId), "name": "n1", "values": ["text": "hello"]])
        let plain = try await server.appToken()
        let byPlainApp = try await server.call("POST", "/api/generalcontent/instance", token: plain, body: body)
        XCTAssertTrue(assertEnvelope(byPlainApp, status: 403).contains("edit rights"))
        let byBogus = try await server.call("POST", "/api/generalcontent/instance", token: "bogus", body: body)
        assertEnvelope(byBogus, status: 401)
        let plainUser = try await server.userToken()
        let byPlainUser = try await server.call("POST", "/api/generalcontent/instance", token: plainUser, body: body)
        assertEnvelope(byPlainUser, status: 403)

        let editorApp = try await server.appToken(editor: true)
        let created = try await server.call("POST", "/api/generalcontent/instance", token: editorApp, body: body)
        XCTAssertEqual(created.status, 200, String(decoding: created.data, as: UTF8.self))
        XCTAssertEqual(created.json["createdBy"], "Editor app")
        let editorUser = try await server.userToken(email: "boss@example.com", editor: true)
        let byEditorUser = try await server.call("POST", "/api/generalcontent/instance", token: editorUser, body: body)
        XCTAssertEqual(byEditorUser.status, 200)
    }
}
