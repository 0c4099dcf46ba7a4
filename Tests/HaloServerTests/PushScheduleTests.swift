import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// Sending notifications (`POST /api/push/schedule/`, §17.3) on the live event stream: only
/// editors send; a notification reaches only the devices it is addressed to (alias, tags, or
/// every device of the app), only on a stream opened with that device's credential; scheduled
/// ones go out at `sendOn` (or are withdrawn); the history counts receipts, opens and dismissals.
final class PushScheduleTests: XCTestCase {
    var server: TestServer!
    var editor: String!
    var app: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        editor = try await server.appToken(editor: true)
        app = try await server.appToken()
    }

    override func tearDown() async throws {
        await server?.stop()
    }

    func register(alias: String, tags: [(String, String)] = [], appId: Int = 1) async throws -> RegisteredDevice {
        try await server.registerDevice(token: app, alias: alias, tags: tags, appId: appId)
    }

    func stream(for device: RegisteredDevice?) async throws -> EventStreamClient {
        let client = try await EventStreamClient.open(port: server.server.port, token: app, headers: device?.headers ?? [:])
        XCTAssertEqual(client.status, 200)
        return client
    }

    @discardableResult
    func send(_ body: JSONValue, token: String? = nil) async throws -> HTTPAnswer {
        try await server.call("POST", "/api/push/schedule/", token: token ?? editor, body: .json(body))
    }

    func notification(_ title: String, aliases: [String] = [], tags: [JSONValue] = [], sendOn: Double? = nil) -> JSONValue {
        var body: [String: JSONValue] = [
            "appId": 1, "name": .string(title), "aliases": .array(aliases.map(JSONValue.string)), "filterTags": .array(tags),
            "payload": ["notification": ["title": .string(title), "body": "Read it in HaloDesk"], "data": ["extra": ["k": "v"]]],
        ]
        if let sendOn { body["sendOn"] = .number(sendOn) }
        return .object(body)
    }

    /// Titles of the notification events that arrive within `seconds`.
    func titles(_ client: EventStreamClient, within seconds: TimeInterval = 1.5) async -> [String] {
        await client.events(for: seconds).filter { $0.event == "notification" }.compactMap { $0.json["title"]?.stringValue }
    }

    func testNotificationsReachOnlyTheDevicesTheyAreAddressedTo() async throws {
        let spain = try await register(alias: "desk-es", tags: [("country", "es"), ("plan", "pro")])
        let spainFree = try await register(alias: "desk-es-free", tags: [("country", "es")])
        let france = try await register(alias: "desk-fr", tags: [("country", "fr"), ("plan", "pro")])
        let otherApp = try await register(alias: "desk-other-app", appId: 2)
        let streams = [
            try await stream(for: spain), try await stream(for: spainFree), try await stream(for: france), try await stream(for: otherApp),
        ]
        let anonymous = try await stream(for: nil)
        try await Task.sleep(for: .milliseconds(300))

        // By tags: only devices carrying every listed tag (given by name and value, or by id).
        let sent = try await send(
            notification("Pro in Spain", tags: [["name": "country", "value": "es"], ["name": "plan", "value": "pro"]]))
        XCTAssertEqual(sent.status, 200, String(decoding: sent.data, as: UTF8.self))
        XCTAssertEqual(sent.json["status"]?.stringValue, "sent")
        // By alias, and to everyone of app 1.
        try await send(notification("Just France", aliases: ["desk-fr"]))
        try await send(notification("Everyone"))

        var received: [[String]] = []
        for client in streams { received.append(await titles(client)) }
        XCTAssertEqual(received[0], ["Pro in Spain", "Everyone"])
        XCTAssertEqual(received[1], ["Everyone"], "a device with only one of the tags is not addressed")
        XCTAssertEqual(received[2], ["Just France", "Everyone"])
        XCTAssertEqual(received[3], [], "another app's devices get nothing")
        let plain = await anonymous.events(for: 0.5)
        XCTAssertEqual(plain.filter { $0.event == "notification" }, [], "a stream without a device credential gets no notification")

        // What a device receives is the payload the SDKs read (§17.1), with the schedule's id.
        let again = try await stream(for: spain)
        try await send(notification("Second"))
        let arrived = await again.events(for: 1.5)
        let event = try XCTUnwrap(arrived.first { $0.event == "notification" })
        XCTAssertEqual(event.json["body"]?.stringValue, "Read it in HaloDesk")
        XCTAssertEqual(event.json["extra"]?.stringValue, #"{"k":"v"}"#)
        XCTAssertNotNil(event.json["scheduleId"]?.stringValue)
    }

    func testOnlyEditorsSendAndBadRequestsAreRefusedByName() async throws {
        let refused = try await send(notification("From an app"), token: app)
        XCTAssertEqual(refused.status, 403)
        for (body, expected) in [
            (JSONValue.object(["name": "x", "payload": ["notification": ["title": "t"]]]), "'appId' is required"),
            (["appId": 1, "payload": ["notification": ["title": "t"]]], "'name' is required"),
            (["appId": 1, "name": "x", "payload": ["notification": ["body": "no title"]]], "title' is required"),
            (["appId": 1, "name": "x", "payload": "text"], "'payload' must be an object"),
            (["appId": 1, "name": "x", "aliases": "one", "payload": ["notification": ["title": "t"]]], "'aliases' must be a list"),
            (
                ["appId": 1, "name": "x", "filterTags": [["value": "v"]], "payload": ["notification": ["title": "t"]]],
                "'filterTags' must hold"
            ),
            (
                ["appId": 1, "name": "x", "payload": ["notification": ["title": "t"], "data": ["url": "javascript:alert(1)"]]],
                "http or https"
            ),
            (
                ["appId": 1, "name": "x", "payload": ["notification": ["title": "t"], "data": ["url": "example.com/no-scheme"]]],
                "http or https"
            ),
            (
                ["appId": 1, "name": "x", "payload": ["notification": ["title": "t"], "data": ["instance": "abc"]]],
                "needs its 'payload.data.module'"
            ),
        ] {
            let answer = try await send(body)
            XCTAssertEqual(answer.status, 400, "\(body)")
            XCTAssertTrue(String(decoding: answer.data, as: UTF8.self).contains(expected), String(decoding: answer.data, as: UTF8.self))
        }
        // A silent notification needs no title.
        let silent = try await send(["appId": 1, "name": "sync", "payload": ["data": ["content_available": "1", "module": "m"]]])
        XCTAssertEqual(silent.status, 200)
        let history = try await server.call("GET", "/api/push/schedule", token: app)
        XCTAssertEqual(history.status, 403, "only editors see what was sent")
    }

    func testAStreamNeedsTheDevicesCurrentSecret() async throws {
        let device = try await register(alias: "desk-1")
        var forged = device
        forged.secret = "not-the-secret"
        let refused = try await EventStreamClient.open(port: server.server.port, token: app, headers: forged.headers)
        XCTAssertEqual(refused.status, 401)
        let half = try await EventStreamClient.open(port: server.server.port, token: app, headers: ["X-Halo-Device": device.id])
        XCTAssertEqual(half.status, 400)
        // Reading the device never shows the secret; renewing it retires the old one.
        let read = try await server.call("GET", "/api/segmentation/appuser/\(device.id)", token: app)
        XCTAssertNil(read.json["eventStreamSecret"])
        let renewed = try await server.call(
            "PUT", "/api/segmentation/appuser/\(device.id)", token: app, body: .json(["renewEventStreamSecret": true]))
        let secret = try XCTUnwrap(renewed.json["eventStreamSecret"]?.stringValue)
        XCTAssertNotEqual(secret, device.secret)
        let old = try await EventStreamClient.open(port: server.server.port, token: app, headers: device.headers)
        XCTAssertEqual(old.status, 401)
        var current = device
        current.secret = secret
        _ = try await stream(for: current)
    }

    func testScheduledNotificationsGoOutOnTimeOrAreWithdrawnAndTheHistoryCountsActivity() async throws {
        let device = try await register(alias: "desk-1")
        let client = try await stream(for: device)
        let soon = Date().timeIntervalSince1970 * 1000 + 1_500
        let scheduled = try await send(notification("Later", sendOn: soon))
        XCTAssertEqual(scheduled.json["status"]?.stringValue, "scheduled")
        let withdrawn = try await send(notification("Never", sendOn: soon))
        let withdrawnId = try XCTUnwrap(withdrawn.json["id"]?.stringValue)
        let cancel = try await server.call("DELETE", "/api/push/schedule/\(withdrawnId)", token: editor)
        XCTAssertEqual(cancel.json["status"]?.stringValue, "cancelled")

        let early = await titles(client, within: 0.8)
        XCTAssertEqual(early, [], "nothing before sendOn")
        let onTime = await titles(client, within: 2.5)
        XCTAssertEqual(onTime, ["Later"], "the scheduled one goes out once; the withdrawn one never")
        let id = try XCTUnwrap(scheduled.json["id"]?.stringValue)
        let tooLate = try await server.call("DELETE", "/api/push/schedule/\(id)", token: editor)
        XCTAssertEqual(tooLate.status, 400)

        // Activity: a receipt (reported twice: counted once per device), an open, a dismissal elsewhere.
        for action in ["receipt", "receipt", "open"] {
            try await server.call(
                "POST", "/api/push/schedule/activity", token: app,
                body: .json(["device": "desk-1", "schedule": .string(id), "action": .string(action), "platform": "linux"]))
        }
        try await server.call(
            "POST", "/api/push/schedule/activity", token: app,
            body: .json(["device": "desk-2", "schedule": .string(id), "action": "dismiss"]))
        let history = try await server.call("GET", "/api/push/schedule", token: editor)
        let entries = try XCTUnwrap(history.json.arrayValue)
        let later = try XCTUnwrap(entries.first { $0["id"]?.stringValue == id })
        XCTAssertEqual(later["status"]?.stringValue, "sent")
        XCTAssertEqual(later["activity"], ["dismiss": 1, "open": 1, "receipt": 1])
        XCTAssertEqual(entries.first { $0["id"]?.stringValue == withdrawnId }?["status"]?.stringValue, "cancelled")
    }

    func testASchedulePastDueWhileTheServerWasStoppedGoesOutAtTheNextStart() async throws {
        let directory = server.directory
        let device = try await register(alias: "desk-1")
        let scheduled = try await send(notification("While away", sendOn: Date().timeIntervalSince1970 * 1000 + 600))
        XCTAssertEqual(scheduled.json["status"]?.stringValue, "scheduled")
        await server.stop(removeData: false)
        try await Task.sleep(for: .milliseconds(800))
        server = try await TestServer.start(directory: directory)
        // A device that was away resumes from its last id and gets it once.
        let client = try await EventStreamClient.open(
            port: server.server.port, token: try await server.appToken(), lastEventId: "0", headers: device.headers)
        let caughtUp = await titles(client, within: 1.5)
        XCTAssertEqual(caughtUp, ["While away"])
    }
}
