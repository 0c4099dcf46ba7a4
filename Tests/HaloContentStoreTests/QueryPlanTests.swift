import GRDB
import XCTest

@testable import HaloContentStore

/// Speed by construction: every statement a search runs must reach the value index through an
/// index seek, never a table scan (checked with EXPLAIN QUERY PLAN on the statements SQLite
/// actually executed).
final class QueryPlanTests: XCTestCase {
    func testSearchStatementsSeekIndexes() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...300).map { n in
                    instance(
                        n, module: "m\(n % 3)",
                        values: [
                            "price": .number(Double(n)), "inStock": .bool(n % 2 == 0), "title": .string("title \(n)"),
                            "category": .string(["a", "b", "c"][n % 3]), "colors": ["red", "blue"],
                        ], tags: n % 5 == 0 ? [WireTag(name: "seg", value: "x")] : [])
                }, in: db)
            try db.execute(sql: "ANALYZE")
        }
        let nested: FilterNode = .and(
            .compare("price", .greaterOrEqual, 10), .compare("price", .lessOrEqual, 500),
            .or(.compare("inStock", .equal, true), .compare("title", .like, "ab")),
            .compare("category", .in, ["a", "b"]), .compare("colors", .notEqual, nil))
        let requests = [
            SearchRequest(moduleIds: ["m1"], searchValues: nested, pagination: .init(page: 1, limit: 50)),
            SearchRequest(
                searchValues: nested, metaSearch: .compare("createdAt", .greater, 1_100, type: "date"),
                segmentTags: [WireTag(name: "seg", value: "x")]),
            // `like` with 3+ characters: trigram lookups plus the index of unindexed strings.
            SearchRequest(searchValues: .or(.compare("title", .like, "itle 1"), .compare("category", .like, "é"))),
            // Few candidates: the comparisons probe them.
            SearchRequest(instanceIds: [hexId(3), hexId(4)], searchValues: nested),
        ]
        var statements: [String] = []
        try db.read { db in
            db.trace { event in
                if case .statement(let statement) = event { statements.append(statement.expandedSQL) }
            }
            for request in requests { _ = try ContentTables.search(request, in: db) }
            db.trace(nil)
            let valueQueries = Set(statements.filter { $0.contains("content_value") && $0.hasPrefix("SELECT") })
            XCTAssertTrue(valueQueries.contains { $0.contains("CROSS JOIN content_value") }, "the probing path was not taken")
            XCTAssertTrue(statements.contains { $0.contains("content_trigram MATCH") }, "the trigram path was not taken")
            XCTAssertGreaterThanOrEqual(valueQueries.count, 5, "the filter should have run one query per comparison")
            for sql in valueQueries {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String? ?? "" }
                // A range of the value index (or of the strings the trigram index leaves out), or
                // (probing a few candidates) primary-key seeks.
                XCTAssertTrue(
                    plan.contains {
                        $0.contains("USING COVERING INDEX content_value_lookup") || $0.contains("USING PRIMARY KEY (instance=?)")
                            || $0.contains("USING COVERING INDEX content_value_untrigrammed")
                    }, "\(sql)\n\(plan)")
                XCTAssertFalse(plan.contains { $0.hasPrefix("SCAN content_value") || $0.hasPrefix("SCAN v") }, "\(sql)\n\(plan)")
            }
        }
    }

    /// "Recently updated first" lists a never-updated (just created) instance by its creation,
    /// not last; a module's page is read in index order, without sorting the module.
    func testUpdatedAtSortDatesANeverUpdatedInstanceByItsCreationThroughAnIndex() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...200).map { n in instance(n, module: "m1", createdAt: Int64(n), updatedAt: Int64(1_000 + n)) }
                    + [instance(201, module: "m1", createdAt: 5_000), instance(202, module: "m1", createdAt: 10)], in: db)
            try db.execute(sql: "ANALYZE")
        }
        let request = SearchRequest(moduleIds: ["m1"], pagination: .init(page: 1, limit: 3), sort: "updatedAt desc")
        var statements: [String] = []
        try db.read { db in
            db.trace { event in
                if case .statement(let statement) = event { statements.append(statement.expandedSQL) }
            }
            let page = try ContentTables.search(request, in: db)
            db.trace(nil)
            XCTAssertEqual(page.items.map(\.id), [hexId(201), hexId(200), hexId(199)])
            let last = try ContentTables.search(
                SearchRequest(moduleIds: ["m1"], pagination: .init(page: 68, limit: 3), sort: "updatedAt desc"), in: db)
            XCTAssertEqual(last.items.map(\.id), [hexId(202)], "created at 10, never updated: the oldest change")
            let ordered = try XCTUnwrap(statements.first { $0.contains("ORDER BY") })
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + ordered).map { $0["detail"] as String? ?? "" }
            XCTAssertTrue(plan.contains { $0.contains("content_instance_module_changed") }, "\(ordered)\n\(plan)")
            XCTAssertFalse(
                plan.contains { $0.contains("USE TEMP B-TREE FOR ORDER BY") && !$0.contains("RIGHT PART") }, "\(ordered)\n\(plan)")
        }
    }

    /// A page sorted by publishedAt walks that order's index of each module
    /// (`content_v9_sqlite_orders`), sorted at most within ties of the date. A metadata filter on
    /// publishedAt over every module seeks its index instead of scanning the table.
    func testPublishedOrderWalksItsIndex() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...300).map { n in instance(n, module: "m\(n % 3)", publishedAt: n % 10 == 0 ? nil : Int64(n % 40)) }, in: db)
            try db.execute(sql: "ANALYZE")
        }
        let expected = [
            "publishedAt desc,name asc": "content_instance_module_published", "publishedAt asc": "content_instance_module_published",
        ]
        try db.read { db in
            for (sort, index) in expected {
                var statements: [String] = []
                db.trace { event in
                    if case .statement(let statement) = event { statements.append(statement.expandedSQL) }
                }
                for scope in [nil, ["m1", "m2"]] {
                    _ = try ContentTables.search(SearchRequest(moduleIds: scope, pagination: .init(page: 2, limit: 5), sort: sort), in: db)
                }
                db.trace(nil)
                let walks = statements.filter { $0.contains("UNION ALL") }
                XCTAssertEqual(walks.count, 2, "\(sort): \(statements)")
                for walk in walks {
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + walk).map { $0["detail"] as String? ?? "" }
                    XCTAssertTrue(plan.contains { $0.contains("INDEX \(index) (module=?)") }, "\(sort)\n\(plan)")
                    XCTAssertFalse(
                        plan.contains { $0.contains("USE TEMP B-TREE FOR ORDER BY") && !$0.contains("RIGHT PART") }, "\(sort)\n\(plan)")
                }
            }
            var statements: [String] = []
            db.trace { event in
                if case .statement(let statement) = event { statements.append(statement.expandedSQL) }
            }
            let published = try ContentTables.search(SearchRequest(metaSearch: .compare("publishedAt", .notEqual, nil)), in: db)
            db.trace(nil)
            XCTAssertEqual(published.total, 270, "every instance but the 30 without publishedAt")
            let filter = try XCTUnwrap(statements.first { $0.contains("published_at IS NULL") }, "\(statements)")
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + filter).map { $0["detail"] as String? ?? "" }
            XCTAssertTrue(plan.contains { $0.contains("INDEX content_instance_published") }, "\(filter)\n\(plan)")
        }
    }

    /// Each part of a sync window is read along an index of its module, in that index's order:
    /// no scan of the module and no sort (the updated part along (module, last change), since
    /// (module, updated_at) is gone).
    func testSyncWindowsReadModuleIndexesInOrder() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...300).map { n in
                    instance(
                        n, module: "m\(n % 3)", createdAt: Int64(n), updatedAt: n % 2 == 0 ? Int64(1_000 + n) : nil,
                        deletedAt: n % 7 == 0 ? Int64(2_000 + n) : nil)
                }, in: db)
            try db.execute(sql: "ANALYZE")
        }
        var statements: [String] = []
        try db.read { db in
            db.trace { event in
                if case .statement(let statement) = event { statements.append(statement.expandedSQL) }
            }
            var updated = 0
            try ContentTables.forEachChange(moduleIds: ["m1"], from: 150, to: 5_000, chunkSize: 20, in: db) { chunk in
                if case .updated(let instances) = chunk { updated += instances.count }
            }
            db.trace(nil)
            // m1's instances created by 150, updated since, and not deleted by 5,000.
            XCTAssertEqual(updated, (1...150).filter { $0 % 3 == 1 && $0 % 2 == 0 && $0 % 7 != 0 }.count)
            let reads = Set(statements.filter { $0.contains("ORDER BY") })
            for part in ["i.created_at > 150", "updated_at IS NOT NULL", "i.deleted_at > 150"] {
                XCTAssertTrue(reads.contains { $0.contains(part) }, "no read of the part \(part)")
            }
            for sql in reads {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String? ?? "" }
                XCTAssertTrue(plan.contains { $0.hasPrefix("SEARCH i USING INDEX content_instance_module_") }, "\(sql)\n\(plan)")
                XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "\(sql)\n\(plan)")
                if sql.contains("updated_at IS NOT NULL") {
                    XCTAssertTrue(plan.contains { $0.contains("content_instance_module_changed") }, "\(sql)\n\(plan)")
                }
            }
        }
    }
}
