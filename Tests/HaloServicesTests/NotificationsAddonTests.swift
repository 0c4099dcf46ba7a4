import Foundation
import HaloServer
import HaloTestSupport
import Synchronization
import XCTest

@testable import HaloServices

/// The notifications add-on: two SDK clients, each a device of its own, follow the server's
/// stream; notifications reach the devices they are addressed to and content changes reach both,
/// each exactly once and in order, across a server that stops and comes back, and across a client
/// that was closed while one was sent, and across a server process killed (SIGKILL) in the middle of
/// a burst. Receipts are reported by the add-on.
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
    func startClient(configuration: HaloConfiguration, tag: String?) async throws
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
        var (blue, blueAddon, blueLog) = try await startClient(configuration: blueConfiguration, tag: "blue")
        let (red, redAddon, redLog) = try await startClient(configuration: try server.sdkConfiguration(), tag: "red")
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
        (blue, blueAddon, blueLog) = try await startClient(configuration: blueConfiguration, tag: nil)
        let afterRestart = try await blueLog.wait(for: 1)
        XCTAssertEqual(afterRestart, ["notification While blue was away"])
        try await Task.sleep(for: .milliseconds(700))
        XCTAssertEqual(blueLog.log.count, 1, "no replay: \(blueLog.log)")
        XCTAssertEqual(redLog.log.last, "notification While blue was away")
        _ = red
        await server.stop()
    }

    func testEveryEventArrivesExactlyOnceInOrderWhenTheServerIsKilledMidBurst() async throws {
        let binary = try ChildServer.builtBinary()
        let directory = try temporaryDirectory("killed-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await TestBackEnd.current.admin(for: directory)
        let module = try await setup.addModule(ModuleSpec(name: "News", fields: [ModuleField("title", .text)]))
        let client = try await setup.addClient(name: "Kill test", editor: true)
        let first = try ChildServer(binary: binary, directory: directory)
        defer { first.kill() }
        let port = try first.waitForPort()
        let base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)"))

        let (blue, blueAddon, blueLog) = try await startClient(
            configuration: try OfflineTestServer.sdkConfiguration(baseURL: base, client: client), tag: nil)
        let (red, redAddon, redLog) = try await startClient(
            configuration: try OfflineTestServer.sdkConfiguration(baseURL: base, client: client), tag: nil)
        defer {
            blueAddon.stop()
            redAddon.stop()
        }
        try await Task.sleep(for: .milliseconds(500))  // the streams connect

        // A writer alternates notifications and new instances; each is retried until the server
        // answers, so the ones in flight at the kill may commit once or twice, never be lost.
        let writes = 40
        let writer = Task {
            var authorization = try await OfflineTestServer.authorization(baseURL: base, client: client)
            var refused = 0
            for index in 0..<writes {
                let (path, body): (String, JSONValue) =
                    index.isMultiple(of: 2)
                    ? (
                        "api/push/schedule",
                        ["appId": 1, "name": .string("N\(index)"), "payload": ["notification": ["title": .string("N\(index)")]]]
                    )
                    : ("api/generalcontent/instance", ["module": .string(module), "name": .string("I\(index)")])
                let deadline = Date().addingTimeInterval(30)
                while true {
                    do {
                        _ = try await OfflineTestServer.call("POST", base.appendingPathComponent(path), body, authorization: authorization)
                        break
                    } catch  where Date() < deadline {
                        refused += 1
                        try await Task.sleep(for: .milliseconds(100))
                        authorization = (try? await OfflineTestServer.authorization(baseURL: base, client: client)) ?? authorization
                    }
                }
                try await Task.sleep(for: .milliseconds(40))
            }
            return refused
        }
        // Kill the process once the burst is under way, then start it again on the same port.
        let burstStarted = try await blueLog.wait(for: 8)
        XCTAssertGreaterThanOrEqual(burstStarted.count, 8, "the first events arrived before the kill")
        first.kill()
        try await Task.sleep(for: .milliseconds(300))
        let second = try ChildServer(binary: binary, directory: directory, port: port)
        defer { second.kill() }
        _ = try second.waitForPort()
        let refused = try await writer.value
        XCTAssertGreaterThan(refused, 0, "the server was killed in the middle of the burst")

        // What the server committed, in its order: notifications by send time, instances by creation.
        let authorization = try await OfflineTestServer.authorization(baseURL: base, client: client)
        let history = try await OfflineTestServer.call(
            "GET", base.appendingPathComponent("api/push/schedule"), nil, authorization: authorization)
        let sent = (history.arrayValue ?? []).sorted { ($0["sentAt"]?.doubleValue ?? 0) < ($1["sentAt"]?.doubleValue ?? 0) }
        let sentTitles = sent.compactMap { $0["name"]?.stringValue }.map { "notification \($0)" }
        let search = try await OfflineTestServer.call(
            "POST", base.appendingPathComponent("api/generalcontent/instance/search"),
            ["moduleIds": [.string(module)], "pagination": ["skip": true], "sort": "createdAt asc"], authorization: authorization)
        let created = (search.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.map { "created \($0)" }
        XCTAssertGreaterThanOrEqual(sentTitles.count, writes / 2)
        XCTAssertGreaterThanOrEqual(created.count, writes / 2)

        for (name, log) in [("blue", blueLog), ("red", redLog)] {
            let seen = try await log.wait(for: sentTitles.count + created.count)
            XCTAssertEqual(seen.filter { $0.hasPrefix("notification") }, sentTitles, "\(name): every notification once, in order")
            XCTAssertEqual(seen.filter { $0.hasPrefix("created") }, created, "\(name): every change once, in order")
        }
        try await Task.sleep(for: .milliseconds(500))
        XCTAssertEqual(blueLog.log.count, sentTitles.count + created.count, "nothing more arrives: \(blueLog.log.suffix(5))")
        _ = (blue, red)
    }

    /// Drafts reach editors only: an app whose own client may not edit hears of them once an
    /// editor signs in (the add-on opens its stream again with the user's token), and no longer
    /// after sign-out.
    func testTheStreamFollowsTheSignedInUsersRights() async throws {
        let server = try await OfflineTestServer.start()
        let module = try await server.admin.addModule(ModuleSpec(name: "News", fields: [ModuleField("title", .text)]))
        let reader = try await server.admin.addClient(name: "Reader app")
        try await server.admin.addUser(email: "ed@example.com", password: "ed-pass-12", editor: true)
        let (core, addon, log) = try await startClient(
            configuration: try OfflineTestServer.sdkConfiguration(baseURL: server.baseURL, client: reader), tag: nil)
        defer { addon.stop() }
        try await Task.sleep(for: .milliseconds(500))  // the stream connects

        func publishedNow() -> JSONValue { .number((Date().timeIntervalSince1970 * 1000).rounded()) }
        _ = try await server.createInstance(module: module, name: "Draft A")
        let published = try await server.call(
            "POST", "api/generalcontent/instance", ["module": .string(module), "name": "Public", "publishedAt": publishedNow()])
        let publicId = try XCTUnwrap(published["id"]?.stringValue)
        let beforeSignIn = try await log.wait(for: 1)
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(log.log, ["created \(publicId)"], "the app's own token hears of no draft: \(beforeSignIn)")

        _ = try await core.auth.login(authProfile: AuthProfile(email: "ed@example.com", password: "ed-pass-12"), stayLoggedIn: false)
        try await Task.sleep(for: .milliseconds(500))  // the stream opens again with the editor's token
        let draft = try await server.createInstance(module: module, name: "Draft B")
        let signedIn = try await log.wait(for: 2)
        XCTAssertEqual(signedIn.last, "created \(draft)", "an editor hears of drafts")

        await core.auth.logout()
        try await Task.sleep(for: .milliseconds(500))
        _ = try await server.createInstance(module: module, name: "Draft C")
        let last = try await server.call(
            "POST", "api/generalcontent/instance", ["module": .string(module), "name": "Public 2", "publishedAt": publishedNow()])
        let lastId = try XCTUnwrap(last["id"]?.stringValue)
        let signedOut = try await log.wait(for: 3)
        XCTAssertEqual(
            signedOut, ["created \(publicId)", "created \(draft)", "created \(lastId)"], "signed out: no draft again, nothing twice")
        await server.stop()
    }
}
