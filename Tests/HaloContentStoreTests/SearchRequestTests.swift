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
}
