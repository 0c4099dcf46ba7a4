import Foundation
import HaloContentStore
import XCTest

@testable import HaloServices

/// The outbox contract beyond the basics in `OutboxTests`: creates cannot be duplicated by a
/// resend, waiting edits are what offline reads see (and the server's copy comes back when they
/// go), queue order across kinds, and failed entries retried.
final class OutboxCompletenessTests: XCTestCase {
    private var server: OfflineTestServer!
    private var module = ""

    override func setUp() async throws {
        server = try await OfflineTestServer.start()
        module = try await server.admin.seedBenchmark(instances: 6, modules: 1)[0]
    }

    override func tearDown() async throws {
        await server.stop()
    }

    private func remote() async throws -> [ContentInstance] {
        try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
    }

    private func newInstance(_ name: String) -> ContentInstance {
        var instance = ContentInstance(moduleId: module, name: name)
        instance.values = ["title": .string(name), "price": 3, "inStock": true]
        return instance
    }

    /// The server's copy, changed by "someone else" (a PUT straight to the server).
    @discardableResult
    private func changeOnServer(_ instance: ContentInstance, name: String) async throws -> ContentInstance {
        guard case .object(var theirs) = instance.fullJSON, let id = instance.id else { throw HaloError.invalidInput(message: "no id") }
        theirs["name"] = .string(name)
        return try ContentInstance(wire: try await server.call("PUT", "api/generalcontent/instance/\(id)", .object(theirs)))
    }

    // MARK: Idempotent creates

    func testACreateWhoseAnswerWasLostIsNotDuplicatedWhenSentAgain() async throws {
        let proxy = try CuttingProxy(target: server.server.port, cutAfterBytes: .max)
        defer { proxy.stop() }
        let core = try server.core(baseURL: proxy.url)
        _ = try await core.content.getModules()  // signed in first: a batch refused with 401 is re-sent after sign-in
        let outbox = Outbox(cache: try temporaryCache(), core: core)
        let entry = try outbox.enqueueCreate(newInstance("Sent twice"))
        let asked = try XCTUnwrap(entry.instance.id.flatMap(Outbox.serverId(forLocalId:)), "a queued create carries a server-format id")
        XCTAssertEqual(asked.count, 24)

        proxy.dropAnswersTo = "instance/batch"
        let lost = try await outbox.flush()
        XCTAssertNotNil(lost.networkError, "the answer never came back")
        XCTAssertEqual(try outbox.pending().map(\.id), [entry.id], "so the create still waits")
        let afterLoss = try await remote()
        XCTAssertEqual(afterLoss.filter { $0.name == "Sent twice" }.map(\.id), [asked], "yet the server did create it")

        proxy.dropAnswersTo = nil
        let resent = try await outbox.flush()
        XCTAssertNil(resent.networkError)
        XCTAssertEqual(resent.sent.map(\.id), [asked])
        XCTAssertEqual(try outbox.entries(), [])
        let afterResend = try await remote()
        XCTAssertEqual(afterResend.filter { $0.name == "Sent twice" }.map(\.id), [asked], "exactly one instance on the server")
        XCTAssertEqual(afterResend.count, 7)
        let cached = try outbox.cache.read { db in
            (try ContentTables.instance(id: asked, in: db)?.name, try ContentTables.instance(id: try XCTUnwrap(entry.instance.id), in: db))
        }
        XCTAssertEqual(cached.0, "Sent twice", "the cache holds the server's copy")
        XCTAssertNil(cached.1, "and no longer the local one")
    }

