import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// E5–E7 devices with segmentation tags (§6), plus version check, push activity and routing.
final class DeviceTests: XCTestCase {
    var server: TestServer!
    var token: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        token = try await server.appToken()
    }

    override func tearDown() async throws { await server.stop() }

    func testCreateGetUpdateDevice() async throws {
        // Android style: appId as a string (its client's app), trailing slash, repeated tag names, a
        // tag without value.
        let created = try await server.call(
            "POST", "/api/segmentation/appuser/", token: token,
            body: .json([
                "appId": "1", "replaceTokens": true, "devices": [["platform": "android", "token": "t1"]],
                "tags": [
                    ["name": "wine", "value": "rose"], ["name": "wine", "value": "white"],
                    ["name": "Spain", "tagType": "000000000000000000000003"], ["name": "Test Device", "value": true],
                ],
            ]))
        XCTAssertEqual(created.status, 200, String(decoding: created.data, as: UTF8.self))
        let device = created.json
        assertSameShape(device, as: try Fixtures.load("ios/segmentation_appuser_success.json"))
        assertSameShape(device, as: try Fixtures.load("android/halo-sdk/deviceResponse.json"))
        XCTAssertEqual(device["appId"], 1)
        XCTAssertTrue(device["alias"]?.stringValue?.hasPrefix("anonymous-") ?? false)
        let id = try XCTUnwrap(device["id"]?.stringValue)
        XCTAssertEqual(id.count, 24)
        let tags = device["tags"]?.arrayValue ?? []
        XCTAssertEqual(tags.filter { $0["name"] == "wine" }.count, 2)
        XCTAssertEqual(tags.first { $0["name"] == "Spain" }?["value"], "")
        XCTAssertEqual(tags.first { $0["name"] == "Test Device" }?["value"], "true")
        XCTAssertTrue(tags.allSatisfy { $0["id"]?.stringValue != nil && $0["value"]?.stringValue != nil })

        // The device's stream secret is issued once, in the registration's answer, never read back.
        XCTAssertEqual(device["eventStreamSecret"]?.stringValue?.count ?? 0, 40, "\(device)")
        let fetched = try await server.call("GET", "/api/segmentation/appuser/\(id)", token: token)
        guard case .object(var withoutSecret) = device else { return XCTFail("not an object: \(device)") }
        withoutSecret.removeValue(forKey: "eventStreamSecret")
        XCTAssertEqual(fetched.json, .object(withoutSecret))

        // iOS style PUT: numeric appId, replaceTokens true replaces the push tokens, tags replace.
        let replaced = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: token,
            body: .json([
                "id": .string(id), "appId": 1, "replaceTokens": true, "createdAt": 1475046170087.9997,
                "devices": [["platform": "ios", "token": "t2"]], "tags": [["name": "Platform Name", "value": "ios"]],
            ]))
        XCTAssertEqual(replaced.status, 200)
        XCTAssertEqual(replaced.json["devices"], [["platform": "ios", "token": "t2"]])
        XCTAssertEqual(replaced.json["tags"]?.arrayValue?.count, 1)
        XCTAssertEqual(replaced.json["alias"], device["alias"])

        // Without replaceTokens a new token is appended.
        let appended = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: token,
            body: .json(["devices": [["platform": "android", "token": "t3"]]]))
        XCTAssertEqual(appended.json["devices"]?.arrayValue?.count, 2)
    }

    func testUnknownDeviceIs404AndBadFieldsAre400() async throws {
        let missing = try await server.call("GET", "/api/segmentation/appuser/000000000000000000000000", token: token)
        assertEnvelope(missing, status: 404)
        let putMissing = try await server.call(
            "PUT", "/api/segmentation/appuser/000000000000000000000000", token: token, body: .json(["tags": []]))
        assertEnvelope(putMissing, status: 404)
        let bad = try await server.call("POST", "/api/segmentation/appuser", token: token, body: .json(["appId": "two", "tags": "x"]))
        assertEnvelope(bad, status: 400)
        XCTAssertEqual(bad.json["error"]?["extra"]?["appId"], "invalid_attribute")
        XCTAssertEqual(bad.json["error"]?["extra"]?["tags"], "invalid_attribute")
    }

    func testVersionBothShapes() async throws {
        let ios = try await server.call("GET", "/api/authentication/version", token: token, headers: ["to-cache": "86400"])
        XCTAssertEqual(ios.status, 200)
        let list = try XCTUnwrap(ios.json.arrayValue)
        XCTAssertEqual(list.count, 1)
        assertSameShape(list[0], as: try Fixtures.load("android/halo-sdk/currentVersionServer.json"))
        let android = try await server.call("GET", "/api/authentication/version/current", token: token)
        XCTAssertEqual(android.json, list[0])
        // Android's comparator needs numeric-dotted versions.
        let minAndroid = try XCTUnwrap(android.json["minAndroid"]?.stringValue)
        XCTAssertTrue(minAndroid.split(separator: ".").allSatisfy { Int($0) != nil })
    }

    func testPushActivityJSONAndForm() async throws {
        // What a device reports about a notification it received: iOS in JSON, Android as a form.
        let device = try await server.registerDevice(token: token, alias: "myalias")
        let editor = try await server.appToken(editor: true)
        let sent = try await server.call(
            "POST", "/api/push/schedule/", token: editor,
            body: .json(["appId": 1, "name": "n", "aliases": ["myalias"], "payload": ["notification": ["title": "Hi"]]]))
        let schedule = try XCTUnwrap(sent.json["id"]?.stringValue)
        XCTAssertEqual(device.alias, "myalias")
        let json = try await server.call(
            "POST", "/api/push/schedule/activity", token: token,
            body: .json(["device": "myalias", "schedule": .string(schedule), "action": "open", "platform": "ios"]))
        assertSameShape(json.json, as: try Fixtures.load("android/halo-notifications/actionNotificationOpen.json"))
        XCTAssertEqual(json.json, ["device": "myalias", "schedule": .string(schedule), "action": "open"])
        let form = try await server.call(
            "POST", "/api/push/schedule/activity", token: token,
            body: .form([("device", "myalias"), ("schedule", schedule), ("action", "dismiss"), ("platform", "android")]))
        assertSameShape(form.json, as: try Fixtures.load("android/halo-notifications/actionNotificationDismiss.json"))
        XCTAssertEqual(form.json, ["device": "myalias", "schedule": .string(schedule), "action": "dismiss"])
        let bad = try await server.call(
            "POST", "/api/push/schedule/activity", token: token, body: .json(["device": "a", "schedule": "b", "action": "explode"]))
        XCTAssertTrue(assertEnvelope(bad, status: 400).contains("action"))
    }

    func testUnknownRoutesAndSlashes() async throws {
        let unknown = try await server.call("GET", "/api/does/not/exist", token: token)
        XCTAssertTrue(assertEnvelope(unknown, status: 404).contains("/api/does/not/exist"))
        let doubled = try await server.call("GET", "//api/authentication/version/current/", token: token)
        XCTAssertEqual(doubled.status, 200)
        XCTAssertEqual(doubled.headers["content-type"], "application/json; charset=utf-8")
    }
}
