import Foundation
import HaloTestSupport
import XCTest

@testable import HaloServices

/// TLS as a browser does it, with the seed's pinning when asked: against real `openssl s_server`
/// processes, one with a certificate signed by a test certificate authority and one self-signed.
final class TLSTrustTests: XCTestCase {
    var temp: URL!
    /// The test's trust store: only the test authority (the system's store is not used).
    var authority: URL!
    var signedServer: LocalTLSServer!
    var selfSignedServer: LocalTLSServer!

    override func setUpWithError() throws {
        temp = FileManager.default.temporaryDirectory.appendingPathComponent("halo-tls-\(UUID().uuidString)")
        let made = try Self.makeAuthorityAndServerCertificate(in: temp.appendingPathComponent("authority"))
        authority = made.authority
        signedServer = try LocalTLSServer(certificate: made.certificate, key: made.key)
        selfSignedServer = try LocalTLSServer(folder: temp.appendingPathComponent("self-signed"))
    }

    override func tearDownWithError() throws {
        signedServer?.stop()
        selfSignedServer?.stop()
        try? FileManager.default.removeItem(at: temp)
    }

    /// A core configured as a user would: the server's address, the certificates folder (empty
    /// unless the test pins), and the test's trust store standing for the system's.
    func core(for server: LocalTLSServer, pins: URL) -> CoreManager {
        var configuration = HaloConfiguration()
        configuration.environment = .custom(server.url.absoluteString)
        configuration.certificatesDirectory = pins
        configuration.certificateAuthoritiesFile = authority
        return CoreManager(configuration: configuration)
    }

    func get(_ server: LocalTLSServer, with core: CoreManager) async throws(HaloError) -> Int {
        let options = TransferOptions(trust: try core.tlsTrust(), certificatesFolder: core.configuration.certificatesDirectory)
        return try await core.transport.perform(HTTPRequest(method: .get, url: server.url), options: options).statusCode
    }

    /// `server` must be refused with exactly `message`.
    func assertRefused(
        _ server: LocalTLSServer, with core: CoreManager, saying message: String, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            _ = try await get(server, with: core)
            XCTFail("the certificate was trusted", file: file, line: line)
        } catch {
            XCTAssertEqual(error.description, message, file: file, line: line)
        }
    }

    func testACertificateFromATrustedAuthorityConnectsWithNothingPinned() async throws {
        let pins = temp.appendingPathComponent("pins")  // does not exist: nothing pinned
        let status = try await get(signedServer, with: core(for: signedServer, pins: pins))
        XCTAssertEqual(status, 200)
    }

    func testAnUntrustedCertificateIsRefusedWithWhatWasPresentedAndWhereToAct() async throws {
        let pins = temp.appendingPathComponent("pins")
        let presented = try await CurlTransport().presentedCertificate(at: selfSignedServer.url)
        await assertRefused(
            selfSignedServer, with: core(for: selfSignedServer, pins: pins),
            saying: "127.0.0.1 presented a certificate for “CN = 127.0.0.1” (public key SHA-256 \(presented.publicKeySHA256)), "
                + "issued by “CN = 127.0.0.1”, which no trusted certificate authority vouches for: it is self-signed. "
                + "If this is your server, pin it on the Connect page or add it to \(pins.path).")
    }

    func testWithAPinOnlyThePinnedKeyConnects() async throws {
        let pins = temp.appendingPathComponent("pins")
        let selfSignedCore = core(for: selfSignedServer, pins: pins)
        let presented = try await selfSignedCore.serverCertificate()
        // What the Connect page shows matches what OpenSSL says of the same certificate.
        let openssl = String(
            decoding: try runTool(
                "/usr/bin/openssl", ["x509", "-in", selfSignedServer.certificate.path, "-noout", "-fingerprint", "-sha256"]),
            as: UTF8.self)
        XCTAssertEqual(openssl.trimmingCharacters(in: .whitespacesAndNewlines), "sha256 Fingerprint=\(presented.fingerprintSHA256)")
        XCTAssertEqual(presented.subject, "CN = 127.0.0.1")

        // Pin This Certificate: the file lands in the folder and the self-signed server connects.
        XCTAssertFalse(selfSignedCore.isPinned(presented))
        let pin = try selfSignedCore.pinCertificate(presented)
        XCTAssertEqual(pin.file, pins.appendingPathComponent("127.0.0.1.pem"))
        XCTAssertNil(pin.replaced, "nothing was pinned for this host before")
        XCTAssertTrue(selfSignedCore.isPinned(presented))
        let pinned = try await get(selfSignedServer, with: selfSignedCore)
        XCTAssertEqual(pinned, 200)

        // Now only that key is trusted: the authority-signed server is refused although its
        // authority is trusted.
        let signedPresented = try await CurlTransport().presentedCertificate(at: signedServer.url)
        await assertRefused(
            signedServer, with: core(for: signedServer, pins: pins),
            saying: "Only the certificate pinned in \(pins.path) is trusted, and 127.0.0.1 presented a certificate for “CN = 127.0.0.1” "
                + "(public key SHA-256 \(signedPresented.publicKeySHA256)). "
                + "If this is your server, pin it on the Connect page or add it to \(pins.path).")

        // Pinning switched off (DISABLE_SSL_PINNING): authorities decide again.
        let unpinned = core(for: signedServer, pins: pins)
        unpinned.configuration.disableSSLPinning = true
        let status = try await get(signedServer, with: unpinned)
        XCTAssertEqual(status, 200)

        // Pinning another certificate for the same host replaces the pin; Undo restores it.
        let replacing = try selfSignedCore.pinCertificate(signedPresented)
        XCTAssertEqual(replacing.replaced, Data(presented.pem.utf8))
        XCTAssertFalse(selfSignedCore.isPinned(presented))
        try selfSignedCore.undoPin(replacing)
        XCTAssertTrue(selfSignedCore.isPinned(presented))
        let restored = try await get(selfSignedServer, with: selfSignedCore)
        XCTAssertEqual(restored, 200)
        // Undoing the first pin leaves nothing pinned: the self-signed server is refused again.
        try selfSignedCore.undoPin(pin)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pin.file.path))
        do {
            _ = try await get(selfSignedServer, with: selfSignedCore)
            XCTFail("trusted after the pin was undone")
        } catch {
            XCTAssertTrue(
                error.description.hasSuffix(
                    "it is self-signed. If this is your server, pin it on the Connect page or add it to \(pins.path)."), error.description)
        }
    }

    /// A certificate authority, and a certificate for 127.0.0.1 it signed (with its key).
    static func makeAuthorityAndServerCertificate(in folder: URL) throws -> (authority: URL, certificate: URL, key: URL) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try runTool(
            "/usr/bin/openssl",
            ["req", "-x509"] + ec + [
                "-days", "1", "-subj", "/CN=HaloDesk Test Authority", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign", "-keyout", path("authority.key"), "-out", path("authority.pem"),
            ])
        try runTool(
            "/usr/bin/openssl", ["req"] + ec + ["-subj", "/CN=127.0.0.1", "-keyout", path("server.key"), "-out", path("server.csr")])
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: folder.appendingPathComponent("server.ext"))
        try runTool(
            "/usr/bin/openssl",
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("authority.pem"), "-CAkey", path("authority.key"),
                "-CAcreateserial", "-days", "1", "-extfile", path("server.ext"), "-out", path("server.pem"),
            ])
        return (
            folder.appendingPathComponent("authority.pem"), folder.appendingPathComponent("server.pem"),
            folder.appendingPathComponent("server.key")
        )
    }
}
