import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer: status, headers and body (parsed as JSON when it is JSON).
struct HTTPAnswer {
    var status: Int
    var headers: [String: String]
    var data: Data
    var json: JSONValue { (try? JSONValue(data: data)) ?? .null }
}

/// A body to send.
enum HTTPBody {
    case json(JSONValue)
    case form([(String, String)])
    case raw(Data, contentType: String?)
}

/// A real server on 127.0.0.1 with an ephemeral port and a fresh data directory, plus a small
/// URLSession client. Every test talks HTTP to it; nothing is mocked. The back end is
/// `TestBackEnd.current`: SQLite, or PostgreSQL with one process or three behind nginx.
final class TestServer: @unchecked Sendable {
    let server: TestDeployment
    let directory: URL
    let session: URLSession
    var admin: HaloServerAdmin { server.admin }

    init(server: TestDeployment, directory: URL) {
        self.server = server
        self.directory = directory
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    static func start(
        directory: URL? = nil, tokenLifetimeMilliseconds: Int64 = 86_400_000, maxBodyBytes: Int = 8 * 1024 * 1024,
        limits: ServerLimits = ServerLimits(), socialVerifier: any SocialTokenVerifier = UnconfiguredSocialTokenVerifier(),
        socialSettings: SocialSignInSettings? = nil
    ) async throws -> TestServer {
        try await start(directory: directory) { configuration in
            configuration.limits = limits
            configuration.tokenLifetimeMilliseconds = tokenLifetimeMilliseconds
            configuration.socialVerifier = socialVerifier
            configuration.maxBodyBytes = maxBodyBytes
            if let socialSettings { configuration.trustSocialProviders(socialSettings) }
        }
    }

    func stop(removeData: Bool = true) async {
        await server.stop()
        if removeData { try? FileManager.default.removeItem(at: directory) }
    }

    @discardableResult
    func call(
        _ method: String, _ path: String, token: String? = nil, body: HTTPBody? = nil, headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        try await Self.call(method, path, baseURL: server.baseURL, session: session, token: token, body: body, headers: headers)
    }

    /// The same request to any server (e.g. a `ChildServer` process), through `session`.
    static func call(
        _ method: String, _ path: String, baseURL: URL, session: URLSession, token: String? = nil, body: HTTPBody? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        let url = try XCTUnwrap(URL(string: baseURL.absoluteString + path), "bad path \(path)")
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        switch body {
        case .json(let value)?:
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = value.data(sortedKeys: false)
        case .form(let pairs)?:
            request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(Self.formEncode(pairs).utf8)
        case .raw(let data, let contentType)?:
            if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
            request.httpBody = data
        case nil: break
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        var headerMap: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headerMap[key.lowercased()] = value }
        }
        return HTTPAnswer(status: http.statusCode, headers: headerMap, data: data)
    }

    static func formEncode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { key, value in
            "\(key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }

    // MARK: Credentials

    /// A new app client and a token for it.
    func appToken(editor: Bool = false) async throws -> String {
        let client = try await admin.addClient(name: editor ? "Editor app" : "App", editor: editor)
        return try await token(for: client)
    }

    func token(for client: ClientCredentials) async throws -> String {
        let answer = try await call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret)]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return try XCTUnwrap(answer.json["access_token"]?.stringValue)
    }

    /// A token from an identified login of a new user.
    func userToken(email: String = "user\(UUID().uuidString.prefix(8))@example.com", editor: Bool = false) async throws -> String {
        try await admin.addUser(email: email, password: "secret-password", editor: editor)
        let answer = try await call(
            "POST", "/api/segmentation/identified/login",
            body: .json(["email": .string(email), "password": "secret-password", "network": "halo", "deviceId": ""]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return try XCTUnwrap(answer.json["token"]?["access_token"]?.stringValue)
    }
}

// MARK: - Fixtures and shapes

enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func load(_ name: String) throws -> JSONValue {
        try JSONValue(data: Data(contentsOf: root.appendingPathComponent(name)))
    }
}

/// The JSON type of a value, for shape comparisons.
func jsonKind(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "bool"
    case .number: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
}

/// Asserts `actual` has the fixture's shape: every key of the fixture present, with the same
/// JSON type when both are non-null, recursively (arrays compare their first elements). Keys in
/// `freeForm` (e.g. `values`) hold arbitrary content and are only checked to exist.
func assertSameShape(
    _ actual: JSONValue, as fixture: JSONValue, path: String = "$", freeForm: Set<String> = ["values", "data", "extra"],
    file: StaticString = #filePath, line: UInt = #line
) {
    switch (actual, fixture) {
    case (.object(let a), .object(let f)):
        for (key, expected) in f {
            guard let value = a[key] else {
                XCTFail("\(path).\(key) is missing", file: file, line: line)
                continue
            }
            if freeForm.contains(key) { continue }
            assertSameShape(value, as: expected, path: "\(path).\(key)", freeForm: freeForm, file: file, line: line)
        }
    case (.array(let a), .array(let f)):
        if let first = a.first, let expected = f.first {
            assertSameShape(first, as: expected, path: "\(path)[0]", freeForm: freeForm, file: file, line: line)
        }
    case (_, .null), (.null, _):
        break
    default:
        XCTAssertEqual(jsonKind(actual), jsonKind(fixture), "type of \(path)", file: file, line: line)
    }
}

/// Asserts an error envelope with this status; returns its message.
@discardableResult
func assertEnvelope(_ answer: HTTPAnswer, status: Int, file: StaticString = #filePath, line: UInt = #line) -> String {
    XCTAssertEqual(answer.status, status, String(decoding: answer.data, as: UTF8.self), file: file, line: line)
    let error = answer.json["error"]
    XCTAssertEqual(error?["type"], "HaloError", file: file, line: line)
    XCTAssertEqual(error?["status"]?.int64Value, Int64(status), file: file, line: line)
    XCTAssertNotNil(error?["extra"]?.objectValue, file: file, line: line)
    let message = error?["message"]?.stringValue ?? ""
    XCTAssertFalse(message.isEmpty, file: file, line: line)
    return message
}
