import Foundation
import GRDB
import XCTest

@testable import HaloContentStore

/// `ContentTables.withSecondaryIndexesDeferred`: a load with the indexes built at the end must
/// leave exactly the schema and the answers of a load row by row, and never lose an index.
final class BulkLoadTests: XCTestCase {
    /// Mixed data: short and long strings (trigram and scanned), numbers, booleans, lists,
    /// localized text, tags, deleted instances, two modules, and an id written twice.
    private static func sampleInstances() -> [WireInstance] {
        var list = (1...600).map { n -> WireInstance in
            instance(
                n, module: "m\(n % 2)", name: "Item \(n % 37)",
                values: [
                    "title": .string(n % 9 == 0 ? String(repeating: "Long text \(n) ", count: 20) : "Title \(n) Cabin"),
                    "price": .number(Double(n % 100)),
                    "inStock": .bool(n % 3 == 0),
                    "labels": .array([.string("L\(n % 5)"), .string("é\(n % 4)")]),
                    "headline": .object(["en": .string("Hello \(n)"), "es": .string("Hola \(n)")]),
                ],
                tags: n % 4 == 0 ? [WireTag(id: nil, name: "platform", value: n % 8 == 0 ? "ios" : "android")] : [],
                createdAt: Int64(10_000 + n), updatedAt: Int64(20_000 + n), deletedAt: n % 50 == 0 ? Int64(30_000 + n) : nil)
        }
        list.append(instance(7, module: "m1", name: "rewritten", values: ["title": .string("second version")], createdAt: 10_007))
        return list
    }

    private static let requests: [String] = [
        #"{"moduleIds":["m0","m1"],"pagination":{"page":1,"limit":50}}"#,
        #"{"moduleIds":["m0"],"searchValues":{"condition":"and","operands":[{"operation":">=","property":"price","value":10,"type":"number"},{"operation":"<=","property":"price","value":50,"type":"number"}]},"pagination":{"page":2,"limit":20}}"#,
        #"{"searchValues":{"condition":"or","operands":[{"operation":"like","property":"title","value":"cab","type":"string"},{"operation":"like","property":"title","value":"long text 1","type":"string"}]},"pagination":{"skip":true}}"#,
        #"{"searchValues":{"operation":"=","property":"labels","value":"é2","type":"string"},"sort":"name asc","pagination":{"skip":true}}"#,
        #"{"searchValues":{"operation":"like","property":"headline","value":"hola 1","type":"string"},"pagination":{"skip":true}}"#,
        #"{"segmentTags":[{"name":"platform","value":"ios"}],"segmentMode":"total","pagination":{"skip":true}}"#,
        #"{"metaSearch":{"operation":">","property":"deletedAt","value":0,"type":"number"},"pagination":{"skip":true}}"#,
        #"{"moduleIds":["m1"],"sort":"updatedAt desc","pagination":{"page":3,"limit":7}}"#,
    ]

    private static func indexes(_ db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'content_%' ORDER BY name")
    }

    func testDeferredIndexesGiveTheSameSchemaAndAnswersAsRowByRow() throws {
        let rowByRow = try makeContentDatabase()
        let bulk = try makeContentDatabase()
        // Something stored before the load, as in a cache holding other modules.
        let earlier = [instance(5_000, module: "m9", values: ["title": .string("Earlier cabin")])]
        for db in [rowByRow, bulk] { try db.write { try ContentTables.upsert(contentsOf: earlier, in: $0) } }
        let instances = Self.sampleInstances()
        try rowByRow.write { db in
            for chunk in instances.chunked(into: 100) { try ContentTables.upsert(contentsOf: chunk, in: db) }
            try ContentTables.hardDelete(ids: [hexId(11), hexId(5_000)], in: db)
        }
        try bulk.write { db in
            try ContentTables.withSecondaryIndexesDeferred(in: db) {
                XCTAssertEqual(try Self.indexes(db).count, 0, "the read-only indexes are gone during the load")
                for chunk in instances.chunked(into: 100) { try ContentTables.upsert(contentsOf: chunk, in: db) }
                try ContentTables.hardDelete(ids: [hexId(11), hexId(5_000)], in: db)
            }
        }
        let expectedIndexes = try rowByRow.read(Self.indexes)
        XCTAssertEqual(expectedIndexes.count, ContentSchema.secondaryIndexes.count)
        XCTAssertEqual(try bulk.read(Self.indexes), expectedIndexes)
        XCTAssertEqual(try bulk.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }, ["ok"])

        for json in Self.requests {
            let request = try JSONDecoder().decode(SearchRequest.self, from: Data(json.utf8))
            let expected = try rowByRow.read { try ContentTables.search(request, in: $0) }
            XCTAssertGreaterThan(expected.total, 0, "the request must match something: \(json)")
            XCTAssertEqual(try bulk.read { try ContentTables.search(request, in: $0) }, expected, json)
        }
    }

    func testAFailedLoadStillLeavesEveryIndex() throws {
        let db = try makeContentDatabase()
        let expected = try db.read(Self.indexes)
        struct Boom: Error {}
        try db.write { db in
            XCTAssertThrowsError(
                try ContentTables.withSecondaryIndexesDeferred(in: db) {
                    try ContentTables.upsert(contentsOf: Self.sampleInstances().prefix(50), in: db)
                    throw Boom()
                }
            ) { XCTAssertTrue($0 is Boom) }
        }
        // Committed despite the failure: the indexes are back and cover the rows written.
        XCTAssertEqual(try db.read(Self.indexes), expected)
        XCTAssertEqual(try db.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }, ["ok"])
        XCTAssertEqual(try db.read { try ContentTables.count(moduleId: "m1", in: $0) }, 25)
    }

    func testOutsideATransactionItIsRefused() throws {
        let db = try makeContentDatabase()
        try db.writeWithoutTransaction { db in
            XCTAssertThrowsError(try ContentTables.withSecondaryIndexesDeferred(in: db) {})
        }
        XCTAssertEqual(try db.read(Self.indexes).count, ContentSchema.secondaryIndexes.count)
    }
}
