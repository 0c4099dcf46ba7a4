import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// The live event stream (`GET /api/events`, our extension): content changes arrive on open
/// streams, a reconnect with `Last-Event-ID` receives exactly what was missed (also across a
/// server restart), ids older than the retention get `reset`, heartbeats keep quiet streams
/// alive, streams have limits of their own, and a change reaches only streams that could read the
/// instance (drafts, segmentation).
final class EventStreamTests: XCTestCase {
    var server: TestServer!
    var editor: String!
    var moduleId: String!

    override func tearDown() async throws {
        await server?.stop()
    }

    func start(directory: URL? = nil, _ configure: (inout ServerLimits) -> Void = { _ in }) async throws {
        server = try await TestServer.start(directory: directory) { configuration in configure(&configuration.limits) }
        editor = try await server.appToken(editor: true)
        if moduleId == nil {
            moduleId = try await server.admin.addModule(ModuleSpec(name: "News", fields: [ModuleField("title", .text)]))
        }
    }

    /// Creates an instance and returns its id.
    func create(_ name: String) async throws -> String {
        let answer = try await server.call(
            "POST", "/api/generalcontent/instance", token: editor, body: .json(["module": .string(moduleId), "name": .string(name)]))
        XCTAssertEqual(answer.status, 200)
        return try XCTUnwrap(answer.json["id"]?.stringValue)
    }

    func rename(_ id: String, to name: String) async throws {
        let answer = try await server.call(
            "PUT", "/api/generalcontent/instance/\(id)", token: editor, body: .json(["name": .string(name)]))
        XCTAssertEqual(answer.status, 200)
    }

    func delete(_ id: String) async throws {
        let answer = try await server.call("DELETE", "/api/generalcontent/instance/\(id)", token: editor)
        XCTAssertEqual(answer.status, 200)
    }

    func open(token: String? = nil, lastEventId: String? = nil) async throws -> EventStreamClient {
        try await EventStreamClient.open(port: server.server.port, token: token ?? editor, lastEventId: lastEventId)
    }

    /// (change, instance) of content events, for comparing sequences.
    func changes(_ events: [StreamedEvent]) -> [String] {
        events.map { "\($0.json["change"]?.stringValue ?? "?") \($0.json["instance"]?.stringValue ?? "-")" }
    }

    func testChangesArriveLiveAndAReconnectGetsExactlyWhatItMissedEvenAfterARestart() async throws {
        try await start()
        let stream = try await open()
        XCTAssertEqual(stream.status, 200)
        XCTAssertEqual(stream.headers["content-type"], "text/event-stream; charset=utf-8")

        // Live: a change made by someone else reaches the open stream.
        let first = try await create("First")
        let liveEvent = await stream.nextEvent()
        let live = try XCTUnwrap(liveEvent)
        XCTAssertEqual(live.event, "content")
        XCTAssertEqual(live.json["change"], "created")
        XCTAssertEqual(live.json["module"]?.stringValue, moduleId)
        XCTAssertEqual(live.json["instance"]?.stringValue, first)
        XCTAssertEqual(live.json["by"], "Editor app")
        let lastSeen = try XCTUnwrap(live.id)

        // Missed while disconnected: an update, a create and a delete, in that order.
        let second = try await create("Second")
        try await rename(first, to: "First, renamed")
        try await delete(second)
        let resumed = try await open(lastEventId: lastSeen)
        let missed = await resumed.events(for: 1.5)
        XCTAssertEqual(changes(missed), ["created \(second)", "updated \(first)", "deleted \(second)"])
        let ids = missed.compactMap { $0.id.flatMap(Int.init) }
        XCTAssertEqual(ids, ids.sorted(), "events come in order")
        XCTAssertEqual(Set(ids).count, 3, "each once")

        // A restart in the middle: the events are stored, so a reconnect resumes from the log.
        let directory = server.directory
        await server.stop(removeData: false)
        let afterStop = await resumed.nextEvent(timeout: 5)
        XCTAssertNil(afterStop, "the stream ends when the server stops")
        XCTAssertTrue(resumed.closed)
        try await start(directory: directory)
        let third = try await create("Third")
        let afterRestart = try await open(lastEventId: missed[1].id)
        let sinceRestart = await afterRestart.events(for: 1.5)
        XCTAssertEqual(changes(sinceRestart), ["deleted \(second)", "created \(third)"])
    }

