import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Publishing and segmentation tags in the instance editor, driven through its real widgets
/// against a real server; after each save a second client reads the dates (ms) and tags from the
/// server, not from the app's cache.
final class PublishingTests: XCTestCase {
    func testPublishScheduleArchiveUnpublishAndTagsReachTheServer() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            let publishing = view.editor.publishing
            try harness.openModule("Products")
            var used = Set<String>()
            let ms = { (date: Date?) in date.map(HaloTimestamp.milliseconds(from:)) }

            /// Opens an instance in `state` not opened before (and with `tags` tags when given).
            @MainActor func open(_ state: InstanceState, tags: Int? = nil) throws -> ContentInstance {
                let row = try XCTUnwrap(
                    (0..<(view.pager.totalItems ?? 0)).first { row in
                        guard let instance = view.pager.instance(at: row), let id = instance.id, !used.contains(id) else { return false }
                        return InstanceState(instance: instance) == state && (tags.map { instance.tagList.count == $0 } ?? true)
                    }, "no \(state) instance left")
                let instance = try XCTUnwrap(view.pager.instance(at: row))
                used.insert(try XCTUnwrap(instance.id))
                view.table.columnView.select([row])
                XCTAssertTrue(harness.pump { view.editor.instance?.id == instance.id })
                XCTAssertEqual(publishing.stateRow.title, state.label)
                return instance
            }
            @MainActor func save() throws {
                XCTAssertTrue(view.saveButton.isSensitive, "a publishing change is an edit to save")
                let before = view.completedOperations
                view.saveButton.click()
                harness.waitForOperation(after: before)
                XCTAssertTrue(harness.toasts.last?.hasPrefix("Saved “") ?? false, "\(harness.toasts)")
                XCTAssertFalse(view.saveButton.isSensitive)
            }
            @MainActor func onServer(_ instance: ContentInstance) throws -> ContentInstance {
                try XCTUnwrap(harness.serverInstances(module: "Products").first { $0.id == instance.id })
            }

            // Publish a draft: publishedAt = now (the moment of the click), the rest cleared.
            let draft = try open(.draft)
            XCTAssertTrue(publishing.publishButton.isSensitive)
            XCTAssertFalse(publishing.unpublishButton.isSensitive, "a draft has nothing to unpublish")
            XCTAssertEqual(publishing.publishDate.button.label, "Now")
            XCTAssertEqual(publishing.expiryDate.button.label, "Never")
            let clicked = Date()
            publishing.publishButton.click()
            XCTAssertEqual(publishing.stateRow.title, "Published")
            XCTAssertTrue(publishing.stateRow.subtitle.hasSuffix("not saved yet"), publishing.stateRow.subtitle)
            let publishedAt = try XCTUnwrap(ms(publishing.publication?.publishedAt))
            XCTAssertLessThanOrEqual(abs(Double(publishedAt) - clicked.timeIntervalSince1970 * 1000), 2000)
            try save()
            var stored = try onServer(draft)
            XCTAssertEqual(ms(stored.publishedAt), publishedAt)
            XCTAssertNil(stored.removedAt)
            XCTAssertNil(stored.archivedAt)
            XCTAssertEqual(publishing.stateRow.title, "Published", "the saved instance is shown")
            XCTAssertEqual(view.editor.headerSubtitle, "Published")

            // Schedule another: a publish date next year at 09:45 and an expiry at 18:00 (the
            // user's time zone), then Publish.
            let scheduled = try open(.draft)
            let year = DisplayFormat.localParts(Date()).year + 1
            publishing.publishDate.choose(year: year, month: 6, day: 15, time: "09:45")
            let publishOn = try XCTUnwrap(DisplayFormat.localDate(year: year, month: 6, day: 15, time: "09:45"))
            XCTAssertEqual(publishing.publishDate.button.label, "\(year)-06-15 09:45")
            XCTAssertEqual(publishing.stateRow.title, "Scheduled")
            publishing.publishButton.click()
            XCTAssertEqual(publishing.stateRow.title, "Scheduled", "Publish uses the chosen date")
            // Publish clears the expiry date (an expired instance is live again): it is set after.
            publishing.expiryDate.choose(year: year, month: 7, day: 1, time: "18:00")
            let expireOn = try XCTUnwrap(DisplayFormat.localDate(year: year, month: 7, day: 1, time: "18:00"))
            XCTAssertTrue(publishing.clearExpiryButton.isVisible)
            try save()
            stored = try onServer(scheduled)
            XCTAssertEqual(ms(stored.publishedAt), ms(publishOn))
            XCTAssertEqual(ms(stored.removedAt), ms(expireOn))
            XCTAssertNil(stored.archivedAt)
            XCTAssertEqual(publishing.stateRow.title, "Scheduled")
            XCTAssertEqual(publishing.stateRow.subtitle, "Publishes on \(year)-06-15 09:45")

