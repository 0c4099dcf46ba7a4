import Foundation
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer

/// The official SDKs' device traffic, replayed as they send it (docs/protocol.md §4, §6, §7.2,
/// §17.2), against a real `halo-server` process under the device rules of issue 45 (§23.12): each
/// flow passes unchanged with a non-editor app client.
final class DeviceCompatibilityTests: XCTestCase {
    var server: ChildDeployment!
    var client: ClientCredentials!
    var editor: ClientCredentials!

    override func setUp() async throws {
        var clients: [ClientCredentials] = []
        server = try await ChildDeployment.start { admin in
            clients = [try await admin.addClient(name: "Mobile app"), try await admin.addClient(editor: true)]
            try await admin.addUser(email: "reader@example.com", password: "secret-password")
        }
        (client, editor) = (clients[0], clients[1])
    }

    override func tearDown() async throws { server?.stop() }

    /// iOS tags and body of a save (§6.2): timestamps always, fractional ones too.
    func iosBody(id: String? = nil, alias: String? = nil, token: String? = nil) -> JSONValue {
        var body: [String: JSONValue] = [
            "tags": [["name": "Platform Name", "value": "ios", "tagType": "000000000000000000000001"]],
            "devices": .array(token.map { [["platform": "ios", "token": .string($0)]] } ?? []),
            "createdAt": 1475046170087.9997, "updatedAt": 0,
        ]
        if let id { body["id"] = .string(id); body["replaceTokens"] = true; body["appId"] = 1 }
        if let alias { body["alias"] = .string(alias) }
        return .object(body)
    }

    /// §4.1: a first launch (401, client credentials, POST), then the next launch's GET of the
    /// stored device and PUT with `replaceTokens` (and the push token), with the app token and
    /// without the stream secret; after an identified login (JSON, sent with the app token and
    /// naming the device) the same PUT with the user's token (app+ mode, §3.5).
    func testIOSStartUpThenIdentifiedLoginThenSaveWithTheUserToken() async throws {
        let anonymous = try await server.call("POST", "/api/segmentation/appuser", body: .json(iosBody()))
        assertEnvelope(anonymous, status: 401)
        let app = try await server.token(client)
        let created = try await server.call("POST", "/api/segmentation/appuser", token: app, body: .json(iosBody()))
        XCTAssertEqual(created.status, 200, String(decoding: created.data, as: UTF8.self))
        let id = try XCTUnwrap(created.json["id"]?.stringValue)
        let alias = try XCTUnwrap(created.json["alias"]?.stringValue)
        let secret = try XCTUnwrap(created.json["eventStreamSecret"]?.stringValue)

        // Next launch: a new app token, GET, then PUT with replaceTokens and the FCM token.
        let nextApp = try await server.token(client)
        let read = try await server.call("GET", "/api/segmentation/appuser/\(id)", token: nextApp)
        XCTAssertEqual(read.json["alias"]?.stringValue, alias)
        let saved = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: nextApp, body: .json(iosBody(id: id, alias: alias, token: "fcm-1")))
        XCTAssertEqual(saved.status, 200, String(decoding: saved.data, as: UTF8.self))
        XCTAssertEqual(saved.json["devices"], [["platform": "ios", "token": "fcm-1"]])

