import Foundation
import Glibc
import HaloServer
import HaloTestSupport
import Synchronization
import XCTest

@testable import HaloServices

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A tiny HTTP proxy on loopback in front of the real server: it answers the first requests
/// with the scripted faults (a 503 envelope, or a dropped connection), then forwards requests
/// to the server. Real HTTP on both sides.
final class FlakyProxy: @unchecked Sendable {
    enum Fault { case status(Int), drop, stall(TimeInterval) }
    private let target: URL
    private let faults: Mutex<[Fault]>
    private let socketFD: Int32
    let port: Int
    let requestCount = Mutex(0)
    let connectionCount = Mutex(0)

    init(target: URL, faults: [Fault]) throws {
        self.target = target
        self.faults = Mutex(faults)
        let (fd, port) = try listenOnLoopback()
        self.port = port
        socketFD = fd
        Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                self.connectionCount.withLock { $0 += 1 }
                Thread { self.serve(client) }.start()
            }
        }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func stop() { shutdown(socketFD, Int32(SHUT_RDWR)); close(socketFD) }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer = Data()
        while true {
            guard let (head, body) = readRequest(client, &buffer) else { return }
            requestCount.withLock { $0 += 1 }
            let fault = faults.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            switch fault {
            case .drop?:
                return
            case .stall(let seconds)?:
                Thread.sleep(forTimeInterval: seconds)
                return
            case .status(let status)?:
                let json = Data(#"{"error":{"status":\#(status),"message":"Injected failure","extra":{},"type":"HaloError"}}"#.utf8)
                write(client, "HTTP/1.1 \(status) Failure\r\nContent-Type: application/json\r\nContent-Length: \(json.count)\r\n\r\n", json)
            case nil:
                let (status, data, type) = forward(head, body)
                write(client, "HTTP/1.1 \(status) OK\r\nContent-Type: \(type)\r\nContent-Length: \(data.count)\r\n\r\n", data)
            }
        }
    }

    private func write(_ client: Int32, _ head: String, _ body: Data) {
        let bytes = Data(head.utf8) + body
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func readRequest(_ client: Int32, _ buffer: inout Data) -> (String, Data)? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let range = buffer.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if buffer.count - range.upperBound >= length {
                    let body = buffer[range.upperBound..<range.upperBound + length]
                    buffer = Data(buffer[(range.upperBound + length)...])
                    return (head, Data(body))
                }
            }
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    private func forward(_ head: String, _ body: Data) -> (Int, Data, String) {
        let lines = head.split(separator: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2, let url = URL(string: target.absoluteString + requestLine[1]) else {
            return (400, Data(), "text/plain")
        }
        var request = URLRequest(url: url)
        request.httpMethod = String(requestLine[0])
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !["host", "content-length", "connection"].contains(parts[0].lowercased()) else { continue }
            request.setValue(parts[1].trimmingCharacters(in: .whitespaces), forHTTPHeaderField: String(parts[0]))
        }
        if !body.isEmpty { request.httpBody = body }
        let result = Mutex<(Int, Data, String)>((502, Data(), "text/plain"))
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            let http = response as? HTTPURLResponse
            result.withLock {
                $0 = (http?.statusCode ?? 502, data ?? Data(), http?.value(forHTTPHeaderField: "Content-Type") ?? "application/json")
            }
            done.signal()
        }.resume()
        done.wait()
        return result.withLock { $0 }
    }
}

final class CoreTests: XCTestCase {
    // MARK: Configuration

