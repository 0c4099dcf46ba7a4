import Foundation
import HaloServer
import HaloTestSupport
import Synchronization
import XCTest

@testable import HaloServices

/// Records every request the SDK sends and every response it gets (a real NetworkAddon).
final class RecordingAddon: NetworkAddon {
    struct Exchange: Sendable { let request: HTTPRequest; let status: Int? }
    let addonName = "recorder"
    private let log = Mutex<[Exchange]>([])
    let events = Mutex<[String]>([])

    var exchanges: [Exchange] { log.withLock { $0 } }
    /// "METHOD /path → status" lines.
    var trace: [String] {
        exchanges.map { "\($0.request.method.rawValue) \($0.request.url.path) → \($0.status.map(String.init) ?? "error")" }
    }
    func requests(to path: String) -> [HTTPRequest] { exchanges.filter { $0.request.url.path == path }.map(\.request) }
    func clear() { log.withLock { $0.removeAll() } }

    func willPerformRequest(request: HTTPRequest) {}
    func didPerformRequest(request: HTTPRequest, time: TimeInterval, response: HTTPResponse?) {
        log.withLock { $0.append(Exchange(request: request, status: response?.statusCode)) }
    }
    func setup(core: CoreManager) async -> Bool { events.withLock { $0.append("setup") }; return true }
    func startup(core: CoreManager) async -> Bool { events.withLock { $0.append("startup") }; return true }
    func willRegisterAddon(core: CoreManager) { events.withLock { $0.append("willRegisterAddon") } }
    func didRegisterAddon(core: CoreManager) { events.withLock { $0.append("didRegisterAddon") } }
    func willRegisterDevice(core: CoreManager) { events.withLock { $0.append("willRegisterDevice") } }
    func didRegisterDevice(core: CoreManager) { events.withLock { $0.append("didRegisterDevice") } }
}

/// A real HaloServer on loopback with a fresh data directory, an app client and helpers to build
/// independent SDK instances against it.
final class FlowServer: @unchecked Sendable {
    /// On `TestBackEnd.current` (SQLite, or PostgreSQL with one process or three behind nginx).
    let server: TestDeployment
    let directory: URL
    let client: ClientCredentials

