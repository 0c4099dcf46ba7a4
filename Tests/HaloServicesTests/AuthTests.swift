import Foundation
import HaloServer
import Synchronization
import XCTest

@testable import HaloServices

final class AuthTests: XCTestCase {
    // MARK: Request bodies equal PROTOCOL §7's examples (compared as parsed JSON)

    func testRegisterBodyMatchesProtocolExample() throws {
        let auth = AuthProfile(email: "account@mobgen.com", password: "password123", deviceId: "anonymous-xyz")
        let profile = UserProfile(
            id: nil, email: "account@mobgen.com", name: "testName", surname: "testSurname",
            displayName: "testName testSurname", profilePictureUrl: "https://…")
        let body: JSONValue = .object(["auth": auth.requestJSON(deviceAlias: nil), "profile": profile.requestJSON()])
        XCTAssertEqual(
            body,
            try JSONValue(
                string: """
                    {
                      "auth":    { "email": "account@mobgen.com", "password": "password123", "deviceId": "anonymous-xyz", "network": "halo" },
                      "profile": { "email": "account@mobgen.com", "name": "testName", "surname": "testSurname",
                                   "displayName": "testName testSurname", "photoUrl": "https://…", "id": null }
                    }
                    """))
        // displayName falls back to the name (iOS).
        let plain = UserProfile(id: nil, email: "a@b.c", name: "Ann", surname: "", displayName: nil, profilePictureUrl: nil)
        XCTAssertEqual(plain.requestJSON()["displayName"], "Ann")
    }

    func testLoginBodiesMatchProtocolExamples() throws {
        let halo = AuthProfile(email: "account@mobgen.com", password: "password123")
        XCTAssertEqual(
            halo.requestJSON(deviceAlias: "anonymous-xyz"),
            try JSONValue(
                string: """
                    {"deviceId":"anonymous-xyz","network":"halo","email":"account@mobgen.com","password":"password123"}
                    """))
        let facebook = AuthProfile(token: "EAAB-facebook-token", network: .facebook)
        XCTAssertEqual(
            facebook.requestJSON(deviceAlias: "anonymous-xyz"),
            try JSONValue(
                string: """
                    {"deviceId":"anonymous-xyz","network":"facebook","token":"EAAB-facebook-token"}
                    """))
        let google = AuthProfile(token: "eyJ.google.jwt", network: .google, deviceId: "anonymous-explicit")
        XCTAssertEqual(
            google.requestJSON(deviceAlias: "anonymous-xyz"),
            try JSONValue(
                string: """
                    {"deviceId":"anonymous-explicit","network":"google","token":"eyJ.google.jwt"}
                    """))
        // No device yet: iOS sent an empty deviceId.
        XCTAssertEqual(halo.requestJSON(deviceAlias: nil)["deviceId"], "")
    }

