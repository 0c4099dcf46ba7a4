import Foundation
import XCTest

@testable import HaloServices

/// `ContentManager.save` / `delete` keep an edit in the outbox when the server cannot be reached,
/// and only then: a refusal by the server is thrown, not queued.
final class OutboxContentManagerTests: XCTestCase {
    func testEditsMadeWhileTheServerIsDownSurviveARestartAndReachTheServerInOrder() async throws {
        var server = try await OfflineTestServer.start()
        do {
            let modules = try await server.admin.seedBenchmark(instances: 5, modules: 1)
            let module = try XCTUnwrap(modules.first)
            let before = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
            XCTAssertEqual(before.count, 5)
            let configuration = try server.sdkConfiguration()
            let baseURL = server.baseURL
            var app = CoreManager(configuration: configuration)

            await server.stop()  // the server goes away
            let created = try await app.content.saveOrQueue(ContentInstance(moduleId: module, name: "Written offline"))
            XCTAssertTrue(created.isPending)
            XCTAssertEqual(created.instance.id.map(Outbox.isLocalId), true, "a queued create has a local id")
            var edited = created.instance
            edited.name = "Written offline, then renamed"
            let saved = try await app.content.save(edited)
            XCTAssertEqual(saved.name, "Written offline, then renamed")
            var renamed = before[0]
            renamed.name = "Renamed offline"
            _ = try await app.content.save(renamed)
            let deleted = try await app.content.delete(instanceId: try XCTUnwrap(before[1].id))
            XCTAssertNotNil(deleted.deletedAt, "the local copy of a queued deletion is marked deleted")

            let pending = try app.content.outbox().pending()
            XCTAssertEqual(pending.map(\.kind), [.create, .update, .delete])
            XCTAssertEqual(pending.map(\.instance.name), ["Written offline, then renamed", "Renamed offline", ""])

            // The app quits and starts again: the cache file is opened anew, the server is back.
            try HaloCache.closeShared(for: baseURL, in: configuration.cacheDirectory)
            app = CoreManager(configuration: configuration)
            server = try await server.restarted()
            let outbox = try app.content.outbox()
            XCTAssertEqual(try outbox.pending().map(\.kind), [.create, .update, .delete], "the edits survived the restart")
            let report = try await outbox.flush()
            XCTAssertNil(report.networkError)
            XCTAssertEqual(report.sent.count, 3)
            XCTAssertEqual(try outbox.entries(), [])

            // The server has exactly those changes.
            let after = try await server.instances(moduleIds: [module]).map(ContentInstance.init(wire:))
            var expected = Dictionary(uniqueKeysWithValues: before.compactMap { instance in instance.id.map { ($0, instance.name) } })
            expected[try XCTUnwrap(before[0].id)] = "Renamed offline"
            expected[try XCTUnwrap(before[1].id)] = nil
            let new = after.filter { !expected.keys.contains($0.id ?? "") }
            XCTAssertEqual(new.map(\.name), ["Written offline, then renamed"])
            XCTAssertEqual(
                Dictionary(
                    uniqueKeysWithValues: after.filter { expected.keys.contains($0.id ?? "") }.compactMap { instance in
                        instance.id.map { ($0, instance.name) }
                    }), expected)
            XCTAssertEqual(after.count, 5)

            // Online again: an edit goes straight to the server.
            var again = try XCTUnwrap(after.first { $0.name == "Renamed offline" })
            again.name = "Renamed online"
            let online = try await app.content.saveOrQueue(again)
            XCTAssertFalse(online.isPending)
            XCTAssertEqual(online.instance.name, "Renamed online")
            XCTAssertEqual(try outbox.entries(), [])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func testOfflineSearchFindsPendingCreatesUntilTheyAreSent() async throws {
        var server = try await OfflineTestServer.start()
        do {
            let modules = try await server.admin.seedBenchmark(instances: 3, modules: 1)
            let module = try XCTUnwrap(modules.first)
            let app = CoreManager(configuration: try server.sdkConfiguration())
            _ = try await app.content.syncToCache(query: SyncQuery(moduleId: module))
            let cache = try app.offlineCache()
            let everything = SearchQuery().moduleIds([module]).skipPagination()
            XCTAssertEqual(try cache.searchLocally(everything).instances.count, 3)

            await server.stop()
            let kept = try await app.content.saveOrQueue(ContentInstance(moduleId: module, name: "Zeppelin"))
            let dropped = try await app.content.saveOrQueue(ContentInstance(moduleId: module, name: "Changed my mind"))
            let droppedId = try XCTUnwrap(dropped.instance.id)
            XCTAssertTrue(try cache.searchLocally(everything).instances.contains { $0.id == droppedId })
            let deletion = try await app.content.deleteOrQueue(instanceId: droppedId)
            XCTAssertEqual(deletion, .pending(deletion.instance, entry: nil), "deleting a create not sent yet just drops it")

            let offline = try cache.searchLocally(everything).instances
            XCTAssertEqual(offline.count, 4)
            XCTAssertEqual(offline.filter { $0.id.map(Outbox.isLocalId) == true }.map(\.name), ["Zeppelin"])
            XCTAssertEqual(offline.first { $0.name == "Zeppelin" }?.id, kept.instance.id)

            server = try await server.restarted()
            let report = try await app.content.outbox().flush()
            XCTAssertEqual(report.sent.map(\.name), ["Zeppelin"])
            let online = try cache.searchLocally(everything).instances
            XCTAssertEqual(online.count, 4, "the server's copy replaced the local one")
            XCTAssertEqual(online.filter { $0.id.map(Outbox.isLocalId) == true }, [])
            XCTAssertEqual(online.first { $0.name == "Zeppelin" }?.id, report.sent.first?.id)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func testAnEditTheServerRefusesIsThrownNotQueued() async throws {
        let server = try await OfflineTestServer.start()
        do {
            let modules = try await server.admin.seedBenchmark(instances: 1, modules: 1)
            let module = try XCTUnwrap(modules.first)
            let app = try server.core()
            let ghost = ContentInstance(id: "000000000000000000000000", moduleId: module, name: "Never existed")
            do {
                _ = try await app.content.save(ghost)
                XCTFail("an update of a missing instance was accepted")
            } catch {
                guard case .server(let status, _, _) = error else { return XCTFail("expected the server's refusal, got \(error)") }
                XCTAssertTrue((400..<500).contains(status), "HTTP \(status)")
            }
            XCTAssertEqual(try app.content.outbox().entries(), [], "a refused edit is not queued")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
