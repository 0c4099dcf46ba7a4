import Foundation
import HaloServer
import HaloServices
import Synchronization
import XCTest

/// The iOS SDK 2.5 manual's code samples (seeds/000), compiled against HaloServices and run
/// against a real server. Adapted only where the seed used iOS types: `Halo.`/`HALO.` module
/// prefixes (the module is HaloServices), UIApplication-based add-ons, NSURLRequest, and
/// `[weak self]` captures (Swift 6: completion handlers are @Sendable).
///
/// This is the only test that uses the `Manager` singletons; it points them at its own server.
final class SeedSamplesTests: XCTestCase {
    // MARK: Core manager page

    final class AppDelegate: ManagerDelegate {
        // MARK: ManagerDelegate methods

        func managerWillSetupDevice(device: Device) {
            device.addTag(name: "test", value: "testValue")
        }
    }

    final class TrafficAddon: NetworkAddon {
        let addonName = "traffic"
        let count = Mutex(0)
        func willPerformRequest(request: HTTPRequest) {}
        func didPerformRequest(request: HTTPRequest, time: TimeInterval, response: HTTPResponse?) { count.withLock { $0 += 1 } }
    }

    final class LoginObserver: AuthManagerObserver {
        let loggedIn = Mutex(false)
        func userDidLogIn(_ user: User) { loggedIn.withLock { $0 = true } }
        func userDidLogOut() { loggedIn.withLock { $0 = false } }
    }

    func testSeedSamplesCompileAndRun() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        try await server.server.admin.addUser(email: "your@email.com", password: "yoursecretpassword", editor: true)
        let moduleId1 = try await server.server.admin.addModule(
            ModuleSpec(
                name: "People",
                fields: [
                    ModuleField("name", .text), ModuleField("age", .number), ModuleField("registration", .text),
                ]))
        let moduleId2 = try await server.server.admin.addModule(ModuleSpec(name: "Other", fields: [ModuleField("name", .text)]))
        Manager.core.configuration = server.configuration()

        // Configuration through code (Core manager page).
        Manager.core.appCredentials = Credentials(clientId: server.client.clientId, clientSecret: server.client.clientSecret)
        Manager.core.userCredentials = Credentials(username: "username", password: "password")
        Manager.core.authenticationMode = .user
        Manager.core.authenticationMode = .app
        Manager.core.numberOfRetries = 0
        Manager.core.defaultOfflinePolicy = .none
        Manager.core.timeoutIntervalForRequest = 30
        Manager.core.timeoutIntervalForResource = 120
        let environments: [HaloEnvironment] = [.int, .qa, .stage, .prod, .custom(server.baseURL.absoluteString)]
        XCTAssertEqual(environments.count, 5)

        // Logging page.
        Manager.core.addLogger(ConsoleLogger())
        Manager.core.logLevel = .error
        Manager.core.logMessage(message: "message", level: .info)

        // Add-ons: registered before startup.
        let delegate = AppDelegate()
        Manager.core.delegate = delegate
        let trafficAddon = TrafficAddon()
        Manager.core.registerAddon(trafficAddon)
        XCTAssertEqual(Manager.core.getAddons(type: TrafficAddon.self).count, 1)

        let environmentChanged = expectation(description: "environment")
        Manager.core.setEnvironment(.custom(server.baseURL.absoluteString)) { success in
            XCTAssertTrue(success)
            environmentChanged.fulfill()
        }
        await fulfillment(of: [environmentChanged], timeout: 10)

        let started = expectation(description: "startup")
        // `[weak self]` dropped: handlers are @Sendable and an XCTestCase is not.
        Manager.core.startup { (success) -> Void in
            // Do your stuff
            XCTAssertTrue(success)
            started.fulfill()
        }
        await fulfillment(of: [started], timeout: 30)
        XCTAssertEqual(Manager.core.device?.tags["test"]?.value, "testValue")
        XCTAssertGreaterThan(trafficAddon.count.withLock { $0 }, 0)

        let saved = expectation(description: "saveDevice")
        Manager.core.saveDevice { _, result in
            if case .success(let device) = result { XCTAssertNotNil(device?.id) } else { XCTFail("\(result)") }
            saved.fulfill()
        }
        await fulfillment(of: [saved], timeout: 10)

        // User authentication page.
        let observer = LoginObserver()
        Manager.auth.addObserver(observer)
        let registered = expectation(description: "register")
        let userProfile = UserProfile(
            id: nil, email: "new@email.com", name: "New", surname: "User", displayName: nil, profilePictureUrl: nil)
        Manager.auth.register(authProfile: AuthProfile(email: "new@email.com", password: "a password"), userProfile: userProfile) {
            (profile, error) in
            XCTAssertNil(error)
            XCTAssertNotNil(profile?.id)
            registered.fulfill()
        }
        await fulfillment(of: [registered], timeout: 10)