    func testPlistAndJSONConfiguration() throws {
        let plist = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>CLIENT_ID</key><string>my-client</string>
              <key>CLIENT_SECRET</key><string>my-secret</string>
              <key>ENVIRONMENT</key><string>QA</string>
              <key>DISABLE_SSL_PINNING</key><true/>
              <key>ENABLE_SYSTEM_TAGS</key><false/>
              <key>USERNAME</key><string>editor</string>
              <key>PASSWORD</key><string>pw</string>
            </dict></plist>
            """.utf8)
        let fromPlist = try HaloConfiguration.parse(plist)
        XCTAssertEqual(fromPlist.appCredentials, Credentials(clientId: "my-client", clientSecret: "my-secret"))
        XCTAssertEqual(fromPlist.userCredentials, Credentials(username: "editor", password: "pw"))
        XCTAssertEqual(fromPlist.environment, .qa)
        XCTAssertEqual(fromPlist.environment.baseURL?.absoluteString, "https://stage.halo-db.com")
        XCTAssertTrue(fromPlist.environment.isTestEnvironment)
        XCTAssertTrue(fromPlist.disableSSLPinning)
        XCTAssertFalse(fromPlist.enableSystemTags)

        let json = Data(#"{"CLIENT_ID":"c","CLIENT_SECRET":"s","ENVIRONMENT":"http://127.0.0.1:8080","ENABLE_SYSTEM_TAGS":true}"#.utf8)
        let fromJSON = try HaloConfiguration.parse(json)
        XCTAssertEqual(fromJSON.environment, .custom("http://127.0.0.1:8080"))
        XCTAssertTrue(fromJSON.enableSystemTags)
        XCTAssertFalse(fromJSON.disableSSLPinning, "pinning is on by default")

        for (text, expected) in [
            (#"{"CLIENT_ID":"c"}"#, "no CLIENT_SECRET"),
            (#"{"CLIENT_ID":"c","CLIENT_SECRET":"s","ENVIRONMENT":"nowhere"}"#, "neither int/qa/stage/prod nor a URL"),
            (#"{"DISABLE_SSL_PINNING":"maybe"}"#, "must be a boolean"),
            ("not a config", "neither a property list nor JSON"),
        ] {
            XCTAssertThrowsError(try HaloConfiguration.parse(Data(text.utf8))) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
        XCTAssertEqual(HaloEnvironment("int").baseURL?.absoluteString, "https://int.halo-db.com")
        XCTAssertEqual(HaloEnvironment("prod").baseURL?.absoluteString, "https://halo-db.com")
    }

    /// GOOGLE_CLIENT_ID, GOOGLE_DISCOVERY_URL and FACEBOOK_APP_ID make the browser sign-in
    /// providers; the same rules check what Preferences › Browser Sign-In takes.
    func testBrowserSignInProviderKeys() throws {
        let presets = try HaloConfiguration.parse(Data(#"{"GOOGLE_CLIENT_ID":"g.apps","FACEBOOK_APP_ID":" 1234 "}"#.utf8))
        XCTAssertEqual(presets.socialProviders[.google]?.tokenEndpoint?.absoluteString, "https://oauth2.googleapis.com/token")
        XCTAssertEqual(presets.socialProviders[.facebook]?.clientId, "1234", "values are trimmed")
        // An issuer's address gets its discovery document; a discovery address stays as it is.
        for (given, document) in [
            ("https://login.example.com/realms/staff", "https://login.example.com/realms/staff/.well-known/openid-configuration"),
            ("http://127.0.0.1:9000/.well-known/openid-configuration", "http://127.0.0.1:9000/.well-known/openid-configuration"),
        ] {
            let company = try HaloConfiguration.parse(Data(#"{"GOOGLE_CLIENT_ID":"desk","GOOGLE_DISCOVERY_URL":"\#(given)"}"#.utf8))
            XCTAssertEqual(company.socialProviders[.google]?.discoveryURL?.absoluteString, document)
            XCTAssertNil(company.socialProviders[.google]?.authorizationEndpoint, "the discovery document names the endpoints")
        }
        for (text, expected) in [
            (#"{"GOOGLE_CLIENT_ID":"my client"}"#, "GOOGLE_CLIENT_ID in configuration: A client ID has no spaces."),
            (#"{"GOOGLE_CLIENT_ID":"c","GOOGLE_DISCOVERY_URL":"http://login.example.com"}"#, "https address"),
            (#"{"GOOGLE_DISCOVERY_URL":"https://login.example.com"}"#, "needs its client ID too"),
            (#"{"FACEBOOK_APP_ID":"12\n34"}"#, "FACEBOOK_APP_ID in configuration: An app ID has no spaces."),
        ] {
            XCTAssertThrowsError(try HaloConfiguration.parse(Data(text.utf8))) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
        XCTAssertEqual(SocialProviderKeys(googleClientId: "  ").problems, [:], "blank is unset")
        XCTAssertEqual(try SocialProviderKeys(googleClientId: "  ").providers(source: "Preferences"), [:])
    }

    func testConfigurationFileInXDGConfigHome() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("halo-xdg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let folder = home.appendingPathComponent("halo-desk")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"CLIENT_ID":"x","CLIENT_SECRET":"y"}"#.utf8).write(to: folder.appendingPathComponent("Custom.json"))
        setenv("XDG_CONFIG_HOME", home.path, 1)
        defer { unsetenv("XDG_CONFIG_HOME") }
        XCTAssertEqual(HaloConfiguration.defaultFile.path, folder.appendingPathComponent("Halo.plist").path)
        XCTAssertEqual(try HaloConfiguration.load("Custom.json").appCredentials?.username, "x")
        XCTAssertEqual(try HaloConfiguration.load(folder.appendingPathComponent("Custom.json").path).appCredentials?.username, "x")
        XCTAssertThrowsError(try HaloConfiguration.load("Missing.plist"))
    }

    // MARK: Retries

    func testRetriesAfter5xxAndDroppedConnections() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        // The first request runs on a fresh connection, so the dropped one is not silently resent by libcurl.
        let proxy = try FlakyProxy(target: server.baseURL, faults: [.drop, .status(503), .status(500)])
        defer { proxy.stop() }
        var configuration = server.configuration()
        configuration.environment = .custom(proxy.url.absoluteString)
        let core = CoreManager(configuration: configuration)
        let recorder = RecordingAddon()
        core.registerAddon(recorder)
        core.retryBaseDelay = 0.05
        core.numberOfRetries = 3
        try await core.startup()
        XCTAssertEqual(
            Array(recorder.trace.prefix(5)),
            [
                "POST /api/segmentation/appuser → error", "POST /api/segmentation/appuser → 503",
                "POST /api/segmentation/appuser → 500", "POST /api/segmentation/appuser → 401",
                "POST /api/oauth/token → 200",
            ])
        XCTAssertNotNil(core.device?.id)

        // Without retries the first fault is the caller's error, with the server's message.
        let noRetry = try FlakyProxy(target: server.baseURL, faults: [.status(503)])
        defer { noRetry.stop() }
        configuration.environment = .custom(noRetry.url.absoluteString)
        let plain = CoreManager(configuration: configuration)
        plain.numberOfRetries = 0
        do {
            _ = try await plain.perform(APIRequest(.get, "api/generalcontent/module"))
            XCTFail("the injected 503 was hidden")
        } catch {
            XCTAssertEqual(error, .server(status: 503, message: "Injected failure", extra: .object([:])))
        }
        // 4xx are never retried.
        let counted = try FlakyProxy(target: server.baseURL, faults: [.status(400)])
        defer { counted.stop() }
        configuration.environment = .custom(counted.url.absoluteString)
        let strict = CoreManager(configuration: configuration)
        strict.numberOfRetries = 5
        do {
            _ = try await strict.perform(APIRequest(.get, "api/generalcontent/module"))
            XCTFail("400 accepted")
        } catch {
            XCTAssertEqual(error.httpStatus, 400)
        }
        XCTAssertEqual(counted.requestCount.withLock { $0 }, 1)
    }

    func testConnectionsAreReused() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        let proxy = try FlakyProxy(target: server.baseURL, faults: [])
        defer { proxy.stop() }
        var configuration = server.configuration()
        configuration.environment = .custom(proxy.url.absoluteString)
        let core = CoreManager(configuration: configuration)
        try await core.startup()
        for _ in 0..<5 { _ = try await core.content.getModules() }
        XCTAssertGreaterThanOrEqual(proxy.requestCount.withLock { $0 }, 9)
        XCTAssertEqual(proxy.connectionCount.withLock { $0 }, 1, "sequential requests share one keep-alive connection")
    }

    func testPerRequestTimeoutOverridesTheDefault() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        let proxy = try FlakyProxy(target: server.baseURL, faults: [.stall(3)])
        defer { proxy.stop() }
        var configuration = server.configuration()
        configuration.environment = .custom(proxy.url.absoluteString)
        let core = CoreManager(configuration: configuration)
        core.timeoutIntervalForResource = 60
        var call = APIRequest(.get, "api/generalcontent/module")
        call.timeoutIntervalForResource = 0.5
        let start = Date()
        do {
            _ = try await core.perform(call)
            XCTFail("a stalled server did not time out")
        } catch {
            XCTAssertEqual(error, .network(message: "The request to 127.0.0.1 timed out"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testNonJSONErrorBodyKeepsStatus() {
        let error = HaloError(response: HTTPResponse(statusCode: 502, headers: [:], body: Data("<html>Bad gateway</html>".utf8)))
        guard case .server(502, let message, nil) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(message.contains("not valid JSON"), message)
        let envelope = HaloError(
            response: HTTPResponse(
                statusCode: 400, headers: [:],
                body: Data(#"{"error":{"status":400,"message":"Credentials are not valid","extra":{},"type":"HaloError"}}"#.utf8)))
        XCTAssertEqual(envelope, .server(status: 400, message: "Credentials are not valid", extra: .object([:])))
        XCTAssertThrowsError(try HTTPResponse(statusCode: 200, headers: [:], body: Data("{".utf8)).json())
    }

    // MARK: Logging and add-ons

    func testLoggingLevelsAndFileLogger() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("halo-log-\(UUID().uuidString)/halo.log")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let core = CoreManager()
        let logger = FileLogger(filePath: file)
        core.addLogger(logger)
        core.logLevel = .warning
        core.logMessage(message: "an error", level: .error)
        core.logMessage("a warning", level: .warning)
        core.logMessage("some info", level: .info)
        core.log.error("through swift-log")
        core.logLevel = .none
        core.logMessage("silenced", level: .error)
        let text = try String(contentsOf: logger.filePath, encoding: .utf8)
        XCTAssertTrue(text.contains("[ERROR] an error"), text)
        XCTAssertTrue(text.contains("[WARNING] a warning"), text)
        XCTAssertTrue(text.contains("[ERROR] through swift-log"), text)
        XCTAssertFalse(text.contains("some info"))
        XCTAssertFalse(text.contains("silenced"))
    }

    func testGetAddonsByType() {
        let core = CoreManager()
        let recorder = RecordingAddon()
        final class Plain: Addon { let addonName = "plain" }
        core.registerAddon(recorder)
        core.registerAddon(Plain())
        XCTAssertEqual(core.getAddons(type: RecordingAddon.self).count, 1)
        XCTAssertEqual(core.getAddons(type: (any NetworkAddon).self).count, 1)
        XCTAssertEqual(core.getAddons(type: (any Addon).self).count, 2)
    }

    func testVersionComparison() {
        XCTAssertTrue(CoreManager.isVersion("2.5.0", olderThan: "2.10"))
        XCTAssertFalse(CoreManager.isVersion("2.5.0", olderThan: "2.5.0-SNAPSHOT"))
        XCTAssertFalse(CoreManager.isVersion("3.0", olderThan: "2.9.9"))
    }

    func testSystemTagDistributionFromOSRelease() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("os-release-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n".utf8).write(to: file)
        XCTAssertEqual(SystemTags.distribution(osRelease: file), "Debian GNU/Linux 12 (bookworm)")
        let tags = SystemTags.collect(applicationName: "A", applicationVersion: "1", environment: .int)
        XCTAssertEqual(tags.first { $0.name == "Test Device" }?.value, "true")
        XCTAssertTrue(tags.allSatisfy { $0.tagType == Tag.systemType })
    }
}
