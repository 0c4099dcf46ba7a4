import Crypto
import Foundation
import HaloTestSupport
import XCTest

@testable import HaloServices

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
        let pubkey = try runTool("/usr/bin/openssl", ["x509", "-in", certificate.path, "-pubkey", "-noout"])
        let pubkeyFile = temp.appendingPathComponent("pub.pem")
        try pubkey.write(to: pubkeyFile)
        let der = try runTool("/usr/bin/openssl", ["pkey", "-pubin", "-in", pubkeyFile.path, "-outform", "der"])
        let expected = Data(SHA256.hash(data: der)).base64EncodedString()

        let keys = try XCTUnwrap(PinnedPublicKeys.read(from: temp.appendingPathComponent("certs")))
        XCTAssertEqual(keys.sha256Base64, [expected])

        // The same certificate in DER form (.cer) gives the same hash.
        let derFolder = temp.appendingPathComponent("der")
        try FileManager.default.createDirectory(at: derFolder, withIntermediateDirectories: true)
        try runTool(
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
