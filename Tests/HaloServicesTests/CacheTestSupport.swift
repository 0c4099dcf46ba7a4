import Foundation
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

/// A real HaloServer on loopback with a fresh data directory, and an app client whose tokens may edit.
final class OfflineTestServer: @unchecked Sendable {
    let directory: URL
    let server: HaloServerInstance
    let client: ClientCredentials
    var baseURL: URL { server.baseURL }
    var admin: HaloServerAdmin { server.admin }

    private init(directory: URL, server: HaloServerInstance, client: ClientCredentials) {
        self.directory = directory
        self.server = server
        self.client = client
    }

    static func start() async throws -> OfflineTestServer {
        let directory = try temporaryDirectory("server")
        let server = try await HaloServerInstance.start(HaloServerConfiguration(dataDirectory: directory, logRequests: false))
        let client = try await server.admin.addClient(name: "Offline tests", editor: true)
        return OfflineTestServer(directory: directory, server: server, client: client)
    }

    /// A server on an existing data directory (e.g. a database made by an earlier release), whose
    /// app client is `client`.
    static func start(directory: URL, client: ClientCredentials) async throws -> OfflineTestServer {
        let server = try await HaloServerInstance.start(HaloServerConfiguration(dataDirectory: directory, logRequests: false))
        return OfflineTestServer(directory: directory, server: server, client: client)
    }

    /// The same server back after `stop()`: same data directory, port and client.
    func restarted() async throws -> OfflineTestServer {
        let configuration = HaloServerConfiguration(port: server.port, dataDirectory: directory, logRequests: false)
        return OfflineTestServer(directory: directory, server: try await HaloServerInstance.start(configuration), client: client)
    }

    /// A fresh `Authorization` value (client-credentials grant, §3.2).
    func authorization() async throws -> String {
        try await Self.authorization(baseURL: baseURL, client: client)
    }

    static func authorization(baseURL: URL, client: ClientCredentials) async throws -> String {
        var components = URLComponents(url: baseURL.appendingPathComponent("api/oauth/token"), resolvingAgainstBaseURL: false)
        components?.query = "_app"
        guard let url = components?.url else { throw HaloError.configuration(message: "bad URL") }
        let form = "grant_type=client_credentials&client_id=\(client.clientId)&client_secret=\(client.clientSecret)"
        let request = HTTPRequest(
            method: .post, url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        let json = try JSONValue(data: try await send(request))
        guard let token = json["access_token"]?.stringValue else { throw HaloError.notAuthenticated(message: "no token") }
        return "\(json["token_type"]?.stringValue ?? "Bearer") \(token)"
    }

    /// A plain request with the SDK's transport; the body of a 2xx answer, else the server's error.
    static func send(_ request: HTTPRequest) async throws -> Data {
        let response = try await CurlTransport().perform(request, options: TransferOptions())
        guard response.isSuccess else { throw HaloError(response: response) }
        return response.body
    }

    /// JSON request to the server; returns the parsed answer.
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        try await Self.call(method, baseURL.appendingPathComponent(path), body, authorization: try await authorization())
    }

    static func call(_ method: String, _ url: URL, _ body: JSONValue?, authorization: String) async throws -> JSONValue {
        guard let method = HTTPMethod(rawValue: method) else { throw HaloError.invalidInput(message: "bad method \(method)") }
        var headers = ["Authorization": authorization]
        if body != nil { headers["Content-Type"] = "application/json" }
        return try JSONValue(
            data: try await send(HTTPRequest(method: method, url: url, headers: headers, body: body?.data(sortedKeys: false))))
    }

    /// Creates an instance of `module` named `name` as the test client; returns its id.
    func createInstance(module: String, name: String) async throws -> String {
        let created = try await call("POST", "api/generalcontent/instance", ["module": .string(module), "name": .string(name)])
        guard let id = created["id"]?.stringValue else { throw HaloError.invalidInput(message: "no id in \(created)") }
        return id
    }

    /// An SDK core that talks to this server (or `baseURL`, e.g. a proxy) as the test client,
    /// with data and cache folders of its own. No retries: tests expect the first outcome.
    func core(baseURL: URL? = nil) throws -> CoreManager {
        let core = CoreManager(configuration: try sdkConfiguration(baseURL: baseURL))
        core.numberOfRetries = 0
        return core
    }

