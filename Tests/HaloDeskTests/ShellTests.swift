import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The shell driven through its real widgets: welcome → local workspace (an in-process
/// HaloServer seeded with the demo) → sign-in errors → signed in.
final class ShellTests: XCTestCase {
    private var xdg: TemporaryXDGHome!

    override func setUp() {
        super.setUp()
        xdg = TemporaryXDGHome("shell")
    }

    override func tearDown() {
        xdg.restore()
        super.tearDown()
    }

    func testLocalWorkspaceSignInFlow() throws {
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let window = try MainWindow(application: app)
            let shell = ShellController(window: window)
            window.window.present()
            defer { window.window.destroy() }

            // First run: the welcome page.
            shell.start(forceLocal: false)
            XCTAssertEqual(window.stack.visiblePage, "welcome")
            try GUITestEnvironment.screenshots(of: window, named: "welcome")

            // Open the local workspace: the server starts in-process and is seeded.
            let welcome = try XCTUnwrap(shell.welcomePage)
            welcome.openLocalButton.click()
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { window.stack.visiblePage == "sign-in" }, timeout: 60),
                "sign-in page never appeared (page: \(window.stack.visiblePage ?? "none"))")
            let local = try XCTUnwrap(shell.localWorkspace)
            let signIn = try XCTUnwrap(shell.signInPage)
            XCTAssertEqual(signIn.emailRow.text, "editor@halo.local")
            XCTAssertTrue(signIn.hintLabel.isVisible)
            XCTAssertEqual(AppSettings.load().settings.workspace, .local, "the choice is remembered")
            try GUITestEnvironment.screenshots(of: window, named: "sign-in")

            // A wrong password: an inline, specific error; still on the sign-in page.
            let rightPassword = signIn.passwordRow.text
            XCTAssertFalse(rightPassword.isEmpty, "the demo editor password is prefilled from the keyring")
            signIn.passwordRow.text = "not-the-password"
            signIn.signInButton.click()
            XCTAssertTrue(MainLoopBridge.iterate(until: { signIn.errorLabel.isVisible }, timeout: 30))
            XCTAssertEqual(signIn.errorLabel.text, "Wrong email or password.")
            XCTAssertEqual(window.stack.visiblePage, "sign-in")

            // Continue with Google (the local workspace signs in at its local identity provider): a
            // waiting page with the provider's address to copy, and Cancel back to the form, no error.
            XCTAssertTrue(signIn.googleButton.isVisible && signIn.facebookButton.isVisible)
            XCTAssertFalse(signIn.socialHintLabel.isVisible)
            signIn.googleButton.click()
            XCTAssertTrue(MainLoopBridge.iterate(until: { signIn.browserAddress != nil }, timeout: 20))
            XCTAssertEqual(signIn.stack.visiblePage, "waiting")
            let address = try XCTUnwrap(signIn.browserAddress)
            XCTAssertTrue(address.absoluteString.hasPrefix(local.identityProvider.issuer.absoluteString + "/authorize?"))
            // The session's browser (scripts/gui-session.sh records what it is asked to open) got that address.
            if let opened = ProcessInfo.processInfo.environment["HALO_OPENED_URIS"] {
                XCTAssertTrue(
                    MainLoopBridge.iterate(
                        until: { (try? String(contentsOfFile: opened, encoding: .utf8))?.contains(address.absoluteString) == true },
                        timeout: 10), "the browser was not asked to open \(address)")
            }
            signIn.copyLinkButton.click()
            XCTAssertEqual(signIn.copyLinkButton.clipboardText, address.absoluteString)
            XCTAssertTrue(signIn.waitingNoteLabel.text.hasPrefix("Link copied"))
            try GUITestEnvironment.screenshots(of: window, named: "sign-in-browser-waiting")
            signIn.cancelBrowserButton.click()
            XCTAssertTrue(MainLoopBridge.iterate(until: { signIn.stack.visiblePage == "form" }, timeout: 10))
            XCTAssertFalse(signIn.errorLabel.isVisible, "cancelling is not an error: \(signIn.errorLabel.text)")
            XCTAssertNil(local.core.auth.currentUser)

            // The right password signs in as the demo editor.
            signIn.passwordRow.text = rightPassword
            signIn.signInButton.click()
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { window.stack.visiblePage == "workspace" }, timeout: 30),
                "not signed in: \(signIn.errorLabel.text)")
            XCTAssertEqual(local.core.auth.currentUser?.userProfile.email, "editor@halo.local")
            XCTAssertTrue(window.windowTitle.subtitle.hasPrefix("Local workspace"), window.windowTitle.subtitle)
            // The workspace's panes bring their own header bars; the primary menu moves to the sidebar's.
            let workspace = try XCTUnwrap(shell.workspaceView)
            XCTAssertFalse(window.headerBar.isVisible, "the window header bar hides in the workspace")
            XCTAssertEqual(workspace.sidebarTitle.title, "Modules")
            XCTAssertEqual(workspace.sidebarTitle.subtitle, "Local workspace")
            XCTAssertNotNil(gtk_menu_button_get_menu_model(OpaquePointer(workspace.primaryMenuButton.raw)), "primary menu reachable")
            try GUITestEnvironment.screenshots(of: window, named: "workspace-window")

            // Preferences apply to the live session and are remembered; pinning asks before turning off.
            shell.showPreferences()
            let preferences = try XCTUnwrap(shell.preferencesWindow)
            gtk_spin_button_set_value(OpaquePointer(preferences.retriesSpin.raw), 3)
            XCTAssertEqual(local.core.numberOfRetries, 3)
            XCTAssertEqual(AppSettings.load().settings.numberOfRetries, 3)
            XCTAssertEqual(local.core.defaultOfflinePolicy, .loadAndStoreLocalData, "the app keeps a local copy, with no setting to find")
            // The local workspace's server runs in the app: no module is copied for offline use.
            XCTAssertNotNil(workspace.pager.moduleId, "a module is open")
            XCTAssertNil(workspace.offlineCopies.progress)
            XCTAssertEqual(workspace.offlineCopies.completedSyncs, 0)
            XCTAssertFalse(workspace.syncLabel.isVisible)
            preferences.pinningSwitch.isOn = false
            MainLoopBridge.iterate(until: { false }, timeout: 0.3)
            XCTAssertFalse(AppSettings.load().settings.disableSSLPinning, "turning pinning off must wait for confirmation")
            MainLoopBridge.iterate(until: { false }, timeout: 0.5)
            let path = GUITestEnvironment.artifactsDirectory.appendingPathComponent("preferences-pinning-warning.png").path
            let dialogs = gtk_window_list_toplevels()
            defer { g_list_free(dialogs) }
            XCTAssertGreaterThanOrEqual(g_list_length(dialogs), 3, "main window, preferences and the warning dialog")
            try? Screenshot.save(preferences.window, to: path)
            preferences.window.destroy()

            // Sign out returns to sign-in.
            shell.signOut()
            XCTAssertTrue(MainLoopBridge.iterate(until: { window.stack.visiblePage == "sign-in" }, timeout: 10))
            XCTAssertNil(local.core.auth.currentUser)
            XCTAssertTrue(window.headerBar.isVisible, "back on sign-in, the window header bar returns")
            let closed = Flag()
            Task {
                await local.close(); closed.isSet = true
            }
            MainLoopBridge.iterate(until: { closed.isSet }, timeout: 10)

            // With the server gone, signing in says so in words; libcurl's wording stays in the log.
            local.core.numberOfRetries = 0
            signIn.passwordRow.text = rightPassword
            signIn.signInButton.click()
            XCTAssertTrue(
                MainLoopBridge.iterate(until: { signIn.errorLabel.text == "The server cannot be reached." }, timeout: 30),
                signIn.errorLabel.text)
        }
    }

    func testRegisterFormValidatesBeforeSending() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let page = try RegisterPage(onRegistered: { _ in }, onBack: {})
            XCTAssertEqual(page.validationProblem(), "Enter your name.")
            page.nameRow.text = "Ada"
            page.emailRow.text = "ada@example"
            page.passwordRow.text = "short"
            XCTAssertEqual(page.validationProblem(), "Enter a valid email address.")
            page.emailRow.text = "ada@example.com"
            XCTAssertEqual(page.validationProblem(), "Choose a password of at least 8 characters.")
            page.passwordRow.text = "long enough"
            page.confirmRow.text = "different"
            XCTAssertEqual(page.validationProblem(), "The two passwords do not match.")
            page.confirmRow.text = "long enough"
            XCTAssertNil(page.validationProblem())
        }
    }

}