    func testDeviceBodyMatchesProtocolShape() throws {
        let example = try JSONValue(
            string: """
                {
                  "id": "57ea4acc1de50500358d00c0", "appId": 2, "customerId": 1,
                  "alias": "anonymous-citlcgo4d01cv1hqrmfwlujak",
                  "devices": [ { "platform": "ios", "token": "c123" } ],
                  "tags": [ { "id": "56deeb7e669aee2a00bc82ec", "name": "Platform Name", "value": "ios", "tagType": "000000000000000000000001" } ],
                  "createdAt": 1474972364317, "updatedAt": 1474972364317
                }
                """)
        let device = try Device(wire: example)
        guard case .object(var expected) = example else { return XCTFail() }
        expected["customerId"] = nil  // server-owned, not sent
        expected["replaceTokens"] = true  // iOS sends it on every update (§6.2)
        XCTAssertEqual(device.requestJSON(), .object(expected))
        // A new device (create): no id, no replaceTokens, zero timestamps.
        XCTAssertEqual(Device().requestJSON(), try JSONValue(string: #"{"tags":[],"devices":[],"createdAt":0,"updatedAt":0}"#))
        // appId as a string (Android) is accepted.
        XCTAssertEqual(try Device(wire: ["appId": "7"]).appId, 7)
    }

    // MARK: Flows against the real server

    final class Observer: AuthManagerObserver {
        let events = Mutex<[String]>([])
        func userDidLogIn(_ user: User) { events.withLock { $0.append("in:\(user.userProfile.email)") } }
        func userDidLogOut() { events.withLock { $0.append("out") } }
    }

    func testRegisterLoginLogoutAndAppPlusMode() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        let (core, recorder) = server.makeCore()
        try await core.startup()
        let alias = try XCTUnwrap(core.device?.alias)

        let registered = try await core.auth.register(
            authProfile: AuthProfile(email: "ann@example.com", password: "correct horse"),
            userProfile: UserProfile(
                id: nil, email: "ann@example.com", name: "Ann", surname: "Lee", displayName: nil, profilePictureUrl: nil))
        XCTAssertTrue(registered.id?.hasPrefix("identified-") ?? false, "\(registered)")
        XCTAssertEqual(registered.displayName, "Ann")
        XCTAssertNil(core.auth.currentUser, "registration does not log in")
        let sent = try JSONValue(data: try XCTUnwrap(recorder.requests(to: "/api/segmentation/identified/register").last?.body))
        XCTAssertEqual(sent["auth"]?["deviceId"]?.stringValue, alias)

        // Registering twice fails with the server's message.
        do {
            _ = try await core.auth.register(
                authProfile: AuthProfile(email: "ann@example.com", password: "x"),
                userProfile: UserProfile(
                    id: nil, email: "ann@example.com", name: "A", surname: "", displayName: nil, profilePictureUrl: nil))
            XCTFail("duplicate registration succeeded")
        } catch {
            guard case .server(400, let message, _) = error else { return XCTFail("\(error)") }
            XCTAssertFalse(message.isEmpty)
        }

        let observer = Observer()
        core.auth.addObserver(observer)
        do {
            _ = try await core.auth.login(authProfile: AuthProfile(email: "ann@example.com", password: "wrong"), stayLoggedIn: false)
            XCTFail("wrong password accepted")
        } catch {
            XCTAssertEqual(error.httpStatus, 400)
        }
        let user = try await core.auth.login(
            authProfile: AuthProfile(email: "ann@example.com", password: "correct horse"), stayLoggedIn: false)
        XCTAssertEqual(user.userProfile.id, registered.id)
        XCTAssertFalse(user.credentialsStored)
        XCTAssertEqual(core.auth.currentUser?.userProfile.email, "ann@example.com")
        XCTAssertEqual(core.authenticationMode, .appPlus)

        // Every later request carries the user's token (§3.5).
        recorder.clear()
        _ = try await core.content.getModules()
        XCTAssertEqual(recorder.exchanges.last?.request.headers["Authorization"], "Bearer \(user.token.accessToken)")

        // A revoked user token is renewed by logging in again with the session's profile (§3.4 app+).
        try await server.server.admin.revokeToken(user.token.accessToken)
        recorder.clear()
        _ = try await core.content.getModules()
        XCTAssertEqual(
            recorder.trace,
            [
                "GET /api/generalcontent/module → 401", "POST /api/segmentation/identified/login → 200",
                "GET /api/generalcontent/module → 200",
            ])

        let cleared = await core.auth.logout()
        _ = cleared  // false when no keyring is reachable; nothing was stored anyway
        XCTAssertNil(core.auth.currentUser)
        XCTAssertEqual(core.authenticationMode, .app)
        XCTAssertEqual(observer.events.withLock { $0 }, ["in:ann@example.com", "out"])
        // Nobody is signed in any more: a second logout says so, and tells no observer.
        let again = await core.auth.logout()
        XCTAssertFalse(again)
        XCTAssertEqual(observer.events.withLock { $0 }, ["in:ann@example.com", "out"])

        // After logout the pocket has no user: the 401 cannot be renewed.
        do {
            _ = try await core.auth.getPocket()
            XCTFail("pocket without a user succeeded")
        } catch {
            guard case .notAuthenticated = error else { return XCTFail("\(error)") }
        }
    }

    func testSocialLoginSendsTokenAndReportsServerRefusal() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        let (core, recorder) = server.makeCore()
        try await core.startup()
        do {
            _ = try await core.auth.login(authProfile: AuthProfile(token: "google-id-token", network: .google), stayLoggedIn: false)
            XCTFail("an unverifiable social token was accepted")
        } catch {
            guard case .server(400, let message, _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("not configured"), message)
        }
        let body = try JSONValue(data: try XCTUnwrap(recorder.requests(to: "/api/segmentation/identified/login").last?.body))
        XCTAssertEqual(body, .object(["deviceId": .string(core.device?.alias ?? ""), "network": "google", "token": "google-id-token"]))
    }

    /// Stay logged in: a second SDK instance logs in automatically at start-up from the keyring.
    /// Run inside `dbus-run-session` with an unlocked gnome-keyring for the keyring part.
    func testStayLoggedInAcrossInstances() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        try await server.server.admin.addUser(email: "bob@example.com", password: "hunter22")
        let (core, _) = server.makeCore()
        try await core.startup()
        let user = try await core.auth.login(authProfile: AuthProfile(email: "bob@example.com", password: "hunter22"), stayLoggedIn: true)

        guard secretServiceAvailable() else {
            // No Secret Service: the caller is told, and nothing was written to disk.
            XCTAssertFalse(user.credentialsStored)
            let files = try FileManager.default.subpathsOfDirectory(atPath: server.directory.path)
            for file in files where !file.hasPrefix("server") {
                let text = (try? String(contentsOf: server.directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
                XCTAssertFalse(text.contains("hunter22"), "password written to \(file)")
            }
            throw XCTSkip("No Secret Service reachable: keyring assertions skipped (run under dbus-run-session with gnome-keyring)")
        }
        XCTAssertTrue(user.credentialsStored)

        let (second, recorder) = server.makeCore()
        let observer = Observer()
        second.auth.addObserver(observer)
        try await second.startup()
        XCTAssertEqual(second.auth.currentUser?.userProfile.email, "bob@example.com")
        XCTAssertEqual(second.authenticationMode, .appPlus)
        XCTAssertEqual(observer.events.withLock { $0 }, ["in:bob@example.com"])
        XCTAssertEqual(recorder.requests(to: "/api/segmentation/identified/login").count, 1)

        // Logout forgets the stored profile: a third instance starts anonymous.
        let loggedOut = await second.auth.logout()
        XCTAssertTrue(loggedOut)
        let (third, _) = server.makeCore()
        try await third.startup()
        XCTAssertNil(third.auth.currentUser)
    }
}
