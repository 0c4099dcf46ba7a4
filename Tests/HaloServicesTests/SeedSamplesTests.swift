import Foundation
import HaloServer
import HaloServices
import Synchronization
import XCTest

/// The iOS SDK 2.5 manual's calls (seeds/000, Core Manager page seeds/001 and 003), spelled as the
/// manual spells them and run against a real HaloServer on loopback, each with a check of what it
/// did. Adapted only where the seed used iOS types: UIApplication-based add-ons, NSURLRequest,
/// and `[weak self]` captures (Swift 6: completion handlers are @Sendable and an XCTestCase is
/// not). `Halo.` / `HALO.` prefixes compile as written (`Halo` namespace in HaloServices).
///
/// This is the only test that uses the `Manager` singletons; it points them at its own server.
/// Chapters in scope: Core, Authentication, Pocket, Content, Helpers (Social and Notifications
/// are not). Every call those chapters show, and the test step that checks its behaviour:
///
/// | Chapter | Call | Checked in |
/// |---|---|---|
/// | Core | `Halo.Manager.core.startup { success in }` | `coreChapter`: success, device saved with an id |
/// | Core | `ManagerDelegate.managerWillSetupDevice(device:)`, `device.addTag(name:value:)` | `coreChapter`: the server's copy of the device carries the tag |
/// | Core | `Manager.core.device` | `coreChapter` |
/// | Core | `HaloEnvironment` `.int .qa .stage .prod .custom(url)` | `coreChapter`: their base URLs, the custom one is ours |
/// | Core | `setEnvironment(_:completionHandler:)` | `coreChapter`: handler true, `environment` changed |
/// | Core | `defaultOfflinePolicy` `.none .loadAndStoreLocalData .returnLocalDataDontLoad` | `contentChapter`: stored answer returned without a request |
/// | Core | `numberOfRetries` | `coreChapter` (value); retries themselves: `CoreTests.testRetriesAfter5xxAndDroppedConnections` |
/// | Core | `authenticationMode` `.app .appPlus .user`, `appCredentials`, `userCredentials` (`Credentials(…)`) | `authChapter`: `.user` signs in with `userCredentials` (password grant); `.appPlus` after login |
/// | Core | `saveDevice(completionHandler:)` | `coreChapter`: a tag added after startup reaches the server |
/// | Core | `getModules(completionHandler:)` (on core) | `contentChapter`: the two modules, single page |
/// | Core | `registerAddon(_:)`, `NetworkAddon` `willPerformRequest`/`didPerformRequest`, `getAddons(type:)` | `coreChapter`: requests counted |
/// | Core | `timeoutIntervalForRequest`, `timeoutIntervalForResource` (release notes) | `coreChapter` (values) |
/// | Authentication | `UserProfile(id:email:name:surname:displayName:profilePictureUrl:)` | `authChapter` |
/// | Authentication | `AuthProfile(email:password:deviceId:)`, `AuthProfile(token:network:deviceId:)` | `authChapter` |
/// | Authentication | `Manager.auth.register(authProfile:userProfile:completionHandler:)` | `authChapter`: the new user can log in |
/// | Authentication | `Manager.auth.login(authProfile:stayLoggedIn:completionHandler:)`, `currentUser` | `authChapter`; wrong password gives an error |
/// | Authentication | `Manager.auth.logout(completionHandler:)` | `authChapter`: `currentUser` nil |
/// | Authentication | `addObserver(_:)`, `removeObserver(_:)` (release notes) | `authChapter`: observer sees login and logout |
/// | Pocket | `addReference`, `removeReference` (Bool), `setReferences`, `removeReferences`, `setData` | `pocketChapter` |
/// | Pocket | `Manager.auth.savePocket(_:completionHandler:)` | `pocketChapter`: stored copy returned |
/// | Pocket | `Manager.auth.getPocket(filterReferences:completionHandler:)` | `pocketChapter`: filtered and unfiltered |
/// | Content | `Module`, `ContentInstance`, `PaginationInfo` properties | `contentChapter` |
/// | Content | `Manager.content.search(query:completionHandler:)`, `searchAsData(query:completionHandler:)` | `contentChapter` |
/// | Content | `SearchQuery()` `moduleIds`, `moduleName`, `instanceIds`, `searchFilter`, `metaFilter`, `fields`, `tags`, `segmentMode`, `segmentWithDevice`, `addSortBy`, `pagination`, `skipPagination`, `locale`, `populateFields`, `populateAll`, `addRelatedInstances`, `addAllRelatedInstances`, `serverCache` | `searchQueryCalls`: one search each |
/// | Content | `eq`, `neq`, `gt`, `lt`, `gte`, `lte`, `valueIn`, `valueNotIn`, `like`, `or`, `and` | `searchFilterCalls`: the manual's sample and one search each |
/// | Content | `SyncQuery` `moduleId`, `moduleName`, `locale`, `fromSync`, `toSync` | `syncCalls` |
/// | Content | `Manager.content.sync(query:completionHandler:)` | `syncCalls`: instances in the cache |
/// | Content | `getSyncedInstances`, `removeSyncedInstances`, `getSyncLog`, `clearSyncLog` | `syncCalls` |
/// | Content | `Manager.content.save(_:completionHandler:)`, `ContentInstance.setValue(key:value:)` | `contentChapter`: created, then updated |
/// | Content | `Manager.content.delete(instanceId:completionHandler:)` | `contentChapter`: deleted, gone from search |
/// | Content | `Manager.content.batch(operations:completionHandler:)` | `contentChapter`: created, updated and deleted in one request |
/// | Helpers | Cloudinary and Translations helpers | the manual shows no call (headings only); ours are tested in `CloudinaryURLTests`, `TranslationsHelperTests` |
/// | Helpers | `HALO.Manager.core.addLogger(ConsoleLogger())`, `FileLogger.filePath`, `logLevel` `.none .error .warning .info` | `helpersChapter`: the file holds the messages of the level |
/// | Helpers | `HALO.Manager.core.logMessage(message:level:)` | `helpersChapter` |
final class SeedSamplesTests: XCTestCase {
    // MARK: Core manager page