    func testAnUpdateOrDeleteWhoseAnswerWasLostIsDoneNotAConflictWhenSentAgain() async throws {
        let proxy = try CuttingProxy(target: server.server.port, cutAfterBytes: .max)
        defer { proxy.stop() }
        let core = try server.core(baseURL: proxy.url)
        _ = try await core.content.getModules()  // signed in first: a batch refused with 401 is re-sent after sign-in
        let outbox = Outbox(cache: try temporaryCache(), core: core)
        let original = try await remote().sorted { ($0.id ?? "") < ($1.id ?? "") }
        var renamed = original[0]
        renamed.name = "Renamed, answer lost"
        // Each edit's first send is applied by the server but its answer never comes back.
        for edit in [{ try outbox.enqueueUpdate(renamed) }, { _ = try outbox.enqueueDelete(original[1]) }] as [() throws -> Void] {
            try edit()
            proxy.dropAnswersTo = "instance/batch"
            let lost = try await outbox.flush()
            XCTAssertNotNil(lost.networkError)
            XCTAssertEqual(try outbox.pending().count, 1, "no answer: the edit still waits")
            proxy.dropAnswersTo = nil
            let resent = try await outbox.flush()
            XCTAssertEqual(resent.conflicts, [], "the server's copy is my edit: nothing to settle")
            XCTAssertEqual(resent.failed, [], "the instance is already deleted: nothing refused")
            XCTAssertEqual(try outbox.entries(), [])
        }
        let after = try await remote()
        XCTAssertEqual(after.first { $0.id == original[0].id }?.name, "Renamed, answer lost")
        XCTAssertFalse(after.contains { $0.id == original[1].id })

        // A real conflict (different content on the server) is still reported.
        try await changeOnServer(original[2], name: "Theirs")
        var stale = original[2]
        stale.name = "Mine"
        try outbox.enqueueUpdate(stale)
        let conflicted = try await outbox.flush()
        XCTAssertEqual(conflicted.conflicts.count, 1)
    }

    func testSaveOrQueueOfANewInstanceWhoseAnswerWasLostIsNotDuplicated() async throws {
        let proxy = try CuttingProxy(target: server.server.port, cutAfterBytes: .max)
        defer { proxy.stop() }
        let app = CoreManager(configuration: try server.sdkConfiguration(baseURL: proxy.url))
        _ = try await app.content.getModules()  // signed in before answers start getting lost

        proxy.dropAnswersTo = "instance/batch"
        let outcome = try await app.content.saveOrQueue(newInstance("Created online, answer lost"))
        XCTAssertTrue(outcome.isPending, "no answer: the create waits in the outbox")
        let afterLoss = try await remote()
        XCTAssertEqual(afterLoss.filter { $0.name == "Created online, answer lost" }.count, 1)

        proxy.dropAnswersTo = nil
        let report = try await app.content.outbox().flush()
        XCTAssertEqual(report.sent.count, 1)
        let afterResend = try await remote()
        XCTAssertEqual(afterResend.filter { $0.name == "Created online, answer lost" }.count, 1, "not duplicated")

        // Online and answered, a create is sent at once and a refusal is thrown, not kept.
        let direct = try await app.content.saveOrQueue(newInstance("Created online"))
        XCTAssertFalse(direct.isPending)
        XCTAssertEqual(direct.instance.name, "Created online")
        do {
            _ = try await app.content.saveOrQueue(ContentInstance(moduleId: module, name: "   "))
            XCTFail("a nameless instance was accepted")
        } catch {
            guard case .server(let status, _, _) = error else { return XCTFail("expected the server's refusal, got \(error)") }
            XCTAssertEqual(status, 400)
        }
        XCTAssertEqual(try app.content.outbox().entries(), [], "a refused create is not kept")
    }

    // MARK: Waiting edits are what offline reads see

    func testPendingUpdatesAndDeletesAreWhatOfflineReadsSeeUntilSent() async throws {
        let app = CoreManager(configuration: try server.sdkConfiguration())
        _ = try await app.content.syncToCache(query: SyncQuery(moduleId: module))
        let original = try await remote().sorted { ($0.id ?? "") < ($1.id ?? "") }
        let (changed, doomed) = (original[0], original[1])
        let everything = SearchQuery().moduleIds([module]).skipPagination()
        let port = server.server.port

        await server.stop()
        var edit = changed
        edit.name = "Renamed in the tunnel"
        let queuedEdit = try await app.content.saveOrQueue(edit)
        let queuedDeletion = try await app.content.deleteOrQueue(instanceId: try XCTUnwrap(doomed.id))
        XCTAssertTrue(queuedEdit.isPending)
        XCTAssertTrue(queuedDeletion.isPending)

        func offlineViews() async throws -> (
            search: [ContentInstance], synced: [ContentInstance], changed: [ContentInstance], doomed: [ContentInstance]
        ) {
            let search = try await app.content.search(query: everything, offlinePolicy: .returnLocalDataDontLoad).instances
            let byId = { (id: String?) async throws -> [ContentInstance] in
                try await app.content.search(
                    query: SearchQuery().instanceIds([id ?? ""]).skipPagination(),
                    offlinePolicy: .returnLocalDataDontLoad
                ).instances
            }
            return (search, app.content.getSyncedInstances(moduleId: module), try await byId(changed.id), try await byId(doomed.id))
        }
        let offline = try await offlineViews()
        XCTAssertEqual(offline.search.count, 5, "the waiting deletion hides the instance")
        XCTAssertEqual(offline.search.first { $0.id == changed.id }?.name, "Renamed in the tunnel")
        XCTAssertFalse(offline.search.contains { $0.id == doomed.id })
        XCTAssertEqual(offline.synced.count, 5)
        XCTAssertEqual(offline.synced.first { $0.id == changed.id }?.name, "Renamed in the tunnel")
        XCTAssertEqual(offline.changed.map(\.name), ["Renamed in the tunnel"])
        XCTAssertEqual(offline.doomed, [])

        // Back online: once sent, the cache holds the server's copies (with the server's updatedAt).
        server = try await server.restarted()
        XCTAssertEqual(server.server.port, port)
        let report = try await app.content.outbox().flush()
        XCTAssertEqual(report.sent.count, 2)
        let sent = try await offlineViews()
        let serverCopies = try await remote()
        let serverCopy = try XCTUnwrap(serverCopies.first { $0.id == changed.id })
        XCTAssertEqual(serverCopy.name, "Renamed in the tunnel")
        XCTAssertEqual(sent.changed.map(\.updatedAt), [serverCopy.updatedAt])
        XCTAssertNotEqual(serverCopy.updatedAt, changed.updatedAt)
        XCTAssertEqual(sent.doomed, [])
        XCTAssertEqual(sent.search.count, 5)
        XCTAssertEqual(
            try app.offlineCache().read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox_base") }, 0,
            "nothing is shadowed any more")
    }