        // Identified login (§7.2, iOS: JSON with the app token), then app+ mode.
        let login = try await server.call(
            "POST", "/api/segmentation/identified/login", token: nextApp,
            body: .json(["deviceId": .string(alias), "network": "halo", "email": "reader@example.com", "password": "secret-password"]))
        XCTAssertEqual(login.status, 200, String(decoding: login.data, as: UTF8.self))
        let user = try XCTUnwrap(login.json["token"]?["access_token"]?.stringValue)
        let asUser = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: user, body: .json(iosBody(id: id, alias: alias, token: "fcm-2")))
        XCTAssertEqual(asUser.status, 200, String(decoding: asUser.data, as: UTF8.self))
        XCTAssertEqual(asUser.json["devices"], [["platform": "ios", "token": "fcm-2"]])
        let asUserRead = try await server.call("GET", "/api/segmentation/appuser/\(id)", token: user)
        XCTAssertEqual(asUserRead.status, 200)

        // iOS logs in again after an app+ 401 with its user token (§3.4): still this app's.
        let again = try await server.call(
            "POST", "/api/segmentation/identified/login", token: user,
            body: .json(["deviceId": .string(alias), "network": "halo", "email": "reader@example.com", "password": "secret-password"]))
        let renewed = try XCTUnwrap(again.json["token"]?["access_token"]?.stringValue)
        let afterRelogin = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: renewed, body: .json(iosBody(id: id, alias: alias, token: "fcm-3")))
        XCTAssertEqual(afterRelogin.status, 200, String(decoding: afterRelogin.data, as: UTF8.self))

        // The stream secret issued at registration still opens the device's stream.
        let stream = try await EventStreamClient.open(
            port: server.port, token: renewed, headers: ["X-Halo-Device": id, "X-Halo-Device-Secret": secret])
        XCTAssertEqual(stream.status, 200)
    }

    /// §4.2 and §6.5: Android registers with `appId` as a string and `replaceTokens` on POST, logs
    /// in with a form (§7.2), updates its FCM token with a PUT, and reports push activity with a
    /// form (§17.2); a PUT answered 404 (another app's device) makes it register anew.
    func testAndroidRegistrationFormLoginTokenUpdateAndFormActivity() async throws {
        let app = try await server.token(client)
        let body: JSONValue = [
            "appId": "1", "replaceTokens": true, "devices": [],
            "tags": [["name": "Platform Name", "value": "android", "tagType": "000000000000000000000001"]],
        ]
        let created = try await server.call("POST", "/api/segmentation/appuser/", token: app, body: .json(body))
        XCTAssertEqual(created.status, 200, String(decoding: created.data, as: UTF8.self))
        XCTAssertEqual(created.json["appId"], 1)
        let id = try XCTUnwrap(created.json["id"]?.stringValue)
        let alias = try XCTUnwrap(created.json["alias"]?.stringValue)

        let login = try await server.call(
            "POST", "/api/segmentation/identified/login", token: app,
            body: .form([("network", "halo"), ("email", "reader@example.com"), ("password", "secret-password"), ("deviceId", alias)]))
        XCTAssertEqual(login.status, 200, String(decoding: login.data, as: UTF8.self))

        // The notifications library pushes a changed FCM token (app token: no account recovery).
        let update = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: app,
            body: .json([
                "id": .string(id), "alias": .string(alias), "appId": "1", "replaceTokens": true,
                "devices": [["platform": "android", "token": "fcm-a"]], "tags": created.json["tags"] ?? [],
            ]))
        XCTAssertEqual(update.status, 200, String(decoding: update.data, as: UTF8.self))
        XCTAssertEqual(update.json["devices"], [["platform": "android", "token": "fcm-a"]])

        // A push to this device, and Android's form activity for it.
        let editorToken = try await server.token(editor)
        let push = try await server.call(
            "POST", "/api/push/schedule/", token: editorToken,
            body: .json(["appId": 1, "name": "Hello", "aliases": [.string(alias)], "payload": ["notification": ["title": "Hello"]]]))
        let schedule = try XCTUnwrap(push.json["id"]?.stringValue)
        for action in ["receipt", "open"] {
            let activity = try await server.call(
                "POST", "/api/push/schedule/activity", token: app,
                body: .form([("device", alias), ("schedule", schedule), ("action", action), ("platform", "android")]))
            XCTAssertEqual(activity.json, ["device": .string(alias), "schedule": .string(schedule), "action": .string(action)])
        }

        // Installed with another app's credentials: its PUT is a 404, so Android registers anew (§6.6).
        let other = try await server.token(try await server.admin.addClient(name: "Other app"))
        let foreign = try await server.call(
            "PUT", "/api/segmentation/appuser/\(id)", token: other, body: .json(["appId": "1", "replaceTokens": true]))
        assertEnvelope(foreign, status: 404)
        let anew = try await server.call("POST", "/api/segmentation/appuser/", token: other, body: .json(body))
        XCTAssertEqual(anew.status, 200)
        XCTAssertNotEqual(anew.json["id"], created.json["id"])
    }
}
