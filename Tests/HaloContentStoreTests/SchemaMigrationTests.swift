import Foundation
import GRDB
import XCTest

@testable import HaloContentStore

/// `content_v2_snake_case` over tables made by `content_v1` (the first release): the data stays,
/// the indexes end as today's definitions to the character (a bulk load drops and re-creates them
/// by name), and every metadata property of the protocol has its column.
final class SchemaMigrationTests: XCTestCase {
    private static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        ContentTables.registerMigrations(&migrator)
        return migrator
    }

    private static func newQueue() throws -> DatabaseQueue {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("content-migration-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try DatabaseQueue(path: directory.appendingPathComponent("content.sqlite").path)
    }

    /// Every table, index and trigger, as `sqlite_master` keeps them.
    private static func schema(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
    }

    func testTablesOfTheFirstReleaseAreRenamedWithTheirDataAndIndexes() throws {
        let queue = try Self.newQueue()
        try Self.migrator().migrate(queue, upTo: "content_v1")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO content_instance (pk, id, module, name, name_folded, createdAt, updatedAt, publishedAt,
                        removedAt, archivedAt, deletedAt, createdBy, updatedBy, deletedBy, customerId, revision)
                    VALUES (1, 'a1', 'm1', 'First', 'first', 10, 20, 30, 40, 50, 60, 'Ann', 'Bob', 'Cy', 7, 3);
                    INSERT INTO content_body (pk, values_json, tags_json) VALUES (1, '{"title":"Hello"}', '[]');
                    """)
        }
        try Self.migrator().migrate(queue)

        let stored = try XCTUnwrap(try queue.read { try ContentTables.instance(id: "a1", in: $0) })
        XCTAssertEqual(
            [stored.createdAt, stored.updatedAt, stored.publishedAt, stored.removedAt, stored.archivedAt, stored.deletedAt],
            [10, 20, 30, 40, 50, 60])
        XCTAssertEqual([stored.createdBy, stored.updatedBy, stored.deletedBy], ["Ann", "Bob", "Cy"])
        XCTAssertEqual(stored.customerId, 7)
        XCTAssertEqual(stored.values, ["title": "Hello"])
        let deleted = try queue.read { db in
            try ContentTables.search(
                SearchRequest(
                    metaSearch: .and(.compare("deletedAt", .greater, 0), .compare("deletedBy", .equal, "Cy")),
                    sort: "updatedAt desc"), in: db)
        }
        XCTAssertEqual(deleted.items.map(\.id), ["a1"])

        let indexes = try queue.read { db in
            try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'content_%' AND sql IS NOT NULL")
        }
        XCTAssertEqual(
            indexes.sorted(), ContentSchema.secondaryIndexes.map { "CREATE INDEX \($0.name) ON \($0.definition)" }.sorted())
        let migrated = try queue.read(Self.schema)
        try queue.write { db in try ContentTables.withSecondaryIndexesDeferred(in: db) {} }
        XCTAssertEqual(try queue.read(Self.schema), migrated, "a bulk load's drop and re-create changes nothing")
        XCTAssertEqual(try makeContentDatabase().read(Self.schema), migrated, "a new file has the same schema")
    }

    func testEveryMetadataPropertyHasItsColumn() throws {
        let columns = try makeContentDatabase().read { db in try db.columns(in: "content_instance").map(\.name) }
        XCTAssertEqual(columns.filter { $0.contains(where: \.isUppercase) }, [])
        for field in SortField.allCases {
            XCTAssertTrue(columns.contains(field.column), "sort field \(field.rawValue)")
        }
        for property in FilterEvaluator.metadataColumns.keys {
            XCTAssertTrue(columns.contains(ContentSchema.metadataColumns[property] ?? "?"), "metaSearch property \(property)")
        }
        for (old, new) in ContentSchema.camelCaseColumnsOfV1 {
            XCTAssertEqual(ContentSchema.metadataColumns[old], new)
        }
    }
}