    static func start(
        tokenLifetimeMilliseconds: Int64 = 86_400_000, editorClient: Bool = true, socialSettings: SocialSignInSettings? = nil
    ) async throws -> FlowServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "halo-sdk-flow-\(UUID().uuidString)", isDirectory: true)
        var configuration = HaloServerConfiguration(
            dataDirectory: directory.appendingPathComponent("server"),
            tokenLifetimeMilliseconds: tokenLifetimeMilliseconds, logRequests: false)
        if let socialSettings { configuration.trustSocialProviders(socialSettings) }
        let server = try await TestDeployment.start(configuration)
        let client = try await server.admin.addClient(editor: editorClient)
        return FlowServer(server: server, directory: directory, client: client)
    }

    private init(server: TestDeployment, directory: URL, client: ClientCredentials) {
        self.server = server; self.directory = directory; self.client = client
    }

    var baseURL: URL { server.baseURL }

    /// A configuration for this server; each SDK instance shares the data directory (the stored device).
    func configuration(systemTags: Bool = false) -> HaloConfiguration {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: client.clientId, clientSecret: client.clientSecret)
        configuration.environment = .custom(baseURL.absoluteString)
        configuration.enableSystemTags = systemTags
        configuration.dataDirectory = directory.appendingPathComponent("sdk")
        configuration.applicationName = "FlowTests"
        configuration.applicationVersion = "9.9"
        return configuration
    }

    func makeCore(systemTags: Bool = false) -> (CoreManager, RecordingAddon) {
        let core = CoreManager(configuration: configuration(systemTags: systemTags))
        let recorder = RecordingAddon()
        core.registerAddon(recorder)
        return (core, recorder)
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// True when a Secret Service answers on the session bus (tests run under dbus-run-session + gnome-keyring).
func secretServiceAvailable() -> Bool {
    let probe = Keyring(server: "halo-desk-test-probe", account: UUID().uuidString)
    do { _ = try probe.lookup(); return true } catch { return false }
}

final class FlowTests: XCTestCase {
    var server: FlowServer!

    override func setUp() async throws {
        server = try await FlowServer.start()
    }

    override func tearDown() async throws {
        await server?.stop()
    }

    final class SetupDelegate: ManagerDelegate {
        let calls = Mutex(0)
        func managerWillSetupDevice(device: Device) {
            calls.withLock { $0 += 1 }
            device.addTag(name: "test", value: "testValue")
        }
    }

    func testStartupGetsTokenOn401CreatesThenUpdatesDevice() async throws {
        let (core, recorder) = server.makeCore(systemTags: true)
        let delegate = SetupDelegate()
        core.delegate = delegate
        try await core.startup()

        XCTAssertEqual(
            Array(recorder.trace.prefix(4)),
            [
                "POST /api/segmentation/appuser → 401",
                "POST /api/oauth/token → 200",
                "POST /api/segmentation/appuser → 200",
                "GET /api/authentication/version → 200",
            ])
        let tokenRequest = try XCTUnwrap(recorder.requests(to: "/api/oauth/token").first)
        XCTAssertEqual(tokenRequest.url.query, "_app")
        XCTAssertEqual(
            String(decoding: tokenRequest.body ?? Data(), as: UTF8.self),
            "grant_type=client_credentials&client_id=\(server.client.clientId)&client_secret=\(server.client.clientSecret)")
        XCTAssertEqual(recorder.requests(to: "/api/authentication/version").first?.headers["to-cache"], "86400")
        XCTAssertEqual(
            recorder.events.withLock { $0 },
            ["willRegisterAddon", "didRegisterAddon", "setup", "startup", "willRegisterDevice", "didRegisterDevice"])
        XCTAssertEqual(delegate.calls.withLock { $0 }, 1)

        let device = try XCTUnwrap(core.device)
        let id = try XCTUnwrap(device.id)
        XCTAssertTrue(device.alias?.hasPrefix("anonymous-") ?? false, "\(device)")
        XCTAssertEqual(device.tags["test"]?.value, "testValue")
        XCTAssertEqual(device.tags["Platform Name"]?.value, "linux")
        XCTAssertEqual(device.tags["Platform Name"]?.tagType, Tag.systemType)
        XCTAssertEqual(device.tags["Device Type"]?.value, "Desktop")
        XCTAssertEqual(device.tags["Application Version"]?.value, "9.9")
        XCTAssertNotNil(device.tags["Distribution"]?.value)
        XCTAssertNil(device.tags["Test Device"], "custom environments are not test environments")
        XCTAssertNotNil(core.serverVersion)

        // The device file holds no secret.
        let files = try FileManager.default.contentsOfDirectory(atPath: server.configuration().dataDirectory.path)
        let stored = try String(
            contentsOf: server.configuration().dataDirectory.appendingPathComponent(try XCTUnwrap(files.first)), encoding: .utf8)
        XCTAssertFalse(stored.contains(server.client.clientSecret))
        XCTAssertTrue(stored.contains(id))

        // Second start, new SDK instance: the stored device is read back and updated (PUT), not re-created.
        let (second, secondRecorder) = server.makeCore(systemTags: true)
        let secondDelegate = SetupDelegate()
        second.delegate = secondDelegate
        try await second.startup()
        XCTAssertEqual(second.device?.id, id)
        XCTAssertEqual(secondDelegate.calls.withLock { $0 }, 1)
        let paths = secondRecorder.exchanges.filter { $0.status == 200 }.map { "\($0.request.method.rawValue) \($0.request.url.path)" }
        XCTAssertEqual(
            paths,
            [
                "POST /api/oauth/token", "GET /api/segmentation/appuser/\(id)", "PUT /api/segmentation/appuser/\(id)",
                "GET /api/authentication/version",
            ])
        let put = try XCTUnwrap(secondRecorder.requests(to: "/api/segmentation/appuser/\(id)").last)
        let body = try JSONValue(data: try XCTUnwrap(put.body))
        XCTAssertEqual(body["replaceTokens"], true)
        XCTAssertEqual(body["id"]?.stringValue, id)
    }

    func testUnknownStoredDeviceIsCreatedAgain() async throws {
        let (core, _) = server.makeCore()
        try await core.startup()
        let firstId = try XCTUnwrap(core.device?.id)
        // A server that lost the device (new data directory, same SDK storage): GET 404 → new device.
        let other = try await FlowServer.start()
        defer { Task { await other.stop() } }
        var configuration = server.configuration()
        configuration.environment = .custom(other.baseURL.absoluteString)
        configuration.appCredentials = Credentials(clientId: other.client.clientId, clientSecret: other.client.clientSecret)
        let core2 = CoreManager(configuration: configuration)
        try await core2.startup()
        XCTAssertNotNil(core2.device?.id)
        XCTAssertNotEqual(core2.device?.id, firstId)
    }

    func testWrongClientSecretFailsStartupWithServerMessage() async throws {
        var configuration = server.configuration()
        configuration.appCredentials = Credentials(clientId: server.client.clientId, clientSecret: "wrong")
        let core = CoreManager(configuration: configuration)
        do {
            try await core.startup()
            XCTFail("startup succeeded with a wrong secret")
        } catch {
            guard case .server(401, let message, _) = error else { return XCTFail("\(error)") }
            XCTAssertFalse(message.isEmpty)
        }
        // The completion-handler form reports false.
        let done = expectation(description: "startup handler")
        let result = Mutex<Bool?>(nil)
        core.startup { success in
            result.withLock { $0 = success }; done.fulfill()
        }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(result.withLock { $0 }, false)
    }

    func testConcurrent401sCauseOneTokenRequest() async throws {
        let (core, recorder) = server.makeCore()
        try await core.startup()
        let moduleId = try await server.server.admin.addModule(ModuleSpec(name: "Articles", fields: [ModuleField("title", .text)]))
        // A fresh SDK instance holds no token: 8 concurrent calls all get 401 first.
        let (fresh, freshRecorder) = server.makeCore()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await fresh.content.search(query: SearchQuery().moduleIds([moduleId]).skipPagination()).instances.count
                }
            }
            for try await count in group { XCTAssertEqual(count, 0) }
        }
        XCTAssertEqual(freshRecorder.requests(to: "/api/oauth/token").count, 1, freshRecorder.trace.joined(separator: "\n"))
        _ = recorder
    }

    func testExpiredTokenIsRefreshedWithRefreshGrant() async throws {
        let shortServer = try await FlowServer.start(tokenLifetimeMilliseconds: 1500)
        defer { Task { await shortServer.stop() } }
        let (core, recorder) = shortServer.makeCore()
        try await core.startup()
        try await Task.sleep(nanoseconds: 2_000_000_000)
        recorder.clear()
        _ = try await core.content.getModules()
        XCTAssertEqual(
            recorder.trace, ["GET /api/generalcontent/module → 401", "POST /api/oauth/token → 200", "GET /api/generalcontent/module → 200"])
        let refresh = String(decoding: recorder.requests(to: "/api/oauth/token").first?.body ?? Data(), as: UTF8.self)
        XCTAssertTrue(refresh.hasPrefix("grant_type=refresh_token&refresh_token="), refresh)
    }

    func testUserModeUsesPasswordGrantWithBasicHeader() async throws {
        try await server.server.admin.addUser(email: "editor@example.com", password: "s3cret!", editor: true)
        var configuration = server.configuration()
        configuration.userCredentials = Credentials(username: "editor@example.com", password: "s3cret!")
        let core = CoreManager(configuration: configuration)
        let recorder = RecordingAddon()
        core.registerAddon(recorder)
        core.authenticationMode = .user  // chosen before startup, kept by it (seed: Core manager page)
        try await core.startup()
        XCTAssertEqual(core.authenticationMode, .user)
        _ = try await core.content.getModules()
        let grant = try XCTUnwrap(recorder.requests(to: "/api/oauth/token").last)
        XCTAssertEqual(grant.url.query, "_user")
        XCTAssertEqual(grant.headers["Authorization"], "Basic " + Data("editor@example.com:s3cret!".utf8).base64EncodedString())
        XCTAssertTrue(String(decoding: grant.body ?? Data(), as: UTF8.self).hasPrefix("grant_type=password&username=editor%40example.com"))
    }

    func testContentSearchEditBatchAndSync() async throws {
        let moduleId = try await server.server.admin.addModule(
            ModuleSpec(
                name: "Products",
                fields: [
                    ModuleField("title", .text), ModuleField("price", .number), ModuleField("inStock", .boolean),
                ]))
        let (core, recorder) = server.makeCore()
        try await core.startup()
        let modules = try await core.content.getModules()
        XCTAssertEqual(modules.modules.map(\.name), ["Products"])
        XCTAssertEqual(modules.modules.first?.id, moduleId)

        let firstSync = try await core.content.sync(query: SyncQuery(moduleName: "Products"))
        XCTAssertTrue(firstSync.created.isEmpty)
        XCTAssertEqual(recorder.requests(to: "/api/generalcontent/instance/sync").last?.headers["to-cache"], "86400")

        var cheap = ContentInstance(moduleId: moduleId, name: "Cheap abacus")
        cheap.setValue(key: "title", value: "abacus")
        cheap.setValue(key: "price", value: 5)
        cheap.setValue(key: "inStock", value: true)
        let created = try await core.content.save(cheap)
        let createdId = try XCTUnwrap(created.id)
        XCTAssertEqual(created.values["price"], 5)

        var expensive = ContentInstance(moduleId: moduleId, name: "Dear abbey")
        expensive.setValue(key: "title", value: "abbey")
        expensive.setValue(key: "price", value: 50)
        expensive.setValue(key: "inStock", value: false)
        var operations = BatchOperations()
        operations.create(expensive)
        operations.delete(instanceId: "000000000000000000000bad")
        let batch = try await core.content.batch(operations: operations)
        XCTAssertEqual(batch.operations.count, 2)
        XCTAssertEqual(batch.succeeded.count, 1)
        XCTAssertEqual(batch.failed.first?.error?.status, 404)
        let expensiveId = try XCTUnwrap(batch.succeeded.first?.instance?.id)

        let filter = try SearchFilter.parse(expression: "price >= 10 and (inStock = true or title like ab)")
        let found = try await core.content.search(query: SearchQuery().moduleIds([moduleId]).searchFilter(filter).skipPagination())
        XCTAssertEqual(found.instances.map(\.id), [expensiveId])
        let page = try await core.content.search(query: SearchQuery().moduleIds([moduleId]).pagination(page: 1, limit: 1))
        XCTAssertEqual(page.paginationInfo.totalItems, 2)
        XCTAssertEqual(page.paginationInfo.totalPages, 2)
        XCTAssertEqual(page.instances.count, 1)
        let raw = try await core.content.searchAsData(query: SearchQuery().instanceIds([createdId]).skipPagination())
        XCTAssertEqual(try JSONValue(data: raw).arrayValue?.count, 1)

        // Both exist now: sync, then change them and sync incrementally.
        let secondSync = try await core.content.sync(query: SyncQuery(moduleName: "Products").fromSync(firstSync.syncDate))
        XCTAssertEqual(Set(secondSync.created.compactMap(\.id)), [createdId, expensiveId])

        var updated = created
        updated.name = "Cheap abacus (renamed)"
        let saved = try await core.content.save(updated)
        XCTAssertEqual(saved.name, "Cheap abacus (renamed)")
        XCTAssertEqual(recorder.requests(to: "/api/generalcontent/instance/\(createdId)").last?.method, .put)

        let deleted = try await core.content.delete(instanceId: expensiveId)
        XCTAssertNotNil(deleted.deletedAt)

        let incremental = try await core.content.sync(query: SyncQuery(moduleName: "Products").fromSync(secondSync.syncDate))
        XCTAssertEqual(incremental.created.compactMap(\.id), [])
        XCTAssertEqual(incremental.updated.compactMap(\.id), [createdId])
        XCTAssertEqual(incremental.deleted, [expensiveId])
        XCTAssertNil(recorder.requests(to: "/api/generalcontent/instance/sync").last?.headers["to-cache"])

        do {
            _ = try await core.content.delete(instanceId: "000000000000000000000bad")
            XCTFail("deleting an unknown instance succeeded")
        } catch {
            XCTAssertEqual(error.httpStatus, 404)
        }
    }

    func testEditingWithAReadOnlyClientIs403() async throws {
        let readOnly = try await FlowServer.start(editorClient: false)
        defer { Task { await readOnly.stop() } }
        let moduleId = try await readOnly.server.admin.addModule(ModuleSpec(name: "News", fields: [ModuleField("title", .text)]))
        let (core, _) = readOnly.makeCore()
        try await core.startup()
        do {
            _ = try await core.content.save(ContentInstance(moduleId: moduleId, name: "x"))
            XCTFail("a read-only client could edit")
        } catch {
            guard case .server(403, let message, _) = error else { return XCTFail("\(error)") }
            XCTAssertFalse(message.isEmpty)
        }
    }
}
