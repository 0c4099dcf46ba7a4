import Crypto
import Foundation
import XCTest

@testable import HaloServices

/// A real TLS server on loopback: `openssl s_server -www` with a self-signed certificate made
/// for the test. `-www` answers any GET with an HTML status page.
final class LocalTLSServer {
    let folder: URL
    let certificate: URL
    let port: Int
    private let process: Process

    /// Creates a self-signed certificate for 127.0.0.1 in `folder`.
    static func makeCertificate(in folder: URL, name: String) throws -> (certificate: URL, key: URL) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("\(name).pem")
        let key = folder.appendingPathComponent("\(name).key")
        try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
            ])
        return (certificate, key)
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HaloError.configuration(message: "\(tool) \(arguments) failed") }
        return data
    }

    /// A server with a new self-signed certificate for 127.0.0.1, made in `folder`.
    convenience init(folder: URL) throws {
        let (certificate, key) = try Self.makeCertificate(in: folder, name: "server")
        try self.init(certificate: certificate, key: key)
    }

    /// A server presenting `certificate` (PEM), whose private key is `key`.
    init(certificate: URL, key: URL) throws {
        self.folder = certificate.deletingLastPathComponent()
        self.certificate = certificate
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["s_server", "-www", "-accept", "0", "-cert", certificate.path, "-key", key.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // s_server prints "ACCEPT [::]:<port>" once listening.
        var buffer = ""
        var found: Int?
        let deadline = Date().addingTimeInterval(10)
        while found == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            if let line = buffer.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                found = port
            }
        }
        guard let found else { process.terminate(); throw HaloError.network(message: "openssl s_server did not start: \(buffer)") }
        port = found
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// SIGKILL: the child may inherit a blocked SIGTERM from the test process's threads.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

final class NetworkTests: XCTestCase {
    var temp: URL!

    override func setUpWithError() throws {
        temp = FileManager.default.temporaryDirectory.appendingPathComponent("halo-net-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: temp)
    }

    /// The SPKI hash we compute equals the one OpenSSL computes for the same certificate.
    func testPinnedKeyHashMatchesOpenSSL() throws {
        let (certificate, _) = try LocalTLSServer.makeCertificate(in: temp.appendingPathComponent("certs"), name: "a")
        let pubkey = try LocalTLSServer.run("/usr/bin/openssl", ["x509", "-in", certificate.path, "-pubkey", "-noout"])
        let pubkeyFile = temp.appendingPathComponent("pub.pem")
        try pubkey.write(to: pubkeyFile)
        let der = try LocalTLSServer.run("/usr/bin/openssl", ["pkey", "-pubin", "-in", pubkeyFile.path, "-outform", "der"])
        let expected = Data(SHA256.hash(data: der)).base64EncodedString()

        let keys = try XCTUnwrap(PinnedPublicKeys.read(from: temp.appendingPathComponent("certs")))
        XCTAssertEqual(keys.sha256Base64, [expected])

        // The same certificate in DER form (.cer) gives the same hash.
        let derFolder = temp.appendingPathComponent("der")
        try FileManager.default.createDirectory(at: derFolder, withIntermediateDirectories: true)
        try LocalTLSServer.run(
            "/usr/bin/openssl",
            ["x509", "-in", certificate.path, "-outform", "der", "-out", derFolder.appendingPathComponent("a.cer").path])
        XCTAssertEqual(try XCTUnwrap(PinnedPublicKeys.read(from: derFolder)).sha256Base64, [expected])
    }

    /// An empty or missing folder pins nothing (certificate authorities decide, as in a browser);
    /// a file that is not a certificate is an error, since a pin was meant.
    func testEmptyFolderPinsNothingAndABadCertificateIsAnError() throws {
        XCTAssertNil(try PinnedPublicKeys.read(from: temp))
        XCTAssertNil(try PinnedPublicKeys.read(from: temp.appendingPathComponent("missing")))
        try Data("notes".utf8).write(to: temp.appendingPathComponent("README.txt"))
        XCTAssertNil(try PinnedPublicKeys.read(from: temp), "only certificate files count")
        let garbage = temp.appendingPathComponent("bad.der")
        try Data("not a certificate".utf8).write(to: garbage)
        XCTAssertThrowsError(try PinnedPublicKeys.read(from: temp)) { error in
            XCTAssertEqual(error as? HaloError, .configuration(message: "\(garbage.path) is not a valid X.509 certificate"))
        }
    }

    func testPinnedServerConnectsAndOtherCertificateIsRefused() async throws {
        let server = try LocalTLSServer(folder: temp.appendingPathComponent("server"))
        defer { server.stop() }
        let transport = CurlTransport()

        let pinned = try XCTUnwrap(PinnedPublicKeys.read(from: temp.appendingPathComponent("server")))
        let response = try await transport.perform(
            HTTPRequest(method: .get, url: server.url), options: TransferOptions(trust: .pinned(pinned)))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("s_server"))

        let otherFolder = temp.appendingPathComponent("other")
        _ = try LocalTLSServer.makeCertificate(in: otherFolder, name: "other")
        let other = try XCTUnwrap(PinnedPublicKeys.read(from: otherFolder))
        do {
            _ = try await transport.perform(HTTPRequest(method: .get, url: server.url), options: TransferOptions(trust: .pinned(other)))
            XCTFail("a server with an unpinned certificate was accepted")
        } catch {
            guard case .sslPinningFailed = error else { return XCTFail("expected sslPinningFailed, got \(error)") }
        }

        // Without pinning the system roots apply: a self-signed certificate is not trusted either.
        do {
            _ = try await transport.perform(HTTPRequest(method: .get, url: server.url), options: TransferOptions(trust: .systemRoots))
            XCTFail("a self-signed certificate passed system trust")
        } catch {
            guard case .sslPinningFailed = error else { return XCTFail("expected a trust failure, got \(error)") }
        }
    }

