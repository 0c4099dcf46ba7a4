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

    /// A device of app `appId`, registered with a token of a client of that app (its `appId` must
    /// be its client's app, docs/protocol.md §23.12).
    func register(alias: String, tags: [(String, String)] = [], appId: Int = 1) async throws -> RegisteredDevice {
        try await server.registerDevice(
            token: appId == 1 ? app : try await appToken(ofApp: Int64(appId)), alias: alias, tags: tags, appId: appId)
    }

    /// A token of a new app client of the app `appId` (`halo-server client add` makes app 1's).
    func appToken(ofApp appId: Int64) async throws -> String {
        try await server.token(for: try await server.admin.addClient(appId: appId))
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
        let unproven = try await server.call(
            "PUT", "/api/segmentation/appuser/\(device.id)", token: app, body: .json(["renewEventStreamSecret": true]))
        assertEnvelope(unproven, status: 403)
        let renewed = try await server.call(
            "PUT", "/api/segmentation/appuser/\(device.id)", token: app, body: .json(["renewEventStreamSecret": true]),
            headers: ["X-Halo-Device-Secret": device.secret])
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
        _ = try await register(alias: "desk-2")
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

/// Activity counts only what happened (issue 45, hole 7; §17.2), against a real `halo-server`
/// process: a report for a device that does not exist, that was not in the notification's audience
/// when it went out, or for a notification that does not exist (or has not gone out) is a 404 and
/// is never counted.
final class PushActivityTests: XCTestCase {
    var server: ChildDeployment!
    var app: String!
    var otherApp: String!
    var editor: String!

    override func setUp() async throws {
        var clients: [ClientCredentials] = []
        server = try await ChildDeployment.start { admin in
            clients = [
                try await admin.addClient(name: "App"), try await admin.addClient(name: "Other"), try await admin.addClient(editor: true),
            ]
        }
        app = try await server.token(clients[0])
        otherApp = try await server.token(clients[1])
        editor = try await server.token(clients[2])
    }

    override func tearDown() async throws { server?.stop() }

    func send(_ title: String, aliases: [String] = [], tags: [JSONValue] = [], sendOn: Double? = nil) async throws -> String {
        var body: [String: JSONValue] = [
            "appId": 1, "name": .string(title), "aliases": .array(aliases.map(JSONValue.string)), "filterTags": .array(tags),
            "payload": ["notification": ["title": .string(title)]],
        ]
        if let sendOn { body["sendOn"] = .number(sendOn) }
        let answer = try await server.call("POST", "/api/push/schedule/", token: editor, body: .json(.object(body)))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return try XCTUnwrap(answer.json["id"]?.stringValue)
    }

    func report(_ alias: String, _ schedule: String, _ action: String = "receipt", token: String? = nil) async throws -> HTTPAnswer {
        try await server.call(
            "POST", "/api/push/schedule/activity", token: token ?? app,
            body: .json(["device": .string(alias), "schedule": .string(schedule), "action": .string(action), "platform": "linux"]))
    }

    func activity(_ schedule: String) async throws -> JSONValue? {
        let history = try await server.call("GET", "/api/push/schedule", token: editor)
        return history.json.arrayValue?.first { $0["id"]?.stringValue == schedule }?["activity"]
    }

    func testOnlyTheAudienceOfASentNotificationReportsAndIsCounted() async throws {
        _ = try await server.register(app, ["alias": "pro-desk", "tags": [["name": "plan", "value": "pro"]]])
        _ = try await server.register(app, ["alias": "free-desk", "tags": [["name": "plan", "value": "free"]]])
        let pro = try await send("For pros", tags: [["name": "plan", "value": "pro"]])
        let byAlias = try await send("For one", aliases: ["free-desk"])
        // Joins the audience's segment after the notification went out: it never received it.
        _ = try await server.register(app, ["alias": "late-desk", "tags": [["name": "plan", "value": "pro"]]])
        let later = try await send("Not yet", sendOn: Date().timeIntervalSince1970 * 1000 + 3_600_000)

        for (alias, schedule, message) in [
            ("free-desk", pro, "was not sent to device free-desk"), ("late-desk", pro, "was not sent to device late-desk"),
            ("pro-desk", byAlias, "was not sent to device pro-desk"), ("nobody", pro, "Device nobody not found"),
            ("pro-desk", "000000000000000000000000", "not found"), ("pro-desk", later, "not sent yet"),
        ] {
            for action in ["receipt", "open", "dismiss"] {
                let refused = try await report(alias, schedule, action)
                XCTAssertTrue(assertEnvelope(refused, status: 404).contains(message), "\(alias) \(schedule): \(refused.json)")
            }
        }
        // Another app's token reports for this app's device: none of its business.
        assertEnvelope(try await report("pro-desk", pro, token: otherApp), status: 404)
        try await assertEqual(try await server.count("server_push_activity"), 0, "nothing refused is stored")

        // What happened counts, once per device and action.
        for action in ["receipt", "receipt", "open"] {
            let accepted = try await report("pro-desk", pro, action)
            XCTAssertEqual(accepted.json, ["device": "pro-desk", "schedule": .string(pro), "action": .string(action)])
        }
        try await assertEqual(try await report("free-desk", byAlias, "dismiss").status, 200)
        try await assertEqual(try await activity(pro), ["dismiss": 0, "open": 1, "receipt": 1])
        try await assertEqual(try await activity(byAlias), ["dismiss": 1, "open": 0, "receipt": 0])
        try await assertEqual(try await activity(later), ["dismiss": 0, "open": 0, "receipt": 0])
    }

    /// A broadcast (no aliases, no tags) goes to every device of its app at that moment.
    func testABroadcastsAudienceIsTheAppsDevicesWhenItWentOut() async throws {
        _ = try await server.register(app, ["alias": "before"])
        let everyone = try await send("Everyone")
        _ = try await server.register(app, ["alias": "after"])
        try await assertEqual(try await report("before", everyone).status, 200)
        assertEnvelope(try await report("after", everyone), status: 404)
        // Android reports with a form (§17.2).
        let form = try await server.call(
            "POST", "/api/push/schedule/activity", token: app,
            body: .form([("device", "before"), ("schedule", everyone), ("action", "open"), ("platform", "android")]))
        XCTAssertEqual(form.json, ["device": "before", "schedule": .string(everyone), "action": "open"])
        try await assertEqual(try await activity(everyone), ["dismiss": 0, "open": 1, "receipt": 1])
    }
}
