import Foundation
import XCTest

@testable import HaloDesk

/// The status area follows the last request: online while the server answers, offline (with the
/// reason) once it does not, and errors reach the user as sentences.
final class WorkspaceConnectionTests: XCTestCase {
    func testStatusShowsOfflineWhenTheServerIsGone() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            XCTAssertTrue(view.statusLabel.text.hasPrefix("Online"), view.statusLabel.text)

            let server = harness.server
            try WorkspaceHarness.wait { await server.stop() }
            view.refresh()
            XCTAssertTrue(harness.pump(timeout: 30) { view.statusLabel.text.hasPrefix("Offline") }, view.statusLabel.text)
            XCTAssertFalse(view.connection.isOnline)
            XCTAssertTrue(harness.toasts.contains { $0.hasPrefix("Could not load the modules: ") }, "\(harness.toasts)")
        }
    }
}
