import CAdw
import CGtk
import Foundation
import HaloServer
import HaloServices
import XCTest

@testable import HaloDesk

/// Edits made offline on top of versions someone else changed on the server: the status area's button opens the
/// Pending Edits window, which lists them and lets the user keep theirs or take the server's —
/// checked against what the server finally holds.
final class PendingEditsWindowTests: XCTestCase {
    func testOfflineEditsInConflictAreListedAndSettledWithKeepMineAndTakeTheirs() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            let first = try XCTUnwrap(view.pager.instance(at: 0))
            let second = try XCTUnwrap(view.pager.instance(at: 1))
            let third = try XCTUnwrap(view.pager.instance(at: 2))

            // Someone else changes two of them on the server and deletes the third; the app still
            // shows (and the user edits) the versions it loaded before.
            let checker = harness.checker
            for (instance, name) in [(first, "Theirs: first"), (second, "Theirs: second")] {
                var changed = instance
                changed.name = name
                let theirs = changed
                _ = try WorkspaceHarness.wait { try await checker.content.save(theirs) }
            }
            let thirdId = try XCTUnwrap(third.id)
            _ = try WorkspaceHarness.wait { try await checker.content.delete(instanceId: thirdId) }

            // The server goes away; three renames wait in the outbox.
            let server = harness.server
            let port = server.port
            try WorkspaceHarness.wait { await server.stop() }
            for (instance, name) in [(first, "Mine: first"), (second, "Mine: second"), (third, "Mine: third")] {
                let row = try XCTUnwrap(view.pager.loadedRow(ofInstanceId: try XCTUnwrap(instance.id)))
                view.table.columnView.select([row])
                XCTAssertTrue(harness.pump { view.editor.instance?.id == instance.id })
                view.editor.nameEntry.text = name
                let before = view.completedOperations
                view.saveButton.click()
                harness.waitForOperation(after: before)
            }
            XCTAssertTrue(view.pendingButton.isVisible)
            XCTAssertEqual(view.pendingButton.label, "3 edits pending")

            // The window lists them; offline, Send Now is disabled and says why.
            view.pendingButton.click()
            let window = try XCTUnwrap(view.pendingEditsWindow)
            XCTAssertTrue(harness.pump { window.window.isMapped })
            XCTAssertEqual(window.listed.map(\.row.name), ["Mine: first", "Mine: second", "Mine: third"])
            XCTAssertEqual(window.listed.map(\.row.kindLabel), ["Changed", "Changed", "Changed"])
            XCTAssertTrue(window.listed.allSatisfy { $0.row.stateLabel.hasPrefix("Waiting") }, "\(window.listed.map(\.row.stateLabel))")
            XCTAssertTrue(window.listed.allSatisfy { $0.row.subtitle(moduleName: "Products").hasPrefix("Changed · Products · queued ") })
            XCTAssertFalse(window.sendButton.isSensitive, "offline: nothing can be sent")
            XCTAssertTrue(window.offlineLabel.isVisible)
            XCTAssertTrue(window.offlineLabel.text.hasPrefix("The server cannot be reached"), window.offlineLabel.text)

