import Foundation
import HaloServer
import HaloServices
import XCTest

@testable import HaloDesk

/// An outage as a user meets it, with the app's default settings: `halo-server` runs as its own
/// process and is killed with SIGKILL mid-session, then started again on the same port.
final class OfflineWorkspaceTests: XCTestCase {
    func testBrowseSearchAndEditThroughAnOutageThenEveryEditArrivesOnce() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(serverProcess: true)
            defer { harness.tearDown() }
            let view = harness.view

            // Opening modules keeps a copy of each (the first one was opened by the harness).
            try harness.openModule("Products")
            try harness.openModule("Authors")
            XCTAssertTrue(
                harness.pump(timeout: 60) { view.offlineCopies.completedSyncs >= 3 && view.offlineCopies.progress == nil },
                "copies made: \(view.offlineCopies.completedSyncs)")
            XCTAssertFalse(view.syncLabel.isVisible, "the sync label hides once the copies are made")
            let products = try harness.serverInstances(module: "Products")
            let authors = try harness.serverInstances(module: "Authors")
            let articles = try harness.serverInstances(module: "Articles")

            harness.killServer()

            // Browsing: every module opened before shows all its rows, from the copy.
            try harness.openModule("Articles")
            XCTAssertTrue(harness.pump(timeout: 30) { view.pager.totalItems == articles.count }, "\(view.pager.totalItems ?? -1)")
            XCTAssertTrue(view.statusLabel.text.hasPrefix("Offline since "), view.statusLabel.text)
            XCTAssertTrue(view.statusLabel.text.contains("showing the copy from "), view.statusLabel.text)
            XCTAssertFalse(view.connection.isOnline)

            // Searching offline: the same answer as the server gave for the same filter.
            try harness.openModule("Products")
            let word = try XCTUnwrap(products.first?.name.split(separator: " ").first.map(String.init))
            view.searchEntry.text = word
            let expected = products.filter { $0.name.localizedCaseInsensitiveContains(word) }
            XCTAssertTrue(
                harness.pump {
                    view.pager.nameFilter == word && view.pager.totalItems == expected.count && view.pager.instance(at: 0) != nil
                },
                "\(view.pager.totalItems ?? -1) of \(expected.count)")
            XCTAssertTrue((0..<expected.count).allSatisfy { view.pager.instance(at: $0)?.name.contains(word) ?? false })
            view.searchEntry.text = ""

            // Editing offline: create, change and delete wait on this computer and show at once.
            try harness.openModule("Authors")
            view.newButton.click()
            view.editor.nameEntry.text = "Made in the outage"
            var before = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: before)
            XCTAssertEqual(
                harness.toasts.last, "“Made in the outage” is saved on this computer and will be sent when the server is reachable.")
            XCTAssertTrue(
                harness.pump { view.pager.totalItems == authors.count + 1 && Self.row(named: "Made in the outage", in: view) != nil },
                "the new instance is listed at once")
            let newRow = try XCTUnwrap(Self.row(named: "Made in the outage", in: view))
            XCTAssertTrue(view.pendingEdits.isUnsent(try XCTUnwrap(view.pager.instance(at: newRow))), "marked as not sent")
            XCTAssertEqual(newRow, 0, "recently updated first: the instance just made comes first")

            let renamed = try XCTUnwrap(authors.first { $0.name != "Made in the outage" })
            let renamedRow = try XCTUnwrap(Self.row(named: renamed.name, in: view))
            view.table.columnView.select([renamedRow])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == renamed.id })
            view.editor.nameEntry.text = "Renamed in the outage"
            before = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: before)
            XCTAssertTrue(harness.pump { Self.row(named: "Renamed in the outage", in: view) != nil }, "the change is listed at once")

            let doomed = try XCTUnwrap(authors.first { $0.id != renamed.id })
            let doomedRow = try XCTUnwrap(Self.row(named: doomed.name, in: view))
            view.table.columnView.select([doomedRow])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == doomed.id })
            before = view.completedOperations
            view.deleteButton.click()
            try XCTUnwrap(view.pendingDialog).respond("delete")
            harness.waitForOperation(after: before)
            XCTAssertEqual(harness.toasts.last, "“\(doomed.name)” will be deleted when the server is reachable.")
            XCTAssertTrue(harness.pump { view.pager.totalItems == authors.count }, "the deletion is listed at once")
            XCTAssertEqual(view.pendingButton.label, "3 edits pending")
            XCTAssertTrue(view.statusLabel.text.hasPrefix("Offline since ") || view.statusLabel.text.hasPrefix("Reconnecting"))
            try harness.screenshots(name: "workspace-offline")

            // The server comes back: without any user action the app notices, sends, and says so.
            try harness.restartServer()
            XCTAssertTrue(
                harness.pump(timeout: 40) { view.connection.isOnline && !view.pendingButton.isVisible }, view.statusLabel.text)
            XCTAssertTrue(harness.pump { harness.toasts.contains("3 pending edits sent.") }, "\(harness.toasts)")
            XCTAssertTrue(view.statusLabel.text.hasPrefix("Online"), view.statusLabel.text)

            // The second client sees each edit exactly once.
            let onServer = try harness.serverInstances(module: "Authors")
            XCTAssertEqual(onServer.filter { $0.name == "Made in the outage" }.count, 1)
            XCTAssertEqual(onServer.first { $0.id == renamed.id }?.name, "Renamed in the outage")
            XCTAssertFalse(onServer.contains { $0.id == doomed.id })
            XCTAssertEqual(onServer.count, authors.count)
            XCTAssertTrue(harness.pump { view.pager.source == .server }, "the list reads from the server again")
        }
    }

    /// The first loaded row showing `name`.
    @MainActor
    private static func row(named name: String, in view: WorkspaceView) -> Int? {
        (0..<(view.pager.totalItems ?? 0)).first { view.pager.instance(at: $0)?.name == name }
    }
}

/// Damaged files met when the workspace opens: the user hears about them in words.
final class DamagedOfflineFilesTests: XCTestCase {
    func testADamagedPendingEditsFileIsReportedWithWhereItWasKept() throws {
        try MainActor.assumeIsolated {
            let garbage = Data(repeating: 0x21, count: 4096)
            var outboxFile: URL?
            let harness = try WorkspaceHarness { core in
                let baseURL = try XCTUnwrap(core.environment.baseURL)
                let file = CacheLocation.outboxFile(for: baseURL, account: core.offlineAccount, in: core.configuration.dataDirectory)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try garbage.write(to: file)
                outboxFile = file
            }
            defer { harness.tearDown() }
            let aside = try XCTUnwrap(harness.appCore.offlineCache().movedAsideOutboxFile)
            XCTAssertEqual(aside.deletingLastPathComponent(), outboxFile?.deletingLastPathComponent())
            XCTAssertEqual(try Data(contentsOf: aside), garbage, "kept as it was, for the user")
            XCTAssertTrue(
                harness.toasts.contains("Edits waiting to be sent could not be read. The damaged file was kept as \(aside.path)."),
                "\(harness.toasts)")
        }
    }
}
