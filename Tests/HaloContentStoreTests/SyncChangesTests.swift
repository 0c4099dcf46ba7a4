import GRDB
import XCTest

@testable import HaloContentStore

/// Change sets across create → update → delete sequences and window edges (§14.2).
final class SyncChangesTests: XCTestCase {
    private func ids(_ instances: [WireInstance]) -> [String] { instances.map(\.id).sorted() }

    func testWindowsNeverRepeatCreatedAndReportEachChangeOnce() throws {
        let db = try makeContentDatabase()
        let clock = MonotonicClock()
        func changes(from: Int64?, to: Int64) throws -> SyncChanges {
            try db.read { try ContentTables.changes(moduleIds: ["m"], from: from, to: to, in: $0) }
        }
        // Window 1: A and B created; X in another module.
        try db.write { db in
            try ContentTables.upsert(instance(1, module: "m", createdAt: clock.next()), in: db)
            try ContentTables.upsert(instance(2, module: "m", createdAt: clock.next()), in: db)
            try ContentTables.upsert(instance(9, module: "other", createdAt: clock.next()), in: db)
        }
        let t1 = clock.current()
        let first = try changes(from: nil, to: t1)
        XCTAssertEqual(ids(first.created), [hexId(1), hexId(2)])
        XCTAssertEqual(first.updated, [])
        XCTAssertEqual(first.deleted, [])

        // Window 2: A updated, B deleted, C created then updated, D created then deleted.
        try db.write { db in
            var a = try XCTUnwrap(ContentTables.instance(id: hexId(1), in: db))
            a.updatedAt = clock.next()
            try ContentTables.upsert(a, in: db)
            try ContentTables.softDelete(id: hexId(2), at: clock.next(), by: nil, in: db)
            var c = instance(3, module: "m", createdAt: clock.next())
            try ContentTables.upsert(c, in: db)
            c.updatedAt = clock.next()
            try ContentTables.upsert(c, in: db)
            try ContentTables.upsert(instance(4, module: "m", createdAt: clock.next()), in: db)
            try ContentTables.softDelete(id: hexId(4), at: clock.next(), by: nil, in: db)
        }
        let t2 = clock.current()
        let second = try changes(from: t1, to: t2)
        XCTAssertEqual(ids(second.created), [hexId(3)], "only C is new to the client")
        XCTAssertEqual(ids(second.updated), [hexId(1)], "C was created in this window: created, not updated")
        XCTAssertEqual(second.deleted, [hexId(2)], "D never reached the client")

        // Window 3: nothing happened.
        let t3 = clock.current()
        XCTAssertEqual(try changes(from: t2, to: t3), SyncChanges())

        // Edges: a change stamped exactly `to` is in the window, one stamped `from` is not.
        let edge = clock.next()
        try db.write { try ContentTables.upsert(instance(5, module: "m", createdAt: edge), in: $0) }
        XCTAssertEqual(ids(try changes(from: t3, to: edge).created), [hexId(5)])
        XCTAssertEqual(try changes(from: edge, to: clock.current()).created, [])

        // A first sync after all that: every live instance, nothing else.
        XCTAssertEqual(ids(try changes(from: nil, to: clock.current()).created), [hexId(1), hexId(3), hexId(5)])
    }

