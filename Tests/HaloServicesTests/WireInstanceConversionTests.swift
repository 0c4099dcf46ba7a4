import Foundation
import HaloContentStore
import XCTest

@testable import HaloServices

/// `ContentInstance(stored:)` and `storedForm()` convert field by field; they must give what
/// the former JSON round trip gave (encode one type's §10 JSON, decode the other).
final class WireInstanceConversionTests: XCTestCase {
    private func viaJSON(_ stored: WireInstance) throws -> ContentInstance {
        try ContentInstance(wire: JSONValue(data: JSONEncoder().encode(stored)))
    }

    private func viaJSON(_ instance: ContentInstance) throws -> WireInstance {
        try JSONDecoder().decode(WireInstance.self, from: instance.fullJSON.data(sortedKeys: false))
    }

    private func assertSameAsRoundTrip(_ stored: WireInstance, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let old = Result<ContentInstance, any Error> { try viaJSON(stored) }
        let new = Result<ContentInstance, any Error> { try ContentInstance(stored: stored) }
        switch (old, new) {
        case (.success(let old), .success(let new)):
            XCTAssertEqual(new, old, what, file: file, line: line)
            XCTAssertEqual(new.storedForm(), try viaJSON(new), what, file: file, line: line)
        case (.failure(let old), .failure(let new)):
            XCTAssertEqual(new as? HaloError, old as? HaloError, what, file: file, line: line)
        case (let old, let new):
            XCTFail("\(what): round trip \(old), direct \(new)", file: file, line: line)
        }
    }

    /// Every object with a string `module` in the fixture files that the store can read.
    private func fixtureInstances() throws -> [(String, WireInstance)] {
        var found: [(String, WireInstance)] = []
        func walk(_ json: JSONValue, _ path: String) {
            switch json {
            case .object(let members):
                if members["module"]?.stringValue != nil,
                    let stored = try? JSONDecoder().decode(WireInstance.self, from: json.data(sortedKeys: false))
                {
                    found.append((path, stored))
                }
                for (key, value) in members { walk(value, "\(path).\(key)") }
            case .array(let items):
                for (index, item) in items.enumerated() { walk(item, "\(path)[\(index)]") }
            default: break
            }
        }
        for path in try ContentFixture.allPaths() {
            guard let json = try? ContentFixture.json(path) else { continue }
            walk(json, path)
        }
        return found
    }

    func testFixtureInstancesConvertAsTheJSONRoundTripDid() throws {
        let instances = try fixtureInstances()
        XCTAssertGreaterThan(instances.count, 40, "fixture scan found too few instances")
        XCTAssertTrue(instances.contains { $0.1.tags.contains { $0.tagTypeObject != nil } }, "a tagType object is among them")
        for (path, stored) in instances { assertSameAsRoundTrip(stored, path) }
    }

    func testEdgeCasesConvertAsTheJSONRoundTripDid() throws {
        let full = WireInstance(
            id: "5d1e2d3c4b5a697887766554", module: "m1", name: "Ünïcode ✓",
            values: ["n": 1.5, "big": 1_475_046_170_088, "nested": ["a": [1, nil, "x"]], "null": nil, "empty": [:]],
            tags: [
                WireTag(name: "plain", value: ""), WireTag(id: "t1", name: "typed", value: "1984", tagType: "000000000000000000000002"),
                WireTag(name: "old", value: "v", tagType: "x", tagTypeObject: ["id": "x", "name": "Old type"]),
            ],
            createdAt: 1_475_046_170_088, updatedAt: -1, publishedAt: 0, removedAt: 4_102_444_800_000, archivedAt: 1,
            deletedAt: 2, createdBy: "a", updatedBy: "b", deletedBy: "c", customerId: 42, revision: 7,
            pushSchedule: ["at": 1], externalId: "ext")
        assertSameAsRoundTrip(full, "every field")
        assertSameAsRoundTrip(WireInstance(id: "", module: "", name: "", createdAt: 0), "empty id, module and name")
        assertSameAsRoundTrip(WireInstance(id: "abc", module: "m", name: "no date", createdAt: nil), "no createdAt")
        assertSameAsRoundTrip(WireInstance(id: "", module: "m", name: "no date", createdAt: nil), "no createdAt, no id")

        // SDK side: no id, a tag without value or type, sub-millisecond dates.
        var instance = ContentInstance(
            moduleId: "m", name: "local", values: ["k": "v"], tags: [Tag(name: "bare", value: nil, tagType: nil)],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.123_456), publishedAt: Date(timeIntervalSince1970: 0.000_6))
        instance.customerId = 3
        XCTAssertEqual(instance.storedForm(), try viaJSON(instance))
        instance.id = "5d1e2d3c4b5a697887766554"
        instance.deletedAt = Date(timeIntervalSince1970: -5)
        XCTAssertEqual(instance.storedForm(), try viaJSON(instance))
        XCTAssertEqual(try ContentInstance(stored: instance.storedForm()), try viaJSON(viaJSON(instance)))
    }
}
