import Foundation
import XCTest

@testable import HaloServices

/// Model tolerance, request shapes (PROTOCOL §12) and value accessors.
final class ModelTests: XCTestCase {
    func testSaveBodyIsTheIOSInstanceShape() throws {
        var instance = ContentInstance(
            moduleId: "000000000000000000000004", name: "From Linux", createdAt: Date(timeIntervalSince1970: 1_484_047_856.141))
        instance.setValue(key: "Title", value: "The title")
        instance.setValue(key: "Count", value: 3)
        instance.setValue(key: "Published", value: true)
        instance.setValue(key: "When", value: Date(timeIntervalSince1970: 1_388_298_780))
        instance.setValue(key: "List", value: ["a", 1, nil] as [Any?])
        instance.setValue(key: "Nothing", value: nil)
        instance.tagList = [Tag(name: "brand", value: "HALO")]
        instance.publishedAt = Date(timeIntervalSince1970: 1_483_953_114.08)
        instance.createdBy = "not sent on save"
        XCTAssertEqual(
            instance.wireJSON,
            [
                "module": "000000000000000000000004", "name": "From Linux",
                "values": [
                    "Title": "The title", "Count": 3, "Published": true, "When": 1_388_298_780_000,
                    "List": ["a", 1, nil], "Nothing": nil,
                ],
                "tags": [["name": "brand", "value": "HALO", "tagType": "000000000000000000000002"]],
                "createdAt": 1_484_047_856_141, "publishedAt": 1_483_953_114_080,
            ])
        // The full shape reads back equal.
        XCTAssertEqual(try ContentInstance(wire: instance.fullJSON), instance)
        XCTAssertEqual(try ContentInstance(wireData: instance.wireData()).createdBy, nil)
    }

    /// An update names the publication dates it clears (Unpublish, no expiry) as `null`; a create
    /// sends only what is set (PROTOCOL §12).
    func testUpdateBodySendsNullForClearedPublicationDates() throws {
        var instance = ContentInstance(
            id: "58fa0e8173c4f5001031c5a8", moduleId: "m", name: "N", createdAt: Date(timeIntervalSince1970: 1),
            publishedAt: Date(timeIntervalSince1970: 1_700_000_000.123), archivedAt: Date(timeIntervalSince1970: 1_700_000_001))
        instance.publishedAt = nil
        let body = try XCTUnwrap(instance.wireJSON.objectValue)
        XCTAssertEqual(body["publishedAt"], .null)
        XCTAssertEqual(body["removedAt"], .null)
        XCTAssertEqual(body["archivedAt"], 1_700_000_001_000)
        XCTAssertNil(body["deletedAt"], "deletion has its own request")
        instance.id = nil
        XCTAssertNil(instance.wireJSON.objectValue?["publishedAt"], "a create sends only the dates set")
        XCTAssertEqual(try ContentInstance(wire: instance.wireJSON).publishedAt, nil)
    }

    func testTypedAndAnyAccessors() throws {
        let instance = try ContentInstance(wire: [
            "id": "i", "module": "m", "name": "n", "createdAt": 1_475_046_170_087.9997,
            "values": [
                "s": "text", "n": 2.5, "i": 7, "b": false, "d": 1_388_298_780_000, "a": [1, 2],
                "o": ["k": "v"], "loc": ["en-US": "pen", "es-ES": "bolígrafo"],
            ],
        ])
        XCTAssertEqual(HaloTimestamp.milliseconds(from: instance.createdAt), 1_475_046_170_088)
        XCTAssertEqual(instance.string("s"), "text")
        XCTAssertEqual(instance.double("n"), 2.5)
        XCTAssertEqual(instance.int("i"), 7)
        XCTAssertEqual(instance.bool("b"), false)
        XCTAssertEqual(instance.date("d"), Date(timeIntervalSince1970: 1_388_298_780))
        XCTAssertEqual(instance.array("a"), [1, 2])
        XCTAssertEqual(instance.object("o"), ["k": "v"])
        XCTAssertEqual(instance.localizedString("loc", locale: .spanishSpain), "bolígrafo")
        XCTAssertEqual(instance.localizedString("s", locale: .spanishSpain), "text")
        XCTAssertEqual(instance.getValue(key: "i") as? Int, 7)
        XCTAssertEqual(instance.getValue(key: "n") as? Double, 2.5)
        XCTAssertEqual(instance.getValue(key: "a") as? [Int?], [1, 2])
        XCTAssertNil(instance.getValue(key: "missing"))
        XCTAssertNil(instance.string("n"))
    }

