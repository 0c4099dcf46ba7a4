import GRDB
import XCTest

@testable import HaloContentStore

/// Value rows written when a search first needs them (`ValueIndexOnDemand`, the offline cache's
/// way) must give the rows, trigram entries and answers that writing them with every instance
/// (the server's way) gives, through updates, deletions and a module removed and written again.
final class ValueIndexOnDemandTests: XCTestCase {
    private let schema = SearchSchema(moduleIdsForName: { _ in [] }, localizedFields: { _ in [] }, relationFields: { _ in [] })

    /// Seeded random instances: short and long text of mixed case and script, lists, localized
    /// objects, numbers and numeric strings, booleans and "true", nulls, nesting deeper than the
    /// index goes, empty lists.
    private struct Workload {
        var rng = SplitMix64(seed: 20_261_128)
        let pieces = ["ab", "Ab", "cab", "ROAD", "été", "ÉTÉ", "ß", "İ", "x_y", "50%", " ", "fjord", "Lake", "日本", "quartz"]

        mutating func text(_ count: Int) -> String {
            (0..<count).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined()
        }

        mutating func values(extraField: Bool) -> [String: JSONValue] {
            var values: [String: JSONValue] = [:]
            func maybe(_ value: JSONValue, _ rng: inout SplitMix64) -> JSONValue? { Int.random(in: 0..<5, using: &rng) == 0 ? nil : value }
            values["title"] = maybe(.string(text(Int.random(in: 1...4, using: &rng))), &rng)
            values["desc"] = maybe(.string(text(Int.random(in: 1...60, using: &rng))), &rng)
            values["tags"] = .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in .string(text(1)) })
            values["loc"] = maybe(.object(["en-US": .string(text(2)), "es-ES": .string(text(2))]), &rng)
            values["price"] =
                Bool.random(using: &rng)
                ? .number(Double(Int.random(in: 0...100, using: &rng))) : .string(String(Int.random(in: 0...100, using: &rng)))
            values["flag"] = Bool.random(using: &rng) ? .bool(Bool.random(using: &rng)) : .string("true")
            values["note"] = Bool.random(using: &rng) ? .null : nil
            values["deep"] = .array([.number(1), .array([.number(2), .array([.number(3)])])])
            if extraField { values["extra"] = .string(Bool.random(using: &rng) ? "x" : "y") }
            return values
        }

        mutating func instances(_ numbers: ClosedRange<Int>, extraField: Bool = false) -> [WireInstance] {
            numbers.map { n in instance(n, module: n % 3 == 0 ? "m2" : "m1", values: values(extraField: extraField)) }
        }
    }

    private let filters: [FilterNode] = [
        .compare("title", .like, "ab"), .compare("title", .like, "été"), .compare("title", .like, "ROAD"),
        .compare("title", .greater, "m"), .compare("title", .equal, "cab"), .compare("title", .notEqual, "cab"),
        .compare("price", .greaterOrEqual, 50), .compare("price", .in, [1, 2, 3, "4"]), .compare("price", .equal, "42"),
        .compare("flag", .equal, true), .compare("flag", .notEqual, false),
        .compare("note", .equal, nil), .compare("note", .notEqual, nil),
        .compare("tags", .equal, "cab"), .compare("tags", .like, "ab"), .compare("loc", .like, "ß"),
        .compare("desc", .like, "fjord"), .and(.compare("desc", .like, "lake"), .compare("desc", .like, "quartz")),
        .compare("extra", .equal, "x"), .compare("deep", .equal, 1), .compare("deep", .equal, 3),
        .or(.compare("title", .like, "cab"), .and(.compare("price", .less, 20), .compare("flag", .equal, "true"))),
    ]

    /// The ids `filter` matches; on `onDemand`, the fields it compares get their rows first, as
    /// the cache's search does.
    private func ids(_ filter: FilterNode, in db: DatabaseQueue, indexingOnDemand: Bool) throws -> [String] {
        let request = SearchRequest(searchValues: filter, pagination: .init(skip: true))
        if indexingOnDemand {
            try db.write { db in
                try ContentTables.indexValues(ofFields: ContentTables.fieldsWaitingForIndex(for: request, schema: schema, in: db), in: db)
            }
        }
        return try db.read { db in
            XCTAssertEqual(try ContentTables.fieldsWaitingForIndex(for: request, schema: schema, in: db), [])
            return try ContentTables.search(request, schema: schema, in: db).items.map(\.id).sorted()
        }
    }

    /// Every row of the value index, the fields (but whether they are indexed) and the trigram
    /// index's entries.
    private func valueIndex(of db: DatabaseQueue) throws -> [[DatabaseValue]] {
        try db.write { db in
            try db.execute(
                sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.trigram_vocab USING fts5vocab(main, 'content_trigram', 'instance')")
            let queries = [
                "SELECT 'value', instance, field, ord, kind, num, str, folded, trigram FROM content_value ORDER BY instance, field, ord",
                "SELECT 'field', field, module, name, multi FROM content_field ORDER BY field",
                "SELECT 'trigram', term, doc, col, \"offset\" FROM temp.trigram_vocab ORDER BY doc, \"offset\", term",
            ]
            return try queries.flatMap { sql in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
        }
    }

    private func count(_ sql: String, in db: DatabaseQueue) throws -> Int {
        try db.read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    func testRowsWrittenOnDemandEqualRowsWrittenWithTheInstances() throws {
        let eager = try makeContentDatabase()
        let onDemand = try makeContentDatabase()
        try onDemand.write { try ContentTables.writeValueRowsOnDemand(in: $0) }
        var workload = Workload()
        /// Applies the same writes to both stores.
        func both(_ write: (Database) throws -> Void) throws {
            try eager.write(write)
            try onDemand.write(write)
        }
        func assertSameAnswers(_ step: String) throws {
            for filter in filters {
                XCTAssertEqual(
                    try ids(filter, in: onDemand, indexingOnDemand: true), try ids(filter, in: eager, indexingOnDemand: false),
                    "\(step): \(filter)")
            }
        }

        let first = workload.instances(1...300)
        try both { try ContentTables.upsert(contentsOf: first, in: $0) }
        XCTAssertGreaterThan(try count("SELECT count(*) FROM content_value", in: eager), 2000)
        XCTAssertEqual(try count("SELECT count(*) FROM content_value", in: onDemand), 0, "no value row before a search")
        XCTAssertEqual(try count("SELECT count(*) FROM content_field WHERE indexed = 1", in: onDemand), 0)
        XCTAssertGreaterThan(try count("SELECT count(*) FROM content_field", in: onDemand), 10, "fields are known at once")

        // Two fields searched: only theirs are written, in both modules.
        XCTAssertEqual(
            try ids(.and(.compare("title", .like, "ab"), .compare("price", .greater, 30)), in: onDemand, indexingOnDemand: true),
            try ids(.and(.compare("title", .like, "ab"), .compare("price", .greater, 30)), in: eager, indexingOnDemand: false))
        XCTAssertEqual(
            try count("SELECT count(*) FROM content_field WHERE indexed = 1", in: onDemand), 4, "title and price of m1 and m2")

        // Updates (some to the same values), deletions and new instances with a new field, while
        // some fields are indexed and others wait.
        var updates = workload.instances(1...120)
        updates += first[150..<200]
        let added = workload.instances(301...360, extraField: true)
        let deleted = (200..<230).map(hexId)
        try both { db in
            try ContentTables.upsert(contentsOf: updates + added, in: db)
            try ContentTables.hardDelete(ids: deleted, in: db)
        }
        try assertSameAnswers("after updates")

        // A module removed and written again (a first sync starting afresh): its fields wait again.
        try both { db in try ContentTables.removeAll(moduleId: "m2", in: db) }
        XCTAssertEqual(
            try count("SELECT count(*) FROM content_field WHERE module = 'm2' AND indexed = 1", in: onDemand), 0,
            "the removed module's fields wait for a search again")
        XCTAssertGreaterThan(try count("SELECT count(*) FROM content_field WHERE module = 'm1' AND indexed = 1", in: onDemand), 5)
        let titles = SearchRequest(searchValues: .compare("title", .like, "ab"))
        XCTAssertEqual(
            try onDemand.read { try ContentTables.fieldsWaitingForIndex(for: titles, schema: schema, in: $0) }, [],
            "a module without instances has no rows to wait for")
        let rewritten = workload.instances(361...450, extraField: true)
        try both { db in try ContentTables.upsert(contentsOf: rewritten, in: db) }
        try assertSameAnswers("after the module was written again")

        // Everything indexed: the same rows, fields and trigram entries as written with the instances.
        try onDemand.write { db in
            try ContentTables.indexValues(ofFields: Int64.fetchAll(db, sql: "SELECT field FROM content_field WHERE indexed = 0"), in: db)
        }
        let expected = try valueIndex(of: eager)
        let actual = try valueIndex(of: onDemand)
        XCTAssertGreaterThan(
            expected.filter { $0.first == "trigram".databaseValue }.count, 1000, "the test must exercise the trigram index")
        XCTAssertEqual(actual.count, expected.count)
        for (row, (got, wanted)) in zip(actual, expected).enumerated() where got != wanted {
            XCTFail("row \(row): \(got) instead of \(wanted)")
            break
        }
    }

    /// Issue 47: a `relatedTo` search compares its relation field as a value filter does. On a
    /// field not yet indexed, the field is listed as waiting (so the search writes its rows first)
    /// and the answer is the one eager indexing gives. (The bug: `relatedTo`'s field was not marked
    /// waiting, and the search read a field without rows: nothing related to anything.)
    func testARelatedToSearchOnAFieldNotYetIndexedWaitsForItAndAnswersAsEagerIndexing() throws {
        let schema = SearchSchema(
            moduleIdsForName: { _ in [] }, localizedFields: { _ in [] }, relationFields: { _ in ["parent", "parents"] })
        let eager = try makeContentDatabase()
        let onDemand = try makeContentDatabase()
        try onDemand.write { try ContentTables.writeValueRowsOnDemand(in: $0) }
        let items = (1...12).map { n in
            instance(
                n, module: n % 2 == 0 ? "m1" : "m2",
                values: [
                    "title": .string("Item \(n)"), "parent": .string(hexId(n % 3 + 1)),
                    "parents": .array([.string(hexId(n % 4 + 1)), .string(hexId(9))]),
                ])
        }
        for db in [eager, onDemand] { try db.write { db in try ContentTables.upsert(contentsOf: items, in: db) } }
        XCTAssertEqual(try count("SELECT count(*) FROM content_value", in: onDemand), 0, "no value row before a search")

        let requests: [(SearchRequest, [Int])] = [
            (SearchRequest(relatedTo: [.init(fieldName: "parent", instanceIds: [hexId(1)])]), [3, 6, 9, 12]),
            (SearchRequest(relatedTo: [.init(fieldName: "parents", instanceIds: [hexId(2)])]), [1, 5, 9]),
            (SearchRequest(relatedTo: [.init(fieldName: "parent", instanceIds: ["*"])]), Array(1...12)),
        ]
        var searched: Set<String> = []
        for (request, expected) in requests {
            var request = request
            request.pagination = .init(skip: true)
            let name = request.relatedTo?.first?.fieldName ?? ""
            let fieldIds = try onDemand.read { db in
                try Int64.fetchAll(db, sql: "SELECT field FROM content_field WHERE name = ? ORDER BY field", arguments: [name])
            }
            XCTAssertEqual(fieldIds.count, 2, "\(name) in both modules")
            let waiting = try onDemand.read { db in try ContentTables.fieldsWaitingForIndex(for: request, schema: schema, in: db) }
            let first = searched.insert(name).inserted
            XCTAssertEqual(waiting, first ? fieldIds : [], "the first search of \(name) waits for its rows, no later one")
            try onDemand.write { db in try ContentTables.indexValues(ofFields: waiting, in: db) }
            let answers = try [onDemand, eager].map { store in
                try store.read { db in
                    XCTAssertEqual(try ContentTables.fieldsWaitingForIndex(for: request, schema: schema, in: db), [])
                    return try ContentTables.search(request, schema: schema, in: db).items.compactMap { Int($0.id, radix: 16) }.sorted()
                }
            }
            XCTAssertEqual(answers[1], expected, "eager indexing: \(request.relatedTo ?? [])")
            XCTAssertEqual(answers[0], answers[1], "on demand as eager: \(request.relatedTo ?? [])")
        }
        XCTAssertEqual(
            try count("SELECT count(*) FROM content_field WHERE indexed = 1", in: onDemand), 4, "parent and parents of m1 and m2")
    }

    /// A store whose fields were written with the instances (a cache from before) keeps writing
    /// them when it turns the policy on; only fields met afterwards wait.
    func testFieldsKnownBeforeKeepTheirRows() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(instance(1, values: ["title": "Road"]), in: db)
            try ContentTables.writeValueRowsOnDemand(in: db)
            try ContentTables.upsert(instance(2, values: ["title": "Trip", "size": "L"]), in: db)
        }
        XCTAssertEqual(try count("SELECT count(*) FROM content_value", in: db), 2, "both titles, no size")
        XCTAssertEqual(try ids(.compare("size", .equal, "L"), in: db, indexingOnDemand: true), [hexId(2)])
        XCTAssertEqual(try ids(.compare("title", .like, "tri"), in: db, indexingOnDemand: true), [hexId(2)])
    }

    /// A body that is not a JSON object, or not JSON, cannot be indexed: the error is the store's
    /// corrupt-data error naming the instance's key, and nothing is written (the field still
    /// waits, the transaction rolls back).
    func testABrokenStoredBodyIsAClearError() throws {
        for broken in ["[1]", "{\"title\": "] {
            let db = try makeContentDatabase()
            try db.write { db in
                try ContentTables.writeValueRowsOnDemand(in: db)
                try ContentTables.upsert(
                    contentsOf: [instance(1, values: ["title": "Road"]), instance(2, values: ["title": "Trip"])], in: db)
                try db.execute(sql: "UPDATE content_body SET values_json = ? WHERE pk = 2", arguments: [broken])
            }
            let request = SearchRequest(searchValues: .compare("title", .like, "road"))
            XCTAssertThrowsError(
                try db.write { db in
                    try ContentTables.indexValues(
                        ofFields: ContentTables.fieldsWaitingForIndex(for: request, schema: schema, in: db), in: db)
                }
            ) { error in
                guard case .corruptData(let message)? = error as? ContentStoreError else { return XCTFail("\(broken): \(error)") }
                XCTAssertTrue(message.contains("instance key 2"), message)
            }
            XCTAssertEqual(try count("SELECT count(*) FROM content_value", in: db), 0, broken)
            XCTAssertEqual(try count("SELECT count(*) FROM content_field WHERE indexed = 0", in: db), 1, broken)
        }
    }
}