    func testAnIdOlderThanTheRetentionOrUnknownGetsReset() async throws {
        try await start { limits in
            limits.eventRetention = .seconds(3)
            limits.eventHeartbeat = .seconds(1)
        }
        _ = try await create("Soon pruned")
        _ = try await create("Also pruned")
        try await Task.sleep(for: .milliseconds(5_000))  // older than the retention, and pruned by a heartbeat

        // An id whose successor is still kept resumes normally (checked first: "Kept" is pruned
        // in turn 3 s from now).
        let kept = try await create("Kept")
        let fine = try await open(lastEventId: "2")
        let resumedEvents = await fine.events(for: 1)
        XCTAssertEqual(changes(resumedEvents), ["created \(kept)"])

        // An id whose successors were pruned: reset, carrying the newest id to resume from after
        // resyncing; from there the stream goes on normally.
        let stale = try await open(lastEventId: "1")
        let resetEvent = await stale.nextEvent()
        let reset = try XCTUnwrap(resetEvent)
        XCTAssertEqual(reset.event, "reset")
        XCTAssertEqual(reset.id, "3")
        XCTAssertEqual(reset.json["latestId"], 3)
        let next = try await create("Next")
        let afterReset = await stale.events(for: 1)
        XCTAssertEqual(changes(afterReset), ["created \(next)"])

        // An id this server never gave (another server's, or a wiped database) is a reset too.
        let future = try await open(lastEventId: "999")
        let unknown = await future.nextEvent()
        XCTAssertEqual(unknown?.event, "reset")
    }

    func testHeartbeatsKeepAQuietStreamOpenPastTheIdleTimeout() async throws {
        try await start { limits in
            limits.eventHeartbeat = .seconds(1)
            limits.idleTimeout = .seconds(2)
        }
        let stream = try await open()
        let quiet = await stream.events(for: 4.5)
        XCTAssertEqual(quiet, [], "no events on a quiet server")
        XCTAssertFalse(stream.closed, "the stream outlives the idle timeout")
        XCTAssertGreaterThanOrEqual(stream.comments.filter { $0 == "heartbeat" }.count, 3, "\(stream.comments)")
        let id = try await create("Still listening")
        let later = await stream.events(for: 1)
        XCTAssertEqual(changes(later), ["created \(id)"])
    }

    func testStreamsHaveLimitsOfTheirOwnAndRequireAToken() async throws {
        try skipInCluster("each process caps the streams it holds")
        try await start { limits in
            limits.eventStreamsPerToken = 1
            limits.eventStreams = 2
        }
        let first = try await open()
        XCTAssertEqual(first.status, 200)
        let sameToken = try await open()
        XCTAssertEqual(sameToken.status, 429)
        XCTAssertEqual(sameToken.headers["retry-after"], "30")

        let other = try await server.appToken()
        let second = try await open(token: other)
        XCTAssertEqual(second.status, 200, "an app token may follow content changes")
        let third = try await open(token: try await server.appToken())
        XCTAssertEqual(third.status, 503, "the server-wide cap")

        // Ordinary requests are not counted against stream limits.
        let search = try await server.call(
            "POST", "/api/generalcontent/instance/search", token: editor, body: .json(["moduleIds": [.string(moduleId)]]))
        XCTAssertEqual(search.status, 200)

        let badToken = try await open(token: "not-a-token")
        XCTAssertEqual(badToken.status, 401)
        let noToken = try await EventStreamClient.open(port: server.server.port, token: nil)
        XCTAssertEqual(noToken.status, 401)
        let badId = try await open(lastEventId: "-3")
        XCTAssertEqual(badId.status, 400)
    }

    /// Creates an instance with `publishedAt` (nil: a draft) and segmentation `tags`; returns its id.
    func create(_ name: String, published: Bool, tags: [(String, String)] = []) async throws -> String {
        var body: [String: JSONValue] = [
            "module": .string(moduleId), "name": .string(name),
            "tags": .array(tags.map { .object(["name": .string($0.0), "value": .string($0.1)]) }),
        ]
        if published { body["publishedAt"] = .number(Double(Date().timeIntervalSince1970 * 1000)) }
        let answer = try await server.call("POST", "/api/generalcontent/instance", token: editor, body: .json(.object(body)))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return try XCTUnwrap(answer.json["id"]?.stringValue)
    }

