import Foundation
import HaloContentStore
import HaloServer
import XCTest

@testable import HaloServices

/// Edits reach the server when the offline cache cannot be used: sent directly
/// (`EditOutcome.sentWithoutCache`, a logged warning, `offlineCacheProblem`), and they fail only
/// when the server cannot be reached either, with a network error saying the edit was not kept.
///
/// Tests run as root, and root ignores file modes: a chmod-ed cache stays writable. The cache is
/// made unusable by a path whose parent is a regular file (it cannot be opened at all), or by a
/// read-only tmpfs (an existing cache then opens for reading only and every write fails: the case
/// that used to fail the edit with "server error").
final class UnusableCacheTests: XCTestCase {
    private var server: OfflineTestServer!
    private var mounts: [TmpfsMount] = []

    override func setUp() async throws {
        server = try await OfflineTestServer.start()
    }

    override func tearDown() async throws {
        await server?.stop()
        for mount in mounts { mount.unmount() }
    }

    /// A core whose cache folder is `cacheDirectory`, logging warnings into `log`.
    private func core(cacheDirectory: URL, baseURL: URL? = nil, log: RecordingLogger) throws -> CoreManager {
        var configuration = try server.sdkConfiguration(baseURL: baseURL)
        configuration.cacheDirectory = cacheDirectory
        let core = CoreManager(configuration: configuration)
        core.numberOfRetries = 0
        core.logLevel = .warning
        core.addLogger(log)
        return core
    }

    private func serverNames(_ module: String) async throws -> [String: String] {
        let instances = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
        return Dictionary(uniqueKeysWithValues: instances.compactMap { instance in instance.id.map { ($0, instance.name) } })
    }

    /// Create, update and delete each reach the server; the create (which always goes through the
    /// outbox) is `.sentWithoutCache` with the notice. An update or a deletion sent online writes
    /// nothing to the cache: it is `.sentWithoutCache` only when the cache cannot be opened at all
    /// (`openable: false`), else plainly `.sent`.
    private func assertEditsReachTheServer(
        _ core: CoreManager, module: String, log: RecordingLogger, openable: Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let created = try await core.content.saveOrQueue(ContentInstance(moduleId: module, name: "Made without a cache"))
        guard case .sentWithoutCache(let instance, let cacheError) = created else {
            return XCTFail("expected .sentWithoutCache, got \(created)", file: file, line: line)
        }
        guard case .cache = cacheError else { return XCTFail("\(cacheError)", file: file, line: line) }
        XCTAssertTrue(created.isSent && !created.isPending, file: file, line: line)
        let id = try XCTUnwrap(instance.id, file: file, line: line)
        XCTAssertFalse(Outbox.isLocalId(id), "the server's id", file: file, line: line)
        let notice = try XCTUnwrap(created.notice, file: file, line: line)
        XCTAssertTrue(
            notice.hasPrefix("The offline cache is unusable (") && notice.hasSuffix("); the edit was sent directly."),
            notice, file: file, line: line)
        XCTAssertEqual(core.content.offlineCacheProblem, cacheError, file: file, line: line)
        XCTAssertTrue(log.messages.contains { $0.level == .warning && $0.text == notice }, "\(log.messages)", file: file, line: line)
        var names = try await serverNames(module)
        XCTAssertEqual(names[id], "Made without a cache", "the server has the new instance", file: file, line: line)

        var renamed = instance
        renamed.name = "Renamed without a cache"
        let saved = try await core.content.save(renamed)  // the seed's API: success, the server's copy
        XCTAssertEqual(saved.name, "Renamed without a cache", file: file, line: line)
        names = try await serverNames(module)
        XCTAssertEqual(names[id], "Renamed without a cache", file: file, line: line)

        let deleted = try await core.content.deleteOrQueue(instanceId: id)
        XCTAssertTrue(deleted.isSent, "\(deleted)", file: file, line: line)
        XCTAssertEqual(deleted.cacheError == nil, openable, "\(deleted)", file: file, line: line)
        XCTAssertNotNil(core.content.offlineCacheProblem, file: file, line: line)
        XCTAssertNotNil(deleted.instance.deletedAt, file: file, line: line)
        names = try await serverNames(module)
        XCTAssertNil(names[id], "deleted on the server", file: file, line: line)
    }

