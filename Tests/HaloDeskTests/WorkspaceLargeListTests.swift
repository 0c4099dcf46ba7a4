import CGtk
import Foundation
import HaloServer
import XCTest

@testable import HaloDesk

/// 100,000 instances: the list shows the server's total at once and fetches only the pages of
/// the rows on screen, also after jumping to the end, and drops old pages while scrolling on.
final class WorkspaceLargeListTests: XCTestCase {
    func testHundredThousandInstancesPageOnDemand() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let server = harness.server
            let seedStart = Date()
            let moduleIds = try WorkspaceHarness.wait(timeout: 120) { try await server.admin.seedBenchmark(instances: 100_000, modules: 1) }
            print("seeded 100,000 instances in \(Date().timeIntervalSince(seedStart)) s")
            let view = harness.view
            view.refresh()
            XCTAssertTrue(harness.pump { view.sidebar.modules.contains { $0.id == moduleIds.first } })

            let opened = Date()
            view.sidebar.activate(moduleId: try XCTUnwrap(moduleIds.first))
            XCTAssertTrue(harness.pump(timeout: 30) { view.pager.totalItems == 100_000 && view.pager.isLoaded(row: 0) })
            print("first page of 100,000 shown after \(Date().timeIntervalSince(opened)) s")
            // The rows a window shows come first, the rest within a few frames (InstanceTable.reload).
            XCTAssertTrue(harness.pump(timeout: 5) { view.table.model.count == 100_000 }, "\(view.table.model.count) rows")

            // Opening it started keeping a copy for offline use: progress and Cancel in the status
            // area; Cancel stops it and leaves no partial copy behind.
            let copiesBefore = view.offlineCopies.completedSyncs
            XCTAssertTrue(
                harness.pump(timeout: 30) { view.syncLabel.isVisible && view.syncLabel.text.hasSuffix(" of 100,000") },
                view.syncLabel.text)
            XCTAssertTrue(view.syncLabel.text.hasPrefix("Keeping "), view.syncLabel.text)
            XCTAssertTrue(view.syncCancelButton.isVisible)
            try harness.screenshots(name: "workspace-keeping-offline-copy")
            view.syncCancelButton.click()
            XCTAssertTrue(harness.pump { !view.syncLabel.isVisible && !view.syncCancelButton.isVisible }, view.syncLabel.text)
            XCTAssertEqual(view.offlineCopies.completedSyncs, copiesBefore)
            XCTAssertNil(view.offlineCopies.copyDate(moduleId: try XCTUnwrap(moduleIds.first)))

            harness.pump(timeout: 0.5) { false }
            // GTK 4.8 binds ~200 rows ahead of what is visible: at most the first three pages of 100.
            XCTAssertTrue(view.pager.loadedPages.isSubset(of: [0, 1, 2]), "\(view.pager.loadedPages.sorted())")

            // Jump to the end: the last page is fetched, the ones in between are not.
            let adjustment = gtk_scrolled_window_get_vadjustment(OpaquePointer(view.table.widget.raw))
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_upper(adjustment))
            XCTAssertTrue(harness.pump(timeout: 30) { view.pager.isLoaded(row: 99_999) }, "the last rows were not fetched")
            XCTAssertLessThanOrEqual(view.pager.loadedPages.count, 7, "\(view.pager.loadedPages.sorted())")
            XCTAssertTrue(view.pager.loadedPages.contains(999))

            // Scroll down the whole list in 39 jumps (GTK 4.8 lands near, not exactly on, each stop):
            // memory stays bounded — old pages are dropped, not kept for all 100,000 rows.
            let upper = gtk_adjustment_get_upper(adjustment)
            var fetched = Set<Int>()
            for stop in 1..<40 {
                let before = view.pager.loadedPages
                gtk_adjustment_set_value(adjustment, upper * Double(stop) / 40)
                _ = harness.pump(timeout: 5) { !view.pager.loadedPages.isSubset(of: before) }
                fetched.formUnion(view.pager.loadedPages)
                XCTAssertLessThanOrEqual(view.pager.loadedPages.count, view.pager.maxPages)
            }
            XCTAssertGreaterThan(fetched.count, 2 * view.pager.maxPages, "the scroll did not go through enough pages to test eviction")
            XCTAssertFalse(view.pager.loadedPages.contains(0), "the first page should have been dropped by now")
            // A dropped page is fetched again when a row of it is needed.
            XCTAssertNil(view.pager.instance(at: 0))
            XCTAssertTrue(harness.pump(timeout: 30) { view.pager.isLoaded(row: 0) }, "the first rows were not fetched again")

            // Scrolled far down with a row selected, another module opens at its top, with nothing
            // selected, its own rows in the rows that stayed, and back again.
            gtk_adjustment_set_value(adjustment, upper / 2)
            view.table.columnView.select([50_000])
            try harness.openModule("Authors")  // waits for the table to settle (rows removed a few per frame)
            let authorsTotal = try XCTUnwrap(view.pager.totalItems)
            XCTAssertEqual(view.table.model.count, authorsTotal)
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0)
            XCTAssertEqual(view.table.columnView.selectedPositions, [])
            XCTAssertTrue(
                harness.pump(timeout: 5) { Self.firstCellTexts(of: view.table.columnView).first == view.pager.instance(at: 0)?.name })
            view.sidebar.activate(moduleId: try XCTUnwrap(moduleIds.first))
            XCTAssertTrue(harness.pump(timeout: 30) { view.table.isSettled && view.pager.isLoaded(row: 0) })
            XCTAssertEqual(view.table.model.count, 100_000)
            XCTAssertEqual(gtk_adjustment_get_value(adjustment), 0)
        }
    }
}

extension WorkspaceLargeListTests {
    /// The text of each built row's first cell (the name column), in row order, read from the
    /// widgets GTK shows: GtkColumnView ▸ GtkListView ▸ row ▸ cell ▸ label.
    @MainActor
    static func firstCellTexts(of columnView: Widget) -> [String] {
        func firstLabel(in widget: UnsafeMutablePointer<GtkWidget>) -> String? {
            if g_type_check_instance_is_a(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_label_get_type())
                != 0
            {
                return String(cString: gtk_label_get_text(OpaquePointer(widget)))
            }
            return childWidgets(of: widget).lazy.compactMap(firstLabel).first
        }
        let listView = childWidgets(of: columnView.widget).first {
            g_type_check_instance_is_a(UnsafeMutableRawPointer($0).assumingMemoryBound(to: GTypeInstance.self), gtk_list_view_get_type())
                != 0
        }
        return listView.map { childWidgets(of: $0).compactMap(firstLabel) } ?? []
    }
}
