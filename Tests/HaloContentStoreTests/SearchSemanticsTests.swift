import GRDB
import XCTest

@testable import HaloContentStore

/// The search language, case by case, over a small real database.
final class SearchSemanticsTests: XCTestCase {
    private var db: DatabaseQueue!
    private let schema = SearchSchema(
        moduleIdsForName: { $0 == "Second" ? ["m2"] : [] },
        localizedFields: { $0 == "m1" ? ["loc"] : [] },
        relationFields: { $0 == "m1" ? ["rel", "rels"] : [] })

    override func setUpWithError() throws {
        db = try makeContentDatabase()
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: [
                    instance(
                        1,
                        values: [
                            "title": "Road Trip", "price": 10, "inStock": true, "tags": ["red", "blue"],
                            "date": 1000, "rel": .string(hexId(5)),
                        ],
                        tags: [WireTag(name: "lang", value: "en")], createdBy: "Ann"),
                    instance(
                        2, values: ["title": "road works", "price": 500, "inStock": false, "tags": ["green"], "nums": [1, 2, 3]],
                        tags: [WireTag(name: "lang", value: "es"), WireTag(name: "vip", value: "yes")], publishedAt: 2_000),
                    instance(
                        3,
                        values: [
                            "title": "Café ÉTÉ", "price": 42.5, "inStock": "true", "note": nil,
                            "body": .string(String(repeating: "Fjord lake ", count: 20)),
                        ]),
                    instance(
                        4,
                        values: [
                            "title": "50% off_now", "price": "42", "count": 7, "list": [],
                            "body": .string("quartz " + String(repeating: "fjord lake ", count: 20)),
                        ]),
                    instance(
                        5,
                        values: [
                            "title": "Other", "loc": ["en-US": "Hello", "es-ES": "Hola"],
                            "rels": [.string(hexId(1)), .string(hexId(2))],
                            "notes": [
                                .string(String(repeating: "fjord lake ", count: 20)),
                                .string(String(repeating: "quartz hill ", count: 20)),
                            ],
                        ]),
                    instance(6, values: ["title": "Road gone", "price": 10], deletedAt: 3_000),
                    instance(7, module: "m2", values: ["title": "road m2", "price": 10]),
                ], in: db)
        }
    }

    private func matches(_ request: SearchRequest) throws -> [Int] {
        var request = request
        request.pagination = .init(skip: true)
        let page = try db.read { try ContentTables.search(request, schema: schema, in: $0) }
        XCTAssertEqual(page.total, page.items.count)
        return page.items.compactMap { Int($0.id, radix: 16) }.sorted()
    }

    private func values(_ filter: FilterNode) throws -> [Int] { try matches(SearchRequest(searchValues: filter)) }
    private func meta(_ filter: FilterNode) throws -> [Int] { try matches(SearchRequest(metaSearch: filter)) }

    func testValueComparisons() throws {
        let cases: [(FilterNode, [Int], String)] = [
            (.compare("title", .equal, "Road Trip"), [1], "string ="),
            (.compare("title", .equal, "road trip"), [], "string = is case-sensitive"),
            (.compare("title", .notEqual, "Road Trip"), [2, 3, 4, 5, 7], "string != matches missing too"),
            (.compare("price", .equal, 10, type: "number"), [1, 7], "number ="),
            (.compare("price", .equal, "10", type: "string"), [1, 7], "numeric string matches numbers"),
            (.compare("price", .equal, 42), [4], "number matches stored numeric string"),
            (.compare("price", .equal, 42.5), [3], "fractional ="),
            (.compare("price", .greater, 40), [2, 3], "> on numbers only"),
            (.compare("price", .greaterOrEqual, "40"), [2, 3], ">= with numeric string operand"),
            (.compare("price", .less, 10), [], "<"),
            (.compare("price", .lessOrEqual, 10), [1, 7], "<="),
            (.compare("title", .greater, "r"), [2, 7], "string range is bytewise"),
            (.compare("price", .in, [10, 500]), [1, 2, 7], "in"),
            (.compare("price", .in, ["10", "500"], type: "string"), [1, 2, 7], "in with Android-stringified numbers"),
            (.compare("price", .notIn, [10]), [2, 3, 4, 5], "!in matches missing"),
            (.compare("inStock", .equal, true, type: "string"), [1, 3], "bool matches bool and \"true\""),
            (.compare("inStock", .equal, "true"), [1, 3], "\"true\" matches bool"),
            (.compare("inStock", .equal, false), [2], "false"),
            (.compare("inStock", .notEqual, true), [2, 4, 5, 7], "!= bool"),
            (.compare("note", .equal, nil, type: "null"), [1, 2, 3, 4, 5, 7], "= null: absent or null"),
            (.compare("price", .equal, nil, type: "null"), [5], "= null: only where absent"),
            (.compare("price", .notEqual, nil, type: "null"), [1, 2, 3, 4, 7], "!= null: present"),
            (.compare("note", .notEqual, nil), [], "stored null is not present"),
            (.compare("list", .equal, nil), [1, 2, 3, 4, 5, 7], "empty list counts as absent"),
            (.compare("tags", .equal, "red"), [1], "list element ="),
            (.compare("tags", .in, ["green", "red"]), [1, 2], "list element in"),
            (.compare("tags", .notEqual, "red"), [2, 3, 4, 5, 7], "list !="),
            (.compare("nums", .greater, 2), [2], "list element >"),
            (.compare("title", .like, "ROAD"), [1, 2, 7], "like is a case-insensitive substring"),
            (.compare("title", .like, "été"), [3], "like folds non-ASCII case"),
            (.compare("title", .like, "%"), [4], "like: % is literal"),
            (.compare("title", .like, "f_n"), [4], "like: _ is literal"),
            (.compare("title", .like, "o_f"), [], "like: _ does not match any character"),
            (.and(.compare("title", .like, "road"), .compare("title", .like, "TRIP")), [1], "two likes on one string"),
            (.and(.compare("tags", .like, "red"), .compare("tags", .like, "blu")), [1], "two likes on two list elements"),
            (.and(.compare("body", .like, "fjord"), .compare("body", .like, "quartz")), [4], "two likes on a long text"),
            (.and(.compare("notes", .like, "fjord"), .compare("notes", .like, "quartz")), [5], "on two long list elements"),
            (.and(.compare("body", .like, "FJORD"), .compare("body", .like, "lake")), [3, 4], "long texts, both"),
            (.and(.compare("body", .like, "quartz"), .compare("title", .like, "off")), [4], "likes on two fields"),
            (.and(.compare("title", .like, "caf"), .compare("title", .like, "été")), [3], "ASCII and non-ASCII likes"),
            (.compare("loc", .equal, "Hola"), [5], "localized text matches any locale"),
            (.compare("loc", .like, "hell"), [5], "like inside localized text"),
            (.compare("date", .greaterOrEqual, 1000, type: "date"), [1], "date"),
            (.compare("date", .less, 999, type: "date"), [], "date <"),
            (.compare("missing", .equal, "x"), [], "unknown field matches nothing"),
            (.compare("missing", .notEqual, "x"), [1, 2, 3, 4, 5, 7], "unknown field != matches all"),
        ]
        for (filter, expected, label) in cases {
            XCTAssertEqual(try values(filter), expected, label)
        }
    }

    /// Issue 47: negative numbers sent as strings (Android stringifies `in` lists) are numbers:
    /// `price in ["-5"]` matches a stored -5 (and a stored "-5"), not -50. (The bug: a string
    /// starting with "-" was not read as a number; the conformance suites compared back ends that
    /// share the parsing, so they agreed on the wrong answer.)
    func testNegativeNumbersSentAsStrings() throws {
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: [
                    instance(8, values: ["title": "Refund", "price": -5]),
                    instance(9, values: ["title": "Refund as text", "price": "-5"]),
                    instance(10, values: ["title": "Big refund", "price": -50]),
                    instance(11, values: ["title": "Half refund", "price": -0.5]),
                ], in: db)
        }
        let cases: [(FilterNode, [Int], String)] = [
            (.compare("price", .in, ["-5"], type: "string"), [8, 9], "in [\"-5\"]"),
            (.compare("price", .in, ["-5", "10"], type: "string"), [1, 7, 8, 9], "in [\"-5\", \"10\"]"),
            (.compare("price", .in, ["-0.5"], type: "string"), [11], "in [\"-0.5\"]"),
            (.compare("price", .equal, "-5", type: "string"), [8, 9], "= \"-5\""),
            (.compare("price", .less, "-1", type: "string"), [8, 10], "< \"-1\" on numbers"),
        ]
        for (filter, expected, label) in cases {
            XCTAssertEqual(try values(filter), expected, label)
        }
    }

    func testNestedConditions() throws {
        let nested: FilterNode = .and(
            .compare("price", .greaterOrEqual, 10), .compare("price", .lessOrEqual, 500),
            .or(.compare("inStock", .equal, true), .compare("title", .like, "works")))
        XCTAssertEqual(try values(nested), [1, 2, 3])
        // Android reverses operand order: same answer.
        let reversed: FilterNode = .and(
            .or(.compare("title", .like, "works"), .compare("inStock", .equal, true)),
            .compare("price", .lessOrEqual, 500), .compare("price", .greaterOrEqual, 10))
        XCTAssertEqual(try values(reversed), [1, 2, 3])
        XCTAssertEqual(try values(.or(.compare("title", .equal, "Other"), .compare("price", .equal, 500))), [2, 5])
        XCTAssertEqual(try values(.and(.compare("price", .equal, 10), .or(.compare("inStock", .equal, false)))), [])
        // Two ranges on a single-valued field (merged into one index range) …
        XCTAssertEqual(try values(.and(.compare("price", .greaterOrEqual, 10), .compare("price", .lessOrEqual, "42.5"))), [1, 3, 7])
        XCTAssertEqual(try values(.and(.compare("price", .greater, 10), .compare("price", .less, 42.5))), [])
        // … but on a list each range may hold for a different element.
        XCTAssertEqual(try values(.and(.compare("nums", .greater, 2), .compare("nums", .less, 2))), [2])
    }

    func testMetadataComparisons() throws {
        let cases: [(FilterNode, [Int], String)] = [
            (.compare("name", .equal, "item 3"), [3], "name ="),
            (.compare("name", .like, "ITEM 1"), [1], "name like"),
            (.compare("createdAt", .greater, 1004, type: "date"), [5, 7], "createdAt >"),
            (.compare("createdAt", .lessOrEqual, 1002, type: "date"), [1, 2], "createdAt <="),
            (.compare("deletedAt", .notEqual, nil, type: "null"), [6], "mentioning deletedAt includes deleted"),
            (.compare("deletedAt", .equal, nil, type: "null"), [1, 2, 3, 4, 5, 7], "deletedAt = null"),
            (.compare("module", .equal, "m2"), [7], "module"),
            (.compare("module", .in, ["m2"]), [7], "module in"),
            (.compare("id", .equal, .string(hexId(3))), [3], "id"),
            (.compare("createdBy", .equal, "Ann"), [1], "editor"),
            (.compare("createdBy", .notEqual, "Ann"), [2, 3, 4, 5, 7], "editor != matches null"),
            (.compare("publishedAt", .lessOrEqual, 5_000, type: "date"), [2], "published"),
            (.compare("publishedAt", .equal, nil), [1, 3, 4, 5, 7], "drafts"),
            (.and(.compare("publishedAt", .equal, nil), .compare("name", .like, "item")), [1, 3, 4, 5, 7], "and"),
        ]
        for (filter, expected, label) in cases {
            XCTAssertEqual(try meta(filter), expected, label)
        }
        XCTAssertThrowsError(try meta(.compare("color", .equal, "red"))) { error in
            XCTAssertEqual((error as? ContentStoreError).map { "\($0)" }?.contains("unknown metadata property \"color\""), true, "\(error)")
        }
        XCTAssertThrowsError(try meta(.compare("createdAt", .greater, "yesterday"))) { error in
            XCTAssertTrue("\(error)".contains("number of milliseconds"), "\(error)")
        }
    }

    func testScopeRestrictions() throws {
        XCTAssertEqual(try matches(SearchRequest(moduleIds: ["m2"], searchValues: .compare("price", .equal, 10))), [7])
        XCTAssertEqual(try matches(SearchRequest(moduleName: "Second")), [7])
        XCTAssertEqual(try matches(SearchRequest(moduleNames: ["Second"], searchValues: .compare("title", .like, "road"))), [7])
        XCTAssertEqual(try matches(SearchRequest(moduleName: "Nope")), [], "an unknown module name matches nothing")
        XCTAssertEqual(try matches(SearchRequest(moduleIds: [])), [1, 2, 3, 4, 5, 7], "empty list = no restriction")
        XCTAssertEqual(try matches(SearchRequest(instanceIds: [hexId(1), hexId(3), hexId(6)])), [1, 3], "deleted excluded")
        XCTAssertEqual(try matches(SearchRequest(relatedTo: [.init(fieldName: "rel", instanceIds: [hexId(5)])])), [1])
        XCTAssertEqual(try matches(SearchRequest(relatedTo: [.init(fieldName: "rels", instanceIds: ["*"])])), [5])
        XCTAssertEqual(try matches(SearchRequest(relatedTo: [.init(fieldName: "rels", instanceIds: [hexId(2)])])), [5])
    }

    func testSegmentation() throws {
        let en = WireTag(name: "lang", value: "en"), es = WireTag(name: "lang", value: "es"), vip = WireTag(name: "vip", value: "yes")
        XCTAssertEqual(try matches(SearchRequest(segmentTags: [en])), [1, 3, 4, 5, 7], "partial by default; untagged visible")
        XCTAssertEqual(try matches(SearchRequest(segmentTags: [en, vip], segmentMode: "partial")), [1, 2, 3, 4, 5, 7])
        XCTAssertEqual(try matches(SearchRequest(segmentTags: [es, vip], segmentMode: "total")), [2, 3, 4, 5, 7])
        XCTAssertEqual(try matches(SearchRequest(segmentTags: [en, vip], segmentMode: "total")), [3, 4, 5, 7])
        XCTAssertThrowsError(try matches(SearchRequest(segmentTags: [en], segmentMode: "most"))) { error in
            XCTAssertTrue("\(error)".contains("segmentMode must be"), "\(error)")
        }
    }

    func testLocaleFieldsAndInclude() throws {
        func first(_ request: SearchRequest) throws -> SearchPage {
            try db.read { try ContentTables.search(request, schema: schema, in: $0) }
        }
        let only5 = [hexId(5)]
        XCTAssertEqual(try first(SearchRequest(instanceIds: only5, locale: "es-ES")).items.first?.values["loc"], "Hola")
        XCTAssertEqual(try first(SearchRequest(instanceIds: only5, locale: "fr-FR")).items.first?.values["loc"], .null)
        XCTAssertEqual(
            try first(SearchRequest(instanceIds: only5)).items.first?.values["loc"],
            ["en-US": "Hello", "es-ES": "Hola"])
        let projected = try first(SearchRequest(instanceIds: [hexId(1)], fields: ["values.title", "price"]))
        XCTAssertEqual(projected.items.first?.values, ["title": "Road Trip", "price": 10])

        let named = try first(SearchRequest(instanceIds: [hexId(1)], include: ["rel"]))
        XCTAssertEqual(named.included.map(\.id), [hexId(5)])
        let all = try first(SearchRequest(instanceIds: [hexId(1), hexId(5)], include: ["all"], locale: "en-US"))
        XCTAssertEqual(all.included.map(\.id), [hexId(1), hexId(2), hexId(5)])
        XCTAssertEqual(all.included.last?.values["loc"], "Hello", "included instances are localized too")
        XCTAssertEqual(try first(SearchRequest(instanceIds: [hexId(1)])).included, [], "nothing included unless asked")
    }

    /// The server's answer writes items from their stored JSON: it must read back as the encoding
    /// of the instances `search` returns, page numbers included, localized or not.
    func testWireJSONItemsEqualTheEncodedInstances() throws {
        let requests: [SearchRequest] = [
            SearchRequest(),
            SearchRequest(pagination: .init(page: 2, limit: 2), sort: "name desc"),
            SearchRequest(searchValues: .compare("title", .like, "road"), pagination: .init(skip: true)),
            SearchRequest(metaSearch: .compare("deletedAt", .notEqual, nil)),
            SearchRequest(moduleIds: ["m1"], locale: "es-ES"),
            SearchRequest(instanceIds: [hexId(5), hexId(1)], sort: "updatedAt desc", locale: "fr-FR"),
            SearchRequest(searchValues: .compare("price", .greater, 1_000)),
        ]
        try db.read { db in
            for request in requests {
                let page = try ContentTables.search(request, schema: schema, in: db)
                let (header, items) = try ContentTables.searchAsWireJSON(request, schema: schema, in: db)
                XCTAssertEqual(try JSONValue(data: Data(items.utf8)), try JSONValue(data: JSONEncoder().encode(page.items)), "\(request)")
                XCTAssertEqual([header.total, header.page, header.limit], [page.total, page.page, page.limit], "\(request)")
                XCTAssertEqual(header.skipPagination, page.skipPagination)
            }
            XCTAssertThrowsError(
                try ContentTables.searchAsWireJSON(SearchRequest(fields: ["title"]), schema: schema, in: db), "a projection needs instances"
            )
        }
    }
}