    func testDiscardingOrTakingTheirsPutsTheServersCopyBackInTheCache() async throws {
        let app = CoreManager(configuration: try server.sdkConfiguration())
        _ = try await app.content.syncToCache(query: SyncQuery(moduleId: module))
        let cache = try app.offlineCache()
        let outbox = Outbox(cache: cache, core: try server.core(baseURL: unreachableURL()))
        let original = try await remote().sorted { ($0.id ?? "") < ($1.id ?? "") }
        func cachedName(_ instance: ContentInstance) throws -> String? {
            try cache.read { db in try ContentTables.instance(id: instance.id ?? "", in: db) }.flatMap {
                $0.deletedAt == nil ? $0.name : nil
            }
        }

        // A discarded update and a discarded deletion: the server's copies come back.
        var mine = original[0]
        mine.name = "Mine, then discarded"
        let update = try outbox.enqueueUpdate(mine)
        let deletion = try XCTUnwrap(try outbox.enqueueDelete(original[1]))
        XCTAssertEqual(try cachedName(original[0]), "Mine, then discarded")
        XCTAssertNil(try cachedName(original[1]))
        try outbox.discard(update)
        try outbox.discard(deletion)
        XCTAssertEqual(try cachedName(original[0]), original[0].name)
        XCTAssertEqual(try cachedName(original[1]), original[1].name)

        // A conflict shows my version until I take theirs; then the cache holds theirs.
        let theirs = try await changeOnServer(original[2], name: "Their version")
        var conflicting = original[2]
        conflicting.name = "My version"
        try outbox.enqueueUpdate(conflicting)
        let online = Outbox(cache: cache, core: try server.core())
        let report = try await online.flush()
        XCTAssertEqual(report.conflicts.count, 1)
        XCTAssertEqual(try cachedName(original[2]), "My version", "both kept; mine still shown until settled")
        try online.resolve(try XCTUnwrap(online.conflicts().first), keeping: .takeTheirs)
        XCTAssertEqual(try cachedName(original[2]), "Their version")
        XCTAssertEqual(
            try cache.read { db in try ContentTables.instance(id: original[2].id ?? "", in: db)?.updatedAt },
            theirs.storedForm().updatedAt)
        XCTAssertEqual(try online.entries(), [])
    }

    func testASyncWhileAnEditWaitsKeepsTheEditShownAndRemembersTheNewServerCopy() async throws {
        let app = CoreManager(configuration: try server.sdkConfiguration())
        _ = try await app.content.syncToCache(query: SyncQuery(moduleId: module))
        let cache = try app.offlineCache()
        let original = try await remote().sorted { ($0.id ?? "") < ($1.id ?? "") }[0]
        var mine = original
        mine.name = "Mine, waiting"
        let entry = try Outbox(cache: cache, core: try server.core(baseURL: unreachableURL())).enqueueUpdate(mine)

        try await changeOnServer(original, name: "Theirs, synced meanwhile")
        _ = try await app.content.syncToCache(query: SyncQuery(moduleId: module))
        let cachedName = { try cache.read { db in try ContentTables.instance(id: original.id ?? "", in: db)?.name } }
        XCTAssertEqual(try cachedName(), "Mine, waiting", "the sync does not hide the waiting edit")
        XCTAssertEqual(app.content.getSyncedInstances(moduleId: module).first { $0.id == original.id }?.name, "Mine, waiting")

        try Outbox(cache: cache, core: try server.core()).discard(entry)
        XCTAssertEqual(try cachedName(), "Theirs, synced meanwhile", "discarding shows the newest server copy, not the one edited")
    }