    func testEditsReachTheServerWhenTheCacheFolderCannotBeCreated() async throws {
        let seeded = try await server.admin.seedBenchmark(instances: 1, modules: 1)
        let module = try XCTUnwrap(seeded.first)
        let root = try temporaryDirectory("file-parent")
        let regularFile = root.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: regularFile)
        let log = RecordingLogger()
        let core = try core(cacheDirectory: regularFile.appendingPathComponent("halo-desk"), log: log)
        XCTAssertThrowsError(try core.offlineCache(), "the cache cannot be opened")
        try await assertEditsReachTheServer(core, module: module, log: log, openable: false)
    }

    func testEditsReachTheServerWhenTheCacheIsOnAReadOnlyFileSystem() async throws {
        let seeded = try await server.admin.seedBenchmark(instances: 1, modules: 1)
        let module = try XCTUnwrap(seeded.first)
        guard let mount = try TmpfsMount.make(sizeKB: 4096) else { throw XCTSkip("mounting a tmpfs is not allowed here") }
        mounts.append(mount)
        let cacheDirectory = mount.directory.appendingPathComponent("halo-desk")
        let log = RecordingLogger()

        // A working cache first, used by an edit (outbox, content tables), then closed.
        let first = try core(cacheDirectory: cacheDirectory, log: log)
        let before = try await first.content.saveOrQueue(ContentInstance(moduleId: module, name: "With a cache"))
        guard case .sent = before else { return XCTFail("\(before)") }
        try HaloCache.closeShared(for: server.baseURL, in: cacheDirectory)

        try mount.remountReadOnly()
        let core = try core(cacheDirectory: cacheDirectory, log: log)
        // The cache opens (read only), so the outbox exists; its writes fail.
        let outbox = try core.content.outbox()
        XCTAssertEqual(try outbox.entries(), [])
        XCTAssertThrowsError(try outbox.enqueueCreate(ContentInstance(moduleId: module, name: "x")))
        try await assertEditsReachTheServer(core, module: module, log: log, openable: true)
        try? HaloCache.closeShared(for: server.baseURL, in: cacheDirectory)
    }

    func testEditsReachTheServerWhenTheCacheDiskIsFull() async throws {
        let seeded = try await server.admin.seedBenchmark(instances: 1, modules: 1)
        let module = try XCTUnwrap(seeded.first)
        guard let mount = try TmpfsMount.make(sizeKB: 1024) else { throw XCTSkip("mounting a tmpfs is not allowed here") }
        mounts.append(mount)
        let cacheDirectory = mount.directory.appendingPathComponent("halo-desk")
        let log = RecordingLogger()
        let core = try core(cacheDirectory: cacheDirectory, log: log)
        _ = try core.content.outbox()  // the cache is created while there is room
        try mount.fill()
        try await assertEditsReachTheServer(core, module: module, log: log, openable: true)
        try? HaloCache.closeShared(for: server.baseURL, in: cacheDirectory)
    }

    func testAnEditThatCanNeitherBeSentNorKeptFailsWithTheNetworkError() async throws {
        let root = try temporaryDirectory("file-parent")
        let regularFile = root.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: regularFile)
        let log = RecordingLogger()
        let core = try core(cacheDirectory: regularFile.appendingPathComponent("halo-desk"), baseURL: unreachableURL(), log: log)
        for attempt in 0..<2 {
            do {
                if attempt == 0 {
                    _ = try await core.content.save(ContentInstance(moduleId: "m", name: "Nowhere to go"))
                } else {
                    _ = try await core.content.deleteOrQueue(instanceId: "000000000000000000000001")
                }
                XCTFail("an edit neither sent nor kept succeeded")
            } catch {
                guard case .network(let message) = error else { return XCTFail("expected a network error, got \(error)") }
                XCTAssertTrue(message.contains("could not be kept") && message.contains("the offline cache is unusable ("), message)
            }
        }
        XCTAssertNotNil(core.content.offlineCacheProblem)
    }

    /// The server down and a cache that opens read-only: an update's network failure cannot be
    /// kept in the outbox either, and the network error says so.
    func testAReadOnlyCacheCannotKeepAnEditTheServerDidNotGet() async throws {
        guard let mount = try TmpfsMount.make(sizeKB: 4096) else { throw XCTSkip("mounting a tmpfs is not allowed here") }
        mounts.append(mount)
        let cacheDirectory = mount.directory.appendingPathComponent("halo-desk")
        let log = RecordingLogger()
        let writable = try core(cacheDirectory: cacheDirectory, baseURL: unreachableURL(), log: log)
        _ = try writable.content.outbox()
        try HaloCache.closeShared(for: unreachableURL(), in: cacheDirectory)
        try mount.remountReadOnly()

        let core = try core(cacheDirectory: cacheDirectory, baseURL: unreachableURL(), log: log)
        do {
            _ = try await core.content.saveOrQueue(ContentInstance(id: "000000000000000000000001", moduleId: "m", name: "Lost"))
            XCTFail("an edit neither sent nor kept succeeded")
        } catch {
            guard case .network(let message) = error else { return XCTFail("expected a network error, got \(error)") }
            XCTAssertTrue(message.contains("could not be kept for later"), message)
        }
        try? HaloCache.closeShared(for: unreachableURL(), in: cacheDirectory)
    }
}

