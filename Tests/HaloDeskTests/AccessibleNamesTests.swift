import CAdw
import CGtk
import Foundation
import XCTest

@testable import HaloDesk

/// Every interactive control of the real windows has an accessible name (issue #6), checked by
/// walking the realized widget trees in-process. AppLaunchTests checks the same from outside,
/// through AT-SPI.
final class AccessibleNamesTests: XCTestCase {
    /// The audit can fail: an icon-only button without a name is reported, a named one is not.
    func testAuditReportsAnUnnamedIconButton() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let window = Window(sinking: UnsafeMutableRawPointer(gtk_window_new()))
            defer { window.destroy() }
            let box = Box(vertical: false)
            let unnamed = Button(sinking: UnsafeMutableRawPointer(gtk_button_new_from_icon_name("list-add-symbolic")))
            let named = Button(sinking: UnsafeMutableRawPointer(gtk_button_new_from_icon_name("user-trash-symbolic")))
            named.setAccessibleLabel("Delete")
            box.append(unnamed)
            box.append(named)
            box.append(Button(label: "Text Button"))
            gtk_window_set_child(window.window, box.widget)
            window.present()
            let findings = AccessibilityAudit.unnamedControls(in: window.widget)
            XCTAssertEqual(findings.count, 1, findings.joined(separator: "\n"))
            XCTAssertTrue(findings.first?.hasPrefix("GtkButton") ?? false, findings.joined(separator: "\n"))
        }
    }

    /// The workspace with an article open (field inputs and relation links built per field) and
    /// its bulk panel: the sidebar, its rows, the column view, search, buttons, every field input.
    func testWorkspaceControlsHaveAccessibleNames() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Articles")
            view.table.columnView.select([0])
            XCTAssertTrue(harness.pump { view.editor.instance != nil && !view.editor.relationButtons.isEmpty })
            XCTAssertTrue(harness.pump { view.sidebar.modules.count == 5 })
            var findings = AccessibilityAudit.unnamedControls(in: harness.window.widget)
            XCTAssertEqual(findings, [], "controls without an accessible name:\n" + findings.joined(separator: "\n"))

            // Several rows selected: the bulk panel with its field chooser.
            view.table.columnView.select([0, 1])
            XCTAssertTrue(harness.pump { view.visibleDetail == .bulk })
            findings = AccessibilityAudit.unnamedControls(in: harness.window.widget)
            XCTAssertEqual(findings, [], "controls without an accessible name:\n" + findings.joined(separator: "\n"))

            // Folded (narrow window): the back buttons show; check each pane in turn.
            harness.window.setDefaultSize(width: 420, height: 700)
            XCTAssertTrue(harness.pump(timeout: 5) { view.isFolded })
            XCTAssertTrue(view.listBackButton.isVisible && view.detailBackButton.isVisible, "folded panes offer a way back")
            for pane in ["modules", "instances", "detail"] {
                view.showPane(named: pane)
                harness.pump(timeout: 0.5) { false }
                findings = AccessibilityAudit.unnamedControls(in: harness.window.widget)
                XCTAssertEqual(findings, [], "controls without an accessible name (folded, \(pane)):\n" + findings.joined(separator: "\n"))
            }
        }
    }

    /// The main window with the welcome, connect, sign-in and register pages, and the
    /// preferences window.
    func testShellPagesAndPreferencesHaveAccessibleNames() throws {
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let window = try MainWindow(application: app)
            let settings = FileManager.default.temporaryDirectory.appendingPathComponent("halo-a11y-\(UUID().uuidString).json")
            let shell = ShellController(window: window, settingsFile: settings)
            defer { window.window.destroy() }
            let welcome = try WelcomePage(onOpenLocal: {}, onConnect: {})
            let connect = try ConnectPage(onConnect: { _ in }, onBack: {})
            let signIn = try SignInPage(onSignedIn: { _ in }, onRegister: {})
            let register = try RegisterPage(onRegistered: { _ in }, onBack: {})
            window.window.present()
            XCTAssertTrue(MainLoopBridge.iterate(until: { window.window.isMapped }, timeout: 10))
            for (page, name) in [
                (welcome.widget, "welcome"), (connect.widget, "connect"), (signIn.widget, "sign-in"), (register.widget, "register"),
            ] {
                window.show(page, named: name)
                let findings = AccessibilityAudit.unnamedControls(in: window.window.widget)
                XCTAssertEqual(findings, [], "controls without an accessible name on \(name):\n" + findings.joined(separator: "\n"))
            }
            // The connect page's URL row only shows for a custom server.
            connect.environmentRow.selectedIndex = 4
            window.show(connect.widget, named: "connect")
            XCTAssertTrue(connect.urlRow.isVisible)
            var findings = AccessibilityAudit.unnamedControls(in: window.window.widget)
            XCTAssertEqual(findings, [], "controls without an accessible name:\n" + findings.joined(separator: "\n"))

            shell.showPreferences()
            let preferences = try XCTUnwrap(shell.preferencesWindow)
            defer { preferences.window.destroy() }
            XCTAssertTrue(MainLoopBridge.iterate(until: { preferences.window.isMapped }, timeout: 10))
            findings = AccessibilityAudit.unnamedControls(in: preferences.window.widget)
            XCTAssertEqual(findings, [], "controls without an accessible name:\n" + findings.joined(separator: "\n"))
        }
    }
}
