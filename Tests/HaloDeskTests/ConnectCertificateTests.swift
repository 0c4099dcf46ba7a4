import CAdw
import CGtk
import Foundation
import HaloServer
import HaloServices
import HaloTestSupport
import XCTest

@testable import HaloDesk

/// Connecting to an https server whose certificate no authority vouches for, as a user would:
/// `halo-server` behind a TLS proxy with a self-signed certificate, the app's Connect page, the
/// refusal in words, the certificate shown, Pin This Certificate, Undo, and connecting.
final class ConnectCertificateTests: XCTestCase {
    private var xdg: TemporaryXDGHome!

    override func setUp() {
        super.setUp()
        xdg = TemporaryXDGHome("connect")
    }

    override func tearDown() {
        xdg.restore()
        super.tearDown()
    }

    /// What OpenSSL itself says of `certificate`: its SHA-256 fingerprint and the base64 SHA-256
    /// of its public key (what pinning compares).
    private static func opensslFacts(_ certificate: URL, scratch home: URL) throws -> (fingerprint: String, publicKey: String) {
        let openssl = "/usr/bin/openssl"
        let fingerprint = String(
            decoding: try runTool(openssl, ["x509", "-in", certificate.path, "-noout", "-fingerprint", "-sha256"]),
            as: UTF8.self
        )
        .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "sha256 Fingerprint=", with: "")
        let publicKey = home.appendingPathComponent("public.pem")
        try runTool(openssl, ["x509", "-in", certificate.path, "-pubkey", "-noout"]).write(to: publicKey)
        let der = home.appendingPathComponent("public.der")
        try runTool(openssl, ["pkey", "-pubin", "-in", publicKey.path, "-outform", "der", "-out", der.path])
        let digest = try runTool(openssl, ["dgst", "-sha256", "-binary", der.path])
        return (fingerprint, digest.base64EncodedString())
    }

    func testARefusedCertificateIsShownPinnedUndoneAndPinnedAgain() throws {
        let home: URL = xdg.url
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let (server, demo) = try WorkspaceHarness.startDemoServer(in: home.appendingPathComponent("server"))
            defer { _ = try? WorkspaceHarness.wait { await server.stop() } }
            let (certificate, key) = try LocalTLSServer.makeCertificate(in: home.appendingPathComponent("tls"), name: "server")
            let proxy = try TLSProxy(certificate: certificate, key: key, backendPort: server.port)
            defer { proxy.stop() }
            let facts = try Self.opensslFacts(certificate, scratch: home)
            let pins = home.appendingPathComponent("config/halo-desk/certificates")

            let window = try MainWindow(application: app)
            let shell = ShellController(window: window, settingsFile: home.appendingPathComponent("settings.json"))
            window.window.present()
            defer { window.window.destroy() }
            shell.showConnect()
            let page = try XCTUnwrap(shell.connectPage)
            page.environmentRow.selectedIndex = 4  // Custom URL
            page.urlRow.text = proxy.url.absoluteString
            page.clientIdRow.text = demo.clientId
            page.clientSecretRow.text = demo.clientSecret

            // Connect: the certificate is refused, and the user is back on the form with the reason
            // and the certificate, not on a dead-end error page.
            page.connectButton.click()
            XCTAssertTrue(
                MainLoopBridge.iterate(
                    until: { window.stack.visiblePage == "connect" && page.certificateGroup.isVisible && page.verdictLabel.isVisible },
                    timeout: 30), "page: \(window.stack.visiblePage ?? "none"), verdict: \(page.verdictLabel.text)")
            let refusal =
                "Connection failed: 127.0.0.1 presented a certificate for “CN = 127.0.0.1” (public key SHA-256 \(facts.publicKey)), "
                + "issued by “CN = 127.0.0.1”, which no trusted certificate authority vouches for: it is self-signed. "
                + "If this is your server, pin it on the Connect page or add it to \(pins.path)."
            XCTAssertEqual(page.verdictLabel.text, refusal)
            XCTAssertTrue(page.verdictLabel.hasCSSClass("error"))
            XCTAssertEqual(page.certificateSubjectRow.subtitle, "CN = 127.0.0.1")
            XCTAssertEqual(page.certificateIssuerRow.subtitle, "Itself (self-signed)")
            XCTAssertFalse(page.certificateExpiresRow.subtitle.isEmpty)
            XCTAssertEqual(page.certificateFingerprintRow.subtitle, facts.fingerprint)
            XCTAssertTrue(page.pinButton.isVisible)
            XCTAssertFalse(FileManager.default.fileExists(atPath: pins.path), "nothing is pinned before the user asks")

            // Copy puts the fingerprint on the clipboard, to compare with the administrator's.
            page.copyFingerprintButton.click()
            XCTAssertEqual(page.copyFingerprintButton.clipboardText, facts.fingerprint)
            try GUITestEnvironment.screenshots(of: window, named: "connect-certificate-refused")

            // Pin This Certificate: written to the certificates folder, and the test passes.
            page.pinButton.click()
            let pinFile = pins.appendingPathComponent("127.0.0.1.pem")
            XCTAssertTrue(FileManager.default.fileExists(atPath: pinFile.path))
            XCTAssertEqual(window.lastToast?.title, "Certificate pinned")
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { page.verdictLabel.text.hasPrefix("Connected.") }, timeout: 30), page.verdictLabel.text)
            let modules = try WorkspaceHarness.wait { try await server.admin.instanceCounts().count }
            XCTAssertEqual(page.verdictLabel.text, "Connected. The server lists \(modules) modules.")
            XCTAssertFalse(page.pinButton.isVisible, "a pinned certificate is not offered again")
            XCTAssertEqual(
                page.certificateGroup.groupDescription,
                "Pinned in \(pins.path). Only pinned certificates are trusted for this server.")
            try GUITestEnvironment.screenshots(of: window, named: "connect-certificate-pinned")

            // Undo takes the pin back: the file goes, and the certificate is refused again.
            window.lastToast?.emit("button-clicked")
            XCTAssertFalse(FileManager.default.fileExists(atPath: pinFile.path))
            XCTAssertTrue(MainLoopBridge.iterate(until: { page.verdictLabel.text == refusal }, timeout: 30), page.verdictLabel.text)
            XCTAssertTrue(page.pinButton.isVisible)

            // Pinned again, Connect goes through to sign-in.
            page.pinButton.click()
            XCTAssertTrue(MainLoopBridge.iterate(until: { page.verdictLabel.text.hasPrefix("Connected.") }, timeout: 30))
            page.connectButton.click()
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { window.stack.visiblePage == "sign-in" }, timeout: 30),
                "page: \(window.stack.visiblePage ?? "none")")
        }
    }

}
