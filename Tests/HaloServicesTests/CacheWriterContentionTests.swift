import Foundation
import Synchronization
import XCTest

@testable import HaloServices

/// A bulk first sync holds the cache's single writer until its answer is complete. Searches that
/// keep their answers and edits that go through the outbox, made meanwhile from async code, must
/// not wait for it on Swift's cooperative pool: with the server in the same process (the app's
/// local workspace), that pool also produces the sync's answer, and on two cores two waiting
/// writers stopped everything for good (found by the GUI test of a 100,000-instance module).
///
/// A synchronous test on purpose: it waits on the main thread, which a stuck pool cannot block.
final class CacheWriterContentionTests: XCTestCase {
    func testSearchesAndAnEditDuringABulkFirstSyncAllFinish() throws {
        let outcome = expectation(description: "the sync, the searches and the edit finish")
        let failure = Mutex<String?>(nil)
        let sawBulkWrite = Mutex(false)
        Task.detached {
            do {
                let server = try await OfflineTestServer.start()
                defer { Task { await server.stop() } }
                let module = try await server.admin.seedBenchmark(instances: 20_000, modules: 1)[0]
                let app = CoreManager(configuration: try server.sdkConfiguration())
                app.defaultOfflinePolicy = .loadAndStoreLocalData
                try await app.startup()
                let cache = try app.offlineCache()
                let sync = Task { try await app.content.syncToCache(query: SyncQuery(moduleId: module)) }
                while !cache.bulkSyncWriting.withLock({ $0 }) {
                    try await Task.sleep(for: .milliseconds(2))
                }
                sawBulkWrite.withLock { $0 = true }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for page in 1...6 {
                        group.addTask {
                            let found = try await app.content.search(
                                query: SearchQuery().moduleIds([module]).pagination(page: page, limit: 20))
                            XCTAssertEqual(found.instances.count, 20)
                        }
                    }
                    group.addTask {
                        let created = try await app.content.saveOrQueue(ContentInstance(moduleId: module, name: "Made during the copy"))
                        XCTAssertFalse(created.isPending)
                    }
                    try await group.waitForAll()
                }
                let log = try await sync.value
                XCTAssertEqual(log.first?.creations, 20_000)
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            outcome.fulfill()
        }
        wait(for: [outcome], timeout: 180)
        XCTAssertNil(failure.withLock { $0 })
        XCTAssertTrue(sawBulkWrite.withLock { $0 }, "the requests must overlap the bulk write")
    }
}