    // MARK: Order, coalescing, failures

    func testEditsOfEveryKindReachTheServerInQueueOrder() async throws {
        let original = try await remote().sorted { ($0.id ?? "") < ($1.id ?? "") }
        let outbox = Outbox(cache: try temporaryCache(), core: try server.core(baseURL: unreachableURL()))
        try outbox.enqueueCreate(newInstance("First, created"))
        var second = original[0]
        second.name = "Second, updated"
        try outbox.enqueueUpdate(second)
        try outbox.enqueueDelete(original[1])
        try outbox.enqueueCreate(newInstance("Fourth, created"))
        var fifth = original[2]
        fifth.name = "Fifth, updated"
        try outbox.enqueueUpdate(fifth)
        XCTAssertEqual(try outbox.pending().map(\.kind), [.create, .update, .delete, .create, .update])

        let online = Outbox(cache: outbox.cache, core: try server.core())
        let report = try await online.flush()
        XCTAssertEqual(report.sent.count, 5)
        // The server's clock stamps every change: its order is the order the edits arrived in.
        let stamps = report.sent.map { $0.deletedAt ?? $0.updatedAt ?? $0.createdAt }
        XCTAssertEqual(
            report.sent.map(\.name), ["First, created", "Second, updated", original[1].name, "Fourth, created", "Fifth, updated"])
        XCTAssertEqual(stamps.compactMap { $0 }, stamps.compactMap { $0 }.sorted())
        XCTAssertEqual(stamps.compactMap { $0 }.count, 5)
    }

    func testTwoOfflineEditsOfOneInstanceDoNotConflictWithEachOther() async throws {
        let original = try await remote()[0]
        let outbox = Outbox(cache: try temporaryCache(), core: try server.core(baseURL: unreachableURL()))
        var first = original
        first.name = "First edit"
        try outbox.enqueueUpdate(first)
        var second = original  // the app still holds the version it loaded: same updatedAt
        second.name = "Second edit"
        try outbox.enqueueUpdate(second)
        XCTAssertEqual(try outbox.pending().map(\.instance.name), ["Second edit"], "the waiting update is rewritten")

        let report = try await Outbox(cache: outbox.cache, core: try server.core()).flush()
        XCTAssertEqual(report.conflicts, [])
        let after = try await remote()
        XCTAssertEqual(after.first { $0.id == original.id }?.name, "Second edit")
    }

    func testAFailedEntryStaysVisibleAndCanBeRetriedOrDiscarded() async throws {
        let original = try await remote()[0]
        let id = try XCTUnwrap(original.id)
        let outbox = Outbox(cache: try temporaryCache(), core: try server.core())
        _ = try await server.call("DELETE", "api/generalcontent/instance/\(id)")  // gone on the server
        var mine = original
        mine.name = "Edit of a deleted instance"
        try outbox.enqueueUpdate(mine)
        let report = try await outbox.flush()
        XCTAssertEqual(report.failed.count, 1)
        guard case .server(let status, _, _)? = report.refusals[report.failed[0].id] else { return XCTFail("no refusal recorded") }
        XCTAssertEqual(status, 404)
        let failed = try XCTUnwrap(outbox.entries().first)
        guard case .failed(let message) = failed.state else { return XCTFail("not failed: \(failed.state)") }
        XCTAssertFalse(message.isEmpty)

        let idle = try await outbox.flush()
        XCTAssertEqual(idle.sent, [], "a failed entry is not sent again by itself")
        try outbox.retry(failed)
        XCTAssertEqual(try outbox.pending().map(\.id), [failed.id])
        XCTAssertThrowsError(try outbox.retry(failed), "only a failed entry can be retried")
        let again = try await outbox.flush()
        XCTAssertEqual(again.failed.count, 1, "refused again")
        try outbox.discard(try XCTUnwrap(outbox.entries().first))
        XCTAssertEqual(try outbox.entries(), [])
    }
}