            // Archive a published instance: archivedAt = now; its publication dates stay.
            let toArchive = try open(.published)
            publishing.archiveButton.click()
            let archivedAt = try XCTUnwrap(ms(publishing.publication?.archivedAt))
            XCTAssertEqual(publishing.stateRow.title, "Archived")
            XCTAssertFalse(publishing.archiveButton.isSensitive)
            try save()
            stored = try onServer(toArchive)
            XCTAssertEqual(ms(stored.archivedAt), archivedAt)
            XCTAssertEqual(ms(stored.publishedAt), ms(toArchive.publishedAt))
            XCTAssertEqual(ms(stored.removedAt), ms(toArchive.removedAt))

            // Unpublish a published instance with one tag; add a tag and remove the one it had.
            let toUnpublish = try open(.published, tags: 1)
            publishing.unpublishButton.click()
            XCTAssertEqual(publishing.stateRow.title, "Draft")
            XCTAssertEqual(publishing.publishDate.button.label, "Now")
            let oldTag = try XCTUnwrap(toUnpublish.tagList.first)
            XCTAssertEqual(publishing.tagRows.map(\.row.title), [Publication.text(of: oldTag)])
            publishing.tagEntry.asEditable.text = " = beta"
            publishing.addTagButton.click()
            XCTAssertEqual(publishing.problemTexts.tags, "Write a tag as name = value, like platform = ios.", "said at the tags")
            XCTAssertEqual(publishing.tagEntry.asEditable.text, " = beta", "nothing typed is lost")
            publishing.tagEntry.asEditable.text = "Audience = beta testers"
            publishing.addTagButton.click()
            XCTAssertNil(publishing.problemTexts.tags)
            XCTAssertEqual(publishing.tagEntry.asEditable.text, "")
            XCTAssertEqual(publishing.tagRows.map(\.row.title), [Publication.text(of: oldTag), "Audience = beta testers"])
            publishing.tagRows[0].remove.click()
            XCTAssertEqual(publishing.tagRows.map(\.row.title), ["Audience = beta testers"])
            try harness.screenshots(name: "instance-publishing")
            try save()
            stored = try onServer(toUnpublish)
            XCTAssertNil(stored.publishedAt)
            XCTAssertNil(stored.archivedAt)
            XCTAssertEqual(ms(stored.removedAt), ms(toUnpublish.removedAt))
            XCTAssertEqual(stored.tagList.map { [$0.name, $0.value] }, [["Audience", "beta testers"]])
            XCTAssertEqual(publishing.tagRows.map(\.row.title), ["Audience = beta testers"])