    final class AppDelegate: ManagerDelegate {
        // MARK: ManagerDelegate methods

        func managerWillSetupDevice(device: Halo.Device) {
            device.addTag(name: "test", value: "testValue")
        }
    }

    final class TrafficAddon: NetworkAddon {
        let addonName = "traffic"
        let requests = Mutex<[HTTPRequest]>([])
        var count: Int { requests.withLock { $0.count } }
        func willPerformRequest(request: HTTPRequest) {}
        func didPerformRequest(request: HTTPRequest, time: TimeInterval, response: HTTPResponse?) {
            requests.withLock { $0.append(request) }
        }
    }

    final class LoginObserver: AuthManagerObserver {
        let events = Mutex<[String]>([])
        func userDidLogIn(_ user: User) { events.withLock { $0.append("in \(user.userProfile.email)") } }
        func userDidLogOut() { events.withLock { $0.append("out") } }
    }

    /// The value of a seed-style `Result` that must hold one.
    private func unwrap<T>(_ result: Result<T?, HaloError>, line: UInt = #line) throws -> T {
        try XCTUnwrap(try result.get(), line: line)
    }

    /// Waits for a seed-style completion handler and returns what it was called with.
    private func seed<T: Sendable>(_ call: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in call { continuation.resume(returning: $0) } }
    }

    private var server: FlowServer!
    private let traffic = TrafficAddon()

    func testSeedSamplesCompileAndRun() async throws {
        server = try await FlowServer.start()
        defer { Task { [server] in await server?.stop() } }
        var configuration = server.configuration()
        configuration.cacheDirectory = server.directory.appendingPathComponent("cache")
        Manager.core.configuration = configuration
        try await server.server.admin.addUser(email: "your@email.com", password: "yoursecretpassword", editor: true)

        try await coreChapter()
        try await helpersChapter()
        try await authChapter()
        try await pocketChapter()
        try await contentChapter()

        let loggedOut = await seed { done in Manager.auth.logout { done($0) } }
        // `false` says the keyring could not be cleared: without a Secret Service there is none.
        XCTAssertEqual(loggedOut, secretServiceAvailable())
        XCTAssertNil(Manager.auth.currentUser)
    }

    private func coreChapter() async throws {
        // Configuration through code.
        Halo.Manager.core.appCredentials = Credentials(clientId: server.client.clientId, clientSecret: server.client.clientSecret)
        HALO.Manager.core.authenticationMode = .app
        Manager.core.numberOfRetries = 0
        Manager.core.defaultOfflinePolicy = .none
        Manager.core.timeoutIntervalForRequest = 30
        Manager.core.timeoutIntervalForResource = 120
        XCTAssertEqual(Manager.core.numberOfRetries, 0)
        XCTAssertEqual(Manager.core.timeoutIntervalForRequest, 30)
        XCTAssertEqual(Manager.core.timeoutIntervalForResource, 120)
        let environments: [HaloEnvironment] = [.int, .qa, .stage, .prod, .custom(server.baseURL.absoluteString)]
        XCTAssertEqual(
            environments.map { $0.baseURL?.host },
            ["int.halo-db.com", "stage.halo-db.com", "stage.halo-db.com", "halo-db.com", server.baseURL.host])

        // Add-ons: registered before startup.
        let delegate = AppDelegate()
        Manager.core.delegate = delegate
        Halo.Manager.core.registerAddon(traffic)
        XCTAssertEqual(Manager.core.getAddons(type: TrafficAddon.self).count, 1)

        let changed = await seed { done in Manager.core.setEnvironment(.custom(server.baseURL.absoluteString)) { done($0) } }
        XCTAssertTrue(changed)
        XCTAssertEqual(Manager.core.environment.baseURL?.port, server.baseURL.port)

        let started = await seed { done in
            Halo.Manager.core.startup { (success) -> Void in
                // Do your stuff
                done(success)
            }
        }
        XCTAssertTrue(started)
        let device = try XCTUnwrap(Manager.core.device)
        XCTAssertNotNil(device.id)
        // The device's tags are the server's copy: the delegate's tag was saved.
        XCTAssertEqual(device.tags["test"]?.value, "testValue")
        XCTAssertGreaterThan(traffic.count, 0)

        device.addTag(name: "saved", value: "later")
        let saved = await seed { done in Manager.core.saveDevice { done($1) } }
        let savedDevice = try XCTUnwrap(try saved.get())
        XCTAssertEqual(savedDevice.id, device.id)
        XCTAssertEqual(savedDevice.tags["saved"]?.value, "later")
    }

    private func helpersChapter() async throws {
        let logFile = server.directory.appendingPathComponent("logs/halo.log")
        let fileLogger = FileLogger(filePath: logFile)
        XCTAssertEqual(fileLogger.filePath, logFile)
        HALO.Manager.core.addLogger(ConsoleLogger())
        HALO.Manager.core.addLogger(fileLogger)
        for level: LogLevel in [.none, .error, .warning, .info] {
            Manager.core.logLevel = level
            HALO.Manager.core.logMessage(message: "at \(level) an error", level: .error)
            HALO.Manager.core.logMessage(message: "at \(level) some info", level: .info)
        }
        Manager.core.logLevel = .error
        let written = try String(contentsOf: logFile, encoding: .utf8)
        XCTAssertFalse(written.contains("at none"), written)
        XCTAssertTrue(written.contains("at error an error"), written)
        XCTAssertFalse(written.contains("at error some info"), written)
        XCTAssertTrue(written.contains("at warning an error"), written)
        XCTAssertFalse(written.contains("at warning some info"), written)
        XCTAssertTrue(written.contains("at info some info"), written)
    }

    private func authChapter() async throws {
        // `.user` mode: requests carry a token got with `userCredentials` (password grant).
        Manager.core.userCredentials = Credentials(username: "your@email.com", password: "yoursecretpassword")
        Manager.core.authenticationMode = .user
        let asUser = await seed { done in Halo.Manager.core.getModules { done($1) } }
        XCTAssertNoThrow(try asUser.get())
        Manager.core.authenticationMode = .app

        let observer = LoginObserver()
        Manager.auth.addObserver(observer)
        let userProfile = UserProfile(
            id: nil, email: "new@email.com", name: "New", surname: "User", displayName: nil, profilePictureUrl: nil)
        let (registeredProfile, registerError) = await seed { done in
            Manager.auth.register(authProfile: AuthProfile(email: "new@email.com", password: "a password"), userProfile: userProfile) {
                (profile, error) in done((profile, error))
            }
        }
        XCTAssertNil(registerError)
        XCTAssertNotNil(registeredProfile?.id)
        XCTAssertEqual(registeredProfile?.name, "New")

        let wrong = await seed { done in
            Manager.auth.login(authProfile: AuthProfile(email: "new@email.com", password: "not it"), stayLoggedIn: false) { done($1) }
        }
        XCTAssertNotNil(wrong)
        let newcomer = await seed { done in
            Manager.auth.login(authProfile: AuthProfile(email: "new@email.com", password: "a password"), stayLoggedIn: false) {
                user, _ in done(user?.userProfile.email)
            }
        }
        XCTAssertEqual(newcomer, "new@email.com")

        // Set an AuthProfile to login
        let authProfile = AuthProfile(email: "your@email.com", password: "yoursecretpassword")
        // Request login with the AuthProfile
        let email = await seed { done in
            Manager.auth.login(authProfile: authProfile, stayLoggedIn: false) { (user, error) in
                if error != nil {
                    // Something went wrong.
                    done("error: \(String(describing: error))")
                } else {
                    // User logged in successfully. Do something with "user".
                    done(user?.userProfile.email ?? "no user")
                }
            }
        }
        XCTAssertEqual(email, "your@email.com")
        XCTAssertEqual(Manager.auth.currentUser?.userProfile.email, "your@email.com")
        XCTAssertEqual(observer.events.withLock { $0 }.last, "in your@email.com")
        Manager.auth.removeObserver(observer)
        let social = AuthProfile(token: "token", network: Halo.Network.facebook, deviceId: nil)
        XCTAssertEqual(social.token, "token")
        XCTAssertEqual(social.network, .facebook)
        XCTAssertNil(social.password)
        // An identified user's requests go in app+ mode.
        Manager.core.authenticationMode = .appPlus
    }

    private func pocketChapter() async throws {
        let pocket = Pocket()
        pocket.addReference(key: "favorites", value: "id1")
        pocket.addReference(key: "favorites", value: "id2")
        XCTAssertTrue(pocket.removeReference(key: "favorites", value: "id1"))
        XCTAssertFalse(pocket.removeReference(key: "favorites", value: "id1"))
        pocket.setReferences(key: "instances", values: ["id1", "id2"])
        pocket.setReferences(key: "modules", values: ["m1"])
        pocket.removeReferences(key: "modules")
        pocket.setData(["custom": "data", "count": 3])
        XCTAssertEqual(pocket.references, ["favorites": ["id2"], "instances": ["id1", "id2"]])

        let saved = await seed { done in Manager.auth.savePocket(pocket) { (_, result) in done(result) } }
        let stored = try XCTUnwrap(try saved.get())
        XCTAssertEqual(stored.references["instances"], ["id1", "id2"])
        XCTAssertEqual(stored.references["favorites"], ["id2"])
        XCTAssertNil(stored.references["modules"])

        let all = try unwrap(await seed { done in Manager.auth.getPocket(filterReferences: nil) { done($1) } })
        XCTAssertEqual(all.data["custom"], "data")
        XCTAssertEqual(all.data["count"], 3)
        XCTAssertEqual(Set(all.references.keys), ["favorites", "instances"])
        let filtered = try unwrap(await seed { done in Manager.auth.getPocket(filterReferences: ["favorites"]) { done($1) } })
        XCTAssertEqual(filtered.references, ["favorites": ["id2"]])
    }

    // MARK: Content

    /// The People and Other modules and the three people's instance ids.
    private struct People { let moduleId, otherId, alone, fake, july: String }

    private func contentChapter() async throws {
        let moduleId1 = try await server.server.admin.addModule(
            ModuleSpec(
                name: "People",
                fields: [
                    ModuleField("name", .text), ModuleField("age", .number), ModuleField("registration", .text),
                    ModuleField("friend", .singleRelation), ModuleField("motto", .localizedText),
                ]))
        let moduleId2 = try await server.server.admin.addModule(ModuleSpec(name: "Other", fields: [ModuleField("name", .text)]))

        let modules = try unwrap(await seed { done in Halo.Manager.core.getModules { (_, result) in done(result) } })
        XCTAssertEqual(Set(modules.modules.compactMap(\.name)), ["People", "Other"])
        XCTAssertEqual(modules.paginationInfo.totalItems, 2)
        let people = try XCTUnwrap(modules.modules.first { $0.id == moduleId1 })
        XCTAssertFalse(people.isSingle)
        XCTAssertNotNil(people.createdAt)

        // Create (save) and update (setValue + save).
        func save(_ instance: ContentInstance) async throws -> ContentInstance {
            try unwrap(await seed { done in Manager.content.save(instance) { (_, result) in done(result) } })
        }
        var instance = ContentInstance(moduleId: moduleId1, name: "Forever alone")
        instance.setValue(key: "name", value: "Forever alone")
        instance.setValue(key: "age", value: 30)
        instance.tagList = [Tag(name: "color", value: "red")]
        let alone = try await save(instance)
        let aloneId = try XCTUnwrap(alone.id)
        XCTAssertEqual(alone.moduleId, moduleId1)
        XCTAssertEqual(alone.values["age"], 30)
        XCTAssertEqual(alone.tags["color"]?.value, "red")
        var fake = ContentInstance(moduleId: moduleId1, name: "Fake name")
        fake.setValue(key: "name", value: "Fake name")
        fake.setValue(key: "age", value: 120)
        fake.setValue(key: "registration", value: "yes")
        fake.setValue(key: "friend", value: aloneId)
        fake.setValue(key: "motto", value: ["en-US": "Hi", "es-ES": "Hola"])
        let savedFake = try await save(fake)
        let fakeId = try XCTUnwrap(savedFake.id)
        var july = ContentInstance(moduleId: moduleId1, name: "July Young")
        july.setValue(key: "name", value: "July Young")
        july.setValue(key: "age", value: 49)
        july.tagList = [Tag(name: "test", value: "testValue")]
        var savedJuly = try await save(july)
        savedJuly.setValue(key: "age", value: 50)
        savedJuly = try await save(savedJuly)
        XCTAssertEqual(savedJuly.values["age"], 50)
        XCTAssertNotNil(savedJuly.updatedAt)
        let ids = People(moduleId: moduleId1, otherId: moduleId2, alone: aloneId, fake: fakeId, july: try XCTUnwrap(savedJuly.id))

        try await searchFilterCalls(ids)
        try await searchQueryCalls(ids)
        try await offlinePolicyCalls(ids)
        try await syncCalls(ids)

        var operations = BatchOperations()
        operations.create(ContentInstance(moduleId: moduleId2, name: "Batch item"))
        var renamed = savedJuly
        renamed.name = "July Old"
        operations.update(renamed)
        operations.delete(instanceId: fakeId)
        let batch = try unwrap(await seed { done in Manager.content.batch(operations: operations) { (_, result) in done(result) } })
        XCTAssertEqual(batch.succeeded.count, 3)
        try await expectNames(SearchQuery().moduleIds([moduleId1, moduleId2]), ["Batch item", "Forever alone", "July Old"])

        let deleted = await seed { done in Manager.content.delete(instanceId: aloneId) { (_, result) in done(result) } }
        XCTAssertNotNil(try XCTUnwrap(try deleted.get()).deletedAt)
        try await expectNames(SearchQuery().moduleIds([moduleId1]), ["July Old"])
    }

    /// Names found by `query` through the seed's `search`, sorted by name.
    private func names(_ query: SearchQuery) async throws -> [String] {
        let result = await seed { done in
            Manager.content.search(query: query.addSortBy(field: .name, order: .ascending)) { (_, result) in done(result) }
        }
        return try XCTUnwrap(try result.get()).instances.map(\.name)
    }

    private func expectNames(_ query: SearchQuery, _ expected: [String], line: UInt = #line) async throws {
        let found = try await names(query)
        XCTAssertEqual(found, expected, line: line)
    }

    private func searchFilterCalls(_ ids: People) async throws {
        let moduleId1 = ids.moduleId, moduleId2 = ids.otherId
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
        try await expectNames(query, ["Forever alone"])
        let raw = await seed { done in Manager.content.searchAsData(query: query) { (_, result) in done(result) } }
        let json = try JSONValue(data: try raw.get())
        XCTAssertEqual(json.arrayValue?.compactMap { $0["name"]?.stringValue }, ["Forever alone"])

        let people = SearchQuery().moduleIds([moduleId1])
        try await expectNames(people.searchFilter(gt(property: "age", value: 40)), ["Fake name", "July Young"])
        try await expectNames(people.searchFilter(lte(property: "age", value: 30)), ["Forever alone"])
        try await expectNames(people.searchFilter(eq(property: "age", value: 50)), ["July Young"])
        try await expectNames(people.searchFilter(valueNotIn(property: "name", value: ["Forever alone"])), ["Fake name", "July Young"])
        try await expectNames(people.searchFilter(like(property: "name", value: "Young")), ["July Young"])
        try await expectNames(
            people.searchFilter(or(eq(property: "age", value: 30), eq(property: "age", value: 120))),
            ["Fake name", "Forever alone"])
    }

    private func searchQueryCalls(_ ids: People) async throws {
        let people = SearchQuery().moduleIds([ids.moduleId])
        try await expectNames(SearchQuery().moduleName("People"), ["Fake name", "Forever alone", "July Young"])
        try await expectNames(SearchQuery().instanceIds([ids.july, ids.alone]), ["Forever alone", "July Young"])
        try await expectNames(people.metaFilter(eq(property: "name", value: "July Young")), ["July Young"])

        let descending = await seed { done in
            Manager.content.search(query: people.addSortBy(field: .name, order: .descending).pagination(page: 2, limit: 1)) { done($1) }
        }
        let page = try XCTUnwrap(try descending.get())
        XCTAssertEqual(page.instances.map(\.name), ["Forever alone"])
        XCTAssertEqual(page.paginationInfo.page, 2)
        XCTAssertEqual(page.paginationInfo.limit, 1)
        XCTAssertEqual(page.paginationInfo.totalItems, 3)
        XCTAssertEqual(page.paginationInfo.totalPages, 3)

        let projected = try unwrap(await seed { done in Manager.content.search(query: people.fields(["age"])) { done($1) } })
        XCTAssertFalse(projected.instances.isEmpty)
        for item in projected.instances {
            XCTAssertNotNil(item.values["age"], item.name)
            XCTAssertNil(item.values["registration"], item.name)
        }

        // Segmentation: untagged instances are for everyone; tagged ones must match.
        try await expectNames(people.tags([Tag(name: "color", value: "blue")]), ["Fake name"])
        try await expectNames(
            people.tags([Tag(name: "color", value: "red"), Tag(name: "test", value: "testValue")]).segmentMode(.partial),
            ["Fake name", "Forever alone", "July Young"])
        try await expectNames(
            people.tags([Tag(name: "color", value: "red"), Tag(name: "test", value: "testValue")]).segmentMode(.total),
            ["Fake name"])
        // The device carries test=testValue (the delegate's tag).
        try await expectNames(people.segmentWithDevice(true), ["Fake name", "July Young"])

        let localized = try unwrap(
            await seed { done in Manager.content.search(query: people.instanceIds([ids.fake]).locale(.englishUnitedStates)) { done($1) } })
        XCTAssertEqual(localized.instances.first?.values["motto"], "Hi")

        try await expectNames(people.addRelatedInstances(fieldName: "friend", instanceIds: [ids.alone]), ["Fake name"])
        try await expectNames(people.addRelatedInstances(fieldName: "friend", instanceIds: [ids.july]), [])
        try await expectNames(people.addAllRelatedInstances(fieldName: "friend"), ["Fake name"])

        for populated in [people.instanceIds([ids.fake]).populateFields(["friend"]), people.instanceIds([ids.fake]).populateAll()] {
            let raw = try await seed { done in Manager.content.searchAsData(query: populated) { done($1) } }.get()
            let included = try JSONValue(data: raw)["included"]?.arrayValue ?? []
            XCTAssertEqual(included.compactMap { $0["id"]?.stringValue }, [ids.alone])
        }

        let before = traffic.count
        try await expectNames(people.serverCache(seconds: 60).instanceIds([ids.alone]), ["Forever alone"])
        let sent = traffic.requests.withLock { Array($0[before...]) }
        XCTAssertEqual(sent.last?.headers["to-cache"], "60")
    }

    /// `defaultOfflinePolicy`: stored answers, then answered from them without a request.
    private func offlinePolicyCalls(_ ids: People) async throws {
        let query = SearchQuery().moduleIds([ids.moduleId])
        Manager.core.defaultOfflinePolicy = .loadAndStoreLocalData
        let online = try await names(query)
        let modules = try await seed { done in Manager.core.getModules { done($1) } }.get()
        Manager.core.defaultOfflinePolicy = .returnLocalDataDontLoad
        let before = traffic.count
        try await expectNames(query, online)
        let storedModules = try await seed { done in Manager.core.getModules { done($1) } }.get()
        XCTAssertEqual(storedModules?.modules.count, modules?.modules.count)
        XCTAssertEqual(traffic.count, before)
        Manager.core.defaultOfflinePolicy = .none
    }

    private func syncCalls(_ ids: People) async throws {
        let synced = await seed { done in
            Manager.content.sync(query: SyncQuery().moduleName("People").locale(.englishUnitedStates)) { (moduleId, error) in
                done((moduleId, error))
            }
        }
        XCTAssertEqual(synced.0, "People")
        XCTAssertNil(synced.1)
        let local = Manager.content.getSyncedInstances(moduleId: "People")
        XCTAssertEqual(local.map(\.name).sorted(), ["Fake name", "Forever alone", "July Young"])
        XCTAssertEqual(local.first { $0.id == ids.fake }?.values["motto"], "Hi")
        let log = Manager.content.getSyncLog(moduleId: "People")
        XCTAssertEqual(log.map(\.creations).reduce(0, +), 3)
        Manager.content.clearSyncLog(moduleId: "People")
        XCTAssertEqual(Manager.content.getSyncLog(moduleId: "People").count, 0)
        Manager.content.removeSyncedInstances(moduleId: "People")
        XCTAssertEqual(Manager.content.getSyncedInstances(moduleId: "People").count, 0)

        // fromSync / toSync bound the changes a sync returns.
        let first = try await Manager.content.sync(query: SyncQuery().moduleId(ids.moduleId))
        XCTAssertEqual(first.created.count, 3)
        let since = try await Manager.content.sync(query: SyncQuery().moduleId(ids.moduleId).fromSync(first.syncDate).toSync(Date()))
        XCTAssertEqual(since.created.count + since.updated.count + since.deleted.count, 0)
    }
}
