import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The workspace follows changes made by another client through the server's live event stream:
/// the list within a second, the open instance when it is not edited, and the change banner
/// (never a silent overwrite) when it is.
final class LiveUpdatesTests: XCTestCase {
    func testListAndOpenInstanceFollowChangesMadeElsewhere() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(liveUpdates: true)
            defer { harness.tearDown() }
            let view = harness.view, checker = harness.checker
            try harness.openModule("Products")
            let moduleId = try XCTUnwrap(view.pager.moduleId)
            try Self.waitUntilFollowing(harness)

            // Created elsewhere: the list grows without a reload.
            let started = Date()
            let created = try WorkspaceHarness.wait {
                try await checker.content.save(ContentInstance(moduleId: moduleId, name: "Made Elsewhere", values: ["price": 5]))
            }
            XCTAssertTrue(harness.pump(timeout: 5) { view.pager.totalItems == 151 }, "the list did not follow a creation")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "a change elsewhere shows within a second or so")
            XCTAssertTrue(harness.pump { (0..<10).contains { view.pager.instance(at: $0)?.id == created.id } }, "newest first")

            // The open instance, not edited, simply shows the new version.
            let row = try XCTUnwrap((0..<10).first { view.pager.instance(at: $0)?.id == created.id })
            view.table.columnView.select([row])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == created.id })
            var renamed = created
            renamed.name = "Renamed Elsewhere"
            _ = try WorkspaceHarness.wait { [renamed] in try await checker.content.save(renamed) }
            XCTAssertTrue(harness.pump(timeout: 5) { view.editor.nameEntry.text == "Renamed Elsewhere" }, "the editor did not follow")
            XCTAssertFalse(view.changeBanner.isVisible)
            XCTAssertFalse(view.editor.isDirty)

            // Edited here and changed there: the banner, and the user's text stays.
            view.editor.nameEntry.text = "My Own Name"
            XCTAssertTrue(view.editor.isDirty)
            var priced = renamed
            priced.values["price"] = 99
            priced = try WorkspaceHarness.wait { [priced] in try await checker.content.save(priced) }
            XCTAssertTrue(harness.pump(timeout: 5) { view.changeBanner.isVisible }, "no banner for a change under unsaved edits")
            XCTAssertTrue(view.changeBannerLabel.text.contains("changed this instance on the server"), view.changeBannerLabel.text)
            XCTAssertEqual(view.editor.nameEntry.text, "My Own Name", "unsaved edits are never overwritten")
            XCTAssertTrue(view.changeBannerShowButton.isVisible)
            try harness.screenshots(name: "change-banner")

            // Show Changes lists what the server changed next to the user's value; Keep Editing keeps them.
            view.showServerChanges()
            let dialog = try XCTUnwrap(view.pendingDialog)
            XCTAssertTrue(dialog.body.contains("price: now “99”"), dialog.body)
            dialog.respond("keep")
            XCTAssertFalse(view.changeBanner.isVisible)
            XCTAssertEqual(view.editor.nameEntry.text, "My Own Name")

            // Another change, and this time the user takes the server's version.
            priced.values["price"] = 100
            _ = try WorkspaceHarness.wait { [priced] in try await checker.content.save(priced) }
            XCTAssertTrue(harness.pump(timeout: 5) { view.changeBanner.isVisible })
            view.showServerChanges()
            try XCTUnwrap(view.pendingDialog).respond("theirs")
            XCTAssertEqual(view.editor.nameEntry.text, "Renamed Elsewhere")
            XCTAssertEqual(view.editor.fieldEditor(named: "price", as: EntryFieldEditor.self)?.entry.text, "100")
            XCTAssertFalse(view.editor.isDirty)
            XCTAssertFalse(view.changeBanner.isVisible)

            // The user's own save is not mistaken for someone else's change.
            view.editor.nameEntry.text = "Saved Here"
            let before = view.completedOperations, refreshes = view.liveRefreshes
            view.save()
            harness.waitForOperation(after: before)
            XCTAssertTrue(harness.pump(timeout: 5) { view.liveRefreshes > refreshes })
            harness.pump(timeout: 0.5) { false }
            XCTAssertFalse(view.changeBanner.isVisible, view.changeBannerLabel.text)
            XCTAssertEqual(view.editor.nameEntry.text, "Saved Here")

            // Deleted elsewhere while edited: said in the banner, edits kept.
            view.editor.nameEntry.text = "Still Typing"
            _ = try WorkspaceHarness.wait { try await checker.content.delete(instanceId: created.id ?? "") }
            XCTAssertTrue(harness.pump(timeout: 5) { view.changeBanner.isVisible && view.changeBannerLabel.text.contains("deleted") })
            XCTAssertFalse(view.changeBannerShowButton.isVisible, "nothing to compare with")
            XCTAssertEqual(view.editor.nameEntry.text, "Still Typing")
            XCTAssertTrue(harness.pump(timeout: 5) { view.pager.totalItems == 150 }, "the list follows the deletion")

            // A burst elsewhere is a few refreshes, not one per change.
            harness.pump(timeout: 0.3) { false }
            let beforeBurst = view.liveRefreshes
            let burstStarted = Date()
            _ = try WorkspaceHarness.wait {
                for index in 0..<30 {
                    _ = try await checker.content.save(ContentInstance(moduleId: moduleId, name: "Burst \(index)"))
                }
            }
            let burstSeconds = Date().timeIntervalSince(burstStarted)
            XCTAssertTrue(harness.pump(timeout: 5) { view.pager.totalItems == 180 }, "the list follows the burst")
            let burstRefreshes = view.liveRefreshes - beforeBurst
            XCTAssertLessThanOrEqual(
                burstRefreshes, Int(burstSeconds / 0.12) + 3,
                "at most one refresh per \(WorkspaceView.liveRefreshDelay) (\(burstSeconds) s)")
            XCTAssertLessThan(burstRefreshes, 30)

            // A module renamed elsewhere: the sidebar follows.
            _ = try WorkspaceHarness.wait { try await checker.content.renameModule(id: moduleId, to: "Goods") }
            XCTAssertTrue(
                harness.pump(timeout: 5) { view.sidebar.modules.contains { $0.id == moduleId && $0.name == "Goods" } },
                "the sidebar did not follow a module renamed elsewhere")
        }
    }

    /// A stream starts at the newest event: make sure the view's is open before changing anything.
    @MainActor
    private static func waitUntilFollowing(_ harness: WorkspaceHarness) throws {
        let view = harness.view, checker = harness.checker
        let translations = try XCTUnwrap(view.sidebar.modules.first { $0.name == "Translations" }?.id)
        for attempt in 1...20 {
            let refreshes = view.liveRefreshes
            _ = try WorkspaceHarness.wait {
                try await checker.content.save(ContentInstance(moduleId: translations, name: "Probe \(attempt)"))
            }
            if harness.pump(timeout: 1, until: { view.liveRefreshes > refreshes }) { return }
        }
        XCTFail("the workspace never received a live event")
    }
}
