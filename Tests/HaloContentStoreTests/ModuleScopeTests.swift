import GRDB
import XCTest

@testable import HaloContentStore

/// A search restricted to a module skips listing the module's instances when its value filter
/// can only match instances having the compared fields. Whatever the filter, a scoped search
/// must return exactly the module's share of the unscoped search, in the same order.
final class ModuleScopeTests: XCTestCase {
    func testScopedSearchIsTheModulesShareOfTheUnscopedOne() throws {
        let db = try makeContentDatabase()
        var rng = SystemRandomNumberGenerator()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...300).map { n in
                    var values: [String: JSONValue] = [
                        "price": .number(Double(Int.random(in: 0..<50, using: &rng))),
                        "title": .string(["Log cabin", "barn", "cabinet", "shed"].randomElement(using: &rng) ?? ""),
                        "tags": .array(
                            (0..<Int.random(in: 0...2, using: &rng)).map { _ in .string(["a", "b"].randomElement(using: &rng) ?? "") }),
                    ]
                    if n % 5 == 0 { values["price"] = nil }
                    return instance(n, module: "m\(n % 3)", values: values, createdAt: Int64(n), deletedAt: n % 11 == 0 ? 5 : nil)
                }, in: db)
        }
        let leaves: [FilterNode] = [
            .compare("price", .less, 20), .compare("price", .equal, 7), .compare("price", .equal, nil),
            .compare("price", .notEqual, 3), .compare("title", .like, "cabin"), .compare("title", .in, ["barn", nil]),
            .compare("tags", .notIn, ["a"]), .compare("tags", .in, ["b"]), .compare("missing", .notEqual, 1),
        ]
        func randomTree(_ depth: Int) -> FilterNode {
            if depth == 0 || Int.random(in: 0..<3, using: &rng) == 0 { return leaves.randomElement(using: &rng) ?? leaves[0] }
            let operands = (0..<Int.random(in: 1...3, using: &rng)).map { _ in randomTree(depth - 1) }
            return Bool.random(using: &rng) ? .condition(.and, operands) : .condition(.or, operands)
        }
        var shortcuts = 0
        try db.read { db in
            for _ in 0..<150 {
                let filter = randomTree(3)
                let metaSearch: FilterNode? = Bool.random(using: &rng) ? .compare("deletedAt", .equal, nil) : nil
                let everything = SearchRequest.Pagination(skip: true)
                let all = try ContentTables.search(
                    SearchRequest(searchValues: filter, metaSearch: metaSearch, pagination: everything), in: db)
                let scoped = try ContentTables.search(
                    SearchRequest(moduleIds: ["m1"], searchValues: filter, metaSearch: metaSearch, pagination: everything), in: db)
                XCTAssertEqual(scoped.items.map(\.id), all.items.filter { $0.module == "m1" }.map(\.id), "\(filter)")
                // A page from the middle takes the same order.
                let page = try ContentTables.search(
                    SearchRequest(moduleIds: ["m1"], searchValues: filter, pagination: .init(page: 2, limit: 7)), in: db)
                let unpaged = try ContentTables.search(
                    SearchRequest(moduleIds: ["m1"], searchValues: filter, pagination: everything), in: db)
                XCTAssertEqual(page.items.map(\.id), Array(unpaged.items.map(\.id).dropFirst(7).prefix(7)), "\(filter)")
                if filter.matchesOnlyItsFields { shortcuts += 1 }
            }
        }
        XCTAssertGreaterThan(shortcuts, 20, "too few filters took the shortcut")
        XCTAssertLessThan(shortcuts, 130, "too few filters took the full module listing")
    }

    /// Pages sorted by a date read the modules' indexes of that date merged into one ordered
    /// stream (the walk), pages sorted by name sort the matches; every page must be the matching
    /// slice of the fully sorted answer, whichever modules are named (all of them count as no
    /// restriction), with ties broken by the later keys (names repeat, publishedAt repeats and
    /// is often null).
    func testPagesWalkedAcrossModulesAreSlicesOfTheSortedAnswer() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...300).map { n in
                    instance(
                        n, module: "m\(n % 3)", name: "item \(n % 7)", values: ["price": .number(Double(n % 50))],
                        createdAt: Int64(n / 4), updatedAt: n % 3 == 0 ? nil : Int64(n / 6),
                        deletedAt: n % 13 == 0 ? 400 : nil, publishedAt: n % 4 == 0 ? nil : Int64(n % 11))
                }, in: db)
        }
        let scopes: [[String]?] = [nil, ["m0", "m1", "m2"], ["m2", "m0"], ["m0", "m1", "m2", "gone"], ["m1"]]
        let sorts = [
            "createdAt desc", "createdAt asc", "updatedAt desc,name asc", "updatedAt asc,name desc", "name asc", "name desc",
            "name asc,createdAt desc", "publishedAt desc,name asc", "publishedAt asc", "publishedAt desc,updatedAt asc",
        ]
        let filters: [FilterNode?] = [nil, .compare("price", .less, 40)]
        var walks = 0
        var walkedSorts = Set<String>()
        var currentSort = ""
        try db.read { db in
            db.trace { event in
                if case .statement(let statement) = event, statement.sql.contains(" UNION ALL ") {
                    walks += 1
                    walkedSorts.insert(currentSort)
                }
            }
            for scope in scopes {
                for sort in sorts {
                    currentSort = sort
                    for filter in filters {
                        let sorted = try ContentTables.search(
                            SearchRequest(moduleIds: scope, searchValues: filter, pagination: .init(skip: true), sort: sort), in: db)
                        XCTAssertFalse(sorted.items.isEmpty)
                        XCTAssertFalse(sorted.items.contains { $0.deletedAt != nil })
                        var paged: [String] = []
                        for page in 1... {
                            let items = try ContentTables.search(
                                SearchRequest(moduleIds: scope, searchValues: filter, pagination: .init(page: page, limit: 9), sort: sort),
                                in: db
                            ).items
                            paged += items.map(\.id)
                            if items.count < 9 { break }
                        }
                        XCTAssertEqual(paged, sorted.items.map(\.id), "\(scope ?? []) \(sort) \(String(describing: filter))")
                    }
                }
            }
            db.trace(nil)
        }
        XCTAssertGreaterThan(walks, 100, "the first pages should have been walked, not sorted")
        XCTAssertEqual(walkedSorts, Set(sorts.filter { !$0.hasPrefix("name") }), "every order with an index per module is walked")
    }

    /// Past the most modules one merged walk reads, an unscoped page by creation date walks the
    /// one index over every module's creation dates instead.
    func testPagesOfManyModulesWalkTheIndexOfAllCreationDates() throws {
        let db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...280).map { n in instance(n, module: "m\(n % 70)", createdAt: Int64(n / 3)) }, in: db)
        }
        var statements: [String] = []
        try db.read { db in
            let sorted = try ContentTables.search(SearchRequest(pagination: .init(skip: true)), in: db).items.map(\.id)
            XCTAssertEqual(sorted.count, 280)
            db.trace { event in
                if case .statement(let statement) = event { statements.append(statement.sql) }
            }
            var paged: [String] = []
            for page in 1...4 {
                paged += try ContentTables.search(SearchRequest(pagination: .init(page: page, limit: 5)), in: db).items.map(\.id)
            }
            db.trace(nil)
            XCTAssertEqual(paged, Array(sorted.prefix(20)))
        }
        XCTAssertTrue(
            statements.contains { $0 == "SELECT pk FROM content_instance ORDER BY created_at DESC, id ASC" }, "\(statements)")
        XCTAssertFalse(statements.contains { $0.contains("UNION ALL") })
    }
}
