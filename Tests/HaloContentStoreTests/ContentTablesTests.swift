import GRDB
import XCTest

@testable import HaloContentStore

/// Writing, reading, deleting, ordering and paging.
final class ContentTablesTests: XCTestCase {
    func testUpsertReplacesValuesTagsAndIndexRows() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(instance(1, values: ["color": "red", "n": 1], tags: [WireTag(name: "a", value: "1")]), in: db)
            var changed = instance(1, values: ["color": "blue"], tags: [WireTag(name: "b", value: "2")], updatedAt: 5_000)
            changed.externalId = "ext-1"
            try ContentTables.upsert(changed, in: db)
            let stored = try XCTUnwrap(ContentTables.instance(id: hexId(1), in: db))
            XCTAssertEqual(stored, changed)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM content_instance"), 1)
            let red = try ContentTables.search(SearchRequest(searchValues: .compare("color", .equal, "red")), in: db)
            XCTAssertEqual(red.total, 0, "old value rows must be gone")
            let n = try ContentTables.search(SearchRequest(searchValues: .compare("n", .notEqual, nil)), in: db)
            XCTAssertEqual(n.total, 0, "a field dropped by the update is absent")
            let tagged = try ContentTables.search(SearchRequest(segmentTags: [WireTag(name: "a", value: "1")]), in: db)
            XCTAssertEqual(tagged.total, 0, "old tags must be gone")
        }
    }

    /// A metadata-only update (the usual incremental sync) keeps the body, value, tag and trigram
    /// rows as they are; any change of values, tags or module still rewrites them.
    func testMetadataOnlyUpdateKeepsIndexRowsAndSearchStaysExact() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            let tags = [WireTag(name: "a", value: "1")]
            try ContentTables.upsert(
                contentsOf: (1...3).map { instance($0, values: ["title": .string("road \($0)"), "n": .number(Double($0))], tags: tags) },
                in: db)
            let renamed = (1...3).map {
                instance(
                    $0, name: "renamed \($0)", values: ["title": .string("road \($0)"), "n": .number(Double($0))], tags: tags,
                    updatedAt: 5_000)
            }
            let before = db.totalChangesCount
            try ContentTables.upsert(contentsOf: renamed, in: db)
            XCTAssertEqual(
                db.totalChangesCount - before, 3 + 1, "one instance row each and the generation; no body, value, tag or trigram rows")
            XCTAssertEqual(try ContentTables.instance(id: hexId(2), in: db), renamed[1])
            let like = try ContentTables.search(SearchRequest(searchValues: .compare("title", .like, "ROAD")), in: db)
            XCTAssertEqual(like.total, 3, "the trigram index still holds the kept strings")
            XCTAssertEqual(try ContentTables.search(SearchRequest(segmentTags: tags), in: db).total, 3)
            // A changed push schedule alone rewrites the body; a deletion reaches its index.
            var scheduled = renamed[2]
            scheduled.pushSchedule = ["date": 1]
            try ContentTables.upsert(scheduled, in: db)
            XCTAssertEqual(try ContentTables.instance(id: hexId(3), in: db)?.pushSchedule, ["date": 1])
            scheduled.deletedAt = 6_000
            try ContentTables.upsert(scheduled, in: db)
            let deleted = try String.fetchAll(
                db, sql: "SELECT id FROM content_instance INDEXED BY content_instance_deleted WHERE deleted_at IS NOT NULL")
            XCTAssertEqual(deleted, [hexId(3)])
            scheduled.deletedAt = nil
            try ContentTables.upsert(scheduled, in: db)
            // A publication reaches its indexes too; a later rename keeps it there.
            scheduled.publishedAt = 7_000
            try ContentTables.upsert(scheduled, in: db)
            scheduled.name = "renamed again"
            try ContentTables.upsert(scheduled, in: db)
            for index in ["content_instance_published", "content_instance_module_published"] {
                let published = try Row.fetchAll(
                    db, sql: "SELECT id, published_at FROM content_instance INDEXED BY \(index) WHERE published_at IS NOT NULL")
                XCTAssertEqual(published.map { [$0[0] as String, "\($0[1] as Int64)"] }, [[hexId(3), "7000"]], index)
            }
            XCTAssertEqual(try ContentTables.instance(id: hexId(3), in: db)?.publishedAt, 7_000)

            // The same id twice in one batch, the second version changing the values: last one wins.
            try ContentTables.upsert(contentsOf: [renamed[0], instance(1, values: ["title": "lane"], tags: [])], in: db)
            XCTAssertEqual(try ContentTables.search(SearchRequest(searchValues: .compare("title", .like, "road")), in: db).total, 2)
            XCTAssertEqual(try ContentTables.search(SearchRequest(searchValues: .compare("title", .like, "lan")), in: db).total, 1)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM content_tag"), 2, "the changed tags are rewritten")
            // Same values moved to another module: its value rows follow the module's fields.
            try ContentTables.upsert(instance(2, module: "m2", values: ["title": "road 2", "n": 2], tags: tags), in: db)
            let inM2 = try ContentTables.search(SearchRequest(moduleIds: ["m2"], searchValues: .compare("n", .equal, 2)), in: db)
            XCTAssertEqual(inM2.items.map(\.id), [hexId(2)])
            try db.execute(sql: "INSERT INTO content_trigram(content_trigram) VALUES ('integrity-check')")
        }
    }

    func testInvalidInstancesAreRejected() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            var noId = instance(1)
            noId.id = ""
            XCTAssertThrowsError(try ContentTables.upsert(noId, in: db)) {
                XCTAssertEqual($0 as? ContentStoreError, .invalidInstance("an instance needs an id to be stored"))
            }
            var noDate = instance(2)
            noDate.createdAt = nil
            XCTAssertThrowsError(try ContentTables.upsert(noDate, in: db)) {
                XCTAssertEqual($0 as? ContentStoreError, .invalidInstance("instance \(hexId(2)) has no createdAt"))
            }
        }
    }

    func testDeletesAndCounts() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(contentsOf: (1...5).map { instance($0, module: $0 <= 3 ? "a" : "b") }, in: db)
            let deleted = try XCTUnwrap(ContentTables.softDelete(id: hexId(1), at: 9_000, by: "Ann", in: db))
            XCTAssertEqual(deleted.deletedAt, 9_000)
            XCTAssertEqual(deleted.deletedBy, "Ann")
            XCTAssertEqual(
                try ContentTables.softDelete(id: hexId(1), at: 9_500, by: "Bob", in: db)?.deletedAt, 9_000,
                "the first deletion stays")
            XCTAssertNil(try ContentTables.softDelete(id: "nope", at: 1, by: nil, in: db))
            XCTAssertEqual(try ContentTables.count(moduleId: "a", in: db), 2)
            XCTAssertEqual(try ContentTables.moduleCounts(in: db), ["a": 2, "b": 2])
            XCTAssertEqual(try ContentTables.truncate(moduleId: "b", at: 10_000, in: db), 2)
            XCTAssertEqual(try ContentTables.truncate(moduleId: "b", at: 11_000, in: db), 0)
            XCTAssertEqual(try ContentTables.moduleCounts(in: db), ["a": 2])
            try ContentTables.hardDelete(ids: [hexId(2), hexId(4)], in: db)
            XCTAssertNil(try ContentTables.instance(id: hexId(2), in: db))
            for table in ["content_instance", "content_body"] {
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)"), 3, table)
            }
            XCTAssertEqual(try ContentTables.instances(ids: [hexId(5), hexId(2), hexId(3)], in: db).map(\.id), [hexId(5), hexId(3)])
            // Freed keys: negations must not invent instances for them.
            let notA = try ContentTables.search(SearchRequest(metaSearch: .compare("name", .notEqual, "none")), in: db)
            XCTAssertEqual(notA.items.map(\.id), [hexId(3)])
            let withDeleted = try ContentTables.search(
                SearchRequest(metaSearch: .compare("deletedAt", .notEqual, 0), pagination: .init(skip: true), sort: "createdAt asc"), in: db
            )
            XCTAssertEqual(withDeleted.items.map(\.id), [hexId(1), hexId(3), hexId(5)])
        }
    }

    func testSortTieBreakAndPagination() throws {
        let db = try makeContentDatabase()
        // 25 instances; createdAt repeats in groups of 5 so the id tie-break decides within a group.
        let items = (1...25).map { n in instance(n, name: "n\(26 - n)", createdAt: Int64(100 + (n - 1) / 5)) }
        try db.write { try ContentTables.upsert(contentsOf: items.shuffled(), in: $0) }
        func page(_ request: SearchRequest) throws -> SearchPage { try db.read { try ContentTables.search(request, in: $0) } }

        let first = try page(SearchRequest())
        XCTAssertEqual(first.total, 25)
        XCTAssertEqual(first.limit, 10)
        XCTAssertEqual(first.page, 1)
        XCTAssertEqual(first.totalPages, 3)
        // createdAt desc, then id asc within equal createdAt.
        XCTAssertEqual(first.items.map { Int($0.id, radix: 16) ?? 0 }, [21, 22, 23, 24, 25, 16, 17, 18, 19, 20])

        let third = try page(SearchRequest(pagination: .init(page: 3, limit: 10)))
        XCTAssertEqual(third.items.count, 5)
        XCTAssertEqual(third.offset, 20)
        XCTAssertEqual(third.items.map { Int($0.id, radix: 16) ?? 0 }, [1, 2, 3, 4, 5])
        XCTAssertEqual(try page(SearchRequest(pagination: .init(page: 4, limit: 10))).items, [])
        // Absurd pages are refused by the default limits, naming the limit…
        let absurdRequest = SearchRequest(pagination: .init(page: 999_999_999_999, limit: 999_999_999_999))
        XCTAssertThrowsError(try page(absurdRequest)) { error in
            XCTAssertEqual(error as? ContentStoreError, .invalidRequest("pagination.limit is 999999999999; the largest page is 1000 items"))
        }
        let lastAllowed = try page(SearchRequest(pagination: .init(page: SearchLimits.default.page, limit: SearchLimits.default.pageSize)))
        XCTAssertEqual(lastAllowed.items, [])
        XCTAssertEqual(lastAllowed.offset, (SearchLimits.default.page - 1) * SearchLimits.default.pageSize)
        // …and with limits lifted they saturate instead of trapping.
        var unlimited = SearchLimits()
        unlimited.page = .max
        unlimited.pageSize = .max
        let absurd = try db.read { try ContentTables.search(absurdRequest, limits: unlimited, in: $0) }
        XCTAssertEqual(absurd.items, [])
        XCTAssertEqual(absurd.total, 25)
        XCTAssertEqual(absurd.offset, Int.max, "saturates instead of trapping")
        XCTAssertEqual(absurd.totalPages, 1)

        let all = try page(SearchRequest(pagination: .init(skip: true), sort: "name asc"))
        XCTAssertEqual(all.items.count, 25)
        XCTAssertTrue(all.skipPagination)
        XCTAssertEqual(all.items.map(\.name), items.map(\.name).sorted())

        let asc = try page(SearchRequest(pagination: .init(page: 1, limit: 7), sort: "createdAt asc"))
        XCTAssertEqual(asc.items.map { Int($0.id, radix: 16) ?? 0 }, [1, 2, 3, 4, 5, 6, 7])

        XCTAssertThrowsError(try page(SearchRequest(pagination: .init(page: 0, limit: 10)))) {
            XCTAssertEqual(
                ($0 as? ContentStoreError).map { "\($0)" },
                "Invalid search request: pagination needs page ≥ 1 and limit ≥ 1 (got page 0, limit 10)")
        }
        XCTAssertThrowsError(try page(SearchRequest(sort: "price asc"))) {
            XCTAssertTrue("\($0)".contains("cannot sort by \"price\""))
        }
    }

    /// Pages must be slices of the full ordered answer whichever strategy builds them
    /// (index walk for early pages of dense results, sorted key list otherwise).
    func testEveryPageIsASliceOfTheFullOrder() throws {
        let db = try makeContentDatabase()
        var rng = SystemRandomNumberGenerator()
        let items = (1...400).map { n in
            instance(
                n, module: n % 3 == 0 ? "x" : "y", values: ["even": .bool(n % 2 == 0)],
                createdAt: Int64.random(in: 1...60, using: &rng), updatedAt: n % 5 == 0 ? nil : Int64.random(in: 1...60, using: &rng))
        }
        try db.write { try ContentTables.upsert(contentsOf: items, in: $0) }
        for moduleIds in [nil, ["y"], ["x", "y"]] {
            for sort in ["createdAt desc", "createdAt asc", "updatedAt desc", "name asc,updatedAt asc"] {
                var request = SearchRequest(moduleIds: moduleIds, searchValues: .compare("even", .equal, true), sort: sort)
                request.pagination = .init(skip: true)
                let all = try db.read { try ContentTables.search(request, in: $0) }.items.map(\.id)
                XCTAssertGreaterThan(all.count, 50)
                for (page, limit) in [(1, 10), (2, 10), (1, 7), (3, 25), (30, 10)] {
                    request.pagination = .init(page: page, limit: limit)
                    let result = try db.read { try ContentTables.search(request, in: $0) }
                    let start = min((page - 1) * limit, all.count)
                    XCTAssertEqual(
                        result.items.map(\.id), Array(all[start..<min(start + limit, all.count)]),
                        "\(moduleIds ?? []) \(sort) page \(page) limit \(limit)")
                    XCTAssertEqual(result.total, all.count)
                }
            }
        }
    }
}
