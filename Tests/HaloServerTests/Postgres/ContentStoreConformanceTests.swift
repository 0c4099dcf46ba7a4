import Foundation
import HaloContentStore
import XCTest

@testable import HaloServer

/// The content tables on PostgreSQL hold, row for row, what they hold on SQLite after the same
/// writes, and every reading answers the same.
final class ContentStoreConformanceTests: XCTestCase {
    /// Every row of the content tables, keyed by instance id and field name instead of the keys
    /// each database assigned (`pk`, `field`), sorted.
    private static func contentRows(_ db: any SQLExecutor) throws -> [String] {
        let queries = [
            """
            SELECT i.id, i.module, i.name, i.name_folded, i.created_at, i.updated_at, i.published_at, i.removed_at,
                i.archived_at, i.deleted_at, i.created_by, i.updated_by, i.deleted_by, i.customer_id, i.revision,
                b.values_json, b.tags_json, b.extra_json
            FROM content_instance i JOIN content_body b ON b.pk = i.pk
            """,
            """
            SELECT i.id, f.module, f.name, v.ord, v.kind, v.num, v.str, v.folded, v.trigram
            FROM content_value v JOIN content_instance i ON i.pk = v.instance JOIN content_field f ON f.field = v.field
            """,
            "SELECT i.id, t.ord, t.name, t.value FROM content_tag t JOIN content_instance i ON i.pk = t.instance",
            "SELECT module, name, multi FROM content_field",
        ]
        return try queries.flatMap { sql in try db.fetchAll(sql).map { "\($0.values)" } }.sorted()
    }

    /// What the readers answer (the order of each answer is part of it).
    private static func readings(_ db: any SQLExecutor, ids: [String]) throws -> [String] {
        var answers = [String]()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func json(_ instances: [WireInstance]) throws -> String { String(decoding: try encoder.encode(instances), as: UTF8.self) }
        answers.append(try json(try ContentTables.instances(ids: ids, in: db)))
        answers.append(try json(try ContentTables.instance(id: ids[3], in: db).map { [$0] } ?? []))
        answers.append(try json(try ContentTables.instance(id: "none", in: db).map { [$0] } ?? []))
        answers.append("\(try ContentTables.moduleAndDeletion(ofInstanceId: ids[0], in: db) as Any)")
        for module in ["articles", "products", "banners"] {
            answers.append("\(try ContentTables.count(moduleId: module, in: db))")
            answers.append("\(try ContentTables.liveInstanceIds(moduleId: module, in: db))")
        }
        answers.append("\(try ContentTables.moduleCounts(in: db).sorted { $0.key < $1.key })")
        answers.append("\(try ContentTables.latestStamp(in: db))")
        return answers
    }

    func testTheContentTablesHoldAndAnswerTheSameOnBothBackEnds() async throws {
        let backEnds = try await TwoBackEnds.make()
        defer { backEnds.close() }
        // More than two of PostgreSQL's writer batches (500 instances).
        let instances = ConformanceInstances.make(count: 1_100)
        let ids = instances.map(\.id).reversed().map { $0 }

        _ = try await backEnds.write { db in try ContentTables.upsert(contentsOf: instances, in: db) }
        var (sqlite, postgres) = try await backEnds.read { db in try Self.contentRows(db) + Self.readings(db, ids: ids) }
        XCTAssertGreaterThan(sqlite.count, 2_000)
        XCTAssertEqual(postgres.count, sqlite.count)
        for (index, (expected, actual)) in zip(sqlite, postgres).enumerated() where expected != actual {
            XCTFail("after the first load, line \(index): PostgreSQL \(actual.prefix(300)), SQLite \(expected.prefix(300))")
            break
        }

        // Edits (values, metadata only, a move to another module), deletions of each kind.
        var edited = Array(instances[0..<40])
        for index in edited.indices {
            if index % 2 == 0 { edited[index].values["title"] = .string("Edited \(index)") }
            edited[index].updatedAt = 20_000 + Int64(index)
            if index % 5 == 0 { edited[index].module = "banners" }
        }
        // An id twice in one call: the later wins (PostgreSQL's writer starts a new batch there).
        var again = edited[1]
        again.values["title"] = .string("Edited again")
        let edits = edited + [again]
        _ = try await backEnds.write { db in
            try ContentTables.upsert(contentsOf: edits, in: db)
            try ContentTables.softDelete(id: ids[5], at: 30_000, by: "Ann", in: db)
            try ContentTables.truncate(moduleId: "products", at: 30_001, by: "Bo", in: db)
            try ContentTables.hardDelete(ids: Array(ids[10..<20]), in: db)
        }
        (sqlite, postgres) = try await backEnds.read { db in try Self.contentRows(db) + Self.readings(db, ids: ids) }
        XCTAssertEqual(postgres.count, sqlite.count)
        for (index, (expected, actual)) in zip(sqlite, postgres).enumerated() where expected != actual {
            XCTFail("after the edits, line \(index): PostgreSQL \(actual.prefix(300)), SQLite \(expected.prefix(300))")
            break
        }

        // PostgreSQL's keys stay dense (its searches rely on it): the 41 updates took no key, and
        // the 10 deleted keys are listed as gaps. A new instance takes the key after the largest.
        let keys = try await backEnds.postgres.write { db in
            try ContentTables.upsert(ConformanceInstances.make(count: 1_101).last!, in: db)
            return try db.select(
                "SELECT max(pk), count(*), (SELECT count(*) FROM content_key_gap) FROM content_instance", bindings: []
            ).first.map { row in try (0..<3).map { try row.get(at: $0, as: Int64.self) } }
        }
        XCTAssertEqual(keys, [1_101, 1_091, 10])
    }

    /// The sync's change sets (§14.2) of several windows, as instances and as the server's wire
    /// JSON, in chunks, are the same on both back ends.
    func testSyncWindowsAnswerTheSameOnBothBackEnds() async throws {
        let backEnds = try await TwoBackEnds.make()
        defer { backEnds.close() }
        let instances = ConformanceInstances.make(count: 180)
        _ = try await backEnds.write { db in try ContentTables.upsert(contentsOf: instances, in: db) }
        let modules = ["articles", "products", "banners", "none"]
        // Windows across creations (1,000…), updates (5,000…) and deletions (9,000…).
        let windows: [(Int64?, Int64)] = [(nil, 1_050), (nil, 99_999), (1_050, 5_100), (5_100, 9_100), (1_000, 99_999), (9_100, 99_999)]
        let (sqlite, postgres) = try await backEnds.read { db in
            var answers: [String] = []
            for (from, to) in windows {
                let changes = try ContentTables.changes(moduleIds: modules, from: from, to: to, in: db)
                answers.append("\(from ?? -1)…\(to): \(changes.created.map(\.id)) \(changes.updated.map(\.id)) \(changes.deleted)")
                answers.append("count \(try ContentTables.countChanges(moduleIds: modules, from: from, to: to, in: db))")
                try ContentTables.forEachChangeAsWireJSON(
                    moduleIds: modules, from: from, to: to, chunkSize: 7, locale: "es", localizedFields: ["articles": ["caption"]],
                    in: db
                ) { chunk in answers.append("\(chunk)") }
            }
            return answers
        }
        XCTAssertGreaterThan(sqlite.count, 60)
        XCTAssertEqual(postgres.count, sqlite.count)
        for (index, (expected, actual)) in zip(sqlite, postgres).enumerated() where expected != actual {
            XCTFail("answer \(index): PostgreSQL \(actual.prefix(300)), SQLite \(expected.prefix(300))")
            break
        }
    }
}
