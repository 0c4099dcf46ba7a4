import Foundation
import HaloServer
import Synchronization
import XCTest

@testable import HaloServices

/// The notifications add-on: two SDK clients, each a device of its own, follow the server's
/// stream; notifications reach the devices they are addressed to and content changes reach both,
/// each exactly once and in order, across a server that stops and comes back, and across a client
/// that was closed while one was sent. Receipts are reported by the add-on.
final class NotificationsAddonTests: XCTestCase {
    /// Records what an add-on delivers: notification titles and content changes, in order.
    final class Recorder: NotificationsDelegate {
        private let received = Mutex<[String]>([])
        var log: [String] { received.withLock { $0 } }
        private let following = Mutex<Task<Void, Never>?>(nil)

        func notificationsAddon(_ addon: NotificationsAddon, didReceive notification: HaloNotification) {
            record("notification \(notification.title ?? notification.type.rawValue)")
        }

        private func record(_ line: String) { received.withLock { $0.append(line) } }

        func follow(_ addon: NotificationsAddon) {
            let events = addon.contentEvents()
            let task = Task { [weak self] in
                for await event in events {
                    guard case .content(let change) = event else { continue }
                    self?.record("\(change.kind.rawValue) \(change.instanceId ?? "-")")
                }
            }
            following.withLock { $0 = task }
        }

        func wait(for count: Int, timeout: TimeInterval = 20) async throws -> [String] {
            let deadline = Date().addingTimeInterval(timeout)
            while log.count < count && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            return log
        }

        deinit { following.withLock { $0?.cancel() } }
    }

    /// A started SDK client with the add-on following; `tag` makes its device carry team=<tag>.
    func startClient(_ server: OfflineTestServer, configuration: HaloConfiguration, tag: String?) async throws
        -> (CoreManager, NotificationsAddon, Recorder)
    {
        let core = CoreManager(configuration: configuration)
        core.numberOfRetries = 0
        let addon = NotificationsAddon()
        let recorder = Recorder()
        addon.delegate = recorder
        recorder.follow(addon)
        core.registerAddon(addon)
        try await core.startup()
        if let tag {
            core.device?.addTag(name: "team", value: tag)
            try await core.saveDevice()
        }
        XCTAssertTrue(addon.isFollowing)
        return (core, addon, recorder)
    }

    func send(_ server: OfflineTestServer, _ title: String, team: String? = nil) async throws -> String {
        var body: JSONValue = ["appId": 1, "name": .string(title), "payload": ["notification": ["title": .string(title)]]]
        if let team, case .object(var members) = body {
            members["filterTags"] = [["name": "team", "value": .string(team)]]
            body = .object(members)
        }
        let answer = try await server.call("POST", "api/push/schedule", body)
        return try XCTUnwrap(answer["id"]?.stringValue)
    }

    func testTwoClientsGetTheirNotificationsAndEveryChangeOnceInOrderAcrossRestarts() async throws {
        var server = try await OfflineTestServer.start()
        let module = try await server.admin.addModule(ModuleSpec(name: "News", fields: [ModuleField("title", .text)]))
        let blueConfiguration = try server.sdkConfiguration()
        var (blue, blueAddon, blueLog) = try await startClient(server, configuration: blueConfiguration, tag: "blue")
        let (red, redAddon, redLog) = try await startClient(server, configuration: try server.sdkConfiguration(), tag: "red")
        defer {
            blueAddon.stop()
            redAddon.stop()
        }
        try await Task.sleep(for: .milliseconds(500))  // the streams connect

        let everyone = try await send(server, "Everyone")
        _ = try await send(server, "Blue team", team: "blue")
        let first = try await server.createInstance(module: module, name: "First")
        _ = try await redLog.wait(for: 2)
        _ = try await blueLog.wait(for: 3)

        await server.stop()
        server = try await server.restarted()
        _ = try await send(server, "After restart")
        let second = try await server.createInstance(module: module, name: "Second")

        let blueSeen = try await blueLog.wait(for: 5)
        let redSeen = try await redLog.wait(for: 4)
        XCTAssertEqual(
            blueSeen,
            ["notification Everyone", "notification Blue team", "created \(first)", "notification After restart", "created \(second)"])
        XCTAssertEqual(redSeen, ["notification Everyone", "created \(first)", "notification After restart", "created \(second)"])

        // Each device reported its receipt of "Everyone" (counted once per device).
        let history = try await server.call("GET", "api/push/schedule")
        let entry = try XCTUnwrap(history.arrayValue?.first { $0["id"]?.stringValue == everyone })
        XCTAssertEqual(entry["activity"]?["receipt"], 2)

        // Blue quits; one notification goes out meanwhile; blue starts again with the same data
        // folder and receives exactly that one, nothing twice.
        blueAddon.stop()
        blue.applicationWillTerminate()
        _ = try await send(server, "While blue was away")
        (blue, blueAddon, blueLog) = try await startClient(server, configuration: blueConfiguration, tag: nil)
        let afterRestart = try await blueLog.wait(for: 1)
        XCTAssertEqual(afterRestart, ["notification While blue was away"])
        try await Task.sleep(for: .milliseconds(700))
        XCTAssertEqual(blueLog.log.count, 1, "no replay: \(blueLog.log)")
        XCTAssertEqual(redLog.log.last, "notification While blue was away")
        _ = red
        await server.stop()
    }
}
