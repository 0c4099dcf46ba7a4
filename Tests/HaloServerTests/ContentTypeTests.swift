import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

/// Hole 6 of issue 45: any Content-Type was read as JSON (none, `text/plain;a=json`, `text/json`,
/// `application/jsonp`), so a "simple" cross-site POST from any web page reached the login and
/// token routes. Against a `halo-server` child process (`--allowed-origin` set) on the tests' back
/// end: a body needs `application/json` (with parameters) or, on the token grant, identified login
/// and push activity, `application/x-www-form-urlencoded`; anything else or nothing is 415; a
/// request with an `Origin` the server does not allow is 403.
final class ContentTypeTests: XCTestCase {
    var server: ChildFixture!
    static let allowed = "https://admin.example.com"

    override func setUp() async throws {
        server = try await ChildFixture.start(options: ["--allowed-origin", Self.allowed, "--allowed-origin", "http://localhost:8080"])
    }

    override func tearDown() async throws { server.stop() }

    private func send(
        _ path: String, type: String?, body: String, token: Bool = true, method: String = "POST", origin: String? = nil
    ) async throws -> HTTPAnswer {
        var headers: [(String, String)] = []
        if let type { headers.append(("Content-Type", type)) }
        if let origin { headers.append(("Origin", origin)) }
        return try await server.raw(method, path, headers: headers, body: Array(body.utf8), token: token ? server.token : nil).http
    }

