import Foundation
import GRDB
import HaloContentStore
import XCTest

@testable import HaloServices

final class CacheTests: XCTestCase {
    private func instance(_ n: Int, module: String = "m1") -> WireInstance {
        WireInstance(
            id: String(format: "%024x", n), module: module, name: "Item \(n)",
            values: ["title": .string("Title \(n) " + String(repeating: "x", count: 200)), "price": .number(Double(n))],
            createdAt: 1_700_000_000_000 + Int64(n))
    }

    /// A cache holding `count` instances, closed; returns its file.
    private func filledCacheFile(count: Int) throws -> URL {
        let cache = try temporaryCache()
        let items = (0..<count).map { instance($0) }
        try cache.write { db in try ContentTables.upsert(contentsOf: items, in: db) }
        try cache.close()
        return cache.file
    }

    private func asideFiles(of file: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(file.lastPathComponent + ".corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
    }

    func testFreshCacheCarriesItsMarkerAndSurvivesReopen() throws {
        let file = try filledCacheFile(count: 3)
        let reopened = try HaloCache(file: file)
        XCTAssertNil(reopened.movedAsideFile)
        let id = try reopened.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }
        XCTAssertEqual(id, CacheFileGuard.applicationID)
        XCTAssertEqual(try reopened.read { db in try ContentTables.count(moduleId: "m1", in: db) }, 3)
        XCTAssertEqual(try reopened.integrityCheck(), ["ok"])
    }

    func testGarbageFileIsMovedAsideAndReplacedByAnEmptyCache() throws {
        let file = try temporaryDirectory("garbage").appendingPathComponent("cache.sqlite")
        var garbage = Data(count: 8192)
        for index in garbage.indices { garbage[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        try garbage.write(to: file)
        let cache = try HaloCache(file: file)
        XCTAssertNotNil(cache.movedAsideFile)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(cache.movedAsideFile)), garbage, "the bad file is kept, untouched")
        XCTAssertEqual(try asideFiles(of: file).count, 1)
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
        XCTAssertEqual(try cache.getSyncLog(moduleId: "any"), [])
    }

    func testTruncatedCacheIsDetectedAndRebuilt() throws {
        let file = try filledCacheFile(count: 3000)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 200_000)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        guard case .rejected = CacheFileGuard.inspect(file) else { return XCTFail("a truncated cache must be rejected") }
        let cache = try HaloCache(file: file)
        XCTAssertNotNil(cache.movedAsideFile)
        XCTAssertEqual(try cache.read { db in try ContentTables.count(moduleId: "m1", in: db) }, 0, "rebuilt empty")
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
    }

    func testUnrelatedSQLiteDatabaseIsMovedAside() throws {
        let file = try temporaryDirectory("foreign").appendingPathComponent("cache.sqlite")
        let foreign = try DatabaseQueue(path: file.path)
        try foreign.write { db in
            try db.execute(sql: "CREATE TABLE photos(id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos(path) VALUES ('a.jpg')")
        }
        try foreign.close()
        let cache = try HaloCache(file: file)
        let aside = try XCTUnwrap(cache.movedAsideFile)
        let kept = try DatabaseQueue(path: aside.path)
        XCTAssertEqual(try kept.read { db in try String.fetchOne(db, sql: "SELECT path FROM photos") }, "a.jpg")
        XCTAssertEqual(try cache.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }, CacheFileGuard.applicationID)
    }

    func testEmptyFileIsTreatedAsNew() throws {
        let file = try temporaryDirectory("empty").appendingPathComponent("cache.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let cache = try HaloCache(file: file)
        XCTAssertNil(cache.movedAsideFile)
        XCTAssertEqual(try cache.integrityCheck(), ["ok"])
    }

    func testLocationIsOneFilePerServerInTheXDGCache() throws {
        let a = CacheLocation.file(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8080")))
        let b = CacheLocation.file(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8081")))
        let c = CacheLocation.file(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8080/other")))
        XCTAssertEqual(a.deletingLastPathComponent(), XDGDirectories.cache)
        XCTAssertTrue(a.lastPathComponent.hasPrefix("127.0.0.1-8080-"))
        XCTAssertEqual(Set([a, b, c]).count, 3)
        XCTAssertEqual(a, CacheLocation.file(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8080"))), "stable")
        // One per account too; the app's own token keeps the server's name.
        let ann = CacheLocation.file(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8080")), account: "ann@example.com")
        let bob = CacheLocation.file(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8080")), account: "bob@example.com")
        XCTAssertEqual(Set([a, ann, bob]).count, 3)
        XCTAssertTrue(ann.lastPathComponent.hasPrefix("127.0.0.1-8080-"))
        XCTAssertEqual(
            CacheLocation.outboxFile(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8080")), account: "ann@example.com")
                .lastPathComponent,
            ann.lastPathComponent)
    }
}
