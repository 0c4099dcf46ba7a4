import Foundation
import XCTest

@testable import HaloContentStore

final class WireModelTests: XCTestCase {
    /// Every instance-shaped object in the fixtures the brief names, with the file it came from.
    private func fixtureInstances() throws -> [(String, JSONValue)] {
        var result: [(String, JSONValue)] = []
        func add(_ file: String, _ items: [JSONValue]?) throws {
            let items = try XCTUnwrap(items, "\(file) has no instance list")
            result += items.map { (file, $0) }
        }
        let single = try JSONValue(data: fixture("ios/content_instance.json"))
        result.append(("ios/content_instance.json", single))
        try add("ios/search_success_paginated.json", try JSONValue(data: fixture("ios/search_success_paginated.json"))["items"]?.arrayValue)
        let fullSync = try JSONValue(data: fixture("ios/full_sync.json"))
        try add("ios/full_sync.json created", fullSync["created"]?.arrayValue)
        try add("ios/full_sync.json updated", fullSync["updated"]?.arrayValue)
        let content = fixturesDirectory.appendingPathComponent("android/halo-content")
        for file in try FileManager.default.contentsOfDirectory(atPath: content.path).sorted() {
            let json = try JSONValue(data: Data(contentsOf: content.appendingPathComponent(file)))
            if json["module"] != nil { result.append((file, json)) }
            if let items = json.arrayValue { try add(file, items) }
            for key in ["items", "created", "updated"] { if let items = json[key]?.arrayValue { try add("\(file) \(key)", items) } }
            for operation in json["operations"]?.arrayValue ?? [] where operation["data"]?["module"] != nil {
                result.append(("\(file) operation", try XCTUnwrap(operation["data"])))
            }
        }
        return result
    }

    func testEveryFixtureInstanceDecodesAndReencodesWithSameKeysAndTypes() throws {
        let instances = try fixtureInstances()
        XCTAssertGreaterThan(instances.count, 40, "fixture scan found too few instances")
        let dateKeys: Set<String> = ["createdAt", "updatedAt", "publishedAt", "removedAt", "archivedAt", "deletedAt"]
        for (file, json) in instances {
            let decoded = try JSONDecoder().decode(WireInstance.self, from: json.data())
            let original = try XCTUnwrap(json.objectValue)
            XCTAssertEqual(decoded.id, original["id"]?.stringValue, file)
            XCTAssertEqual(.object(decoded.values), original["values"] ?? .object([:]), "\(file) \(decoded.id)")
            XCTAssertEqual(decoded.createdAt, original["createdAt"]?.int64Value, file)
            let reencoded = try XCTUnwrap(try JSONValue(data: JSONEncoder().encode(decoded)).objectValue)
            for (key, value) in original {
                XCTAssertEqual(reencoded[key], value, "\(file) \(decoded.id): key \(key) changed")
            }
            // Keys added on output are only the explicit nulls of absent dates and editors.
            for key in Set(reencoded.keys).subtracting(original.keys) {
                XCTAssertEqual(reencoded[key], .null, "\(file): unexpected extra key \(key)")
            }
            for key in dateKeys { XCTAssertNotNil(reencoded[key], "\(file): date key \(key) must be written") }
        }
    }

