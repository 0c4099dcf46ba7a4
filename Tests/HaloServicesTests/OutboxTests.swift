import Foundation
import HaloContentStore
import XCTest

@testable import HaloServices

final class OutboxTests: XCTestCase {
    private var server: OfflineTestServer!
    private var module = ""

    override func setUp() async throws {
        server = try await OfflineTestServer.start()
        module = try await server.admin.seedBenchmark(instances: 20, modules: 1)[0]
    }

    override func tearDown() async throws {
        await server.stop()
    }

    private func serverInstance(_ id: String) async throws -> ContentInstance? {
        let answer = try await server.call(
            "POST", "api/generalcontent/instance/search",
            [
                "instanceIds": [.string(id)], "pagination": ["skip": true],
            ])
        return try answer.arrayValue?.first.map(ContentInstance.init(wire:))
    }

    private func newInstance(_ name: String) -> ContentInstance {
        var instance = ContentInstance(moduleId: module, name: name)
        instance.values = ["title": .string(name), "price": 3, "inStock": true]
        return instance
    }

    /// Pending edits are user data: they live apart from the cache, so a cache found corrupt is
    /// rebuilt empty while every edit stays, shows in the rebuilt cache at once and is sent once.
    func testACorruptCacheIsRebuiltWithoutLosingThePendingEdits() async throws {
        let folder = try temporaryDirectory("outbox-rebuild")
        let file = folder.appendingPathComponent("cache/cache.sqlite")
        let outboxFile = folder.appendingPathComponent("data/outbox/cache.sqlite")
        let existing = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
        var renamed = existing[0]
        renamed.name = "Renamed before the crash"
        let doomed = existing[1]
        let createdId: String
        do {
            let cache = try HaloCache(file: file, outboxFile: outboxFile)
            XCTAssertEqual(cache.outboxFile, outboxFile)
            try cache.write { db in try ContentTables.upsert(contentsOf: existing.map { $0.storedForm() }, in: db) }
            let offline = Outbox(cache: cache, core: try server.core(baseURL: unreachableURL()))
            createdId = try XCTUnwrap(try offline.enqueueCreate(newInstance("Created before the crash")).instance.id)
            try offline.enqueueUpdate(renamed)
            try offline.enqueueDelete(doomed)
            try cache.close()
        }
        // The cache file is damaged (a cache cleaner, a disk error): it is moved aside and rebuilt.
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        let rebuilt = try HaloCache(file: file, outboxFile: outboxFile)
        XCTAssertNotNil(rebuilt.movedAsideFile)
        XCTAssertNil(rebuilt.movedAsideOutboxFile, "the pending edits were not touched")
        let outbox = Outbox(cache: rebuilt, core: try server.core())
        XCTAssertEqual(try outbox.pending().map(\.kind), [.create, .update, .delete])
        // The rebuilt cache shows them at once, as the old one did.
        let shown = try rebuilt.read { db in
            (
                try ContentTables.instance(id: createdId, in: db)?.name, try ContentTables.instance(id: renamed.id ?? "", in: db)?.name,
                try ContentTables.instance(id: doomed.id ?? "", in: db)
            )
        }
        XCTAssertEqual(shown.0, "Created before the crash")
        XCTAssertEqual(shown.1, "Renamed before the crash")
        XCTAssertNil(shown.2)

        let report = try await outbox.flush()
        XCTAssertEqual(report.sent.count, 3)
        let remote = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
        XCTAssertEqual(remote.filter { $0.name == "Created before the crash" }.count, 1)
        XCTAssertEqual(remote.first { $0.id == renamed.id }?.name, "Renamed before the crash")
        XCTAssertFalse(remote.contains { $0.id == doomed.id })
    }

    /// A damaged pending-edits file is kept aside for the user (never deleted), and work goes on.
    func testADamagedPendingEditsFileIsKeptAside() throws {
        let folder = try temporaryDirectory("outbox-damaged")
        let outboxFile = folder.appendingPathComponent("outbox.sqlite")
        let garbage = Data(repeating: 0x33, count: 4096)
        try garbage.write(to: outboxFile)
        let cache = try HaloCache(file: folder.appendingPathComponent("cache.sqlite"), outboxFile: outboxFile)
        let aside = try XCTUnwrap(cache.movedAsideOutboxFile)
        XCTAssertEqual(try Data(contentsOf: aside), garbage, "kept as it was")
        let outbox = Outbox(cache: cache, core: try server.core(baseURL: unreachableURL()))
        XCTAssertEqual(try outbox.entries(), [])
        try outbox.enqueueCreate(newInstance("After the damage"))
        XCTAssertEqual(try outbox.pending().count, 1)
    }