    func testABodyNeedsJSONOrAFormWhereTheRouteTakesOne() async throws {
        let search = "/api/generalcontent/instance/search"
        let query = #"{"moduleName":"Strings"}"#
        // Refused at the edge: none, types that merely mention json, a charset other than UTF-8.
        for type in [
            nil, "text/plain;a=json", "text/json", "application/jsonp", "application/json-patch+json", "text/plain",
            "application/x-json", "multipart/form-data; boundary=x", "application/json; charset=iso-8859-1", "",
        ] {
            let answer = try await send(search, type: type, body: query)
            let message = assertEnvelope(answer, status: 415)
            XCTAssertTrue(message.contains("Content-Type") || message.contains("charset"), "\(type ?? "none"): \(message)")
        }
        // Accepted: what iOS, Android and the SDK send, parameters and case as they come.
        for type in [
            "application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", "application/json ; charset=\"utf-8\"",
        ] {
            assertStatus(try await send(search, type: type, body: query), 200)
        }
        // A form where only JSON is read is 415 too; a request without a body needs no type.
        assertEnvelope(try await send(search, type: "application/x-www-form-urlencoded", body: "moduleName=Strings"), status: 415)
        assertStatus(try await server.raw("POST", search, headers: [], body: nil, token: server.token).http, 200)
        assertStatus(try await server.raw("GET", "/api/generalcontent/module", headers: [], body: nil, token: server.token).http, 200)

        // The token grant takes a form (both SDKs) and JSON; nothing else.
        let grant = TestServer.formEncode([
            ("grant_type", "client_credentials"), ("client_id", server.client.clientId), ("client_secret", server.client.clientSecret),
        ])
        assertStatus(try await send("/api/oauth/token", type: "application/x-www-form-urlencoded", body: grant, token: false), 200)
        assertStatus(
            try await send("/api/oauth/token", type: "application/x-www-form-urlencoded; charset=utf-8", body: grant, token: false), 200)
        let json =
            #"{"grant_type":"client_credentials","client_id":"\#(server.client.clientId)","client_secret":"\#(server.client.clientSecret)"}"#
        assertStatus(try await send("/api/oauth/token", type: "application/json", body: json, token: false), 200)
        for type in [nil, "text/plain", "text/plain;a=json", "multipart/form-data"] {
            assertEnvelope(try await send("/api/oauth/token", type: type, body: grant, token: false), status: 415)
        }
        // Identified login and push activity take forms (Android) and JSON (iOS): read, not 415.
        let login = try await send(
            "/api/segmentation/identified/login", type: "application/x-www-form-urlencoded",
            body: "email=nobody%40example.com&password=wrong-one")
        XCTAssertNotEqual(login.status, 415, String(decoding: login.data, as: UTF8.self))
        assertEnvelope(try await send("/api/segmentation/identified/login", type: "text/plain", body: "email=a&password=b"), status: 415)
        let activity = try await send(
            "/api/push/schedule/activity", type: "application/x-www-form-urlencoded", body: "device=d&schedule=s&action=receipt")
        XCTAssertNotEqual(activity.status, 415, String(decoding: activity.data, as: UTF8.self))
        assertEnvelope(try await send("/api/push/schedule/activity", type: nil, body: #"{"device":"d"}"#), status: 415)
        // Every JSON route: a JSON body without the type is refused before it is read.
        for path in [
            "/api/generalcontent/instance", "/api/generalcontent/instance/batch", "/api/segmentation/appuser",
            "/api/generalcontent/instance/sync", "/api/segmentation/identified/register",
        ] {
            assertEnvelope(try await send(path, type: "text/plain", body: "{}"), status: 415)
        }
    }

    func testAnOriginIsRefusedUnlessAllowed() async throws {
        let grant = TestServer.formEncode([
            ("grant_type", "client_credentials"), ("client_id", server.client.clientId), ("client_secret", server.client.clientSecret),
        ])
        let form = "application/x-www-form-urlencoded"
        // A page of another site posting a form (a "simple" request, no preflight) to the token
        // and login routes, or reading with a token it got somehow.
        for origin in [
            "https://evil.example", "null", "https://admin.example.com.evil.example", "http://admin.example.com",
            "https://admin.example.com:8443",
        ] {
            let message = assertEnvelope(
                try await send("/api/oauth/token", type: form, body: grant, token: false, origin: origin), status: 403)
            XCTAssertTrue(message.contains("--allowed-origin"), message)
            assertEnvelope(
                try await send("/api/segmentation/identified/login", type: form, body: "email=a%40b.c&password=x", origin: origin),
                status: 403)
            assertEnvelope(
                try await server.raw("GET", "/api/generalcontent/module", headers: [("Origin", origin)], body: nil, token: server.token)
                    .http,
                status: 403)
        }
        // The allowed origins, as browsers write them (default port, letter case).
        for origin in [Self.allowed, "https://ADMIN.example.com", "https://admin.example.com:443", "http://localhost:8080"] {
            assertStatus(try await send("/api/oauth/token", type: form, body: grant, token: false, origin: origin), 200)
        }
    }

    /// A chunked body is a body: without a Content-Type it is 415 too.
    func testAChunkedBodyNeedsAContentType() async throws {
        let port = server.port
        let token = server.token
        let data = try await Task.detached {
            let connection = try RawConnection(port: port)
            try connection.send(
                "POST /api/generalcontent/instance/search HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Authorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
            return connection.readToEnd(timeout: 10).data
        }.value
        assertEnvelope(try ChildFixture.parse(data), status: 415)
    }

    /// The option refuses what is not an origin, in the library and on `halo-server serve`.
    func testAllowedOriginsAreOrigins() throws {
        XCTAssertNoThrow(try AllowedOrigins(["https://a.example", "http://127.0.0.1:8080", "http://[::1]:9000"]))
        for text in ["a.example", "https://a.example/path", "ftp://a.example", "https://", "https://a.example?x=1", "*"] {
            XCTAssertThrowsError(try AllowedOrigins([text]), text)
        }
        let process = Process()
        process.executableURL = try ChildServer.builtBinary()
        process.arguments = ["serve", "--port", "0", "--data", server.directory.path, "--allowed-origin", "https://a.example/path"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0)
        XCTAssertTrue(text.contains("--allowed-origin") && text.contains("https://a.example/path"), text)
    }
}
