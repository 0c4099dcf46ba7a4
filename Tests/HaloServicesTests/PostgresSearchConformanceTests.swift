import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer
@testable import HaloServices

/// The search language on PostgreSQL: the committed query corpus and the edge cases below get the
/// answer the server gives on SQLite (items with every value, their order, totals, pages), compared
/// as JSON values (the server writes the pagination object's keys in no fixed order).
final class PostgresSearchConformanceTests: XCTestCase {
    private static let base: Int64 = 1_700_000_000_000

    func testEverySearchAnswersTheSameOnSQLiteAndPostgreSQL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("search-conformance-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try ServerDatabase.open(directory: directory)
        let cluster = try PostgresCluster.shared()
        let postgres = try cluster.storageOnNewDatabase(maximumConnections: 2)
        defer { postgres.close() }
        try await PostgresMigrator.migrate(postgres, to: ServerDatabase.migrations)

        // The same modules and instances in both: the benchmark's data, and a module of edge cases.
        let bench = ["b0000000000000000000000a", "b0000000000000000000000b"]
        var random = SeedRandom(seed: 7)
        let fields = HaloServerAdmin.benchmarkFields(count: 14)
        let instances =
            HaloServerAdmin.benchmarkInstances(0..<1_200, moduleIds: bench, fields: fields, base: Self.base, &random)
            + Self.edgeInstances()
        let load: @Sendable (any SQLExecutor) throws -> Void = { db in
            for (index, id) in bench.enumerated() {
                try ModuleCatalog.create(
                    ModuleSpec(name: "Bench \(index + 1)", fields: fields), id: id, createdBy: "Benchmark", now: Self.base, in: db)
            }
            try ModuleCatalog.create(Self.edgeModule, id: "e0000000000000000000000e", createdBy: "Test", now: Self.base, in: db)
            try ContentTables.upsert(contentsOf: instances, in: db)
            // Updates, and rows deleted outright: both once left holes in PostgreSQL's keys, which
            // its searches rely on being listed (negations complement every instance).
            let updated = instances[100..<130].map { instance in
                var instance = instance
                instance.updatedAt = Self.base + 999
                return instance
            }
            try ContentTables.upsert(contentsOf: updated, in: db)
            try ContentTables.hardDelete(ids: instances[200..<210].map(\.id), in: db)
        }
        try await sqlite.write { try load($0) }
        try await postgres.write { try load($0) }

        var bodies: [(name: String, body: JSONValue)] = try CorpusQuery.load().map { ($0.name, $0.body(moduleIds: bench)) }
        XCTAssertGreaterThanOrEqual(bodies.count, 20)
        bodies += try Self.edgeQueries.map { name, text in (name, try JSONValue(string: text)) }

        XCTAssertTrue(Self.findingOne.isSubset(of: bodies.map(\.name)))
        var nonEmpty = 0
        for (name, body) in bodies {
            let request = try JSONDecoder().decode(SearchRequest.self, from: Data(body.jsonString().utf8))
            let onSQLite = try await sqlite.read { db in try SearchRoutes.answer(request, limits: .default, in: db) }
            let onPostgres = try await postgres.read { db in try SearchRoutes.answer(request, limits: .default, in: db) }
            if try JSONValue(string: String(decoding: onPostgres, as: UTF8.self))
                != JSONValue(string: String(decoding: onSQLite, as: UTF8.self))
            {
                XCTFail(
                    "\(name): PostgreSQL answered \(String(decoding: onPostgres.prefix(400), as: UTF8.self)), "
                        + "SQLite \(String(decoding: onSQLite.prefix(400), as: UTF8.self))")
            }
            let items = try JSONValue(string: String(decoding: onSQLite, as: UTF8.self))
            let found = (items["items"]?.arrayValue ?? items.arrayValue ?? []).count
            if found > 0 { nonEmpty += 1 }
            if Self.findingOne.contains(name) { XCTAssertEqual(found, 1, "\(name): one instance holds that string") }
        }
        // Not vacuous: most searches find something.
        XCTAssertGreaterThan(nonEmpty, bodies.count * 3 / 4)
    }

