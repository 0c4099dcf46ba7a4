import CAdw
import CGtk
import Foundation
import HaloServer
import HaloServices
import XCTest

@testable import HaloDesk

/// Preferences › Browser Sign-In on a server's sign-in page: what is typed is checked at its row,
/// valid registrations reach the sign-in page at once and are remembered, and the client secret
/// goes to the keyring (never the settings file).
final class PreferencesTests: XCTestCase {
    private var xdg: TemporaryXDGHome!

    override func setUp() {
        super.setUp()
        xdg = TemporaryXDGHome("preferences")
    }

    override func tearDown() {
        xdg.restore()
        super.tearDown()
    }

    func testBrowserSignInProvidersApplyToTheSignInPage() throws {
        let home: URL = xdg.url
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let (server, demo) = try WorkspaceHarness.startDemoServer(in: home.appendingPathComponent("server"))
            defer { _ = try? WorkspaceHarness.wait { await server.stop() } }
            let settingsFile = home.appendingPathComponent("settings.json")
            let window = try MainWindow(application: app)
            let shell = ShellController(window: window, settingsFile: settingsFile)
            window.window.present()
            defer { window.window.destroy() }
            shell.connect(
                to: ServerChoice(
                    environment: .custom("http://127.0.0.1:\(server.port)"), clientId: demo.clientId, clientSecret: demo.clientSecret))
            XCTAssertTrue(MainLoopBridge.iterate(until: { window.stack.visiblePage == "sign-in" }, timeout: 30))
            let signIn = try XCTUnwrap(shell.signInPage)
            let core = try XCTUnwrap(shell.session).core

            // No provider configured: no buttons, and the page says where to set one up.
            XCTAssertFalse(signIn.googleButton.isVisible || signIn.facebookButton.isVisible)
            XCTAssertTrue(signIn.socialHintLabel.text.contains("Preferences › Browser Sign-In"), signIn.socialHintLabel.text)

            shell.showPreferences()
            let preferences = try XCTUnwrap(shell.preferencesWindow)
            defer { preferences.window.destroy() }
            preferences.showPage("sign-in")
            let group = preferences.signInProviders
            XCTAssertFalse(group.googleClientSecretRow.isSensitive, "a secret belongs to a client id")

            // Mistakes are flagged at their row, in words, and nothing is saved.
            group.googleDiscoveryRow.text = "ftp://accounts.example.com"
            XCTAssertTrue(group.googleDiscoveryRow.hasCSSClass("error"))
            XCTAssertTrue(group.errorLabel.isVisible)
            XCTAssertTrue(group.errorLabel.text.hasPrefix("Enter the provider's https address"), group.errorLabel.text)
            group.googleDiscoveryRow.text = "https://accounts.example.com"
            XCTAssertEqual(group.errorLabel.text, "A provider address needs its client ID too.")
            group.googleClientIdRow.text = "my client"
            XCTAssertTrue(group.googleClientIdRow.hasCSSClass("error"))
            XCTAssertFalse(group.googleDiscoveryRow.hasCSSClass("error"))
            XCTAssertEqual(group.errorLabel.text, "A client ID has no spaces.")
            MainLoopBridge.iterate(until: { false }, timeout: 0.3)
            try Screenshot.saveAfterNextPaint(
                preferences.window, to: GUITestEnvironment.artifactsDirectory.appendingPathComponent("preferences-sign-in-error.png").path)
            XCTAssertNil(AppSettings.load(from: settingsFile).settings.signInProviders)
            XCTAssertFalse(signIn.googleButton.isVisible)

            // Valid: saved, and the sign-in page offers Google at once, at that provider.
            group.googleClientIdRow.text = "halodesk-desktop"
            XCTAssertFalse(group.errorLabel.isVisible)
            XCTAssertFalse(group.googleClientIdRow.hasCSSClass("error"))
            XCTAssertEqual(
                AppSettings.load(from: settingsFile).settings.signInProviders,
                SocialProviderKeys(googleClientId: "halodesk-desktop", googleDiscoveryURL: "https://accounts.example.com"))
            XCTAssertTrue(signIn.googleButton.isVisible)
            XCTAssertFalse(signIn.facebookButton.isVisible)
            XCTAssertFalse(signIn.socialHintLabel.isVisible)
            XCTAssertEqual(
                core.configuration.socialProviders[.google]?.discoveryURL?.absoluteString,
                "https://accounts.example.com/.well-known/openid-configuration")
            group.facebookAppIdRow.text = "1234567890"
            XCTAssertTrue(signIn.facebookButton.isVisible)
            XCTAssertEqual(core.configuration.socialProviders[.facebook]?.clientId, "1234567890")

            // The secret goes to the keyring, under the client id, and comes back in a new window.
            XCTAssertTrue(group.googleClientSecretRow.isSensitive)
            group.googleClientSecretRow.text = "s3cret"
            let keyring = SocialProvider.secretKeyring(clientId: "halodesk-desktop")
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { (try? WorkspaceHarness.wait { try await keyring.lookup() }) == "s3cret" }, timeout: 10),
                "the secret never reached the keyring")
            XCTAssertFalse(try String(contentsOf: settingsFile, encoding: .utf8).contains("s3cret"))
            MainLoopBridge.iterate(until: { false }, timeout: 0.3)
            try Screenshot.saveAfterNextPaint(
                preferences.window, to: GUITestEnvironment.artifactsDirectory.appendingPathComponent("preferences-sign-in.png").path)
            preferences.window.destroy()
            shell.showPreferences()
            let reopened = try XCTUnwrap(shell.preferencesWindow).signInProviders
            XCTAssertEqual(reopened.googleClientIdRow.text, "halodesk-desktop")
            XCTAssertTrue(MainLoopBridge.iterate(until: { reopened.googleClientSecretRow.text == "s3cret" }, timeout: 10))

            // Cleared rows remove the providers again; the secret is cleared from the keyring.
            reopened.googleClientSecretRow.text = ""
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { (try? WorkspaceHarness.wait { try await keyring.lookup() }) == .some(nil) }, timeout: 10))
            for row in [reopened.googleClientIdRow, reopened.googleDiscoveryRow, reopened.facebookAppIdRow] { row.text = "" }
            XCTAssertNil(AppSettings.load(from: settingsFile).settings.signInProviders)
            XCTAssertFalse(signIn.googleButton.isVisible || signIn.facebookButton.isVisible)
            try XCTUnwrap(shell.preferencesWindow).window.destroy()
            _ = try? WorkspaceHarness.wait { try await keyring.clear() }
        }
    }
}