    func testChunkedStreamingDeliversEverythingInOrder() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(contentsOf: (1...1_050).map { instance($0, module: "big", createdAt: Int64($0)) }, in: db)
            for n in 1...30 { try ContentTables.softDelete(id: hexId(n), at: 5_000, by: nil, in: db) }
            for n in 31...100 {
                var item = try XCTUnwrap(ContentTables.instance(id: hexId(n), in: db))
                item.updatedAt = 5_000
                try ContentTables.upsert(item, in: db)
            }
        }
        var chunks: [SyncChunk] = []
        try db.read { db in
            try ContentTables.forEachChange(moduleIds: ["big"], from: 1_000, to: 6_000, chunkSize: 40, in: db) { chunks.append($0) }
        }
        var created: [String] = [], updated: [String] = [], deleted: [String] = []
        var phase = 0
        for chunk in chunks {
            switch chunk {
            case .created(let items): XCTAssertEqual(phase, 0); XCTAssertLessThanOrEqual(items.count, 40); created += items.map(\.id)
            case .updated(let items):
                XCTAssertLessThanOrEqual(phase, 1); phase = 1; XCTAssertLessThanOrEqual(items.count, 40); updated += items.map(\.id)
            case .deleted(let items): phase = 2; XCTAssertLessThanOrEqual(items.count, 40); deleted += items
            }
        }
        XCTAssertEqual(created, (1_001...1_050).map(hexId))
        XCTAssertEqual(updated, (31...100).map(hexId))
        XCTAssertEqual(deleted, (1...30).map(hexId))
        XCTAssertEqual(chunks.count, 2 + 2 + 1)
    }

    /// Server changes applied to a second database (the SDK's cache) leave it equal to the
    /// server's live instances, window after window.
    func testApplyingChangeSetsMirrorsTheServer() throws {
        let server = try makeContentDatabase()
        let cache = try makeContentDatabase()
        let clock = MonotonicClock()
        var from: Int64? = nil
        func syncAndCompare(_ label: String) throws {
            let to = clock.current()
            try server.read { source in
                try cache.write { target in
                    try ContentTables.forEachChange(moduleIds: ["m"], from: from, to: to, chunkSize: 3, in: source) {
                        try ContentTables.apply($0, in: target)
                    }
                }
            }
            from = to
            let everything = SearchRequest(pagination: .init(skip: true), sort: "createdAt asc")
            let expected = try server.read { try ContentTables.search(everything, in: $0) }.items
            let actual = try cache.read { try ContentTables.search(everything, in: $0) }.items
            XCTAssertEqual(actual, expected, label)
        }
        try server.write { db in
            try ContentTables.upsert(contentsOf: (1...10).map { instance($0, module: "m", createdAt: clock.next()) }, in: db)
        }
        try syncAndCompare("first sync")
        try server.write { db in
            var changed = try XCTUnwrap(ContentTables.instance(id: hexId(2), in: db))
            changed.values = ["edited": true]
            changed.updatedAt = clock.next()
            try ContentTables.upsert(changed, in: db)
            try ContentTables.softDelete(id: hexId(3), at: clock.next(), by: nil, in: db)
            try ContentTables.upsert(instance(11, module: "m", createdAt: clock.next()), in: db)
        }
        try syncAndCompare("incremental sync")
        XCTAssertNil(try cache.read { try ContentTables.instance(id: hexId(3), in: $0) }, "deleted ids are removed from the cache")
        XCTAssertEqual(try cache.write { try ContentTables.removeAll(moduleId: "m", in: $0) }, 10)
        XCTAssertEqual(try cache.read { try ContentTables.moduleCounts(in: $0) }, [:])
    }

    /// The server's sync answer is written from the stored text (`forEachChangeAsWireJSON`); it
    /// must read back as the very instances `forEachChange` decodes, encoded the usual way
    /// (`JSONEncoder` over `WireInstance`), localized or not, in the same chunks and order.
    func testWireJSONChangeSetsEqualTheEncodedInstances() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            var items = (1...25).map { instance($0, module: $0 % 3 == 0 ? "plain" : "m", createdAt: Int64($0)) }
            items[0].values = [
                "title": ["en-US": "Hello", "es-ES": "Hola \"amigo\"\n"], "count": 12, "ratio": 0.5, "list": [1, "two", nil, ["x": true]],
                "empty": [:], "none": nil,
            ]
            items[0].tags = [
                WireTag(id: "t1", name: "Platform", value: "ios", tagType: "000000000000000000000002"),
                WireTag(name: "Old", value: "1", tagTypeObject: ["id": "000000000000000000000004", "name": "custom"]),
            ]
            items[0].pushSchedule = ["date": 1_700_000_000_000]
            items[0].externalId = "ext-1"
            items[1].values = ["title": ["en-US": "Only English"]]
            items[1].customerId = nil
            items[1].revision = nil
            items[1].publishedAt = 7
            items[1].createdBy = "Ana Ñ"
            try ContentTables.upsert(contentsOf: items, in: db)
            try ContentTables.softDelete(id: hexId(4), at: 60, by: "Editor", in: db)
            var updated = items[4]
            updated.updatedAt = 61
            updated.values = ["title": ["es-ES": "Cambio"]]
            try ContentTables.upsert(updated, in: db)
        }
        let encoder = JSONEncoder()
        for (from, locale) in [(nil, nil), (nil, "es-ES"), (30, nil), (30, "es-ES")] as [(Int64?, String?)] {
            let label = "from \(from.map(String.init) ?? "nil"), locale \(locale ?? "none")"
            var decoded: [JSONValue] = []
            var written: [JSONValue] = []
            try db.read { db in
                try ContentTables.forEachChange(moduleIds: ["m", "plain"], from: from, to: 100, chunkSize: 4, in: db) { chunk in
                    switch chunk {
                    case .created(let items), .updated(let items):
                        let shown = items.map { item in
                            locale.map { item.module == "m" ? item.localized(to: $0, fields: ["title"]) : item } ?? item
                        }
                        decoded.append(.array(try shown.map { try JSONValue(data: encoder.encode($0)) }))
                    case .deleted(let ids): decoded.append(.array(ids.map(JSONValue.string)))
                    }
                }
                try ContentTables.forEachChangeAsWireJSON(
                    moduleIds: ["m", "plain"], from: from, to: 100, chunkSize: 4, locale: locale, localizedFields: ["m": ["title"]],
                    in: db
                ) { chunk in
                    switch chunk {
                    case .created(let items, let count), .updated(let items, let count):
                        let array = try JSONValue(parsing: "[\(items)]")
                        XCTAssertEqual(array.arrayValue?.count, count, label)
                        written.append(array)
                    case .deleted(let ids): written.append(.array(ids.map(JSONValue.string)))
                    }
                }
            }
            XCTAssertEqual(written, decoded, label)
            XCTAssertFalse(decoded.isEmpty, label)
        }
    }
}