    /// U+0000 in every string position of a search (issue 45, hole 4: PostgreSQL dropped its
    /// connection or answered 500, SQLite answered 200). The server's request decoding refuses each
    /// body naming the key path (400), and below it, a request built in code (as the SDK's offline
    /// search builds them) gets the same answer from both back ends, never a database error; the
    /// PostgreSQL connections stay usable.
    func testHostileStringsAnswerTheSameOnSQLiteAndPostgreSQL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("search-hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try ServerDatabase.open(directory: directory)
        let postgres = try PostgresCluster.shared().storageOnNewDatabase(maximumConnections: 2)
        defer { postgres.close() }
        try await PostgresMigrator.migrate(postgres, to: ServerDatabase.migrations)
        let load: @Sendable (any SQLExecutor) throws -> Void = { db in
            try ModuleCatalog.create(Self.edgeModule, id: "e0000000000000000000000e", createdBy: "Test", now: Self.base, in: db)
            try ContentTables.upsert(contentsOf: Self.edgeInstances(), in: db)
        }
        try await sqlite.write { try load($0) }
        try await postgres.write { try load($0) }

        let nul = #"\u0000"#
        var bodies: [(String, String)] = []
        for operation in ["=", "!=", "like", "<", "<=", ">", ">="] {
            bodies.append(
                (
                    "value of \(operation)",
                    #"{\#(Self.edge),"searchValues":{"property":"title","operation":"\#(operation)","value":"al\#(nul)"}}"#
                ))
        }
        for operation in ["in", "!in"] {
            bodies.append(
                (
                    "list of \(operation)",
                    #"{\#(Self.edge),"searchValues":{"property":"tags","operation":"\#(operation)","value":["t1","\#(nul)"]}}"#
                ))
        }
        bodies += [
            ("property name", #"{\#(Self.edge),"searchValues":{"property":"ti\#(nul)tle","operation":"=","value":"Alpha"}}"#),
            ("instanceIds", #"{\#(Self.edge),"instanceIds":["e00000000000000000000003","\#(nul)"]}"#),
            ("sort", #"{\#(Self.edge),"sort":"name\#(nul) asc"}"#),
            ("metaSearch =", #"{\#(Self.edge),"metaSearch":{"property":"name","operation":"=","value":"\#(nul)"}}"#),
            ("metaSearch like", #"{\#(Self.edge),"metaSearch":{"property":"createdBy","operation":"like","value":"bo\#(nul)"}}"#),
            ("metaSearch in", #"{\#(Self.edge),"metaSearch":{"property":"createdBy","operation":"in","value":["BOB","\#(nul)"]}}"#),
            ("metaSearch property", #"{\#(Self.edge),"metaSearch":{"property":"name\#(nul)","operation":"=","value":"a"}}"#),
            ("moduleIds", #"{"moduleIds":["e0000000000000000000000e\#(nul)"]}"#),
            ("moduleNames", #"{"moduleNames":["Edge\#(nul)"]}"#),
            ("segmentTags", #"{\#(Self.edge),"segmentTags":[{"name":"country","value":"ES\#(nul)"}]}"#),
            ("relatedTo", #"{\#(Self.edge),"relatedTo":[{"fieldName":"parent","instanceIds":["\#(nul)"]}]}"#),
            ("fields", #"{\#(Self.edge),"fields":["title\#(nul)"]}"#),
            ("locale", #"{\#(Self.edge),"locale":"es\#(nul)"}"#),
            (
                "nested",
                #"{\#(Self.edge),"searchValues":{"condition":"or","operands":[{"property":"title","operation":"=","value":"a"},{"property":"title","operation":"like","value":"\#(nul)x"}]}}"#
            ),
        ]
        for (name, text) in bodies {
            // The server's one check: a 400 naming where the U+0000 is.
            XCTAssertThrowsError(try RequestInput.parseObject(Data(text.utf8)), name) { error in
                let message = (error as? APIError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains("U+0000") && message.contains("$."), "\(name): \(message)")
            }
            // Below it, the same answer from both back ends, and never the database's error.
            let request = try JSONDecoder().decode(SearchRequest.self, from: Data(text.utf8))
            let outcome: @Sendable (any SQLExecutor) -> String = { db in
                do {
                    return String(decoding: try SearchRoutes.answer(request, limits: .default, in: db), as: UTF8.self)
                } catch let error as ContentStoreError {
                    return "refused: \(error)"
                } catch let error as APIError {
                    return "refused: \(error)"
                } catch {
                    return "database error: \(error)"
                }
            }
            let onSQLite = try await sqlite.read { db in outcome(db) }
            let onPostgres = try await postgres.read { db in outcome(db) }
            XCTAssertTrue(onSQLite.hasPrefix("refused: "), "\(name): SQLite answered \(onSQLite.prefix(300))")
            XCTAssertEqual(onPostgres, onSQLite, name)
        }
        // Both of PostgreSQL's connections still answer.
        let plain = try JSONDecoder().decode(SearchRequest.self, from: Data(#"{\#(Self.edge),"sort":"name asc"}"#.utf8))
        for _ in 0..<4 {
            let answer = try await postgres.read { db in try SearchRoutes.answer(plain, limits: .default, in: db) }
            XCTAssertFalse(answer.isEmpty)
        }
    }

    /// Issue 47: numbers sent as strings, as Android sends `in` lists, match stored numbers on
    /// both back ends, negative ones too: `price in ["-5"]` finds the stored -5 (and only it). The
    /// back ends share the parsing, so comparing them alone cannot tell: each is held to the answer.
    /// (The bug: a string starting with "-" was no longer read as a number.)
    func testNegativeNumbersSentAsStringsMatchOnBothBackEnds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("search-negative-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try ServerDatabase.open(directory: directory)
        let postgres = try PostgresCluster.shared().storageOnNewDatabase(maximumConnections: 2)
        defer { postgres.close() }
        try await PostgresMigrator.migrate(postgres, to: ServerDatabase.migrations)
        let module = "p0000000000000000000000p"
        let prices: [JSONValue] = [-5, 5, -50, -0.5, 0, "-5", -5.5]
        let load: @Sendable (any SQLExecutor) throws -> Void = { db in
            try ModuleCatalog.create(
                ModuleSpec(name: "Prices", fields: [ModuleField("price", .number)]), id: module, createdBy: "Test", now: Self.base,
                in: db)
            try ContentTables.upsert(
                contentsOf: prices.enumerated().map { n, price in
                    WireInstance(
                        id: String(format: "p%023x", n), module: module, name: "Price \(n)", values: ["price": price],
                        createdAt: Self.base + Int64(n))
                }, in: db)
        }
        try await sqlite.write { try load($0) }
        try await postgres.write { try load($0) }

        let cases: [(String, [Int])] = [
            (#"{"property":"price","operation":"in","value":["-5"]}"#, [0, 5]),
            (#"{"property":"price","operation":"in","value":["-5", "5"]}"#, [0, 1, 5]),
            (#"{"property":"price","operation":"in","value":["-0.5","-5.5"]}"#, [3, 6]),
            (#"{"property":"price","operation":"!in","value":["-5"]}"#, [1, 2, 3, 4, 6]),
            (#"{"property":"price","operation":"=","value":"-5","type":"string"}"#, [0, 5]),
        ]
        for (filter, expected) in cases {
            let text = #"{"moduleIds":["\#(module)"],"searchValues":\#(filter),"pagination":{"skip":true}}"#
            let request = try JSONDecoder().decode(SearchRequest.self, from: Data(text.utf8))
            let onSQLite = try await sqlite.read { db in try SearchRoutes.answer(request, limits: .default, in: db) }
            let onPostgres = try await postgres.read { db in try SearchRoutes.answer(request, limits: .default, in: db) }
            for (name, answer) in [("SQLite", onSQLite), ("PostgreSQL", onPostgres)] {
                let json = try JSONValue(string: String(decoding: answer, as: UTF8.self))
                let found = (json["items"]?.arrayValue ?? json.arrayValue ?? []).compactMap { item in
                    item["id"]?.stringValue.flatMap { Int($0.dropFirst(), radix: 16) }
                }
                XCTAssertEqual(found.sorted(), expected, "\(name): \(filter)")
            }
        }
    }

    private static let edgeModule = ModuleSpec(
        name: "Edge",
        fields: [
            ModuleField("title", .text), ModuleField("caption", .localizedText), ModuleField("score", .number),
            ModuleField("tags", .list), ModuleField("parent", .singleRelation),
        ])

    /// Capitals, accents, LIKE's wildcards as text, nulls and absent fields, lists, localized
    /// text, segmentation tags, deletions, never-updated instances, relations, two strings of 8 kB
    /// (more than a PostgreSQL index entry holds) that differ only at their end (stored against their
    /// order, so that ordering them by id instead of by name shows), and one of 150
    /// characters but 300 code points (PostgreSQL's index holds a prefix of 200 code points).
    private static func edgeInstances() -> [WireInstance] {
        let titles = [
            "Alpha", "alpha", "ÁLPHA", "50% off", "under_score", "back\\slash", "naïve café", "Ωmega", "zeta", "Zeta", "", "a",
            longTitle("end two"), longTitle("end one"), String(repeating: "q\u{301}", count: 150),
        ]
        return titles.enumerated().map { n, title in
            var values: [String: JSONValue] = [
                "title": .string(title), "caption": .object(["en": .string("Caption \(n)"), "es": .string("Título \(n)")]),
                "tags": .array([.string("t\(n % 3)"), .string(title.lowercased())]),
            ]
            if n % 3 != 0 { values["score"] = n % 4 == 0 ? .null : .number(Double(n % 5) - 1.5) }
            if n > 0 { values["parent"] = .string(String(format: "e%023x", n - 1)) }
            let tags = n % 4 == 1 ? [WireTag(name: "country", value: n % 8 == 1 ? "ES" : "UK")] : []
            return WireInstance(
                id: String(format: "e%023x", n), module: "e0000000000000000000000e", name: title.isEmpty ? "Untitled" : title,
                values: values, tags: tags, createdAt: base + Int64(n % 5), updatedAt: n % 2 == 0 ? nil : base + 100 - Int64(n),
                publishedAt: n % 6 == 5 ? nil : base, deletedAt: n == 7 ? base + 50 : nil,
                createdBy: n % 2 == 0 ? "Ann Lee" : "BOB", customerId: 1, revision: n)
        }
    }

    /// 8,000 characters that compress badly, then `end`.
    private static func longTitle(_ end: String) -> String {
        (0..<2_000).map { String(format: "%04x", ($0 &* 40_503) & 0xffff) }.joined() + end
    }

    private static let edge = #""moduleIds":["e0000000000000000000000e"]"#
    /// Searches for one of the long strings: each finds its instance (an empty answer on both
    /// back ends would pass the comparison).
    private static let findingOne: Set<String> = [
        "a long string, equal", "a long string, in a list", "a string longer than the index's prefix in code points, not in characters",
    ]
    private static let edgeQueries: [(String, String)] = [
        ("like is case-insensitive", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"ALP"}}"#),
        ("like takes % literally", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"0%"}}"#),
        ("like takes _ literally", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"r_s"}}"#),
        ("like takes \\ literally", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"k\\s"}}"#),
        ("like, accents", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"café"}}"#),
        ("like, one letter", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"a"}}"#),
        ("like in lists", #"{\#(edge),"searchValues":{"property":"tags","operation":"like","value":"ωme"}}"#),
        ("string order is by bytes", #"{\#(edge),"searchValues":{"property":"title","operation":">","value":"Z"},"sort":"name asc"}"#),
        ("null matches absent and null", #"{\#(edge),"searchValues":{"property":"score","operation":"=","value":null}}"#),
        ("not null", #"{\#(edge),"searchValues":{"property":"score","operation":"!=","value":null},"sort":"name desc"}"#),
        ("negative ranges", #"{\#(edge),"searchValues":{"property":"score","operation":"<","value":0}}"#),
        ("numbers as strings", #"{\#(edge),"searchValues":{"property":"score","operation":"in","value":["-0.5","1.5",2]}}"#),
        ("metadata like on editors", #"{\#(edge),"metaSearch":{"property":"createdBy","operation":"like","value":"bob"}}"#),
        ("metadata like on names", #"{\#(edge),"metaSearch":{"property":"name","operation":"like","value":"ZET"}}"#),
        ("deleted ones when asked", #"{\#(edge),"metaSearch":{"property":"deletedAt","operation":"!=","value":null}}"#),
        ("sort by update, never-updated ones by creation", #"{\#(edge),"sort":"updatedAt desc"}"#),
        ("sort by publication, nulls", #"{\#(edge),"sort":"publishedAt asc,name desc"}"#),
        ("sort by name ascending", #"{\#(edge),"sort":"name asc","pagination":{"page":2,"limit":4}}"#),
        ("every match, no pages", #"{\#(edge),"pagination":{"skip":true},"sort":"createdAt asc"}"#),
        ("a page past the end", #"{\#(edge),"pagination":{"page":9,"limit":5}}"#),
        ("segment, partial", #"{\#(edge),"segmentTags":[{"name":"country","value":"ES"}]}"#),
        (
            "segment, total",
            #"{\#(edge),"segmentTags":[{"name":"country","value":"ES"},{"name":"country","value":"UK"}],"segmentMode":"total"}"#
        ),
        ("instance ids", #"{\#(edge),"instanceIds":["e00000000000000000000003","e00000000000000000000000","nope"]}"#),
        ("related to", #"{\#(edge),"relatedTo":[{"fieldName":"parent","instanceIds":["e00000000000000000000002"]}]}"#),
        ("a locale", #"{\#(edge),"locale":"es","sort":"name asc"}"#),
        ("a projection and includes", #"{\#(edge),"fields":["title","parent"],"include":["parent"],"sort":"name asc"}"#),
        ("a long string, equal", #"{\#(edge),"searchValues":{"property":"title","operation":"=","value":"\#(longTitle("end two"))"}}"#),
        (
            "a string longer than the index's prefix in code points, not in characters",
            #"{\#(edge),"searchValues":{"property":"title","operation":"=","value":"\#(String(repeating: "q\u{301}", count: 150))"}}"#
        ),
        (
            "a long string, in a list",
            #"{\#(edge),"searchValues":{"property":"tags","operation":"in","value":["\#(longTitle("end one"))"]}}"#
        ),
        ("a long string, like its end", #"{\#(edge),"searchValues":{"property":"title","operation":"like","value":"END ONE"}}"#),
        (
            "two likes on one field",
            #"{\#(edge),"searchValues":{"condition":"and","operands":[{"property":"title","operation":"like","value":"al"},{"property":"title","operation":"like","value":"PH"}]}}"#
        ),
        (
            "a range on one field",
            #"{\#(edge),"searchValues":{"condition":"and","operands":[{"property":"score","operation":">=","value":-1},{"property":"score","operation":"<=","value":"1"}]}}"#
        ),
        ("not in, with null", #"{\#(edge),"searchValues":{"property":"score","operation":"!in","value":[null,-0.5]}}"#),
        (
            "negations inside or",
            #"{\#(edge),"searchValues":{"condition":"or","operands":[{"property":"tags","operation":"!in","value":["t0","t1"]},{"property":"title","operation":"!=","value":"zeta"}]}}"#
        ),
        ("metadata != keeps the nulls", #"{\#(edge),"metaSearch":{"property":"publishedAt","operation":"!=","value":1700000000000}}"#),
        ("metadata in, with null", #"{\#(edge),"metaSearch":{"property":"publishedAt","operation":"in","value":[null]}}"#),
        ("metadata !in, editors", #"{\#(edge),"metaSearch":{"property":"createdBy","operation":"!in","value":["BOB"]}}"#),
        ("a fractional date", #"{\#(edge),"metaSearch":{"property":"createdAt","operation":">","value":1700000000002.5}}"#),
        ("related to anything", #"{\#(edge),"relatedTo":[{"fieldName":"parent","instanceIds":["*"]}],"sort":"name asc"}"#),
        ("an unknown field", #"{\#(edge),"searchValues":{"property":"nope","operation":"!=","value":1}}"#),
        // Every module, densely matched: PostgreSQL reads the page along the order's index.
        ("walk: every instance, a later page", #"{"sort":"updatedAt desc","pagination":{"page":3,"limit":7}}"#),
        (
            "walk: the matches are the last in the order",
            #"{"metaSearch":{"property":"createdAt","operation":"<","value":1700000000480},"sort":"createdAt desc","pagination":{"page":2,"limit":20}}"#
        ),
        // The name's index holds a prefix, on which the two long names tie.
        ("walk: by name, the long names first", #"{"sort":"name asc","pagination":{"page":1,"limit":6}}"#),
        ("walk: by name, descending, a later page", #"{"sort":"name desc","pagination":{"page":4,"limit":9}}"#),
        ("walk: unpublished first", #"{"sort":"publishedAt asc,name desc","pagination":{"page":1,"limit":8}}"#),
        ("walk: by publication, descending", #"{"sort":"publishedAt desc","pagination":{"page":2,"limit":8}}"#),
        ("every module", #"{"metaSearch":{"property":"createdAt","operation":">=","value":1700000000003},"sort":"createdAt desc"}"#),
    ]
}
