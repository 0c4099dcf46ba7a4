import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Field kinds and the text ↔ value conversion the editor validates with (no GUI needed).
final class WorkspaceFieldValueTests: XCTestCase {
    func testKindsInferredFromValues() {
        XCTAssertEqual(FieldKind.inferred(from: .bool(true)), .boolean)
        XCTAssertEqual(FieldKind.inferred(from: .number(12.5)), .number)
        XCTAssertEqual(FieldKind.inferred(from: .number(1_763_700_000_000)), .date)
        XCTAssertEqual(FieldKind.inferred(from: .string("5f1e2d3c4b5a697887766554")), .relation)
        XCTAssertEqual(FieldKind.inferred(from: .array([.string("5f1e2d3c4b5a697887766554")])), .relations)
        XCTAssertEqual(FieldKind.inferred(from: .string("https://res.cloudinary.com/demo/image/upload/sample.jpg")), .image)
        XCTAssertEqual(FieldKind.inferred(from: .string("https://example.com/a")), .link)
        XCTAssertEqual(FieldKind.inferred(from: ["en-US": "Hi", "es-ES": "Hola"]), .localized)
        XCTAssertEqual(FieldKind.inferred(from: ["weight": 3]), .object)
        XCTAssertEqual(FieldKind.inferred(from: ["S", "M"]), .list)
        XCTAssertEqual(FieldKind(fieldTypeName: "Single relation"), .relation)
        XCTAssertEqual(FieldKind(fieldTypeName: "Long text"), .longText)
        XCTAssertNil(FieldKind(fieldTypeName: "Hologram"))
        XCTAssertEqual(FieldKind(fieldTypeName: "localized TEXT"), .localized)
        // Every field type has a kind, reached by its wire name as by the type.
        for type in FieldType.allCases { XCTAssertEqual(FieldKind(fieldTypeName: type.name), FieldKind(type), type.name) }
    }

    func testParsingValidatesByKind() throws {
        XCTAssertEqual(try FieldValueText.parse(" 3.25 ", kind: .number, field: "price"), .number(3.25))
        XCTAssertThrowsError(try FieldValueText.parse("3,25", kind: .number, field: "price")) { error in
            XCTAssertEqual((error as? FieldValueError)?.description, "“price” must be a number, not “3,25”.")
        }
        XCTAssertEqual(try FieldValueText.parse("yes", kind: .boolean, field: "b"), .bool(true))
        XCTAssertThrowsError(try FieldValueText.parse("maybe", kind: .boolean, field: "b"))
        let date = try XCTUnwrap(FieldValueText.parse("2026-11-21 14:30", kind: .date, field: "starts")?.doubleValue)
        XCTAssertEqual(FieldValueText.display(.number(date), kind: .date), "2026-11-21 14:30")
        XCTAssertThrowsError(try FieldValueText.parse("next tuesday", kind: .date, field: "starts"))
        XCTAssertEqual(try FieldValueText.parse("[\"a\",1]", kind: .list, field: "l"), ["a", 1])
        XCTAssertThrowsError(try FieldValueText.parse("{\"a\":1}", kind: .list, field: "l"))
        XCTAssertThrowsError(try FieldValueText.parse("{\"en-US\": 3}", kind: .localized, field: "title"))
        XCTAssertThrowsError(try FieldValueText.parse("{oops", kind: .object, field: "specs"))
        XCTAssertEqual(
            try FieldValueText.parse("5f1e2d3c4b5a697887766554, 5f1e2d3c4b5a697887766555", kind: .relations, field: "r"),
            ["5f1e2d3c4b5a697887766554", "5f1e2d3c4b5a697887766555"])
        XCTAssertThrowsError(try FieldValueText.parse("abc", kind: .relation, field: "author"))
        XCTAssertNil(try FieldValueText.parse("   ", kind: .number, field: "price"), "empty clears the value")
        XCTAssertEqual(FieldValueText.display(.number(42), kind: .number), "42")
    }

    /// Counts and dates are formatted by GLib and the C library (no ICU): the locale's grouping,
    /// local time, and dates read back exactly as they are shown.
    func testDisplayFormatsWithoutFoundationFormatters() throws {
        XCTAssertEqual(DisplayFormat.count(0), "0")
        XCTAssertEqual(DisplayFormat.count(999), "999")
        XCTAssertEqual(DisplayFormat.count(100_000), "100,000")
        XCTAssertEqual(DisplayFormat.count(1_234_567), "1,234,567")
        XCTAssertEqual(DisplayFormat.count(-4_500), "-4,500")

        let shown = "2026-11-21 22:40"
        let date = try XCTUnwrap(DisplayFormat.parseDate(shown))
        XCTAssertEqual(DisplayFormat.minute(date), shown, "a date reads back as it is shown")
        XCTAssertEqual(DisplayFormat.day(date), "21 Nov 2026")
        XCTAssertEqual(DisplayFormat.dayAndTime(date), "21 Nov, 22:40")
        let midnight = try XCTUnwrap(DisplayFormat.parseDate("2026-03-01"))
        XCTAssertEqual(DisplayFormat.minute(midnight), "2026-03-01 00:00")
        XCTAssertEqual(DisplayFormat.parseDate("2026-11-21T21:40:00Z")?.timeIntervalSince1970, 1_795_297_200)
        for bad in ["2026-13-01", "2026-02-30", "2026-11-21 24:00", "21/11/2026", "2026-1-5", "tomorrow", ""] {
            XCTAssertNil(DisplayFormat.parseDate(bad), bad)
        }
    }
}