    func testResponseSizeIsCapped() async throws {
        let server = try LocalTLSServer(folder: temp.appendingPathComponent("server"))
        defer { server.stop() }
        let pinned = try XCTUnwrap(PinnedPublicKeys.read(from: temp.appendingPathComponent("server")))
        do {
            _ = try await CurlTransport().perform(
                HTTPRequest(method: .get, url: server.url),
                options: TransferOptions(maximumResponseBytes: 64, trust: .pinned(pinned)))
            XCTFail("a response over the limit was accepted")
        } catch {
            guard case .invalidResponse(_, let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("64-byte limit"), message)
        }
    }

    func testPlainHTTPOnlyForLoopback() async throws {
        let transport = CurlTransport()
        do {
            _ = try await transport.perform(
                HTTPRequest(method: .get, url: URL(string: "http://example.com/api")!), options: TransferOptions())
            XCTFail("plain http to a remote host was allowed")
        } catch {
            guard case .configuration(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("loopback"), message)
        }
        XCTAssertTrue(URL(string: "http://127.0.0.1:8080")!.isLoopbackHost)
        XCTAssertTrue(URL(string: "http://127.5.0.1")!.isLoopbackHost)
        XCTAssertTrue(URL(string: "http://localhost:1")!.isLoopbackHost)
        XCTAssertTrue(URL(string: "http://[::1]:80")!.isLoopbackHost)
        XCTAssertFalse(URL(string: "http://128.0.0.1")!.isLoopbackHost)
        XCTAssertFalse(URL(string: "http://127.0.0.1.example.com")!.isLoopbackHost)
    }

    func testConnectionRefusedIsANetworkError() async throws {
        // Bind then close a socket to find a port nobody listens on.
        do {
            _ = try await CurlTransport().perform(
                HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:9/")!), options: TransferOptions())
            XCTFail("expected a network error")
        } catch {
            guard case .network = error else { return XCTFail("\(error)") }
        }
    }

    func testCancellationAbortsTheTransfer() async throws {
        // s_server never answers a request that is not GET: a PUT hangs until cancelled.
        let server = try LocalTLSServer(folder: temp.appendingPathComponent("server"))
        defer { server.stop() }
        let pinned = try XCTUnwrap(PinnedPublicKeys.read(from: temp.appendingPathComponent("server")))
        let url = server.url
        let task = Task {
            try await CurlTransport().perform(
                HTTPRequest(method: .put, url: url, body: Data("x".utf8)),
                options: TransferOptions(trust: .pinned(pinned)))
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let start = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("the transfer was not cancelled")
        } catch {
            XCTAssertEqual(error as? HaloError, .cancelled)
            XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        }
    }
}