    /// The configuration of `core(baseURL:)`: app credentials of the test client, fresh folders.
    func sdkConfiguration(baseURL: URL? = nil) throws -> HaloConfiguration {
        try Self.sdkConfiguration(baseURL: baseURL ?? self.baseURL, client: client)
    }

    /// An SDK configuration for `client` of the server at `baseURL` (e.g. a child process), fresh folders.
    static func sdkConfiguration(baseURL: URL, client: ClientCredentials) throws -> HaloConfiguration {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: client.clientId, clientSecret: client.clientSecret)
        configuration.environment = .custom(baseURL.absoluteString)
        configuration.dataDirectory = try temporaryDirectory("sdk-data")
        configuration.cacheDirectory = try temporaryDirectory("sdk-cache")
        return configuration
    }

    /// Every live instance of the modules as the server has them (search, no pagination), newest first.
    func instances(moduleIds: [String]) async throws -> [JSONValue] {
        let answer = try await call(
            "POST", "api/generalcontent/instance/search",
            [
                "moduleIds": .array(moduleIds.map(JSONValue.string)), "pagination": ["skip": true],
            ])
        return answer.arrayValue ?? []
    }

    func stop() async { await server.stop() }
}

func temporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("halo-offline-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A cache in a fresh temp directory.
func temporaryCache() throws -> HaloCache {
    try HaloCache(file: temporaryDirectory("cache").appendingPathComponent("cache.sqlite"))
}

/// A loopback URL on which nothing listens (a server that went away).
func unreachableURL() -> URL {
    URL(string: "http://127.0.0.1:9")!
}

/// A loopback TCP proxy that forwards requests to `target` and closes every connection after
/// `cutAfterBytes` bytes of answer: a network drop in the middle of a response. With
/// `dropAnswersTo` set, a connection that carried a request containing that text gets no answer
/// at all (the server still receives and runs the request): an answer lost on the way back.
final class CuttingProxy: @unchecked Sendable {
    let port: Int
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let listener: Int32
    private let target: Int
    private let cutAfterBytes: Int
    private let lock = NSLock()
    private var forwarded = 0
    private var stopped = false
    private var marker: [UInt8]?

    /// Requests containing this text (e.g. a path) have their answers dropped; nil forwards all.
    var dropAnswersTo: String? {
        get { lock.withLock { marker.map { String(decoding: $0, as: UTF8.self) } } }
        set { lock.withLock { marker = newValue.map { Array($0.utf8) } } }
    }

    /// Per connection: set once its request side carried the marker.
    private final class Doomed: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    var bytesForwarded: Int { lock.withLock { forwarded } }

    init(target: Int, cutAfterBytes: Int) throws {
        self.target = target
        self.cutAfterBytes = cutAfterBytes
        let (fd, port) = try listenOnLoopback(backlog: 8)
        listener = fd
        self.port = port
        Thread { [self] in acceptLoop() }.start()
    }

    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let start = haystack.startIndex
        return (start...(haystack.endIndex - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: UInt16(target))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { close(client); close(upstream); continue }
            let doomed = Doomed()
            Thread { [self] in pump(from: client, to: upstream, limited: false, doomed: doomed) }.start()
            Thread { [self] in pump(from: upstream, to: client, limited: true, doomed: doomed) }.start()
        }
    }

    private func pump(from source: Int32, to sink: Int32, limited: Bool, doomed: Doomed) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            if !limited, let marker = lock.withLock({ marker }), Self.contains(buffer[..<count], marker) {
                doomed.set()  // before the request goes on, so its answer cannot slip through
            }
            if limited, doomed.isSet { break }
            var allowed = count
            if limited {
                allowed = lock.withLock {
                    let room = max(0, cutAfterBytes - forwarded)
                    let n = min(room, count)
                    forwarded += n
                    return n
                }
            }
            if allowed > 0 { _ = buffer.withUnsafeBytes { write(sink, $0.baseAddress, allowed) } }
            if allowed < count { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
        close(source)  // each pump closes the socket it reads; the shutdowns wake the other one
    }
}
