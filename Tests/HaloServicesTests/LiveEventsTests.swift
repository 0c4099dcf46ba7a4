import Foundation
import HaloServer
import Synchronization
import XCTest

@testable import HaloServices

/// `CoreManager.liveEvents`: one SDK client follows what another changes, across a server that
/// stops and comes back, receiving every change exactly once and in order.
final class LiveEventsTests: XCTestCase {
    /// Collects what a `liveEvents` sequence delivers, for the test to wait on.
    final class Collector: Sendable {
        private let received = Mutex<[LiveEvent]>([])
        var events: [LiveEvent] { received.withLock { $0 } }

        func follow(_ stream: AsyncThrowingStream<LiveEvent, any Error>) -> Task<Void, any Error> {
            Task { for try await event in stream { received.withLock { $0.append(event) } } }
        }

        /// Waits until `count` events came (or `timeout` passed) and returns them.
        func wait(for count: Int, timeout: TimeInterval = 20) async throws -> [LiveEvent] {
            let deadline = Date().addingTimeInterval(timeout)
            while events.count < count && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            return events
        }
    }

    func testAFollowerGetsEveryChangeOnceAndInOrderAcrossAServerRestart() async throws {
        var server = try await OfflineTestServer.start()
        let module = try await server.admin.addModule(ModuleSpec(name: "News", fields: [ModuleField("title", .text)]))
        let follower = try server.core()
        let collector = Collector()
        let following = collector.follow(follower.liveEvents())
        defer { following.cancel() }
        // The stream starts at "now": give it a moment to connect before the first change.
        try await Task.sleep(for: .milliseconds(500))

        let first = try await server.createInstance(module: module, name: "First")
        let second = try await server.createInstance(module: module, name: "Second")
        let beforeRestart = try await collector.wait(for: 2)
        XCTAssertEqual(beforeRestart.count, 2)

        await server.stop()
        server = try await server.restarted()
        _ = try await server.call("PUT", "api/generalcontent/instance/\(first)", ["name": "First, renamed"])
        _ = try await server.call("DELETE", "api/generalcontent/instance/\(second)")
        let third = try await server.createInstance(module: module, name: "Third")

        let all = try await collector.wait(for: 5)
        let changes = all.map { event -> String in
            guard case .content(let change) = event else { return "\(event)" }
            XCTAssertEqual(change.moduleId, module)
            XCTAssertEqual(change.author, "Offline tests")
            return "\(change.kind.rawValue) \(change.instanceId ?? "-")"
        }
        XCTAssertEqual(
            changes, ["created \(first)", "created \(second)", "updated \(first)", "deleted \(second)", "created \(third)"])
        let ids = all.compactMap { event -> Int64? in if case .content(let change) = event { change.eventId } else { nil } }
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertEqual(Set(ids).count, ids.count)
        // Nothing more arrives: no replays after the reconnect.
        try await Task.sleep(for: .milliseconds(700))
        XCTAssertEqual(collector.events.count, 5)
        await server.stop()
    }

    func testResumingFromAnIdTheServerDoesNotKnowStartsWithReset() async throws {
        let server = try await OfflineTestServer.start()
        let module = try await server.admin.addModule(ModuleSpec(name: "News", fields: []))
        _ = try await server.createInstance(module: module, name: "Existing")
        let collector = Collector()
        let following = collector.follow(try server.core().liveEvents(after: 999))
        defer { following.cancel() }
        let events = try await collector.wait(for: 1)
        XCTAssertEqual(events.first, .reset(latestId: 1))
        let next = try await server.createInstance(module: module, name: "Next")
        let afterReset = try await collector.wait(for: 2)
        guard afterReset.count == 2, case .content(let change) = afterReset[1] else { return XCTFail("\(afterReset)") }
        XCTAssertEqual(change.instanceId, next)
        XCTAssertEqual(change.eventId, 2)
        await server.stop()
    }
}
