import Foundation
import GRDB
import XCTest

@testable import HaloContentStore

/// Searches that read in-memory copies (`SearchMemory`) answer exactly as SQLite does, and no
/// copy outlives the data it was made from. On pools: copies serve only read-only transactions,
/// which only a pool's readers are, and are made on them in the background, as the server makes them.
final class SearchMemoryTests: XCTestCase {
    /// Values of every kind and edge the comparisons meet: numbers (negative, equal, huge),
    /// booleans and "true"/"false" strings, strings with upper case, accents, a stored NUL (no
    /// search may hold one: `SearchRequest.checkLimits`), empty ones,
    /// long ones (left out of the trigram index), lists; dates with nulls and ties; names in
    /// several cases and scripts.
    private func randomInstances(_ count: Int, using rng: inout some RandomNumberGenerator) -> [WireInstance] {
        let words = ["red", "Green", "blue", "ÉTÉ", "road", "Roadster", "", "a\u{0}b", "straße", "e\u{301}t\u{e9}"]
        let long = (0..<40).map { "word\($0 % 7) fjord\($0 % 3) ÉTÉ" }.joined(separator: " ")
        return (1...count).map { n in
            var values: [String: JSONValue] = [
                "price": .number([-5, 0, 0.5, 10, 10, 99.99, 1e300][Int.random(in: 0..<7, using: &rng)]),
                "flag": [.bool(true), .bool(false), .string("true"), .string("false")][Int.random(in: 0..<4, using: &rng)],
                "word": .string(words.randomElement(using: &rng) ?? ""),
                "text": .string(Bool.random(using: &rng) ? long + " quartz\(n % 5)" : "short road \(n % 3)"),
                "list": .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in .number(Double(Int.random(in: 0..<5, using: &rng))) }),
                "code": .string(["10", "9", "abc", "ABC", "b"][n % 5]),
            ]
            if n % 4 == 0 { values["price"] = nil }
            if n % 9 == 0 { values["word"] = .null }
            if n % 11 == 0 { values["text"] = .number(42) }
            return instance(
                n, module: "m\(n % 3)", name: ["Alpha \(n)", "beta", "ÉCLAIR \(n % 4)", "Ember road"][n % 4], values: values,
                createdAt: Int64(1_000 + n / 2), updatedAt: n % 3 == 0 ? nil : Int64(5_000 - n), deletedAt: n % 17 == 0 ? 99 : nil,
                publishedAt: n % 5 == 0 ? nil : Int64(n % 7))
        }
    }

    private static let valueLeaves: [FilterNode] = [
        .compare("price", .less, 30), .compare("price", .greaterOrEqual, "10"), .compare("price", .equal, nil),
        .compare("price", .notEqual, 10), .compare("price", .in, [0, "0.5", 1e300]), .compare("price", .lessOrEqual, -5),
        .compare("flag", .equal, true), .compare("flag", .notEqual, "true"), .compare("flag", .greater, false),
        .compare("word", .like, "ROAD"), .compare("word", .like, "é"), .compare("word", .like, "a"), .compare("word", .like, ""),
        .compare("word", .in, ["red", "blue", "été"]), .compare("word", .notIn, ["ÉTÉ"]), .compare("word", .equal, nil),
        .compare("word", .equal, "\u{e9}t\u{e9}"), .compare("word", .greaterOrEqual, "b"), .compare("word", .like, "b"),
        .compare("text", .like, "fjord1"), .compare("text", .like, "QUARTZ3"), .compare("text", .like, "été"),
        .compare("text", .like, "road"), .compare("text", .greater, "short"), .compare("text", .equal, 42),
        .compare("list", .equal, 3), .compare("list", .greater, 2), .compare("list", .notEqual, nil),
        .compare("code", .less, "9"), .compare("code", .greater, 9), .compare("code", .in, ["ABC", 10]),
        .compare("word", .greater, "red"), .compare("word", .less, "blue"), .compare("code", .lessOrEqual, "abc"),
        .compare("word", .greater, ""), .compare("price", .greater, 10), .compare("price", .less, 10),
        .compare("missing", .notEqual, 1), .and(.compare("price", .greater, 0), .compare("price", .less, 50)),
        .and(.compare("text", .like, "fjord"), .compare("text", .like, "word3")),
    ]

    private static let metadataLeaves: [FilterNode] = [
        .compare("createdAt", .greaterOrEqual, 1_100), .compare("createdAt", .less, "1050"), .compare("updatedAt", .equal, nil),
        .compare("updatedAt", .notEqual, nil), .compare("publishedAt", .in, [0, 3, nil]), .compare("publishedAt", .notIn, [1, 2]),
        .compare("deletedAt", .equal, nil), .compare("deletedAt", .notEqual, nil), .compare("name", .like, "ÉCLAIR"),
        .compare("name", .like, "road"), .compare("name", .like, "éclair 2"), .compare("name", .equal, "beta"),
        .compare("removedAt", .equal, nil), .compare("archivedAt", .greater, 0),
    ]

    private static let sorts = [nil, "name asc", "name desc,createdAt asc", "updatedAt desc,name asc", "publishedAt asc", "createdAt asc"]

    private func randomTree(_ leaves: [FilterNode], depth: Int, using rng: inout some RandomNumberGenerator) -> FilterNode {
        if depth == 0 || Int.random(in: 0..<3, using: &rng) == 0 { return leaves.randomElement(using: &rng) ?? leaves[0] }
        let operands = (0..<Int.random(in: 1...3, using: &rng)).map { _ in randomTree(leaves, depth: depth - 1, using: &rng) }
        return Bool.random(using: &rng) ? .condition(.and, operands) : .condition(.or, operands)
    }

    /// Searches `request` until no new copy is made (each search starts at most one set of copies
    /// in the background); the answers, every time.
    private func searchUntilCopied(
        _ request: SearchRequest, memory: SearchMemory, in pool: DatabasePool
    ) throws -> [SearchPage] {
        var pages: [SearchPage] = []
        var held = -1
        while held != memory.heldBytes || pages.count < 3 {
            held = memory.heldBytes
            pages.append(try pool.read { try ContentTables.search(request, memory: memory, in: $0) })
            memory.waitForBackgroundCopies()
        }
        return pages
    }

    func testCopiesAnswerAsSQLite() throws {
        let pool = try makeContentPool()
        var rng = SystemRandomNumberGenerator()
        try pool.write { try ContentTables.upsert(contentsOf: randomInstances(600, using: &rng), in: $0) }
        let memory = SearchMemory(maxBytes: 64 << 20, copyingFrom: pool)
        for round in 0..<120 {
            let request = SearchRequest(
                moduleIds: round % 4 == 0 ? ["m1"] : nil,
                searchValues: Bool.random(using: &rng) ? randomTree(Self.valueLeaves, depth: 3, using: &rng) : nil,
                metaSearch: Bool.random(using: &rng) ? randomTree(Self.metadataLeaves, depth: 2, using: &rng) : nil,
                pagination: round % 5 == 0 ? .init(skip: true) : .init(page: Int.random(in: 1...3, using: &rng), limit: 7),
                sort: Self.sorts.randomElement(using: &rng) ?? nil)
            let expected = try pool.read { try ContentTables.search(request, in: $0) }
            // From SQLite first, then from copies as they are made, then from copies only.
            for (run, answer) in try searchUntilCopied(request, memory: memory, in: pool).enumerated() {
                XCTAssertEqual(answer.items.map(\.id), expected.items.map(\.id), "run \(run): \(request)")
                XCTAssertEqual(answer.total, expected.total, "run \(run): \(request)")
            }
        }
        XCTAssertGreaterThan(memory.heldBytes, 0, "the searches read copies")
    }

    /// Each kind of write makes the copies stale: the next search sees it.
    func testEveryWriteIsSeenByTheNextSearch() throws {
        let pool = try makeContentPool()
        try pool.write { db in
            try ContentTables.upsert(
                contentsOf: (1...50).map {
                    instance($0, module: "m\($0 % 2)", values: ["n": .number(Double($0)), "t": .string("road \($0)")])
                },
                in: db)
        }
        let memory = SearchMemory(maxBytes: 64 << 20, copyingFrom: pool)
        let request = SearchRequest(
            searchValues: .or(.compare("n", .greaterOrEqual, 45), .compare("t", .like, "road 1")),
            metaSearch: .compare("createdAt", .greater, 1_000), pagination: .init(skip: true), sort: "name asc")
        // Deleted instances, through the copy of deletedAt.
        let deletions = SearchRequest(metaSearch: .compare("deletedAt", .notEqual, nil), pagination: .init(skip: true))
        func ids() throws -> [String] {
            defer { memory.waitForBackgroundCopies() }
            let withCopies = try pool.read { try ContentTables.search(request, memory: memory, in: $0) }
            let fromSQLite = try pool.read { try ContentTables.search(request, in: $0) }
            XCTAssertEqual(withCopies.items.map(\.id), fromSQLite.items.map(\.id))
            let deleted = try pool.read { try ContentTables.search(deletions, memory: memory, in: $0) }
            let deletedInSQLite = try pool.read { try ContentTables.search(deletions, in: $0) }
            XCTAssertEqual(deleted.items.map(\.id), deletedInSQLite.items.map(\.id), "deleted instances")
            return withCopies.items.map(\.id)
        }
        // Until every copy is made, so that the next write finds them.
        func idsAfterWrite() throws -> [String] {
            var held = -1
            var answer: [String] = []
            while held != memory.heldBytes {
                held = memory.heldBytes
                answer = try ids()
            }
            return answer
        }
        for _ in 0..<3 { _ = try ids() }
        XCTAssertGreaterThan(memory.heldBytes, 0)
        let before = try ids()
        XCTAssertEqual(before.count, 6 + 11)  // 45…50, and 1, 10…19

        try pool.write { try ContentTables.upsert(instance(44, module: "m0", name: "item 44", values: ["n": 45.5]), in: $0) }
        XCTAssertTrue(try idsAfterWrite().contains(hexId(44)), "an update")
        try pool.write { try ContentTables.upsert(instance(51, module: "m1", values: ["n": 51]), in: $0) }
        XCTAssertTrue(try idsAfterWrite().contains(hexId(51)), "a new instance")
        try pool.write { _ = try ContentTables.softDelete(id: hexId(50), at: 7, by: nil, in: $0) }
        XCTAssertFalse(try idsAfterWrite().contains(hexId(50)), "a deletion")
        try pool.write { _ = try ContentTables.truncate(moduleId: "m1", at: 8, in: $0) }
        XCTAssertFalse(try idsAfterWrite().contains(hexId(49)), "a module emptied")
        try pool.write { try ContentTables.hardDelete(ids: [hexId(48)], in: $0) }
        XCTAssertFalse(try idsAfterWrite().contains(hexId(48)), "a removal")
        try pool.write { try ContentTables.upsert(instance(46, module: "m0", name: "aaa first", values: ["n": 46]), in: $0) }
        XCTAssertEqual(try idsAfterWrite().first, hexId(46), "a rename moves it in the name order")
    }

    func testARolledBackWriteLeavesTheGenerationAsItWas() throws {
        let pool = try makeContentPool()
        let before = try pool.read { try ContentGeneration.current(in: $0) }
        struct Abort: Error {}
        XCTAssertThrowsError(
            try pool.write { db in
                try ContentTables.upsert(instance(1, values: ["n": 1]), in: db)
                throw Abort()
            })
        XCTAssertEqual(try pool.read { try ContentGeneration.current(in: $0) }, before)
        try pool.write { try ContentTables.upsert(instance(1, values: ["n": 1]), in: $0) }
        XCTAssertEqual(try pool.read { try ContentGeneration.current(in: $0) }, before.map { $0 + 1 })
        // A connection that may write counts its own uncommitted writes: it gets no generation.
        XCTAssertNil(try pool.write { try ContentGeneration.current(in: $0) })
    }

    /// A snapshot older than the copies reads SQLite; copies never serve another generation.
    func testAnOlderSnapshotNeverReadsNewerCopies() throws {
        let pool = try makeContentPool()
        try pool.write { try ContentTables.upsert(contentsOf: (1...20).map { instance($0, values: ["n": .number(Double($0))]) }, in: $0) }
        let old = try pool.makeSnapshot()
        try pool.write { try ContentTables.upsert(instance(21, values: ["n": 5]), in: $0) }
        let memory = SearchMemory(maxBytes: 64 << 20, copyingFrom: pool)
        let request = SearchRequest(searchValues: .compare("n", .equal, 5), pagination: .init(skip: true))
        XCTAssertEqual(Set(try searchUntilCopied(request, memory: memory, in: pool).map(\.total)), [2])
        XCTAssertGreaterThan(memory.heldBytes, 0)
        for _ in 0..<3 { XCTAssertEqual(try old.read { try ContentTables.search(request, memory: memory, in: $0) }.total, 1) }
    }

    func testCopiesAreMadeOnTheSecondNeedAndStayWithinTheirBudget() throws {
        let pool = try makeContentPool()
        try pool.write { db in
            try ContentTables.upsert(
                contentsOf: (1...300).map { instance($0, values: ["a": .number(Double($0)), "b": .string("text \($0)")]) }, in: db)
        }
        let request = SearchRequest(searchValues: .and(.compare("a", .greater, 10), .compare("b", .less, "text 5")))
        let memory = SearchMemory(maxBytes: 64 << 20, copyingFrom: pool)
        _ = try pool.read { try ContentTables.search(request, memory: memory, in: $0) }
        memory.waitForBackgroundCopies()
        XCTAssertEqual(memory.heldBytes, 0, "the first search reads SQLite only")
        _ = try pool.read { try ContentTables.search(request, memory: memory, in: $0) }
        memory.waitForBackgroundCopies()
        XCTAssertGreaterThan(memory.heldBytes, 0, "the second starts making copies")
        _ = try searchUntilCopied(request, memory: memory, in: pool)
        let both = memory.heldBytes

        let small = SearchMemory(maxBytes: both * 2 / 3, copyingFrom: pool)
        _ = try searchUntilCopied(request, memory: small, in: pool)
        XCTAssertGreaterThan(small.heldBytes, 0)
        XCTAssertLessThanOrEqual(small.heldBytes, small.maxBytes)

        let off = SearchMemory(maxBytes: 0, copyingFrom: pool)
        _ = try searchUntilCopied(request, memory: off, in: pool)
        XCTAssertEqual(off.heldBytes, 0)
    }
}