    func testFractionalMillisecondsAreRoundedAndLargeIntegersExact() throws {
        let json =
            #"{"id":"a","module":"m","name":"n","createdAt":1475046170087.9997,"updatedAt":1475046170088,"values":{"big":1475046170088,"f":1.5}}"#
        let decoded = try JSONDecoder().decode(WireInstance.self, from: Data(json.utf8))
        XCTAssertEqual(decoded.createdAt, 1_475_046_170_088)
        XCTAssertEqual(decoded.updatedAt, 1_475_046_170_088)
        let text = String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self)
        XCTAssertTrue(text.contains("\"big\":1475046170088"), text)
        XCTAssertTrue(text.contains("\"f\":1.5"), text)
        XCTAssertTrue(text.contains("\"deletedAt\":null"), text)
    }

    func testBadDateIsATypedDecodingError() {
        let json = #"{"id":"a","module":"m","createdAt":"yesterday"}"#
        XCTAssertThrowsError(try JSONDecoder().decode(WireInstance.self, from: Data(json.utf8))) { error in
            XCTAssertTrue(String(describing: error).contains("'createdAt' must be a number"), "\(error)")
        }
    }

    func testTagValuesAreStringifiedAndNeverNull() throws {
        let json = #"[{"name":"a","value":true},{"name":"b","value":1984},{"name":"c"},{"name":"d","value":null,"tagType":"t","id":"x"}]"#
        let tags = try JSONDecoder().decode([WireTag].self, from: Data(json.utf8))
        XCTAssertEqual(tags.map(\.value), ["true", "1984", "", ""])
        XCTAssertEqual(tags[3], WireTag(id: "x", name: "d", value: "", tagType: "t"))
        let text = String(decoding: try JSONEncoder().encode(tags[2]), as: UTF8.self)
        XCTAssertTrue(text.contains("\"value\":\"\""), text)
    }

    func testCompactJSONTextEscapesAndMatchesParser() throws {
        let value: JSONValue = [
            "s": "quote \" slash \\ nl \n tab \t ctl \u{01} é 😀", "n": 1_475_046_170_088, "f": -0.25,
            "a": [true, false, nil], "o": [:],
        ]
        let text = value.compactJSONText
        XCTAssertEqual(try JSONValue(string: text), value)
        XCTAssertTrue(text.contains("1475046170088") && !text.contains("1475046170088.0"), text)
    }
}

final class JSONParserTests: XCTestCase {
    func testParserAgreesWithFoundationOnFixtures() throws {
        for file in ["ios/full_sync.json", "ios/search_success_paginated.json", "android/halo-content/batchManipulation.json"] {
            let text = String(decoding: try fixture(file), as: UTF8.self)
            XCTAssertEqual(try JSONValue(parsing: text), try JSONValue(string: text), file)
        }
        let tricky = #"{"a":"\u00e9\ud83d\ude00\n\"\\\/","b":[-1.5e3,0,1475046170088,true,false,null],"c":{}}"#
        XCTAssertEqual(try JSONValue(parsing: tricky), try JSONValue(string: tricky))
    }

    func testParserRejectsBrokenText() {
        for bad in [
            "", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "\"abc", "tru", "01x", "[01]", "[1.]", "[1e]", "[+1]", "[.5]", "{a:1}",
            "\"\\x\"", "[1] 2", "{\"a\":\"\u{01}\"}", "[\"a\nb\"]", "-",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ] {
            XCTAssertThrowsError(try JSONValue(parsing: bad), bad)
            XCTAssertThrowsError(try JSONValue(parsing: Data(bad.utf8)), bad)
        }
        XCTAssertThrowsError(try JSONValue(parsing: "not json")) { error in
            XCTAssertEqual("\(error)", "Invalid JSON at byte 1: expected \"null\".")
        }
    }

    func testParserAcceptsEveryValidForm() throws {
        for valid in ["{}", "[]", "0", "-0", "-1.5e+3", "2E-2", "\"a\\u00e9\\n\"", "{\"a\":[1,{\"b\":null}],\"c\":true}", " [ false ] "] {
            XCTAssertEqual(try JSONValue(parsing: Data(valid.utf8)), try JSONValue(string: valid), valid)
        }
    }
}

final class FieldTypeTests: XCTestCase {
    func testIdsAndNamesRoundTrip() {
        XCTAssertEqual(FieldType.allCases.count, 21)
        for type in FieldType.allCases {
            XCTAssertEqual(FieldType(id: type.id), type)
            XCTAssertEqual(FieldType(name: type.name), type)
            XCTAssertEqual(FieldType(name: type.name.uppercased()), type)
        }
        XCTAssertEqual(FieldType.localizedText.id, "000000000000000000000015")
        XCTAssertEqual(FieldType(name: "Single relation"), .singleRelation)
        XCTAssertNil(FieldType(name: "Hologram"))
        XCTAssertNil(FieldType(id: "000000000000000000000022"))
        XCTAssertEqual(FieldType.allCases.filter(\.isRelation), [.multipleRelation, .singleRelation])
    }
}
