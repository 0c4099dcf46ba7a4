import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport
import Synchronization
import XCTest

@testable import HaloServer

/// Three server processes (three storages, each with its own connections) write content at
/// once, holding their transactions open for a moment after taking a stamp, while a client syncs
/// window after window at `readAtWatermark`'s watermark. The union of the deltas must be the
/// final state: no write missed, none created twice. `make stress` runs it 100 times
/// (HALO_STRESS_RUNS); `make test` a few.
final class SyncAcrossProcessesTests: XCTestCase {
    func testConcurrentWritersOnThreeProcessesNeverEscapeTheSync() async throws {
        let runs = Int(ProcessInfo.processInfo.environment["HALO_STRESS_RUNS"] ?? "") ?? 3
        for run in 1...runs {
            // Three writing processes and the client's own.
            let storages = try await serverProcesses(4)
            defer { storages.forEach { $0.close() } }
            // The processes' clocks disagree, as machines' do: one runs 40 ms behind, one 40 ms ahead.
            let processes = storages.prefix(3).enumerated().map { index, storage in
                let skew = Int64(index - 1) * 40
                return ServerStorage.postgres(storage, clock: MonotonicClock(wallClock: { MonotonicClock.systemMilliseconds() + skew }))
            }
            try await Self.exercise(processes: processes, client: storages[3], run: run)
        }
    }

    private static func exercise(processes: [ServerStorage], client: PostgresStorage, run: Int) async throws {
        let writesPerProcess = 60
        let local = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        ContentTables.registerMigrations(&migrator)
        try migrator.migrate(local)

        let finished = Mutex(false)
        let writers = Task {
            defer { finished.withLock { $0 = true } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (process, storage) in processes.enumerated() {
                    group.addTask {
                        var random = SystemRandomNumberGenerator()
                        for n in 0..<writesPerProcess {
                            let clock = storage.clock
                            try await storage.write { db in
                                let stamp = clock.next()
                                let existing = try db.fetchColumn(
                                    String.self, "SELECT id FROM content_instance WHERE deleted_at IS NULL ORDER BY pk")
                                var generator = SystemRandomNumberGenerator()
                                let roll = Int.random(in: 0..<10, using: &generator)
                                if existing.isEmpty || roll < 5 {
                                    let instance = WireInstance(
                                        id: "p\(process)-\(n)", module: "m", name: "p\(process) #\(n)", values: ["v": .number(Double(n))],
                                        createdAt: stamp)
                                    try ContentTables.upsert(instance, in: db)
                                } else if let id = existing.randomElement(using: &generator),
                                    var instance = try ContentTables.instance(id: id, in: db)
                                {
                                    if roll < 8 {
                                        instance.values["v"] = .number(Double(stamp))
                                        instance.updatedAt = stamp
                                        try ContentTables.upsert(instance, in: db)
                                    } else {
                                        try ContentTables.softDelete(id: id, at: stamp, by: "p\(process)", in: db)
                                    }
                                }
                                // Hold the transaction open after the stamp, as a real request does.
                                usleep(UInt32.random(in: 0..<3_000, using: &generator))
                            }
                            if Int.random(in: 0..<4, using: &random) == 0 { try await Task.sleep(for: .milliseconds(1)) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        var from: Int64? = nil
        var createdOnce = Set<String>()
        var windows = 0
        func syncOnce() async throws {
            let window = from
            let (changes, watermark) = try await client.readAtWatermark { db, watermark in
                (try ContentTables.changes(moduleIds: ["m"], from: window, to: watermark, in: db), watermark)
            }
            for instance in changes.created {
                XCTAssertTrue(createdOnce.insert(instance.id).inserted, "run \(run): \(instance.id) reported as created twice")
            }
            try await local.write { db in try ContentTables.apply(changes, in: db) }
            if let window { XCTAssertGreaterThanOrEqual(watermark, window, "run \(run): the watermark went back") }
            from = watermark
            windows += 1
        }
        while !finished.withLock({ $0 }) { try await syncOnce() }
        try await writers.value
        try await syncOnce()

        let server = try await client.read { db in
            try db.fetchAll("SELECT id, updated_at FROM content_instance WHERE deleted_at IS NULL ORDER BY id")
                .map { "\(try $0.get("id", as: String.self)) \(try $0.get("updated_at", as: Int64?.self) ?? 0)" }
        }
        let copy = try await local.read { db in
            try db.fetchAll("SELECT id, updated_at FROM content_instance WHERE deleted_at IS NULL ORDER BY id")
                .map { "\(try $0.get("id", as: String.self)) \(try $0.get("updated_at", as: Int64?.self) ?? 0)" }
        }
        XCTAssertGreaterThan(windows, 2, "run \(run): the client synced while the writers wrote")
        XCTAssertGreaterThan(server.count, 10)
        XCTAssertEqual(copy, server, "run \(run): the client's copy after \(windows) windows differs from the server")
    }
}
