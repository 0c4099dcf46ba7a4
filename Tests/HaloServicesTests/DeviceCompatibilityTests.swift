import Foundation
import HaloIdentityProvider
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

/// HaloServices under the device rules of issue 45 (docs/protocol.md §23.12), against a real
/// `halo-server` process: a device belongs to the app client whose token registered it, so a
/// user who signs in (HaloDesk's identified login, with a password or through the browser, or the
/// password grant of `.user` mode) must still be able to save the device of this app, as a
/// non-editor. The server trusts the local identity provider (`--social-config`) for the browser.
final class DeviceCompatibilityTests: XCTestCase {
    var directory: URL!
    var provider: LocalIdentityProvider!
    var child: ChildServer!
    var base: URL!
    var client: ClientCredentials!
    /// Another app of the same server (a non-editor client too).
    var otherClient: ClientCredentials!

    override func setUp() async throws {
        directory = try temporaryDirectory("device-rules")
        let admin = try await TestBackEnd.current.admin(for: directory)
        client = try await admin.addClient(name: "Desk", editor: false)
        otherClient = try await admin.addClient(name: "Other app", editor: false)
        try await admin.addUser(email: "reader@example.com", password: "secret-password")
        admin.close()
        provider = try await LocalIdentityProvider.start(.demo)
        let social = directory.appendingPathComponent("social.json")
        try JSONEncoder().encode(
            SocialSignInSettings.localProvider(
                issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
                facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
                facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret)
        ).write(to: social)
        child = try ChildServer(binary: try ChildServer.builtBinary(), directory: directory, options: ["--social-config", social.path])
        base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(try child.waitForPort())"))
    }

    override func tearDown() async throws {
        child?.kill()
        await provider?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// HaloDesk's sign-in: start-up registers the device with the app token, the identified login
    /// (sent with that token, naming the device) switches to the user's token, and the next save of
    /// the device, with the user's token, is accepted.
    func testANonEditorSignsInAndSavesItsDevice() async throws {
        let core = CoreManager(configuration: try OfflineTestServer.sdkConfiguration(baseURL: base, client: client))
        try await core.startup()
        let id = try XCTUnwrap(core.device?.id)
        let user = try await core.auth.login(
            authProfile: AuthProfile(email: "reader@example.com", password: "secret-password", deviceId: core.device?.alias),
            stayLoggedIn: false)
        XCTAssertEqual(user.userProfile.email, "reader@example.com")
        XCTAssertEqual(core.authenticationMode, .appPlus)
        core.device?.addTag(name: "signed-in", value: "yes")
        let saved = try await core.saveDevice()
        XCTAssertEqual(saved.id, id, "the same device, saved with the user's token")
        XCTAssertEqual(saved.tags["signed-in"]?.value, "yes")
    }

    /// HaloDesk's browser sign-in (Google, at the local identity provider; curl plays the browser)
    /// by someone who is not an editor: the identified login goes with the app token, so the
    /// user's token acts for this app client (§23.12). The next save of the device, with the
    /// user's token, updates the same device (not a new registration after a 404), which keeps
    /// its owner; another app's token still finds nothing. A login that recorded no client fails
    /// it: the save's 404 leads to a registration refused (403), or this app's other device is a 404.
    func testABrowserSignInByANonEditorThenASaveOfItsDevice() async throws {
        var configuration = try OfflineTestServer.sdkConfiguration(baseURL: base, client: client)
        configuration.socialProviders = [
            .google: .openIDConnect(
                network: .google, displayName: "Google", issuer: provider.issuer,
                clientId: LocalIdentityProvider.Settings.desktopClientId,
                clientSecret: LocalIdentityProvider.Settings.desktopClientSecret)
        ]
        let core = CoreManager(configuration: configuration)
        try await core.startup()
        let id = try XCTUnwrap(core.device?.id)
        // Another install of this app: a device of the same client that no login named.
        let sibling = CoreManager(configuration: try OfflineTestServer.sdkConfiguration(baseURL: base, client: client))
        try await sibling.startup()
        let siblingId = try XCTUnwrap(sibling.device?.id)

        let user = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
            let visit = try ScriptedBrowser.consent(address, account: "1001")
            XCTAssertTrue(visit.landing.contains("You are signed in to HaloDesk as ada@example.com."), visit.landing)
        }
        XCTAssertEqual(user.userProfile.email, "ada@example.com")
        XCTAssertEqual(core.authenticationMode, .appPlus)
        XCTAssertEqual(try stored("SELECT editor FROM server_user WHERE email = 'ada@example.com'"), "0", "not an editor")

        core.device?.addTag(name: "signed-in", value: "google")
        let saved = try await core.saveDevice()
        XCTAssertEqual(saved.id, id, "the same device, saved with the user's token")
        XCTAssertEqual(saved.tags["signed-in"]?.value, "google")
        XCTAssertEqual(try stored("SELECT client_id FROM server_device WHERE id = '\(id)'"), client.clientId, "its owner")

        let userToken = "\(user.token.tokenType) \(user.token.accessToken)"
        let otherToken = try await OfflineTestServer.authorization(baseURL: base, client: otherClient)
        let device = base.appendingPathComponent("api/segmentation/appuser/\(id)")
        try await assertStatus(200, .get, device, userToken, "the user's token reads its device")
        try await assertStatus(404, .get, device, otherToken, "another app's token reads the device")
        try await assertStatus(404, .put, device, otherToken, "another app's token changes the device", body: ["alias": "taken"])
        // The login recorded the client: the user's token acts on every device of this app.
        let siblingDevice = base.appendingPathComponent("api/segmentation/appuser/\(siblingId)")
        try await assertStatus(200, .get, siblingDevice, userToken, "the user's token acts for the app client")
    }