    func testStatePredicates() {
        let now = Date(timeIntervalSince1970: 1_000)
        let past = Date(timeIntervalSince1970: 500)
        let future = Date(timeIntervalSince1970: 2_000)
        var instance = ContentInstance(moduleId: "m", name: "n", createdAt: past)
        XCTAssertTrue(instance.isDraft)
        XCTAssertFalse(instance.isPublished(at: now))
        instance.publishedAt = future
        XCTAssertFalse(instance.isPublished(at: now), "scheduled publication is not yet published")
        instance.publishedAt = past
        XCTAssertTrue(instance.isPublished(at: now))
        XCTAssertFalse(instance.isDraft)
        instance.removedAt = future
        XCTAssertFalse(instance.isRemoved(at: now))
        instance.removedAt = past
        XCTAssertTrue(instance.isRemoved(at: now))
        instance.archivedAt = past
        XCTAssertTrue(instance.isArchived(at: now))
        instance.deletedAt = past
        XCTAssertTrue(instance.isDeleted(at: now))
        XCTAssertFalse(instance.isDeleted(at: Date(timeIntervalSince1970: 100)))
    }

    func testToleranceAndErrors() throws {
        // Tags with `type` or `tagType`, values that are not strings, missing isSingle.
        let module = try Module(wire: [
            "id": "x",
            "tags": [
                ["name": "a", "value": true, "type": "t1"], ["name": "b", "value": 1984, "tagType": "t2"], ["name": "c"],
            ],
        ])
        XCTAssertFalse(module.isSingle)
        XCTAssertEqual(module.tagList.map(\.value), ["true", "1984", nil])
        XCTAssertEqual(module.tagList.map(\.tagType), ["t1", "t2", nil])
        XCTAssertEqual(Tag(name: "c", value: nil, tagType: nil).wireJSON, ["name": "c"])
        // values: null reads as empty; a non-object values is refused.
        XCTAssertEqual(try ContentInstance(wire: ["module": "m", "createdAt": 1, "values": nil]).values, [:])
        XCTAssertThrowsError(try ContentInstance(wire: ["module": "m", "createdAt": 1, "values": "x"]))
        XCTAssertThrowsError(try ContentInstance(wire: ["name": "no module", "createdAt": 1]))
        XCTAssertThrowsError(try ContentInstance(wire: ["module": "m"])) { error in
            XCTAssertEqual(
                error as? HaloError, .invalidResponse(status: nil, message: "The content instance has no \"createdAt\" timestamp."))
        }
        XCTAssertThrowsError(try ContentInstance(wire: [1, 2]))
        XCTAssertThrowsError(try PaginatedContentInstances(wire: "text"))
        XCTAssertThrowsError(try Tag(wire: ["value": "no name"]))
        XCTAssertThrowsError(try ContentInstance(wireData: Data("not json".utf8))) { error in
            guard case .invalidResponse(_, let message)? = error as? HaloError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("ContentInstance: Invalid JSON at byte 1"), message)
        }
        // A paginated object without pagination gets a single page.
        let page = try PaginatedContentInstances(wire: ["items": [["module": "m", "createdAt": 1]]])
        XCTAssertEqual(page.paginationInfo, .singlePage(count: 1))
    }

    func testAnyConversion() {
        XCTAssertEqual(AnyJSONConversion.json(from: NSNumber(value: true)), true)
        XCTAssertEqual(AnyJSONConversion.json(from: NSNumber(value: 42)), 42)
        XCTAssertEqual(AnyJSONConversion.json(from: 1 as Int), 1)
        XCTAssertEqual(AnyJSONConversion.json(from: Double.nan), nil)
        XCTAssertEqual(AnyJSONConversion.json(from: URL(string: "https://halo-db.com")), "https://halo-db.com")
        XCTAssertEqual(AnyJSONConversion.json(from: ["k": [1, "x"]] as [String: Any]), ["k": [1, "x"]])
        XCTAssertEqual(AnyJSONConversion.json(from: Optional<Int>.none as Any), nil)
        XCTAssertEqual(AnyJSONConversion.json(from: HaloLocale.spanishSpain), "es-ES", "unknown types keep their description")
        XCTAssertTrue(HaloLocale.spanishSpain.isKnown)
        XCTAssertEqual(HaloLocale.knownCodes.count, 443)
        XCTAssertNil(HaloLocale(knownCode: "xx-XX"))
    }

    /// Every truncation of a real answer is a typed error, never a crash or a partial model.
    func testTruncatedAnswersAreErrors() throws {
        for file in [
            "ios/content_instance.json", "android/halo-content/batchManipulation.json",
            "android/halo-content/syncUpdateModule.json", "ios/module_list_success_paginated.json",
        ] {
            let data = try ContentFixture.data(file)
            for length in stride(from: 0, to: data.count - 1, by: 7) {
                let prefix = data.prefix(length)
                XCTAssertThrowsError(try ContentInstance(wireData: prefix), "\(file) @\(length)")
                XCTAssertThrowsError(try BatchResult(wireData: prefix), "\(file) @\(length)")
                XCTAssertThrowsError(try SyncResult(wireData: prefix), "\(file) @\(length)")
                XCTAssertThrowsError(try PaginatedModules(wireData: prefix), "\(file) @\(length)")
            }
        }
    }
}
