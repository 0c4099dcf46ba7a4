import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

/// Issue 45, hole 3: push payloads were bounded only in `title` and `body`, and three
/// notifications with a 7 MB `payload.notification.icon` sent 21 MB to every listening device.
/// `payload` is at most 4,096 UTF-8 bytes of compact JSON, counted in bytes (four-byte characters
/// here), against a real `halo-server` process.
final class PushPayloadLimitTests: XCTestCase {
    func testAPayloadOfExactly4096BytesIsSentAndOneByteMoreIsRefused() async throws {
        let child = try await LimitChild.start()
        defer { child.stop() }
        let editor = try await child.appToken(editor: true)

        let exact = Self.payload(bytes: 4096)
        XCTAssertEqual(PushLimits.payloadBytes(exact), 4096, "the server counts what this test counts")
        let sent = try await child.call("POST", "/api/push/schedule", token: editor, body: Self.body(exact))
        assertStatus(sent, 200)
        XCTAssertEqual(sent.json["payload"], exact)
        XCTAssertEqual(sent.json["status"], "sent")

        let over = try await child.call("POST", "/api/push/schedule", token: editor, body: Self.body(Self.payload(bytes: 4097)))
        let message = assertEnvelope(over, status: 400)
        XCTAssertTrue(message.contains("'payload'") && message.contains("4096 bytes") && message.contains("4097"), message)

        // The hole as found: a big icon, with title and body within their own caps.
        let icon: JSONValue = ["notification": ["title": "Hi", "icon": .string(String(repeating: "x", count: 7_000_000))]]
        assertEnvelope(try await child.call("POST", "/api/push/schedule", token: editor, body: Self.body(icon)), status: 400)
        let history = try await child.call("GET", "/api/push/schedule", token: editor)
        XCTAssertEqual(history.json.arrayValue?.count, 1, "refused notifications are neither sent nor kept")
    }

    /// `{"data":{},"notification":{"icon":"…","title":"Limit"}}` of exactly `bytes` bytes: the
    /// icon of four-byte characters topped up with one-byte ones (written out by hand, not with
    /// the serializer under test).
    static func payload(bytes: Int) -> JSONValue {
        let frame = "{\"data\":{},\"notification\":{\"icon\":\"\",\"title\":\"Limit\"}}".utf8.count
        let room = bytes - frame
        let icon = String(repeating: "😀", count: room / 4) + String(repeating: "a", count: room % 4)
        XCTAssertEqual(("{\"data\":{},\"notification\":{\"icon\":\"" + icon + "\",\"title\":\"Limit\"}}").utf8.count, bytes)
        return ["data": .object([:]), "notification": ["icon": .string(icon), "title": "Limit"]]
    }

    static func body(_ payload: JSONValue) -> JSONValue {
        ["appId": 1, "name": "Limit", "payload": payload]
    }
}
