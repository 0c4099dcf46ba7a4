import Foundation
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

/// HaloServices under the device rules of issue 45 (docs/protocol.md §23.12), against a real
/// `halo-server` process: a device belongs to the app client whose token registered it, so a
/// user who signs in (HaloDesk's identified login, or the password grant of `.user` mode) must
/// still be able to save the device of this app, as a non-editor.
final class DeviceCompatibilityTests: XCTestCase {
    var directory: URL!
    var child: ChildServer!
    var base: URL!
    var client: ClientCredentials!

    override func setUp() async throws {
        directory = try temporaryDirectory("device-rules")
        let admin = try await TestBackEnd.current.admin(for: directory)
        client = try await admin.addClient(name: "Desk", editor: false)
        try await admin.addUser(email: "reader@example.com", password: "secret-password")
        admin.close()
        child = try ChildServer(binary: try ChildServer.builtBinary(), directory: directory)
        base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(try child.waitForPort())"))
    }

    override func tearDown() async throws {
        child?.kill()
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

extension Keyring {
    /// Forgets the stored secret, if a keyring is reachable at all.
    func clearIgnoringErrors() async { try? await clear() }
}
