import CAdw
import CGtk
import Foundation
import HaloServer
import HaloServices
import XCTest

@testable import HaloDesk

/// Signing out of a server's workspace on a computer others use: the app offers to remove the
/// account's offline copy, and does so, or keeps it.
final class SignOutTests: XCTestCase {
    private var xdg: TemporaryXDGHome!

    override func setUp() {
        super.setUp()
        xdg = TemporaryXDGHome("sign-out")
    }

    override func tearDown() {
        xdg.restore()
        super.tearDown()
    }

    func testSigningOutOffersToRemoveTheAccountsOfflineCopy() throws {
        let home: URL = xdg.url
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let (server, demo) = try WorkspaceHarness.startDemoServer(in: home.appendingPathComponent("server"))
            defer { _ = try? WorkspaceHarness.wait { await server.stop() } }

            let window = try MainWindow(application: app)
            let shell = ShellController(window: window, settingsFile: home.appendingPathComponent("settings.json"))
            window.window.present()
            defer { window.window.destroy() }
            let choice = ServerChoice(
                environment: .custom("http://127.0.0.1:\(server.port)"), clientId: demo.clientId, clientSecret: demo.clientSecret)

            /// Signs in as the demo editor and waits for a module's offline copy; returns its file.
            @MainActor func signInAndKeepACopy() throws -> URL {
                let signIn = try XCTUnwrap(shell.signInPage)
                XCTAssertTrue(MainLoopBridge.iterate(until: { window.stack.visiblePage == "sign-in" }, timeout: 30))
                signIn.emailRow.text = demo.editorEmail
                signIn.passwordRow.text = demo.editorPassword
                signIn.signInButton.click()
                XCTAssertTrue(
                    MainLoopBridge.iterate(until: { window.stack.visiblePage == "workspace" }, timeout: 30), signIn.errorLabel.text)
                let view = try XCTUnwrap(shell.workspaceView)
                XCTAssertTrue(
                    MainLoopBridge.iterate(until: { view.offlineCopies.completedSyncs >= 1 }, timeout: 60), "no offline copy was made")
                let file = try XCTUnwrap(shell.session).core.offlineCache().file
                XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
                return file
            }

            shell.connect(to: choice)
            let copy = try signInAndKeepACopy()

            // Sign out asks; Cancel stays signed in.
            shell.signOut()
            var dialog = try XCTUnwrap(shell.signOutDialog)
            XCTAssertEqual(dialog.heading, "Sign Out?")
            XCTAssertTrue(dialog.body.contains("Remove it if others use this computer."), dialog.body)
            MainLoopBridge.iterate(until: { false }, timeout: 0.3)
            try Screenshot.saveAfterNextPaint(dialog, to: GUITestEnvironment.artifactsDirectory.appendingPathComponent("sign-out.png").path)
            dialog.respond(ConfirmationDialog.cancel)
            XCTAssertEqual(window.stack.visiblePage, "workspace")

            // "Sign Out" keeps the copy for the next sign-in.
            shell.signOut()
            dialog = try XCTUnwrap(shell.signOutDialog)
            dialog.respond("sign-out")
            XCTAssertTrue(MainLoopBridge.iterate(until: { window.stack.visiblePage == "sign-in" }, timeout: 30))
            XCTAssertTrue(MainLoopBridge.iterate(until: { window.lastToast?.title == "Signed out." }, timeout: 10))
            XCTAssertTrue(FileManager.default.fileExists(atPath: copy.path))

            // "Remove Copy and Sign Out" deletes this account's copy from the computer.
            XCTAssertEqual(try signInAndKeepACopy(), copy, "the same account finds the same copy")
            shell.signOut()
            dialog = try XCTUnwrap(shell.signOutDialog)
            dialog.respond("remove")
            XCTAssertTrue(
                MainLoopBridge.iterate(
                    until: { window.lastToast?.title == "Signed out. The offline copy was removed from this computer." }, timeout: 30),
                window.lastToast?.title ?? "no toast")
            XCTAssertEqual(window.stack.visiblePage, "sign-in")
            XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path))
        }
    }
}
