import Foundation
import HaloServer
import XCTest

@testable import HaloDesk

/// The status area follows the last request: online while the server answers, offline (since
/// when, why in the tooltip) once it does not, and the workspace keeps what it showed.
final class WorkspaceConnectionTests: XCTestCase {
    func testStatusShowsOfflineWhenTheServerIsGone() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            XCTAssertTrue(view.statusLabel.text.hasPrefix("Online"), view.statusLabel.text)
            XCTAssertTrue(harness.pump(timeout: 30) { view.offlineCopies.completedSyncs == 1 }, "the open module is kept")
            let modules = view.sidebar.modules.count, rows = view.pager.totalItems

            let server = harness.server
            try WorkspaceHarness.wait { await server.stop() }
            view.refresh()
            XCTAssertTrue(harness.pump(timeout: 30) { view.statusLabel.text.hasPrefix("Offline since ") }, view.statusLabel.text)
            XCTAssertFalse(view.connection.isOnline)
            XCTAssertTrue(view.statusLabel.tooltip?.contains("Trying again automatically") ?? false, "\(view.statusLabel.tooltip ?? "")")
            // F5 while offline reloads from the copies: the same modules and rows, and no error.
            XCTAssertTrue(harness.pump { view.pager.totalItems == rows && view.sidebar.modules.count == modules })
            XCTAssertTrue(harness.pump { view.statusLabel.text.contains("showing the copy from ") }, view.statusLabel.text)
            XCTAssertFalse(harness.toasts.contains { $0.hasPrefix("Could not") }, "\(harness.toasts)")
        }
    }

    /// An edit made while the server is down waits in the outbox (the status says so) and reaches
    /// the server once it answers again.
    func testEditWhileOfflineIsSentWhenTheServerIsBack() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            view.table.columnView.select([0])
            let opened = try XCTUnwrap(view.pager.instance(at: 0))
            XCTAssertTrue(harness.pump { view.editor.instance?.id == opened.id })

            let server = harness.server
            let port = server.port
            try WorkspaceHarness.wait { await server.stop() }
            view.editor.nameEntry.text = "Renamed while offline"
            let before = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: before)
            // (A page of rows loading at the same time may fail and toast too, in either order.)
            XCTAssertTrue(
                harness.toasts.contains(
                    "“Renamed while offline” is saved on this computer and will be sent when the server is reachable."), "\(harness.toasts)"
            )
            XCTAssertTrue(view.statusLabel.text.hasPrefix("Offline"), view.statusLabel.text)
            XCTAssertEqual(view.pendingButton.label, "1 edit pending")
            XCTAssertTrue(view.pendingButton.isVisible)

            // The server comes back on the same address and data; the next request sends the edit.
            let directory = harness.directory.appendingPathComponent("server")
            let restarted = try WorkspaceHarness.wait {
                try await HaloServerInstance.start(HaloServerConfiguration(port: port, dataDirectory: directory, logRequests: false))
            }
            defer { _ = try? WorkspaceHarness.wait { await restarted.stop() } }
            view.refresh()
            XCTAssertTrue(
                harness.pump(timeout: 30) { view.statusLabel.text.hasPrefix("Online") && !view.pendingButton.isVisible },
                view.statusLabel.text)
            XCTAssertTrue(harness.pump { harness.toasts.contains("1 pending edit sent.") }, "\(harness.toasts)")
            let onServer = try XCTUnwrap(harness.serverInstances(module: "Products").first { $0.id == opened.id })
            XCTAssertEqual(onServer.name, "Renamed while offline")
        }
    }
}
