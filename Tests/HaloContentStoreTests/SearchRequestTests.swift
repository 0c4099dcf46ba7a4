import Foundation
import XCTest

@testable import HaloContentStore

final class SearchRequestTests: XCTestCase {
    private func decode(_ json: String) throws -> SearchRequest {
        try JSONDecoder().decode(SearchRequest.self, from: Data(json.utf8))
    }

    func testBothSDKShapesDecode() throws {
        let ios = try decode(
            #"""
            {"moduleName":"News","searchValues":{"operation":"like","property":"Title","value":"road","type":"string"},
             "metaSearch":{"operation":"=","property":"deletedAt","value":null,"type":"null"},
             "fields":["values.Title","Image"],"include":["all"],"relatedTo":[{"fieldName":"author","instanceIds":["*"]}],
             "segmentTags":[{"name":"Platform Name","value":"ios","tagType":"000000000000000000000001"}],
             "segmentMode":"partial","sort":"publishedAt desc","locale":"en-GB",
             "pagination":{"page":2,"limit":20,"skip":"false"},"somethingNew":42}
            """#)
        XCTAssertEqual(ios.pagination, .init(page: 2, limit: 20, skip: false))
        XCTAssertEqual(ios.relatedTo, [.init(fieldName: "author", instanceIds: ["*"])])
        XCTAssertEqual(try ios.sortKeys(), [SortKey(.publishedAt, ascending: false)])
        XCTAssertEqual(ios.fields?.map(SearchRequest.fieldName(fromProjection:)), ["Title", "Image"])
        XCTAssertEqual(try decode(#"{"pagination":{"skip":"true"}}"#).pagination?.skip, true)
        XCTAssertEqual(try decode(#"{"pagination":{"page":1,"limit":10,"skip":true}}"#).pagination, .init(page: 1, limit: 10, skip: true))
        XCTAssertEqual(try decode(#"{"moduleIds":["sampleId"],"sort":null}"#).moduleIds, ["sampleId"])
        XCTAssertEqual(try decode(#"{"segmentMode":"partial"}"#).resolvedSegmentMode(), .partial)
        XCTAssertThrowsError(try decode(#"{"pagination":{"skip":"maybe"}}"#)) { error in
            XCTAssertEqual(error as? ContentStoreError, .invalidRequest("pagination.skip must be true or false, not \"maybe\""))
        }
    }

    func testSortParsing() throws {
        XCTAssertEqual(try SearchRequest().sortKeys(), [SortKey(.createdAt, ascending: false)])
        XCTAssertEqual(
            try SearchRequest(sort: "name asc,createdAt desc , updatedBy").sortKeys(),
            [SortKey(.name, ascending: true), SortKey(.createdAt, ascending: false), SortKey(.updatedBy, ascending: true)])
        XCTAssertThrowsError(try SearchRequest(sort: "color asc").sortKeys()) { error in
            XCTAssertTrue("\(error)".hasPrefix("Invalid sort: cannot sort by \"color\""), "\(error)")
        }
        XCTAssertThrowsError(try SearchRequest(sort: "name upward").sortKeys()) { error in
            XCTAssertEqual(error as? ContentStoreError, .invalidSort("unknown direction \"upward\" for name (expected asc or desc)"))
        }
    }

    /// Issue 47: an empty sort key is refused with a sentence, never skipped and never a crash:
    /// `","` alone (the fuzz corpus's `sort-comma`), and an empty key before, between or after
    /// real ones. (Before, only the fuzzer's crash of the server caught a break here.)
    func testAnEmptySortKeyIsRefused() throws {
        let empty = ContentStoreError.invalidSort("an empty sort key (sort keys are separated by single commas)")
        for sort in [",", " , ", ",,", "name asc,", ",name asc", "name asc,,createdAt desc", "name asc, ,createdAt desc"] {
            XCTAssertThrowsError(try SearchRequest(sort: sort).sortKeys(), "sort \"\(sort)\"") { error in
                XCTAssertEqual(error as? ContentStoreError, empty, "sort \"\(sort)\"")
            }
        }
        // Decoded from a request as the server and the offline search get it.
        let decoded = try JSONDecoder().decode(SearchRequest.self, from: Data(#"{"sort":","}"#.utf8))
        XCTAssertThrowsError(try decoded.sortKeys()) { error in XCTAssertEqual(error as? ContentStoreError, empty) }
        // Blank is the default order, not an empty key.
        XCTAssertEqual(try SearchRequest(sort: " ").sortKeys(), [SortKey(.createdAt, ascending: false)])
    }
}