    /// `.user` mode: the password grant sends the app's `client_id` and `client_secret`, so the
    /// user's token registers and then updates this app's device.
    func testThePasswordGrantOfANonEditorRegistersAndUpdatesItsDevice() async throws {
        var configuration = try OfflineTestServer.sdkConfiguration(baseURL: base, client: client)
        configuration.userCredentials = Credentials(username: "reader@example.com", password: "secret-password")
        let core = CoreManager(configuration: configuration)
        core.authenticationMode = .user
        try await core.startup()
        let id = try XCTUnwrap(core.device?.id)
        core.device?.addTag(name: "plan", value: "free")
        let saved = try await core.saveDevice()
        XCTAssertEqual(saved.id, id)
        XCTAssertEqual(saved.tags["plan"]?.value, "free")
    }

    /// A device whose stream credential is lost registers again (renewing needs the current
    /// secret) when its notifications are wanted, and gets a credential that opens its stream.
    func testADeviceThatLostItsStreamSecretRegistersAgain() async throws {
        let configuration = try OfflineTestServer.sdkConfiguration(baseURL: base, client: client)
        let first = CoreManager(configuration: configuration)
        try await first.startup()
        let firstId = try XCTUnwrap(first.device?.id)

        let second = CoreManager(configuration: configuration)
        let notifications = NotificationsAddon()
        second.registerAddon(notifications)
        defer { notifications.stop() }
        second.deviceStreamCredential = nil
        await Keyring(server: "halo-device-stream:\(configuration.environment.description)", account: firstId).clearIgnoringErrors()
        try await second.startup()
        let secondId = try XCTUnwrap(second.device?.id)
        XCTAssertNotEqual(secondId, firstId, "registered again")
        XCTAssertEqual(second.deviceStreamCredential?.deviceId, secondId)
    }
}

extension DeviceCompatibilityTests {
    /// One value from the child server's database, read behind its back.
    func stored(_ query: String) throws -> String {
        let output =
            TestBackEnd.current == .sqlite
            ? try Shell.run("/usr/bin/sqlite3", [directory.appendingPathComponent("halo.sqlite").path, query])
            : try PostgresDatabases.psql(query, for: directory)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends one request with `authorization` and checks the answer's status.
    func assertStatus(
        _ status: Int, _ method: HTTPMethod, _ url: URL, _ authorization: String, _ message: String, body: JSONValue? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        var headers = ["Authorization": authorization]
        if body != nil { headers["Content-Type"] = "application/json" }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body?.data(sortedKeys: false))
        let response = try await CurlTransport().perform(request, options: TransferOptions())
        XCTAssertEqual(
            response.statusCode, status, "\(message): \(String(decoding: response.body, as: UTF8.self))", file: file, line: line)
    }
}

extension Keyring {
    /// Forgets the stored secret, if a keyring is reachable at all.
    func clearIgnoringErrors() async { try? await clear() }
}