            // The expiry date can be taken away again.
            let expiring = try open(.published)
            publishing.expiryDate.choose(year: year, month: 1, day: 2)
            XCTAssertEqual(publishing.stateRow.subtitle.contains("expires on \(year)-01-02 00:00"), true, publishing.stateRow.subtitle)
            publishing.clearExpiryButton.click()
            XCTAssertEqual(publishing.expiryDate.button.label, "Never")
            XCTAssertFalse(publishing.clearExpiryButton.isVisible)
            publishing.expiryDate.choose(year: year, month: 1, day: 3)
            try save()
            XCTAssertEqual(ms(try onServer(expiring).removedAt), ms(DisplayFormat.localDate(year: year, month: 1, day: 3, time: "")))
        }
    }

    /// A wrong time of day is said at the dates and nothing is sent; a publishing change left
    /// unsaved is dropped by Discard, as any edit.
    func testBadTimeIsRefusedAtTheDatesAndDiscardDropsThePublishing() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            let publishing = view.editor.publishing
            try harness.openModule("Authors")
            view.table.columnView.select([0])
            let first = try XCTUnwrap(view.pager.instance(at: 0))
            XCTAssertTrue(harness.pump { view.editor.instance?.id == first.id })

            publishing.publishDate.timeEntry.text = "9h"
            XCTAssertEqual(publishing.problemTexts.publishing, "Publish date: Write the time of day as HH:mm, like 14:30.")
            XCTAssertTrue(publishing.publishDate.timeEntry.hasCSSClass("error"))
            XCTAssertTrue(view.saveButton.isSensitive)
            let before = view.completedOperations
            view.saveButton.click()
            XCTAssertEqual(harness.toasts.last, "Publish date: Write the time of day as HH:mm, like 14:30.")
            XCTAssertEqual(view.completedOperations, before, "nothing was sent")
            XCTAssertEqual(publishing.publishDate.timeEntry.text, "9h", "nothing typed is lost")

            // Discard: the publication goes back to what the server has.
            publishing.publishDate.timeEntry.text = "09:00"
            XCTAssertNil(publishing.problemTexts.publishing)
            publishing.archiveButton.click()
            view.table.columnView.select([1])
            try XCTUnwrap(view.pendingDialog, "leaving a publishing change asks first").respond("discard")
            let onServer = try XCTUnwrap(harness.serverInstances(module: "Authors").first { $0.id == first.id })
            XCTAssertEqual(onServer.publishedAt, first.publishedAt)
            XCTAssertEqual(onServer.archivedAt, first.archivedAt)
            XCTAssertFalse(view.editor.isDirty, "the next instance opens unedited")
            // (After Discard the list selects row 0 again while the editor shows row 1, as before
            // this section existed: clear the selection so selecting row 0 opens it.)
            view.table.columnView.select([])
            view.table.columnView.select([0])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == first.id })
            XCTAssertEqual(publishing.publication, Publication(first))
            XCTAssertFalse(view.saveButton.isSensitive)
        }
    }

    /// Published offline: the edit waits in the outbox and reaches the server with its dates and
    /// tags once it is back.
    /// A new instance published (or scheduled) and tagged before its first save is created so.
    func testANewInstanceIsCreatedPublishedAndTagged() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            let publishing = view.editor.publishing
            try harness.openModule("Products")
            view.newInstance()
            XCTAssertTrue(harness.pump { view.editor.isNew })
            view.editor.nameEntry.text = "Published at birth"
            XCTAssertEqual(publishing.stateRow.title, "Draft")
            publishing.publishButton.click()
            XCTAssertEqual(publishing.stateRow.title, "Published")
            publishing.tagEntry.asEditable.text = "region = emea"
            publishing.addTagButton.click()
            let publishedAt = try XCTUnwrap(publishing.publication?.publishedAt)
            let before = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: before)
            XCTAssertEqual(harness.toasts.last, "Created “Published at birth”.")
            let onServer = try XCTUnwrap(harness.serverInstances(module: "Products").first { $0.name == "Published at birth" })
            XCTAssertEqual(onServer.publishedAt.map(HaloTimestamp.milliseconds(from:)), HaloTimestamp.milliseconds(from: publishedAt))
            XCTAssertEqual(onServer.tagList.map { [$0.name, $0.value] }, [["region", "emea"]])
            XCTAssertEqual(publishing.stateRow.title, "Published", "the editor shows the instance as created")
        }
    }

    func testPublishingOfflineIsSentWhenTheServerIsBack() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(serverProcess: true)
            defer { harness.tearDown() }
            let view = harness.view
            let publishing = view.editor.publishing
            try harness.openModule("Products")
            XCTAssertTrue(harness.pump(timeout: 60) { view.offlineCopies.completedSyncs >= 2 && view.offlineCopies.progress == nil })
            let row = try XCTUnwrap((0..<150).first { view.pager.instance(at: $0).map { InstanceState(instance: $0) == .draft } ?? false })
            let draft = try XCTUnwrap(view.pager.instance(at: row))
            harness.killServer()

            view.table.columnView.select([row])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == draft.id })
            publishing.publishButton.click()
            publishing.tagEntry.asEditable.text = "Offline = yes"
            let publishedAt = try XCTUnwrap(publishing.publication?.publishedAt)
            let before = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: before)
            XCTAssertEqual(harness.toasts.last, "“\(draft.name)” is saved on this computer and will be sent when the server is reachable.")
            XCTAssertEqual(publishing.stateRow.title, "Published")
            XCTAssertEqual(publishing.tagRows.map(\.row.title).last, "Offline = yes", "a tag still typed is saved with the edit")

            try harness.restartServer()
            XCTAssertTrue(harness.pump(timeout: 40) { view.connection.isOnline && !view.pendingButton.isVisible }, view.statusLabel.text)
            let onServer = try XCTUnwrap(harness.serverInstances(module: "Products").first { $0.id == draft.id })
            XCTAssertEqual(onServer.publishedAt.map(HaloTimestamp.milliseconds(from:)), HaloTimestamp.milliseconds(from: publishedAt))
            XCTAssertEqual(onServer.tagList.last.map { [$0.name, $0.value] }, ["Offline", "yes"])
        }
    }

    /// The editor with its publishing section, wide and narrow, light and dark.
    func testPublishingScreenshots() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Articles")
            let row = try XCTUnwrap(
                (0..<10).first {
                    view.pager.instance(at: $0).map { InstanceState(instance: $0) == .published && !$0.tagList.isEmpty } ?? false
                })
            view.table.columnView.select([row])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == view.pager.instance(at: row)?.id })
            let year = DisplayFormat.localParts(Date()).year + 1
            view.editor.publishing.expiryDate.choose(year: year, month: 3, day: 1, time: "12:00")
            try harness.screenshots(name: "instance-publishing-wide")
            // Scrolled to the end: the tags.
            let scroller = OpaquePointer(view.editor.widget.raw)
            let adjustment = gtk_scrolled_window_get_vadjustment(scroller)
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_upper(adjustment))
            try harness.screenshots(name: "instance-tags")
            gtk_adjustment_set_value(adjustment, 0)

            harness.window.setDefaultSize(width: 420, height: 760)
            XCTAssertTrue(harness.pump(timeout: 5) { gtk_widget_get_width(harness.window.widget) < 500 && view.isFolded })
            harness.pump(timeout: 1.5) { false }  // let the slide finish
            try harness.screenshots(name: "instance-publishing-narrow")
        }
    }
}
