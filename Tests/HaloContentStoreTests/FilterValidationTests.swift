import Foundation
import XCTest

@testable import HaloContentStore

final class FilterValidationTests: XCTestCase {
    private func message(_ json: String) throws -> String? {
        let node = try JSONDecoder().decode(FilterNode.self, from: Data(json.utf8))
        do {
            try node.validate()
            return nil
        } catch let error as ContentStoreError {
            guard case .invalidFilter(let message) = error else { return "wrong error \(error)" }
            return message
        }
    }

    func testEachProblemHasItsOwnMessage() throws {
        let cases: [(String, String)] = [
            (#"{"operation":"~","property":"a","value":1}"#, "unknown operation \"~\" on \"a\""),
            (#"{"condition":"xor","operands":[{"operation":"=","property":"a","value":1}]}"#, "unknown condition \"xor\""),
            (#"{"operation":"=","value":1}"#, "the \"=\" comparison has no property"),
            (#"{"operation":"in","property":"a","value":"x"}"#, "\"in\" on \"a\" needs an array value"),
            (#"{"operation":"!in","property":"a","value":null}"#, "\"!in\" on \"a\" needs an array value"),
            (#"{"operation":"like","property":"a","value":3}"#, "\"like\" on \"a\" needs a string value"),
            (#"{"operation":">","property":"a","value":[1]}"#, "\">\" on \"a\" cannot compare with an array"),
            (#"{"operation":"<=","property":"a","value":{"x":1}}"#, "\"<=\" on \"a\" cannot compare with an object"),
            (#"{"operation":"=","property":"a","value":{"x":1}}"#, "\"=\" on \"a\" cannot compare with an object"),
            (
                #"{"operation":"=","property":"d","value":"2020","type":"date"}"#,
                "\"d\" has type \"date\" but its value \"2020\" is not a number"
            ),
            (#"{"operation":"in","property":"a","value":[[1]]}"#, "nested array or object"),
            (#"{"condition":"and","operands":[]}"#, "the \"and\" condition has no operands"),
        ]
        for (json, expected) in cases {
            let actual = try message(json)
            XCTAssertTrue(actual?.contains(expected) == true, "\(json): got \(actual ?? "no error"), expected \(expected)")
        }
    }

    func testNestingLimit() throws {
        var node: FilterNode = .compare("a", .equal, 1)
        for _ in 1..<16 { node = .and(node) }
        XCTAssertNoThrow(try node.validate(), "16 levels are allowed")
        node = .or(node)
        XCTAssertThrowsError(try node.validate()) { error in
            XCTAssertEqual(error as? ContentStoreError, .invalidFilter("the filter is nested deeper than 16 levels"))
        }
    }

    func testValidFiltersPassAndSearchRejectsInvalidOnes() throws {
        let ok =
            #"{"condition":"and","operands":[{"operation":"<=","property":"publishedAt","value":1700000000000,"type":"date"},{"operation":"=","property":"deletedAt","value":null,"type":"null"},{"operation":"in","property":"x","value":["1","2"],"type":"string"}]}"#
        XCTAssertNil(try message(ok))
        let db = try makeContentDatabase()
        let bad = SearchRequest(searchValues: .compare("a", .like, 1))
        XCTAssertThrowsError(try db.read { try ContentTables.search(bad, in: $0) }) { error in
            XCTAssertEqual(error as? ContentStoreError, .invalidFilter("\"like\" on \"a\" needs a string value"))
            XCTAssertEqual("\(error)", "Invalid search filter: \"like\" on \"a\" needs a string value")
        }
    }

    func testWireShapeRoundTrips() throws {
        let json =
            #"{"condition":"or","operands":[{"operation":"!in","property":"Artwork ID","type":"string","value":["1","2"]},{"operation":"=","property":"deletedAt","type":"null","value":null}]}"#
        let node = try JSONDecoder().decode(FilterNode.self, from: Data(json.utf8))
        XCTAssertEqual(
            node, .or(.compare("Artwork ID", .notIn, ["1", "2"], type: "string"), .compare("deletedAt", .equal, nil, type: "null")))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        XCTAssertEqual(try JSONValue(data: encoder.encode(node)), try JSONValue(string: json))
    }
}