/// Issue 47: a corrupt cache with its `-wal` and `-shm` beside it has all three moved aside
/// together, untouched, and the cache rebuilt in its place is empty. The file moved aside without
/// its WAL lacks its last commits (here: every row), and the new database would open beside a WAL
/// that is not its own. (The bug: `CacheFileGuard.moveAside` stopped moving them; the rebuilt
/// cache still came out empty, so only the files moved aside tell.)
final class CorruptCacheCompanionTests: XCTestCase {
    func testACorruptCacheIsMovedAsideWithItsWALAndSHMAndTheRebuiltCacheIsEmpty() throws {
        // A cache whose rows are still in its WAL: copied while open, before any checkpoint.
        let original = try temporaryCache()
        let items = (0..<50).map { n in
            WireInstance(
                id: String(format: "%024x", n), module: "m1", name: "Item \(n)", values: ["title": .string("Title \(n)")],
                createdAt: 1_700_000_000_000 + Int64(n))
        }
        try original.write { db in try ContentTables.upsert(contentsOf: items, in: db) }
        let file = try temporaryDirectory("corrupt-wal").appendingPathComponent("cache.sqlite")
        var companions: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: original.file.path + suffix))
            try data.write(to: URL(fileURLWithPath: file.path + suffix))
            companions[suffix] = data
        }
        try original.close()
        XCTAssertGreaterThan(companions["-wal"]?.count ?? 0, 0, "the rows are in the WAL")
        XCTAssertGreaterThan(companions["-shm"]?.count ?? 0, 0)
        // Damage the database file: its header is no longer SQLite's.
        var damaged = try XCTUnwrap(companions[""])
        damaged.replaceSubrange(0..<16, with: Data("not a database!!".utf8))
        try damaged.write(to: file)
        guard case .rejected = CacheFileGuard.inspect(file) else { return XCTFail("a damaged cache must be rejected") }

        let cache = try HaloCache(file: file)
        let aside = try XCTUnwrap(cache.movedAsideFile)
        XCTAssertEqual(try Data(contentsOf: aside), damaged, "the damaged file is kept, untouched")
        for suffix in ["-wal", "-shm"] {
            let moved = URL(fileURLWithPath: aside.path + suffix)
            XCTAssertTrue(FileManager.default.fileExists(atPath: moved.path), "\(suffix) moved aside with the database")
            XCTAssertEqual(try? Data(contentsOf: moved), companions[suffix], "\(suffix) kept, untouched")
        }
        XCTAssertEqual(try cache.read { db in try ContentTables.count(moduleId: "m1", in: db) }, 0, "rebuilt empty")
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
        XCTAssertEqual(try cache.getSyncLog(moduleId: "m1"), [])
        try cache.close()
    }
}

/// Collects what the SDK logs.
final class RecordingLogger: HaloServices.Logger, @unchecked Sendable {
    struct Message: Sendable { let text: String; let level: LogLevel }
    private let lock = NSLock()
    private var recorded: [Message] = []
    var messages: [Message] { lock.withLock { recorded } }
    func logMessage(_ message: String, level: LogLevel) { lock.withLock { recorded.append(Message(text: message, level: level)) } }
}

/// A small tmpfs mounted on a fresh folder: the way to make files unwritable for root (a
/// read-only remount) or to fill a disk (`fill()`), without touching the real disks.
final class TmpfsMount: @unchecked Sendable {
    let directory: URL
    private var mounted = true

    private init(directory: URL) { self.directory = directory }

    /// nil when mounting is not permitted (not root, or no CAP_SYS_ADMIN in this container).
    static func make(sizeKB: Int) throws -> TmpfsMount? {
        let directory = try temporaryDirectory("tmpfs")
        guard run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKB)k,mode=0755", "tmpfs", directory.path]) == 0 else {
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        return TmpfsMount(directory: directory)
    }

    func remountReadOnly() throws {
        guard Self.run("/usr/bin/mount", ["-o", "remount,ro", directory.path]) == 0 else {
            throw HaloError.configuration(message: "cannot remount \(directory.path) read-only")
        }
    }

    /// Writes a file until the file system has no room left.
    func fill() throws {
        let handle = try FileHandle(
            forWritingTo: {
                let file = directory.appendingPathComponent("filler")
                _ = FileManager.default.createFile(atPath: file.path, contents: nil)
                return file
            }())
        let chunk = Data(count: 4096)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        try? handle.close()
    }

    func unmount() {
        guard mounted else { return }
        mounted = false
        _ = Self.run("/usr/bin/umount", [directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
