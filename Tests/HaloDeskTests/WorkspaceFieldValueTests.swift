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
        XCTAssertEqual(FieldKind.inferred(from: ["en": "Hi", "zh-Hant-TW": "你好"]), .localized)
    }

    /// A declared field is edited by its type, read by wire name as the server sends it.
    func testKindsOfDeclaredFields() {
        func declared(_ typeName: String, format: JSONValue? = nil) -> FieldDescriptor {
            FieldDescriptor(declared: ModuleField(name: "f", format: format, fieldType: ModuleFieldType(name: typeName)))
        }
        XCTAssertEqual(declared("Single relation").kind, .relation)
        XCTAssertEqual(declared("localized TEXT").kind, .localized)
        XCTAssertEqual(declared("Hologram").kind, .text, "a type HALO does not define is edited as text")
        XCTAssertNil(declared("Hologram").type)
        XCTAssertEqual(declared("Date").kind, .date)
        XCTAssertEqual(declared("Date", format: ["precision": "day"]).kind, .day)
        XCTAssertEqual(declared("Time").kind, .time)
        let choice = declared("Multiple select dropdown", format: ["values": ["S", "M"], "default": "S"])
        XCTAssertEqual(choice.choices, ["S", "M"])
        XCTAssertEqual(choice.defaultValue, "S")
        XCTAssertTrue(choice.takesSeveralChoices)
        // Every field type has a kind, reached by its wire name as by the type.
        for type in FieldType.allCases { XCTAssertEqual(declared(type.name).kind, FieldKind(type), type.name) }
    }

    /// The convention of docs/protocol.md "Dates and times": a date-only value is 00:00 UTC of
    /// its day, a time of day is milliseconds since midnight; neither moves when the same value
    /// is read or typed in New York or Kolkata, on a day New York changes its clocks or not. A
    /// time stored by HALO's own CMS as a whole instant reads as its local time of day.
    func testDatesAndTimesDoNotMoveBetweenTimeZones() throws {
        let zones = TimeZoneSwitch()
        defer { zones.restore() }
        var typed: [String: [JSONValue?]] = [:]
        for zone in ["America/New_York", "Asia/Kolkata", "UTC"] {
            zones.use(zone)
            for day in ["2026-03-08", "2026-11-01", "2026-07-15"] {  // New York's DST changes, and summer
                let value = try FieldValueText.parse(day, kind: .day, field: "releaseDate")
                typed[day, default: []].append(value)
                XCTAssertEqual(FieldValueText.display(value, kind: .day), day, zone)
            }
            typed["19:30", default: []].append(try FieldValueText.parse("19:30", kind: .time, field: "doors"))
            XCTAssertEqual(FieldValueText.display(.number(70_200_000), kind: .time), "19:30", zone)
            XCTAssertEqual(FieldValueText.display(.number(0), kind: .time), "00:00", zone)
        }
        XCTAssertEqual(typed["2026-03-08"]?.first, .number(1_772_928_000_000))
        XCTAssertEqual(typed["19:30"]?.first, .number(70_200_000))
        for (text, values) in typed { XCTAssertEqual(Set(values.map { $0?.doubleValue }).count, 1, "\(text) moved: \(values)") }

        zones.use("Asia/Kolkata")
        // 2026-03-08 12:00 UTC, as HALO's CMS stored a time: 17:30 in Kolkata.
        XCTAssertEqual(FieldValueText.display(.number(1_772_971_200_000), kind: .time), "17:30")
        XCTAssertThrowsError(try FieldValueText.parse("24:00", kind: .time, field: "doors")) { error in
            XCTAssertEqual((error as? FieldValueError)?.description, "“doors” must be a time of day like 19:30, not “24:00”.")
        }
        XCTAssertThrowsError(try FieldValueText.parse("2026-02-30", kind: .day, field: "releaseDate"))
        XCTAssertThrowsError(try FieldValueText.parse("example.com", kind: .link, field: "link")) { error in
            XCTAssertEqual((error as? FieldValueError)?.description, "“link” must be a web address starting with https:// or http://.")
        }
    }

    func testPlainTextOfHTMLAndLocaleNames() {
        XCTAssertEqual(
            HTMLText.plainText(
                of: "<h2>Oak &amp; Steel</h2><p>Built  to\nlast.<br>Since&nbsp;1901 &#8212; &#x263A;</p><script>x()</script>"),
            "Oak & Steel\nBuilt to last.\nSince 1901 — ☺")
        XCTAssertEqual(HTMLText.plainText(of: "no markup & < alone"), "no markup & < alone")
        XCTAssertEqual(LocaleNames.name(of: "es-ES"), "Spanish (Spain)")
        XCTAssertEqual(LocaleNames.name(of: "nl_NL"), "Dutch (Netherlands)")
        XCTAssertEqual(LocaleNames.name(of: "en"), "English")
        XCTAssertEqual(LocaleNames.name(of: "xx-YY"), "xx-YY")
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