            // The server comes back on the same address and data.
            let directory = harness.directory.appendingPathComponent("server")
            let restarted = try WorkspaceHarness.wait {
                try await HaloServerInstance.start(HaloServerConfiguration(port: port, dataDirectory: directory, logRequests: false))
            }
            defer { _ = try? WorkspaceHarness.wait { await restarted.stop() } }
            // Back online: the edits go out, two conflict and one is refused; the window shows it.
            view.refresh()
            XCTAssertTrue(
                harness.pump(timeout: 30) {
                    view.connection.outbox == OutboxCounts(conflicts: 2, failed: 1) && !view.pendingEdits.isSending
                },
                view.pendingButton.label)
            XCTAssertEqual(view.pendingButton.label, "2 conflicts · 1 failed")
            XCTAssertTrue(harness.pump { window.listed.count == 3 && window.listed[0].keepMine != nil })
            XCTAssertFalse(window.offlineLabel.isVisible)
            let firstControls = try XCTUnwrap(window.listed.first { $0.row.entry.instance.id == first.id })
            XCTAssertEqual(
                firstControls.row.differences, [.init(field: "Name", mine: "Mine: first", theirs: "Theirs: first")],
                "only the name differs: fields the user left alone keep their stored values")
            XCTAssertTrue(firstControls.row.stateLabel.hasPrefix("Conflict"))
            let thirdControls = try XCTUnwrap(window.listed.first { $0.row.entry.instance.id == third.id })
            XCTAssertTrue(thirdControls.row.stateLabel.hasPrefix("Failed: "), thirdControls.row.stateLabel)
            XCTAssertNotNil(thirdControls.retry)
            XCTAssertTrue(try XCTUnwrap(firstControls.keepMine).grabFocus(), "Keep Mine is reachable from the keyboard")
            let unnamed = AccessibilityAudit.unnamedControls(in: window.window.widget)
            XCTAssertEqual(unnamed, [], "controls without an accessible name:\n" + unnamed.joined(separator: "\n"))
            let statusBarUnnamed = AccessibilityAudit.unnamedControls(in: harness.window.widget)
            XCTAssertEqual(
                statusBarUnnamed, [],
                "workspace controls without an accessible name (pending button shown):\n"
                    + statusBarUnnamed.joined(separator: "\n"))
            try GUITestEnvironment.screenshots(of: window.window, named: "pending-edits")
            try Screenshot.saveAfterNextPaint(
                harness.window, to: GUITestEnvironment.artifactsDirectory.appendingPathComponent("workspace-pending-button.png").path)

            // Keep Mine on the first: my version is sent on top of theirs.
            try XCTUnwrap(firstControls.keepMine).click()
            XCTAssertTrue(
                harness.pump(timeout: 30) {
                    view.connection.outbox == OutboxCounts(conflicts: 1, failed: 1) && !view.pendingEdits.isSending
                },
                view.pendingButton.label)
            // Take Theirs on the second: my edit is dropped, the server's copy stays.
            let secondControls = try XCTUnwrap(window.listed.first { $0.row.entry.instance.id == second.id })
            try XCTUnwrap(secondControls.takeTheirs).click()
            XCTAssertTrue(harness.pump { view.connection.outbox == OutboxCounts(failed: 1) }, view.pendingButton.label)

            // Retry the refused edit: sent again, refused again (the instance is gone), still listed.
            try XCTUnwrap(window.listed.first?.retry).click()
            XCTAssertTrue(harness.pump { harness.toasts.last == "1 refused by the server." }, "\(harness.toasts)")
            XCTAssertTrue(harness.pump { view.connection.outbox == OutboxCounts(failed: 1) && window.listed.first?.discard != nil })

            // Discard it: it asks first.
            try XCTUnwrap(window.listed.first?.discard).click()
            let dialog = try XCTUnwrap(window.pendingDialog, "discarding asks first")
            dialog.respond("discard")
            XCTAssertTrue(harness.pump { view.connection.outbox.total == 0 && window.listed.isEmpty })
            XCTAssertFalse(view.pendingButton.isVisible)

            let onServer = try harness.serverInstances(module: "Products")
            XCTAssertEqual(onServer.first { $0.id == first.id }?.name, "Mine: first", "Keep Mine sent my version")
            XCTAssertEqual(onServer.first { $0.id == second.id }?.name, "Theirs: second", "Take Theirs left the server's copy")
            XCTAssertFalse(onServer.contains { $0.id == third.id }, "the discarded edit did not bring the deleted instance back")
            // Escape (bound to window.close in the .ui) closes it, as for any dialog.
            XCTAssertNotEqual(gtk_widget_activate_action_variant(window.window.widget, "window.close", nil), 0)
            XCTAssertTrue(harness.pump { !window.window.isMapped })
        }
    }
}