    func testOfflineEditsSurviveARestartAndAreSentInOrder() async throws {
        let file = try temporaryDirectory("outbox").appendingPathComponent("cache.sqlite")
        let existing = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
        var renamed = existing[0]
        renamed.name = "Renamed on the train"
        let doomed = existing[1]

        do {  // Offline: the server is unreachable, everything is queued durably.
            let offline = Outbox(cache: try HaloCache(file: file), core: try server.core(baseURL: unreachableURL()))
            let created = try offline.enqueueCreate(newInstance("Written offline"))
            XCTAssertTrue(created.hasLocalId)
            var edited = created.instance
            edited.name = "Written offline, then edited"
            try offline.enqueueUpdate(edited)  // coalesces into the queued create
            try offline.enqueueUpdate(renamed)
            try offline.enqueueDelete(doomed)
            let report = try await offline.flush()
            XCTAssertNotNil(report.networkError)
            XCTAssertEqual(report.sent, [])
            let pending = try offline.pending()
            XCTAssertEqual(pending.map(\.kind), [.create, .update, .delete])
            XCTAssertEqual(pending[0].instance.name, "Written offline, then edited")
            XCTAssertNotNil(pending[0].lastError, "the failed attempt is recorded")
            try offline.cache.close()
        }

        // "The app restarted": a new cache object on the same file, and the server is back.
        let outbox = Outbox(cache: try HaloCache(file: file), core: try server.core())
        XCTAssertEqual(try outbox.pending().count, 3)
        let report = try await outbox.flush()
        XCTAssertNil(report.networkError)
        XCTAssertEqual(report.sent.count, 3)
        XCTAssertEqual(try outbox.entries(), [])

        let remote = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
        XCTAssertTrue(remote.contains { $0.name == "Written offline, then edited" })
        XCTAssertEqual(remote.first { $0.id == renamed.id }?.name, "Renamed on the train")
        XCTAssertFalse(remote.contains { $0.id == doomed.id })
        XCTAssertEqual(remote.count, 20)
    }

    func testConflictKeepsBothVersionsUntilResolved() async throws {
        let original = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))[0]
        let id = try XCTUnwrap(original.id)
        // Someone else edits on the server after we read `original`.
        guard case .object(var theirs) = original.fullJSON else { return XCTFail() }
        theirs["name"] = "Their edit"
        _ = try await server.call("PUT", "api/generalcontent/instance/\(id)", .object(theirs))

        let outbox = Outbox(cache: try temporaryCache(), core: try server.core())
        var mine = original  // still carries the old updatedAt
        mine.name = "My edit"
        try outbox.enqueueUpdate(mine)
        let report = try await outbox.flush()
        XCTAssertEqual(report.conflicts.count, 1)
        let afterConflict = try await serverInstance(id)
        XCTAssertEqual(afterConflict?.name, "Their edit", "never overwritten silently")
        let conflict = try XCTUnwrap(outbox.conflicts().first)
        XCTAssertEqual(conflict.instance.name, "My edit")
        guard case .conflict(let server) = conflict.state else { return XCTFail("not a conflict") }
        XCTAssertEqual(server.name, "Their edit")

        // A second flush leaves it alone; "keep mine" sends my version on top of theirs.
        let idle = try await outbox.flush()
        XCTAssertEqual(idle.sent, [])
        try outbox.resolve(conflict, keeping: .keepMine)
        XCTAssertEqual(try outbox.pending().count, 1)
        let resent = try await outbox.flush()
        XCTAssertEqual(resent.sent.count, 1)
        let kept = try await serverInstance(id)
        XCTAssertEqual(kept?.name, "My edit")
    }

    func testTakeTheirsDropsMyEditAndCachesTheServerCopy() async throws {
        let original = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))[3]
        let id = try XCTUnwrap(original.id)
        guard case .object(var theirs) = original.fullJSON else { return XCTFail() }
        theirs["name"] = "Theirs wins"
        _ = try await server.call("PUT", "api/generalcontent/instance/\(id)", .object(theirs))
        let outbox = Outbox(cache: try temporaryCache(), core: try server.core())
        var mine = original
        mine.name = "Mine loses"
        try outbox.enqueueUpdate(mine)
        try await outbox.flush()
        let conflict = try XCTUnwrap(outbox.conflicts().first)
        try outbox.resolve(conflict, keeping: .takeTheirs)
        XCTAssertEqual(try outbox.entries(), [])
        XCTAssertEqual(try outbox.cache.read { db in try ContentTables.instance(id: id, in: db)?.name }, "Theirs wins")
        let remote = try await serverInstance(id)
        XCTAssertEqual(remote?.name, "Theirs wins")
    }
}
