import Foundation
import GRDB
import HaloContentStore
import XCTest

@testable import HaloServices

final class SyncTests: XCTestCase {
    private var server: OfflineTestServer!

    override func setUp() async throws {
        server = try await OfflineTestServer.start()
    }

    override func tearDown() async throws {
        await server.stop()
    }

    private func engine(_ cache: HaloCache) throws -> SyncEngine {
        SyncEngine(cache: cache, core: try server.core())
    }

    /// The cache's synced instances equal the server's live ones, item for item.
    private func assertCacheMatchesServer(
        _ cache: HaloCache, key: String, moduleIds: [String], file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let local = try cache.getSyncedInstances(moduleId: key)
        let remote = try await server.instances(moduleIds: moduleIds).map(ContentInstance.init(wire:))
        XCTAssertEqual(local.count, remote.count, "instance count", file: file, line: line)
        XCTAssertEqual(local, remote, "instances differ", file: file, line: line)
    }

    func testFirstSyncIsFollowedByADeltaAndLaterSyncsAreIncremental() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 300, modules: 1)
        let module = modules[0]
        let cache = try temporaryCache()
        let sync = try engine(cache)

        let first = try await sync.sync(SyncQuery(moduleId: module))
        XCTAssertEqual(first.count, 2, "a first sync is followed at once by an incremental one (§14.3)")
        XCTAssertEqual(first[0].creations, 300)
        XCTAssertEqual(first[1].creations + first[1].updates + first[1].deletions, 0)
        XCTAssertGreaterThanOrEqual(first[1].syncDate, first[0].syncDate)
        try await assertCacheMatchesServer(cache, key: module, moduleIds: modules)

        // Server-side edits: one update, one deletion, one creation.
        let all = try await server.instances(moduleIds: modules)
        guard case .object(var edited) = all[0], let editedId = edited["id"]?.stringValue, let deletedId = all[1]["id"]?.stringValue
        else { return XCTFail("unexpected search answer") }
        edited["name"] = "Renamed offline-test item"
        _ = try await server.call("PUT", "api/generalcontent/instance/\(editedId)", .object(edited))
        _ = try await server.call("DELETE", "api/generalcontent/instance/\(deletedId)")
        let created = try await server.call(
            "POST", "api/generalcontent/instance",
            [
                "module": .string(module), "name": "Fresh", "values": ["title": "Fresh", "price": 1, "inStock": true],
            ])

        let delta = try await sync.sync(SyncQuery(moduleId: module))
        XCTAssertEqual(delta.count, 1)
        XCTAssertEqual(delta[0].creations, 1)
        XCTAssertEqual(delta[0].updates, 1)
        XCTAssertEqual(delta[0].deletions, 1)
        try await assertCacheMatchesServer(cache, key: module, moduleIds: modules)
        let local = try cache.getSyncedInstances(moduleId: module)
        XCTAssertTrue(local.contains { $0.id == created["id"]?.stringValue })
        XCTAssertFalse(local.contains { $0.id == deletedId })
        XCTAssertEqual(local.first { $0.id == editedId }?.name, "Renamed offline-test item")

        let log = try cache.getSyncLog(moduleId: module)
        XCTAssertEqual(log.map(\.creations), [300, 0, 1])
        XCTAssertEqual(log.last?.moduleId, module)
        XCTAssertEqual(log.last?.locale, .englishUnitedStates)
        try cache.clearSyncLog(moduleId: module)
        XCTAssertEqual(try cache.getSyncLog(moduleId: module), [])
    }

    func testSyncByModuleNameAndRemoval() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 120, modules: 2)
        let cache = try temporaryCache()
        let entries = try await engine(cache).sync(SyncQuery(moduleName: "Bench 2"))
        XCTAssertEqual(entries.first?.moduleName, "Bench 2")
        XCTAssertNil(entries.first?.moduleId)
        XCTAssertEqual(entries.first?.creations, 60)
        try await assertCacheMatchesServer(cache, key: "Bench 2", moduleIds: [modules[1]])

        try cache.removeSyncedInstances(moduleId: "Bench 2")
        XCTAssertEqual(try cache.getSyncedInstances(moduleId: "Bench 2"), [])
        XCTAssertEqual(try cache.read { db in try ContentTables.count(moduleId: modules[1], in: db) }, 0)
        XCTAssertEqual(try cache.getSyncLog(moduleId: "Bench 2").count, 2, "the log survives removal")
        // The sync point went with the instances: the next sync is a full one again.
        let again = try await engine(cache).sync(SyncQuery(moduleName: "Bench 2"))
        XCTAssertEqual(again.first?.creations, 60)
    }

    func testLocaleChangeDropsTheModuleAndResyncsFully() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 50, modules: 1)
        let module = modules[0]
        let cache = try temporaryCache()
        let sync = try engine(cache)
        _ = try await sync.sync(SyncQuery(moduleId: module))
        // A local row the server does not have: only a full re-sync (which drops the module) removes it.
        try cache.write { db in
            try ContentTables.upsert(
                WireInstance(id: String(repeating: "f", count: 24), module: module, name: "stray", createdAt: 1), in: db)
        }
        XCTAssertEqual(try cache.getSyncedInstances(moduleId: module).count, 51)

        let same = try await sync.sync(SyncQuery(moduleId: module))
        XCTAssertEqual(same.count, 1, "same locale: incremental")
        XCTAssertEqual(try cache.getSyncedInstances(moduleId: module).count, 51)

        let spanish = try await sync.sync(SyncQuery(moduleId: module).locale(.spanishSpain))
        XCTAssertEqual(spanish.count, 2, "new locale: a first sync again")
        XCTAssertEqual(spanish[0].creations, 50)
        XCTAssertEqual(spanish[0].locale, .spanishSpain)
        try await assertCacheMatchesServer(cache, key: module, moduleIds: modules)
    }

    func testConcurrentSyncsReportProgressUpToTheAnnouncedTotal() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 6_000, modules: 3)
        let cache = try temporaryCache()
        let recorder = ProgressRecorder()
        let outcomes = try await engine(cache).sync(modules.map { SyncQuery(moduleId: $0) }) { recorder.record($0) }
        XCTAssertEqual(outcomes.count, 3)
        for module in modules {
            let entries = try XCTUnwrap(outcomes[module]).get()
            XCTAssertEqual(entries.first?.creations, 2_000)
            let reports = recorder.reports(for: module).filter { $0.request == 1 }
            XCTAssertEqual(reports.first?.totalItems, 2_000, "the server announces the total before the items")
            XCTAssertEqual(reports.last?.itemsDone, 2_000)
            XCTAssertGreaterThan(reports.count, 2, "progress arrives while the answer streams")
            XCTAssertEqual(reports.map(\.itemsDone), reports.map(\.itemsDone).sorted(), "progress never goes back")
            try await assertCacheMatchesServer(cache, key: module, moduleIds: [module])
        }
    }

    func testCancelledSyncKeepsTheLastConsistentStateAndTheNextSyncCompletes() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 6_000, modules: 1)
        let module = modules[0]
        let cache = try temporaryCache()
        let sync = try engine(cache)
        let hold = MidAnswerHold(self, total: 6_000)
        let handle = sync.start(SyncQuery(moduleId: module), progress: hold.progress)
        await fulfillment(of: [hold.started], timeout: 60)
        handle.cancel()
        hold.release()
        do {
            _ = try await handle.result
            XCTFail("a cancelled sync must not report success")
        } catch let error as HaloError {
            XCTAssertEqual(error, .cancelled)
        }
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
        XCTAssertEqual(try cache.getSyncLog(moduleId: module), [], "no log entry for a sync that did not finish")
        let state = try XCTUnwrap(cache.syncState(key: module))
        XCTAssertTrue(state.firstSyncInProgress)
        XCTAssertNil(state.syncTimestamp, "the sync point did not move")
        // The bulk first sync rolled back whole, its dropped indexes with it.
        XCTAssertEqual(try cache.read { db in try ContentTables.count(moduleId: module, in: db) }, 0)
        XCTAssertEqual(try contentIndexNames(cache), try contentIndexNames(temporaryCache()))

        let entries = try await sync.sync(SyncQuery(moduleId: module))
        XCTAssertEqual(entries.first?.creations, 6_000)
        try await assertCacheMatchesServer(cache, key: module, moduleIds: modules)
    }

    /// `sync(_:)` awaited in a task: cancelling that task cancels the sync (an app's Cancel button
    /// cancels the task it started, not a handle).
    func testCancellingTheAwaitingTaskCancelsTheSync() async throws {
        let module = try await server.admin.seedBenchmark(instances: 6_000, modules: 1)[0]
        let cache = try temporaryCache()
        let sync = try engine(cache)
        let hold = MidAnswerHold(self, total: 6_000)
        let task = Task { try await sync.sync(SyncQuery(moduleId: module), progress: hold.progress) }
        await fulfillment(of: [hold.started], timeout: 60)
        task.cancel()
        hold.release()
        do {
            _ = try await task.value
            XCTFail("a cancelled sync must not report success")
        } catch let error as HaloError {
            XCTAssertEqual(error, .cancelled)
        }
        XCTAssertNil(try XCTUnwrap(cache.syncState(key: module)).syncTimestamp, "the sync point did not move")
    }

    /// A first sync smaller than what the cache holds is not worth rebuilding every index for:
    /// it commits chunk by chunk, so a cancelled one keeps its committed chunks (and the indexes).
    func testFirstSyncSmallerThanTheCacheCommitsChunkByChunk() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 10_000, modules: 2)
        let cache = try temporaryCache()
        let sync = try engine(cache)
        _ = try await sync.sync(SyncQuery(moduleId: modules[0]))
        try cache.write { db in
            try ContentTables.upsert(
                WireInstance(id: String(repeating: "f", count: 24), module: "other", name: "one more", createdAt: 1), in: db)
        }
        XCTAssertTrue(try cache.prefersBulkFirstSync(announcedTotal: 5_001))
        XCTAssertFalse(try cache.prefersBulkFirstSync(announcedTotal: 5_000))
        XCTAssertFalse(try cache.prefersBulkFirstSync(announcedTotal: nil))

        let once = OnceFlag()
        let cancelled = DispatchSemaphore(value: 0)
        let started = expectation(description: "second chunk committed")
        let handle = sync.start(SyncQuery(moduleId: modules[1])) { progress in
            if progress.itemsDone >= 2 * SyncEngine.chunkSize, progress.itemsDone < 5_000, once.claim() {
                started.fulfill()
                cancelled.wait()
            }
        }
        await fulfillment(of: [started], timeout: 60)
        handle.cancel()
        cancelled.signal()
        do {
            _ = try await handle.result
            XCTFail("a cancelled sync must not report success")
        } catch let error as HaloError {
            XCTAssertEqual(error, .cancelled)
        }
        let partial = try cache.read { db in try ContentTables.count(moduleId: modules[1], in: db) }
        XCTAssertGreaterThanOrEqual(partial, 2 * SyncEngine.chunkSize, "the chunks written before the cancel stay")
        XCTAssertLessThan(partial, 5_000)
        XCTAssertEqual(try contentIndexNames(cache), try contentIndexNames(temporaryCache()))

        let entries = try await sync.sync(SyncQuery(moduleId: modules[1]))
        XCTAssertEqual(entries.first?.creations, 5_000)
        try await assertCacheMatchesServer(cache, key: modules[1], moduleIds: [modules[1]])
    }

    func testConnectionDroppedMidAnswerKeepsStateAndNextSyncCompletes() async throws {
        let modules = try await server.admin.seedBenchmark(instances: 3_000, modules: 1)
        let module = modules[0]
        let cache = try temporaryCache()
        // First a complete sync, then changes, then an incremental sync whose answer is cut.
        _ = try await engine(cache).sync(SyncQuery(moduleId: module))
        let before = try cache.syncState(key: module)
        let edited: [JSONValue] = try await server.instances(moduleIds: modules).prefix(2_500).map { item in
            guard case .object(var fields) = item else { return item }
            fields["name"] = "edited"
            fields["updatedAt"] = nil
            return .object(fields)
        }
        _ = try await server.call("POST", "api/generalcontent/instance/batch", ["updated": .array(edited)])
        let proxy = try CuttingProxy(target: server.server.port, cutAfterBytes: 2_000_000)
        defer { proxy.stop() }
        let cut = SyncEngine(cache: cache, core: try server.core(baseURL: proxy.url))
        do {
            _ = try await cut.sync(SyncQuery(moduleId: module))
            XCTFail("a cut answer must fail")
        } catch let error as HaloError {
            switch error {
            case .network, .invalidResponse: break
            default: XCTFail("unexpected error \(error)")
            }
        }
        XCTAssertGreaterThan(proxy.bytesForwarded, 0)
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
        XCTAssertEqual(try cache.syncState(key: module), before, "the sync point did not move")
        XCTAssertEqual(try cache.getSyncLog(moduleId: module).count, 2)

        let entries = try await engine(cache).sync(SyncQuery(moduleId: module))
        XCTAssertEqual(entries.first?.updates, 2_500)
        try await assertCacheMatchesServer(cache, key: module, moduleIds: modules)
    }

    func testSyncProcessKilledWithSIGKILLLeavesAUsableCacheAndTheNextSyncCompletes() async throws {
        let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/bench-offline")
        guard FileManager.default.isExecutableFile(atPath: helper.path) else {
            throw XCTSkip("build the bench-offline helper first (swift build --build-tests builds it)")
        }
        let modules = try await server.admin.seedBenchmark(instances: 10_000, modules: 1)
        let file = try temporaryDirectory("killed").appendingPathComponent("cache.sqlite")
        let child = Process()
        child.executableURL = helper
        child.arguments = [
            "sync", "--server", server.baseURL.absoluteString, "--client-id", server.client.clientId,
            "--client-secret", server.client.clientSecret, "--module", modules[0], "--cache", file.path, "--progress",
        ]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        // Wait until the child has written at least two chunks, then kill it mid-stream.
        var seen = ""
        var done = 0
        while done < 2 * SyncEngine.chunkSize {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            seen += String(decoding: data, as: UTF8.self)
            done =
                seen.split(separator: "\n").compactMap { line -> Int? in
                    let parts = line.split(separator: " ")
                    return parts.first == "progress" && parts.count > 1 ? Int(parts[1]) : nil
                }.max() ?? 0
        }
        XCTAssertTrue(child.isRunning, "the sync must still be running when killed (saw: \(seen.suffix(200)))")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)

        let cache = try HaloCache(file: file)
        XCTAssertNil(cache.movedAsideFile, "a killed sync must not corrupt the cache")
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
        let state = try XCTUnwrap(cache.syncState(key: modules[0]))
        XCTAssertTrue(state.firstSyncInProgress)
        // A first sync into an empty cache is one bulk transaction (indexes built at its end):
        // killed before its commit, it leaves what `beginSync` committed — no rows of the module,
        // and every content index still there.
        let partial = try cache.read { db in try ContentTables.count(moduleId: modules[0], in: db) }
        XCTAssertEqual(partial, 0)
        XCTAssertEqual(try contentIndexNames(cache), try contentIndexNames(temporaryCache()))

        let entries = try await engine(cache).sync(SyncQuery(moduleId: modules[0]))
        XCTAssertEqual(entries.first?.creations, 10_000)
        try await assertCacheMatchesServer(cache, key: modules[0], moduleIds: modules)
    }

    func testBrokenAnswersAreTypedErrors() throws {
        var parser = SyncStreamParser()
        let text = Data(#"{"syncTimestamp":12,"created":[{"id":"a"}],"updated":[],"deleted":[{"id":"b"}]}"#.utf8)
        var events: [String] = []
        // Fed one byte at a time: elements cut across blocks still come out whole.
        for byte in text {
            try [byte].withUnsafeBytes { bytes in
                try parser.feed(bytes) { event in
                    switch event {
                    case .syncTimestamp(let value): events.append("t\(value)")
                    case .element(let section, let data): events.append("\(section):\(String(decoding: data, as: UTF8.self))")
                    }
                }
            }
        }
        try parser.finish()
        XCTAssertEqual(events, ["t12", #"created:{"id":"a"}"#, #"deleted:{"id":"b"}"#])

        // Braces, brackets and escaped quotes inside strings do not end an element, wherever a
        // block boundary falls (also between a backslash and the quote it escapes).
        let tricky = Data(
            #"{"created":[{"id":"a}","v":{"t":"x\"]}\\","n":[1,{"b":"["}]}},{"id":"b"}],"syncTimestamp":7,"deleted":[]}"#.utf8)
        let expected = [#"created:{"id":"a}","v":{"t":"x\"]}\\","n":[1,{"b":"["}]}}"#, #"created:{"id":"b"}"#, "t7"]
        for blockSize in 1...tricky.count {
            var blocks = SyncStreamParser()
            var seen: [String] = []
            for start in stride(from: 0, to: tricky.count, by: blockSize) {
                try tricky[start..<min(start + blockSize, tricky.count)].withUnsafeBytes { bytes in
                    try blocks.feed(bytes) { event in
                        switch event {
                        case .syncTimestamp(let value): seen.append("t\(value)")
                        case .element(let section, let data): seen.append("\(section):\(String(decoding: data, as: UTF8.self))")
                        }
                    }
                }
            }
            try blocks.finish()
            XCTAssertEqual(seen, expected, "blocks of \(blockSize) bytes")
            XCTAssertEqual(blocks.bytesSeen, tricky.count)
        }

        var truncated = SyncStreamParser()
        try Data(text.prefix(30)).withUnsafeBytes { try truncated.feed($0) { _ in } }
        XCTAssertThrowsError(try truncated.finish())
        var notObject = SyncStreamParser()
        XCTAssertThrowsError(try Data("[1]".utf8).withUnsafeBytes { try notObject.feed($0) { _ in } })
    }
}

/// The content indexes of a cache, by name (a fresh cache has them all).
func contentIndexNames(_ cache: HaloCache) throws -> [String] {
    try cache.read { db in
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'content_%' ORDER BY name")
    }
}

/// Collects progress reports from several threads.
final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [SyncProgress] = []
    func record(_ progress: SyncProgress) { lock.withLock { all.append(progress) } }
    func reports(for key: String) -> [SyncProgress] { lock.withLock { all.filter { $0.moduleKey == key } } }
}

/// True the first time only.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func claim() -> Bool {
        lock.withLock {
            defer { done = true }; return !done
        }
    }
}

/// Holds a sync at its first progress report until `release()`, so that a cancellation made
/// meanwhile always lands mid-answer, however fast the machine is.
private final class MidAnswerHold: Sendable {
    let started: XCTestExpectation
    private let total: Int
    private let once = OnceFlag()
    private let released = DispatchSemaphore(value: 0)

    init(_ test: XCTestCase, total: Int) {
        started = test.expectation(description: "first items received")
        self.total = total
    }

    @Sendable func progress(_ progress: SyncProgress) {
        if progress.itemsDone > 0, progress.itemsDone < total, once.claim() {
            started.fulfill()
            released.wait()
        }
    }

    func release() { released.signal() }
}
