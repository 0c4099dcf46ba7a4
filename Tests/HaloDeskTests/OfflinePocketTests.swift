import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The pocket through an outage (`halo-server` killed with SIGKILL, then started again): edited
/// and saved in the pocket window, and a favorite starred, both wait with the pending edits, show
/// when the window is opened again, are listed in Pending Edits, and reach the server once it is
/// back, without any user action — read there byte for byte by another client of the same user.
final class OfflinePocketTests: XCTestCase {
    func testPocketEditsAndAStarMadeOfflineWaitAndAreSentWhenTheServerIsBack() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(serverProcess: true)
            defer { harness.tearDown() }
            let view = harness.view
            try PocketWindowTests.setPocket(data: ["theme": "dark", "size": 2], references: ["favorites": ["a"]], harness: harness)
            // Read once online: the copy on this computer (and the open module's copy) to work offline from.
            let online = try PocketWindowTests.open(harness)
            online.window.close()
            XCTAssertTrue(harness.pump { view.pocketWindow?.window.isVisible != true })
            XCTAssertTrue(harness.pump(timeout: 60) { view.offlineCopies.completedSyncs >= 1 && view.offlineCopies.progress == nil })

            harness.killServer()
            view.refresh()
            XCTAssertTrue(harness.pump(timeout: 30) { !view.connection.isOnline && view.pager.instance(at: 0) != nil })

            // The pocket window offline: editable, and Save says where the save goes.
            let window = try PocketWindowTests.open(harness)
            XCTAssertTrue(window.offlineLabel.isVisible)
            XCTAssertEqual(window.draft?.dataValue, ["theme": "dark", "size": 2])
            let editor = try XCTUnwrap(window.editor)
            try PocketWindowTests.valueEntry("theme", in: editor).text = "light"
            XCTAssertTrue(window.saveButton.isSensitive, "offline edits can be saved")
            XCTAssertEqual(window.saveButton.tooltip, "Offline: the save is kept on this computer and sent when the server is reachable")
            window.saveButton.click()
            XCTAssertEqual(window.confirmButton.label, "_Save on This Computer")
            let saves = window.completedSaves
            window.confirmButton.click()
            XCTAssertTrue(harness.pump(timeout: 30) { window.completedSaves > saves })
            XCTAssertEqual(window.windowTitle.subtitle, "Saved on this computer")
            XCTAssertNotNil(window.pendingSave)
            XCTAssertTrue(
                harness.pump { view.pendingButton.isVisible && view.pendingButton.label == "1 edit pending" }, view.pendingButton.label)
            window.window.close()
            XCTAssertTrue(harness.pump { view.pocketWindow?.window.isVisible != true })

            // Opened again: the waiting save over the copy, said so.
            let reopened = try PocketWindowTests.open(harness)
            XCTAssertEqual(reopened.draft?.dataValue, ["theme": "light", "size": 2])
            XCTAssertTrue(reopened.offlineLabel.text.contains("wait to be sent"), reopened.offlineLabel.text)
            try GUITestEnvironment.screenshots(of: reopened.window, named: "pocket-window-offline")
            reopened.window.close()

            // A star offline joins the same waiting save.
            let article = try FavoritesTests.open(row: 0, in: harness)
            let articleId = try XCTUnwrap(article.id)
            try FavoritesTests.star(in: harness)
            XCTAssertEqual(view.favoriteButton.iconName, "starred-symbolic")
            XCTAssertTrue(
                harness.toasts.contains {
                    $0.hasSuffix("added to Favorites on this computer and will be sent when the server is reachable.")
                }, "\(harness.toasts)")
            XCTAssertEqual(view.pendingButton.label, "1 edit pending", "one pocket save per user")
            // Favorites lists it from the copy on this computer ("a" is no instance: skipped).
            view.sidebar.activateFavorites()
            XCTAssertTrue(harness.pump { view.pager.showsInstances && view.pager.totalItems == 1 && view.table.isSettled })
            XCTAssertEqual(view.pager.instance(at: 0)?.id, articleId)
            XCTAssertTrue(view.pager.source.isFromCache)

            // Pending Edits lists it as the pocket, with what changed.
            view.showPendingEdits()
            let pending = try XCTUnwrap(view.pendingEditsWindow)
            XCTAssertTrue(harness.pump { pending.window.isMapped })
            let listed = try XCTUnwrap(pending.listedPockets.first)
            XCTAssertEqual(pending.listedPockets.count, 1)
            XCTAssertEqual(listed.row.changes.map(\.path), ["data.theme", "references.favorites"])
            XCTAssertTrue(listed.row.subtitle.hasPrefix("Changed · queued "), listed.row.subtitle)
            XCTAssertTrue(listed.row.entry.standing.label.hasPrefix("Waiting"), listed.row.entry.standing.label)
            // The favorites list reads as names (from the copy on this computer), not ids.
            XCTAssertTrue(
                harness.pump { shownTexts(in: pending.window.widget).contains("a, \(article.name)") },
                "\(shownTexts(in: pending.window.widget))")
            XCTAssertFalse(shownTexts(in: pending.window.widget).contains { $0.contains(articleId) }, "no raw id")
            let unnamed = AccessibilityAudit.unnamedControls(in: pending.window.widget)
            XCTAssertEqual(unnamed, [], "controls without an accessible name:\n" + unnamed.joined(separator: "\n"))
            try GUITestEnvironment.screenshots(of: pending.window, named: "pending-edits-pocket")

            // The server comes back: the save goes out by itself, with the revision it was made on.
            try harness.restartServer()
            XCTAssertTrue(
                harness.pump(timeout: 40) { view.connection.isOnline && !view.pendingButton.isVisible }, view.statusLabel.text)
            XCTAssertTrue(harness.pump { harness.toasts.contains("1 pending edit sent.") }, "\(harness.toasts)")
            XCTAssertTrue(harness.pump { pending.listedPockets.isEmpty })
            let pocket = try FavoritesTests.serverPocket(harness)
            XCTAssertEqual(
                pocket.wireJSON.compactJSONText, #"{"data":{"size":2,"theme":"light"},"references":{"favorites":["a","\#(articleId)"]}}"#)
            XCTAssertEqual(pocket.revision, "\"2\"", "one save after the one read")
        }
    }
}