        // Set an AuthProfile to login
        let authProfile = AuthProfile(email: "your@email.com", password: "yoursecretpassword")
        let loggedIn = expectation(description: "login")
        // Request login with the AuthProfile
        Manager.auth.login(authProfile: authProfile, stayLoggedIn: false) { (user, error) in
            if error != nil {
                // Something went wrong.
                XCTFail("\(String(describing: error))")
            } else {
                // User logged in successfully. Do something with "user".
                XCTAssertEqual(user?.userProfile.email, "your@email.com")
            }
            loggedIn.fulfill()
        }
        await fulfillment(of: [loggedIn], timeout: 10)
        XCTAssertNotNil(Manager.auth.currentUser)
        XCTAssertTrue(observer.loggedIn.withLock { $0 })
        _ = AuthProfile(token: "token", network: Network.facebook, deviceId: nil)

        // User pocket page.
        let pocket = Pocket()
        pocket.addReference(key: "favorites", value: "id1")
        _ = pocket.removeReference(key: "favorites", value: "id1")
        pocket.setReferences(key: "instances", values: ["id1", "id2"])
        pocket.removeReferences(key: "modules")
        pocket.setData(["custom": "data"])
        let pocketSaved = expectation(description: "savePocket")
        Manager.auth.savePocket(pocket) { (_, result) in
            if case .success(let stored) = result {
                XCTAssertEqual(stored?.references["instances"], ["id1", "id2"])
            } else {
                XCTFail("\(result)")
            }
            pocketSaved.fulfill()
        }
        await fulfillment(of: [pocketSaved], timeout: 10)
        let pocketRead = expectation(description: "getPocket")
        Manager.auth.getPocket(filterReferences: nil) { (_, result) in
            if case .success(let stored) = result { XCTAssertEqual(stored?.data["custom"], "data") } else { XCTFail("\(result)") }
            pocketRead.fulfill()
        }
        await fulfillment(of: [pocketRead], timeout: 10)

        // Content pages.
        let modulesLoaded = expectation(description: "getModules")
        Manager.content.getModules { (_, result) in
            if case .success(let modules) = result { XCTAssertEqual(modules?.modules.count, 2) } else { XCTFail("\(result)") }
            modulesLoaded.fulfill()
        }
        await fulfillment(of: [modulesLoaded], timeout: 10)

        let searchFilter = and(
            or(
                and(
                    gte(property: "age", value: 18),
                    lt(property: "age", value: 100)
                ),
                eq(property: "registration", value: nil)
            ),
            neq(property: "name", value: "July Young"),
            valueIn(property: "name", value: ["Forever alone", "Fake name"])
        )
        let filter = searchFilter
        let query = SearchQuery().moduleIds([moduleId1, moduleId2]).searchFilter(filter).skipPagination()

        var instance = ContentInstance(moduleId: moduleId1, name: "Forever alone")
        instance.setValue(key: "name", value: "Forever alone")
        instance.setValue(key: "age", value: 30)
        let created = expectation(description: "save")
        let createdId = Mutex<String?>(nil)
        Manager.content.save(instance) { (_, result) in
            if case .success(let saved) = result { createdId.withLock { $0 = saved?.id } } else { XCTFail("\(result)") }
            created.fulfill()
        }
        await fulfillment(of: [created], timeout: 10)

        let searched = expectation(description: "search")
        Manager.content.search(query: query) { (_, result) in
            if case .success(let found) = result {
                XCTAssertEqual(found?.instances.map(\.name), ["Forever alone"])
            } else {
                XCTFail("\(result)")
            }
            searched.fulfill()
        }
        let searchedAsData = expectation(description: "searchAsData")
        Manager.content.searchAsData(query: query) { (_, result) in
            if case .success(let data) = result { XCTAssertFalse(data.isEmpty) } else { XCTFail("\(result)") }
            searchedAsData.fulfill()
        }
        await fulfillment(of: [searched, searchedAsData], timeout: 10)

        let synced = expectation(description: "sync")
        Manager.content.sync(query: SyncQuery(moduleId: moduleId1)) { (moduleId, error) in
            XCTAssertEqual(moduleId, moduleId1)
            XCTAssertNil(error)
            synced.fulfill()
        }
        await fulfillment(of: [synced], timeout: 10)

        var operations = BatchOperations()
        operations.create(ContentInstance(moduleId: moduleId2, name: "Batch item"))
        let batched = expectation(description: "batch")
        Manager.content.batch(operations: operations) { (_, result) in
            if case .success(let batch) = result { XCTAssertEqual(batch?.succeeded.count, 1) } else { XCTFail("\(result)") }
            batched.fulfill()
        }
        await fulfillment(of: [batched], timeout: 10)

        let deleted = expectation(description: "delete")
        Manager.content.delete(instanceId: try XCTUnwrap(createdId.withLock { $0 })) { (_, result) in
            if case .success(let gone) = result { XCTAssertNotNil(gone?.deletedAt) } else { XCTFail("\(result)") }
            deleted.fulfill()
        }
        await fulfillment(of: [deleted], timeout: 10)

        let loggedOut = expectation(description: "logout")
        Manager.auth.logout { _ in loggedOut.fulfill() }
        await fulfillment(of: [loggedOut], timeout: 10)
        XCTAssertNil(Manager.auth.currentUser)
        Manager.auth.removeObserver(observer)
    }
}
