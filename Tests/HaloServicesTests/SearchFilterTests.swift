import Foundation
import XCTest

@testable import HaloServices

/// Filters serialize exactly as PROTOCOL §11.2 (compared as parsed JSON), parse back, and the
/// infix expression language builds the same trees.
final class SearchFilterTests: XCTestCase {
    private let t = Date(timeIntervalSince1970: 1_700_000_000)  // 1700000000000 ms

    func testPublishedExampleOfProtocol() throws {
        let expected = try JSONValue(
            string: """
                { "condition": "and", "operands": [
                  { "operation": "<=", "property": "publishedAt", "value": 1700000000000, "type": "date" },
                  { "operation": "=",  "property": "deletedAt",   "value": null,          "type": "null" },
                  { "condition": "or", "operands": [
                      { "operation": ">", "property": "removedAt", "value": 1700000000000, "type": "date" },
                      { "operation": "=", "property": "removedAt", "value": null,          "type": "null" } ] } ] }
                """)
        let built = and(
            lte(property: "publishedAt", value: t),
            eq(property: "deletedAt", value: nil),
            or(gt(property: "removedAt", value: t), eq(property: "removedAt", value: nil)))
        XCTAssertEqual(built.body, expected)
        XCTAssertEqual(try SearchFilter(wire: expected), built)
    }