    func testAChangeReachesOnlyStreamsThatCouldReadTheInstance() async throws {
        try await start()
        let app = try await server.appToken()
        let ios = try await server.registerDevice(token: app, alias: "ios-phone", tags: [("Platform Name", "ios")])
        let android = try await server.registerDevice(token: app, alias: "android-phone", tags: [("Platform Name", "android")])
        let editorStream = try await open()
        let appStream = try await open(token: app)
        let iosStream = try await EventStreamClient.open(port: server.server.port, token: app, headers: ios.headers)
        let androidStream = try await EventStreamClient.open(port: server.server.port, token: app, headers: android.headers)
        for stream in [editorStream, appStream, iosStream, androidStream] { XCTAssertEqual(stream.status, 200) }

        let draft = try await create("Draft", published: false)
        let everyone = try await create("For everyone", published: true)
        let iosOnly = try await create("For iOS", published: true, tags: [("Platform Name", "ios")])
        // Publishing the draft makes it readable: everyone hears of that change.
        let publish = try await server.call(
            "PUT", "/api/generalcontent/instance/\(draft)", token: editor,
            body: .json(["publishedAt": .number(Double(Date().timeIntervalSince1970 * 1000))]))
        XCTAssertEqual(publish.status, 200)
        let marker = try await create("Last", published: true)

        func heard(_ stream: EventStreamClient) async -> [String] {
            var seen: [String] = []
            while let event = await stream.nextEvent(timeout: 5) {
                guard event.event == "content" else { continue }  // an id alone: a skipped event
                seen.append(changes([event])[0])
                if event.json["instance"]?.stringValue == marker { break }
            }
            return seen
        }
        let all = ["created \(draft)", "created \(everyone)", "created \(iosOnly)", "updated \(draft)", "created \(marker)"]
        let editorHeard = await heard(editorStream)
        XCTAssertEqual(editorHeard, all, "editors hear of everything, drafts included")
        let appHeard = await heard(appStream)
        XCTAssertEqual(
            appHeard, ["created \(everyone)", "created \(iosOnly)", "updated \(draft)", "created \(marker)"],
            "an app token hears of no draft; without a device it may read every segment")
        let iosHeard = await heard(iosStream)
        XCTAssertEqual(iosHeard, ["created \(everyone)", "created \(iosOnly)", "updated \(draft)", "created \(marker)"])
        let androidHeard = await heard(androidStream)
        XCTAssertEqual(
            androidHeard, ["created \(everyone)", "updated \(draft)", "created \(marker)"],
            "a device outside the instance's segment does not hear of it")

        // A skipped event still moves the stream's id: a reconnect from the android stream's last
        // id gets nothing old again.
        let resumed = try await EventStreamClient.open(
            port: server.server.port, token: app, lastEventId: androidStream.lastEventId, headers: android.headers)
        let again = await resumed.events(for: 1)
        XCTAssertEqual(changes(again.filter { $0.event == "content" }), [])
    }

    func testADeviceHoldsALimitedNumberOfStreams() async throws {
        try skipInCluster("each process caps the streams it holds")
        try await start { limits in limits.eventStreamsPerDevice = 1 }
        let app = try await server.appToken()
        let device = try await server.registerDevice(token: app, alias: "desk")
        var first: EventStreamClient? = try await EventStreamClient.open(port: server.server.port, token: app, headers: device.headers)
        XCTAssertEqual(first?.status, 200)
        let second = try await EventStreamClient.open(port: server.server.port, token: app, headers: device.headers)
        XCTAssertEqual(second.status, 429, "one stream per device here")
        XCTAssertEqual(second.headers["retry-after"], "30")
        let plain = try await open(token: app)
        XCTAssertEqual(plain.status, 200, "the same token without the device credential is counted apart")

        first = nil  // the client goes away: its slot is freed once the server notices
        var reopened = 0
        for _ in 0..<50 where reopened != 200 {
            try await Task.sleep(for: .milliseconds(100))
            _ = try await create("Wake the streams")  // a write fails on the closed socket
            reopened = try await EventStreamClient.open(port: server.server.port, token: app, headers: device.headers).status
        }
        XCTAssertEqual(reopened, 200, "the device's slot is free again")
        XCTAssertNil(first)
    }
}