    func testInExampleOfProtocol() throws {
        let expected = try JSONValue(
            string: #"{ "operation": "in", "property": "Artwork ID", "value": ["1", "2", "3"], "type": "string" }"#)
        XCTAssertEqual(valueIn(property: "Artwork ID", value: ["1", "2", "3"]).body, expected)
        XCTAssertEqual(try SearchFilter.parse(expression: #""Artwork ID" in ["1", "2", "3"]"#).body, expected)
    }

    func testTypeInference() {
        XCTAssertEqual(eq(property: "a", value: nil).body["type"], "null")
        XCTAssertEqual(eq(property: "a", value: "x").body["type"], "string")
        XCTAssertEqual(eq(property: "a", value: true).body, ["operation": "=", "property": "a", "value": true, "type": "string"])
        XCTAssertEqual(eq(property: "a", value: 3).body["type"], "number")
        XCTAssertEqual(eq(property: "a", value: 2.5).body["value"], 2.5)
        XCTAssertEqual(eq(property: "a", value: t).body["value"], 1_700_000_000_000)
        XCTAssertEqual(eq(property: "a", value: t).body["type"], "date")
        XCTAssertEqual(valueIn(property: "a", value: [1, 2]).body["type"], "number")
        XCTAssertEqual(valueIn(property: "a", value: [String]()).body["type"], "string")
        XCTAssertEqual(valueIn(property: "a", value: [["k": 1]]).body["type"], "null")
        XCTAssertEqual(valueIn(property: "a", value: [t]).body["type"], "date")
        XCTAssertEqual(eq(property: "a", value: 1_700_000_000_000, type: "date").body["type"], "date")
        XCTAssertEqual(eq(property: "a", value: "x", type: "custom").body["type"], "custom")
        XCTAssertEqual(
            like(property: "Title", value: "road").body,
            ["operation": "like", "property": "Title", "value": "road", "type": "string"])
        XCTAssertEqual(neq(property: "a", value: 1).body["operation"], "!=")
        XCTAssertEqual(valueNotIn(property: "a", value: ["x"]).body["operation"], "!in")
        XCTAssertEqual(gte(property: "a", value: 1).body["operation"], ">=")
        XCTAssertEqual(lt(property: "a", value: 1).body["operation"], "<")
    }

    func testSeedSampleBuildsTheNestedTree() throws {
        let searchFilter = and(
            or(
                and(
                    gte(property: "age", value: 18),
                    lt(property: "age", value: 100)
                ),
                eq(property: "registration", value: nil)
            ),
            neq(property: "name", value: "July Young"),
            valueIn(property: "name", value: ["Forever alone", "Fake name"])
        )
        let expected = try JSONValue(
            string: """
                {"condition":"and","operands":[
                  {"condition":"or","operands":[
                    {"condition":"and","operands":[
                      {"operation":">=","property":"age","value":18,"type":"number"},
                      {"operation":"<","property":"age","value":100,"type":"number"}]},
                    {"operation":"=","property":"registration","value":null,"type":"null"}]},
                  {"operation":"!=","property":"name","value":"July Young","type":"string"},
                  {"operation":"in","property":"name","value":["Forever alone","Fake name"],"type":"string"}]}
                """)
        XCTAssertEqual(searchFilter.body, expected)
    }

    func testPresetsMatchTheProtocolTable() throws {
        let now = t
        let since = Date(timeIntervalSince1970: 1_600_000_000)
        func node(_ op: String, _ property: String, _ value: JSONValue) -> JSONValue {
            [
                "operation": .string(op), "property": .string(property), "value": value,
                "type": value.isNull ? "null" : "date",
            ]
        }
        let nowMs: JSONValue = 1_700_000_000_000
        XCTAssertEqual(
            SearchFilter.drafts().body,
            [
                "condition": "and",
                "operands": [
                    node("=", "publishedAt", nil), node("=", "archivedAt", nil), node("=", "removedAt", nil), node("=", "deletedAt", nil),
                ],
            ])
        XCTAssertEqual(
            SearchFilter.lastUpdated(since: since, now: now).body,
            [
                "condition": "and",
                "operands": [
                    node(">=", "updatedAt", 1_600_000_000_000), node("<=", "updatedAt", nowMs), node("=", "deletedAt", nil),
                ],
            ])
        XCTAssertEqual(
            SearchFilter.archived(now: now).body,
            [
                "condition": "and",
                "operands": [
                    node("<=", "archivedAt", nowMs), node("=", "removedAt", nil), node("=", "deletedAt", nil),
                ],
            ])
        XCTAssertEqual(
            SearchFilter.expired(now: now).body,
            [
                "condition": "and",
                "operands": [
                    node("<=", "removedAt", nowMs), node("=", "deletedAt", nil),
                ],
            ])
        XCTAssertEqual(
            SearchFilter.published(now: now).body,
            [
                "condition": "and",
                "operands": [
                    node("<=", "publishedAt", nowMs),
                    ["condition": "or", "operands": [node(">", "removedAt", nowMs), node("=", "removedAt", nil)]],
                    node("=", "deletedAt", nil),
                ],
            ])
    }

    func testWireParsingRejectsBadTrees() {
        XCTAssertThrowsError(try SearchFilter(wire: "x"))
        XCTAssertThrowsError(try SearchFilter(wire: ["condition": "xor", "operands": []]))
        XCTAssertThrowsError(try SearchFilter(wire: ["condition": "and"]))
        XCTAssertThrowsError(try SearchFilter(wire: ["operation": "~", "property": "a", "value": 1]))
        XCTAssertThrowsError(try SearchFilter(wire: ["operation": "=", "value": 1]))
        XCTAssertThrowsError(try SearchFilter(wire: ["property": "a"])) { error in
            XCTAssertEqual(error as? HaloError, .invalidInput(message: "A search filter needs \"condition\" or \"operation\"."))
        }
        // A node without type gets the inferred one; Android's reversed, flattened order reads as sent.
        XCTAssertEqual(
            try SearchFilter(wire: ["operation": "=", "property": "a", "value": 1]),
            eq(property: "a", value: 1))
    }

    func testExpressionPrecedenceAndGrouping() throws {
        let parsed = try SearchFilter.parse(expression: #"price >= 10 and (inStock = true or title like "ab")"#)
        XCTAssertEqual(
            parsed,
            and(
                gte(property: "price", value: 10),
                or(eq(property: "inStock", value: true), like(property: "title", value: "ab"))))
        // and binds tighter than or.
        XCTAssertEqual(
            try SearchFilter.parse(expression: "a = 1 or b = 2 and c = 3"),
            or(eq(property: "a", value: 1), and(eq(property: "b", value: 2), eq(property: "c", value: 3))))
        // Chains flatten; keywords are case-insensitive; bare words are strings.
        XCTAssertEqual(
            try SearchFilter.parse(expression: "a = x AND b != 'y z' And c < -2.5"),
            and(eq(property: "a", value: "x"), neq(property: "b", value: "y z"), lt(property: "c", value: -2.5)))
        XCTAssertEqual(try SearchFilter.parse(expression: "deletedAt = null").body["type"], "null")
        XCTAssertEqual(try SearchFilter.parse(expression: "tag not in [a, b]"), valueNotIn(property: "tag", value: ["a", "b"]))
        XCTAssertEqual(try SearchFilter.parse(expression: "tag !in []"), valueNotIn(property: "tag", value: [String]()))
        XCTAssertEqual(try SearchFilter.parse(expression: "n == 1e3"), eq(property: "n", value: 1000))
        XCTAssertEqual(try SearchFilter.parse(expression: #"s = "say \"hi\"""#), eq(property: "s", value: #"say "hi""#))
    }

    func testExpressionErrorsSayWhereAndWhat() {
        func message(_ expression: String) -> String {
            do {
                _ = try SearchFilter.parse(expression: expression)
                return "no error"
            } catch let error as HaloError {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(message("price >="), "Expected a value at the end of the filter.")
        XCTAssertEqual(message("(a = 1"), "Expected ')' at the end of the filter.")
        XCTAssertEqual(message("a = 1 b = 2"), "Unexpected 'b' at character 7 of the filter.")
        XCTAssertEqual(message("a ~ 1"), "Unexpected character '~' at character 3 of the filter.")
        XCTAssertEqual(message(#"a = "open"#), "The string starting at character 5 of the filter is not closed.")
        XCTAssertEqual(message("a in [1 2]"), "Expected ',' or ']' at character 9 of the filter, found 2.")
        XCTAssertEqual(message("= 1"), "Expected a property name at character 1 of the filter, found '='.")
        XCTAssertEqual(message(""), "Expected a property name at the end of the filter.")
    }

    /// One expression for both trees of a search: `meta.` properties are metadata (`metaSearch`).
    func testValuesAndMetadataInOneExpression() throws {
        let text = #"price >= 10 and meta.updatedAt > @2024-05-01 and (inStock = true or title like "abi")"#
        let filters = try SearchFilters.parse(expression: text)
        XCTAssertEqual(
            filters.values,
            and(gte(property: "price", value: 10), or(eq(property: "inStock", value: true), like(property: "title", value: "abi"))))
        XCTAssertEqual(
            filters.metadata, .comparison(operation: .greaterThan, property: "updatedAt", value: 1_714_521_600_000, type: "date"))
        // Written back: values first, then metadata.
        XCTAssertEqual(filters.expression, #"price >= 10 and (inStock = true or title like "abi") and meta.updatedAt > @1714521600000"#)
        XCTAssertEqual(try SearchFilters.parse(expression: filters.expression), filters)

        // Only metadata; a quoted name stays a value field; a metadata name that needs quoting.
        XCTAssertEqual(
            try SearchFilters.parse(expression: "meta.deletedAt = null"), SearchFilters(metadata: eq(property: "deletedAt", value: nil)))
        XCTAssertEqual(try SearchFilters.parse(expression: #""meta.x" = 1"#), SearchFilters(values: eq(property: "meta.x", value: 1)))
        XCTAssertEqual(SearchFilters(values: eq(property: "meta.x", value: 1)).expression, #""meta.x" = 1"#)
        XCTAssertEqual(
            try SearchFilters.parse(expression: #"meta."created by" = "ann""#),
            SearchFilters(metadata: eq(property: "created by", value: "ann")))
        XCTAssertEqual(try SearchFilters.parse(expression: "  "), SearchFilters())
        XCTAssertEqual(SearchFilters().expression, "")

        // Values and metadata meet only through the top-level `and`: the server searches them apart.
        XCTAssertThrowsError(try SearchFilters.parse(expression: "price >= 10 or meta.name like abc")) { error in
            XCTAssertEqual(
                (error as? HaloError)?.description,
                "The metadata condition at character 16 of the filter is in a group with value conditions: values and metadata "
                    + "are searched separately, so they can only be joined by 'and' at the top level.")
        }
        XCTAssertThrowsError(try SearchFilters.parse(expression: "meta.name = a and meta."))

        // Through a query: both trees, and the query gives them back.
        let query = SearchQuery().filters(filters)
        XCTAssertEqual(query.searchFilter, filters.values)
        XCTAssertEqual(query.metaFilter, filters.metadata)
        XCTAssertEqual(query.filters, filters)
        XCTAssertNil(query.filters(SearchFilters()).searchFilter)
    }

    func testExpressionRendersAndParsesBack() throws {
        let filters = [
            and(gte(property: "price", value: 10), or(eq(property: "inStock", value: true), like(property: "title", value: "ab"))),
            or(and(eq(property: "a", value: 1), eq(property: "b", value: nil)), neq(property: "Artwork ID", value: #"say "hi""#)),
            valueIn(property: "and", value: ["x", "y"]),
            valueNotIn(property: "n", value: [1.5, -2]),
            SearchFilter.published(now: t),
        ]
        XCTAssertEqual(filters[0].expression, #"price >= 10 and (inStock = true or title like "ab")"#)
        XCTAssertEqual(filters[1].expression, #"(a = 1 and b = null) or "Artwork ID" != "say \"hi\"""#)
        XCTAssertEqual(filters[2].expression, #""and" in ["x", "y"]"#)
        for filter in filters {
            XCTAssertEqual(try SearchFilter.parse(expression: filter.expression), filter, filter.expression)
        }
    }

    func testHostileNestingIsRefusedNotACrash() throws {
        let deepExpression = String(repeating: "(", count: 5_000) + "a = 1" + String(repeating: ")", count: 5_000)
        XCTAssertThrowsError(try SearchFilter.parse(expression: deepExpression)) { error in
            XCTAssertEqual(error as? HaloError, .invalidInput(message: "The filter nests parentheses deeper than 100."))
        }
        XCTAssertNoThrow(
            try SearchFilter.parse(expression: String(repeating: "(", count: 50) + "a = 1" + String(repeating: ")", count: 50)))
        var tree: JSONValue = ["operation": "=", "property": "a", "value": 1]
        for _ in 0..<150 { tree = ["condition": "and", "operands": [tree]] }
        XCTAssertThrowsError(try SearchFilter(wire: tree))
    }

    func testDateLiterals() throws {
        let expected = SearchFilter.published(now: t)
        XCTAssertEqual(
            expected.expression,
            "publishedAt <= @1700000000000 and (removedAt > @1700000000000 or removedAt = null) and deletedAt = null")
        XCTAssertEqual(
            try SearchFilter.parse(
                expression:
                    "publishedAt <= @2023-11-14T22:13:20Z and (removedAt > @2023-11-14T22:13:20.000Z or removedAt = null) and deletedAt = null"
            ), expected)
        XCTAssertEqual(
            try SearchFilter.parse(expression: "d = @2024-05-01"), eq(property: "d", value: Date(timeIntervalSince1970: 1_714_521_600)))
        XCTAssertEqual(
            try SearchFilter.parse(expression: "d in [@0, @1000]").body,
            ["operation": "in", "property": "d", "value": [0, 1000], "type": "date"])
        XCTAssertThrowsError(try SearchFilter.parse(expression: "d = @yesterday")) { error in
            XCTAssertEqual(
                (error as? HaloError)?.description,
                "'@yesterday' at character 5 of the filter is not a date (use @2024-05-01, @2024-05-01T10:00:00Z or @<epoch ms>).")
        }
    }
}
