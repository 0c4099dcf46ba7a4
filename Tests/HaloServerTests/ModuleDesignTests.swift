import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// Module design (our extension, docs/protocol.md §23.10): editors create, rename and delete
/// modules and add, edit, retype, remove and reorder fields; every change reaches search, sync and
/// field validation at once, and a change that would lose values is refused unless asked for.
final class ModuleDesignTests: XCTestCase {
    var server: TestServer!
    var editor: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        editor = try await server.appToken(editor: true)
    }

    override func tearDown() async throws {
        await server?.stop()
    }

    @discardableResult
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil, token: String? = nil, status: Int = 200) async throws -> JSONValue
    {
        try await server.expect(method, path, body, token: token ?? editor, status: status)
    }

    func createModule(_ name: String, fields: [JSONValue]) async throws -> (id: String, fields: [String: String]) {
        let module = try await call("POST", "/api/generalcontent/module", ["name": .string(name), "fields": .array(fields)])
        let id = try XCTUnwrap(module["id"]?.stringValue)
        return (id, fieldIds(module))
    }

    func fieldIds(_ module: JSONValue) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: (module["fields"]?.arrayValue ?? []).compactMap { field in
                field["name"]?.stringValue.flatMap { name in field["id"]?.stringValue.map { (name, $0) } }
            })
    }

    func createInstance(_ moduleId: String, _ name: String, _ values: JSONValue) async throws -> String {
        let created = try await call(
            "POST", "/api/generalcontent/instance", ["module": .string(moduleId), "name": .string(name), "values": values])
        return try XCTUnwrap(created["id"]?.stringValue)
    }

    func sync(_ module: JSONValue, from: Double? = nil) async throws -> JSONValue {
        var body: [String: JSONValue] = ["moduleId": module]
        if let from { body["fromSync"] = .number(from) }
        return try await call("POST", "/api/generalcontent/instance/sync", .object(body))
    }

    func testEditorsCreateRenameAndDeleteModulesAndSyncFollows() async throws {
        let reader = try await server.appToken()
        try await call("POST", "/api/generalcontent/module", ["name": "Nope"], token: reader, status: 403)
        let fields: [JSONValue] = [
            ["name": "title", "fieldType": "Text"], ["name": "price", "fieldType": "Number"],
            ["name": "size", "fieldType": "Single choice", "choices": ["S", "M", "L"]],
            ["name": "day", "fieldType": "Date", "dateOnly": true], ["name": "blurb", "fieldType": "Localized text"],
        ]
        let (moduleId, ids) = try await createModule("Shoes", fields: fields)
        XCTAssertEqual(ids.count, 5)
        let read = try await call("GET", "/api/generalcontent/module/\(moduleId)", token: reader)
        XCTAssertEqual(read["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["title", "price", "size", "day", "blurb"])
        XCTAssertEqual(read["fields"]?.arrayValue?[2]["format"]?["values"], ["S", "M", "L"])
        XCTAssertEqual(read["fields"]?.arrayValue?[1]["fieldType"]?["name"], "Number")

        // Refused by name: a taken module name, an unknown type, a duplicate field, choices on a text field.
        try await call("POST", "/api/generalcontent/module", ["name": "Shoes"], status: 400)
        let unknownType = try await call(
            "POST", "/api/generalcontent/module", ["name": "X", "fields": [["name": "a", "fieldType": "Hologram"]]], status: 400)
        XCTAssertTrue(unknownType["error"]?["message"]?.stringValue?.contains("'fieldType' must be one of") ?? false, "\(unknownType)")
        try await call(
            "POST", "/api/generalcontent/module",
            ["name": "X", "fields": [["name": "a", "fieldType": "Text"], ["name": "a", "fieldType": "Number"]]], status: 400)
        try await call(
            "POST", "/api/generalcontent/module", ["name": "X", "fields": [["name": "a", "fieldType": "Text", "choices": ["1"]]]],
            status: 400)

        // Field validation knows the new module at once.
        let first = try await createInstance(moduleId, "Red", ["title": "Red shoe", "price": 20, "size": "M"])
        _ = try await call(
            "POST", "/api/generalcontent/instance", ["module": .string(moduleId), "name": "Bad", "values": ["size": "XXL"]], status: 400)
        let synced = try await sync(.string(moduleId))
        let stamp = try XCTUnwrap(synced["syncTimestamp"]?.doubleValue)

        // A rename keeps the id; clients that sync by name use the new one.
        try await call("PUT", "/api/generalcontent/module/\(moduleId)", ["name": "Footwear"])
        let list = try await call("GET", "/api/generalcontent/module/?skip=true")
        XCTAssertEqual(list.arrayValue?.first { $0["id"]?.stringValue == moduleId }?["name"], "Footwear")
        let byNewName = try await call("POST", "/api/generalcontent/instance/sync", ["moduleName": "Footwear"])
        XCTAssertEqual(byNewName["created"]?.arrayValue?.count, 1)
        try await call("PUT", "/api/generalcontent/module/\(moduleId)", ["name": "   "], status: 400)

        // Delete: its instances go as deletions, for clients syncing by id or by (its last) name.
        let deleted = try await call("DELETE", "/api/generalcontent/module/\(moduleId)")
        XCTAssertEqual(deleted["deletedInstances"], 1)
        try await call("GET", "/api/generalcontent/module/\(moduleId)", status: 404)
        let after = try await call("GET", "/api/generalcontent/module/?skip=true")
        XCTAssertFalse(after.arrayValue?.contains { $0["id"]?.stringValue == moduleId } ?? true)
        let byId = try await sync(.string(moduleId), from: stamp)
        XCTAssertEqual(byId["deleted"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, [first])
        let byName = try await call("POST", "/api/generalcontent/instance/sync", ["moduleName": "Footwear", "fromSync": .number(stamp)])
        XCTAssertEqual(byName["deleted"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, [first])
        try await call(
            "POST", "/api/generalcontent/instance", ["module": .string(moduleId), "name": "Late", "values": [:]], status: 400)
        // The name is free again.
        _ = try await createModule("Footwear", fields: [])
    }

    func testFieldRenameRemovalAndOrderReachSyncSearchAndValidation() async throws {
        let (moduleId, ids) = try await createModule(
            "Books", fields: [["name": "title", "fieldType": "Text"], ["name": "price", "fieldType": "Number"]])
        let one = try await createInstance(moduleId, "One", ["title": "Dune", "price": 10])
        let two = try await createInstance(moduleId, "Two", ["title": "Emma", "price": 25])
        let firstSync = try await sync(.string(moduleId))
        let stamp = try XCTUnwrap(firstSync["syncTimestamp"]?.doubleValue)

        let renamed = try await call(
            "PUT", "/api/generalcontent/module/\(moduleId)/field/\(try XCTUnwrap(ids["price"]))", ["name": "cost"])
        XCTAssertEqual(renamed["report"]?["holding"], 2)
        XCTAssertEqual(fieldIds(renamed)["cost"], ids["price"], "a rename keeps the field's id")
        let delta = try await sync(.string(moduleId), from: stamp)
        let updated = delta["updated"]?.arrayValue ?? []
        XCTAssertEqual(Set(updated.compactMap { $0["id"]?.stringValue }), [one, two], "a rename re-sends the instances as updates")
        XCTAssertEqual(updated.first { $0["id"]?.stringValue == two }?["values"], ["title": "Emma", "cost": 25])
        let search = try await call(
            "POST", "/api/generalcontent/instance/search",
            [
                "moduleIds": [.string(moduleId)],
                "searchValues": ["condition": "and", "operands": [["property": "cost", "operation": ">", "value": 20, "type": "number"]]],
            ])
        XCTAssertEqual(search["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, [two], "search knows the new name")
        let stale = try await call(
            "PUT", "/api/generalcontent/instance/\(one)", ["values": ["title": "Dune", "price": 12]], status: 400)
        XCTAssertEqual(stale["error"]?["extra"]?["error"], "undefined_attribute", "\(stale)")

        // Reorder, then remove: a dry run counts what goes and changes nothing.
        try await call(
            "PUT", "/api/generalcontent/module/\(moduleId)/field-order", ["fieldIds": [.string(ids["price"]!), .string(ids["title"]!)]])
        let reordered = try await call("GET", "/api/generalcontent/module/\(moduleId)")
        XCTAssertEqual(reordered["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["cost", "title"])
        try await call("PUT", "/api/generalcontent/module/\(moduleId)/field-order", ["fieldIds": [.string(ids["title"]!)]], status: 400)
        let preview = try await call("DELETE", "/api/generalcontent/module/\(moduleId)/field/\(ids["title"]!)?dryRun=true")
        XCTAssertEqual(preview["refused"], 2, "two values would go")
        let afterPreview = try await call("GET", "/api/generalcontent/module/\(moduleId)")
        XCTAssertEqual(afterPreview["fields"]?.arrayValue?.count, 2)
        let secondSync = try await sync(.string(moduleId))
        let stamp2 = try XCTUnwrap(secondSync["syncTimestamp"]?.doubleValue)
        try await call("DELETE", "/api/generalcontent/module/\(moduleId)/field/\(ids["title"]!)")
        let afterRemoval = try await sync(.string(moduleId), from: stamp2)
        XCTAssertEqual(
            afterRemoval["updated"]?.arrayValue?.first { $0["id"]?.stringValue == one }?["values"], ["cost": 10],
            "a removed field disappears from the values sent")
    }

    func testATypeChangeIsPreviewedAndNeverLosesValuesSilently() async throws {
        let (moduleId, ids) = try await createModule("Codes", fields: [["name": "code", "fieldType": "Text"]])
        let number = try await createInstance(moduleId, "Twelve", ["code": "12"])
        let word = try await createInstance(moduleId, "Word", ["code": "abc"])
        _ = try await createInstance(moduleId, "Empty", [:])
        let field = "/api/generalcontent/module/\(moduleId)/field/\(try XCTUnwrap(ids["code"]))"

        let preview = try await call("PUT", field + "?dryRun=true", ["fieldType": "Number"])
        XCTAssertEqual(preview["instances"], 3)
        XCTAssertEqual(preview["holding"], 2)
        XCTAssertEqual(preview["converted"], 1)
        XCTAssertEqual(preview["refused"], 1)
        XCTAssertEqual(preview["examples"]?.arrayValue?[0]["id"]?.stringValue, word)
        XCTAssertEqual(preview["examples"]?.arrayValue?[0]["value"], "abc")

        // Without an explicit choice the change is refused, and nothing changed.
        let refused = try await call("PUT", field, ["fieldType": "Number"], status: 409)
        XCTAssertTrue(refused["error"]?["message"]?.stringValue?.contains("export the module first") ?? false, "\(refused)")
        XCTAssertEqual(refused["error"]?["extra"]?["refused"], 1, "the 409 carries the report")
        let unchanged = try await call("GET", "/api/generalcontent/module/\(moduleId)")
        XCTAssertEqual(unchanged["fields"]?.arrayValue?[0]["fieldType"]?["name"], "Text")
        let stillThere = try await call("POST", "/api/generalcontent/instance/search", ["instanceIds": [.string(word)]])
        XCTAssertEqual(stillThere["items"]?.arrayValue?[0]["values"]?["code"], "abc")

        // Converting with "clear": "12" becomes 12, "abc" is cleared; validation follows the new type.
        let changed = try await call("PUT", field, ["fieldType": "Number", "refusedValues": "clear"])
        XCTAssertEqual(changed["report"]?["refused"], 1)
        XCTAssertEqual(changed["fields"]?.arrayValue?[0]["fieldType"]?["name"], "Number")
        let values = try await call("POST", "/api/generalcontent/instance/search", ["instanceIds": [.string(number), .string(word)]])
        let byId = Dictionary(
            uniqueKeysWithValues: (values["items"]?.arrayValue ?? []).compactMap { item in item["id"]?.stringValue.map { ($0, item) } })
        XCTAssertEqual(byId[number]?["values"]?["code"], 12)
        XCTAssertNil(byId[word]?["values"]?["code"])
        try await call("PUT", "/api/generalcontent/instance/\(number)", ["values": ["code": "thirteen"]], status: 400)

        // Choices: dropping one in use is a change that would lose values, too.
        let (shirts, shirtFields) = try await createModule(
            "Shirts", fields: [["name": "size", "fieldType": "Single choice", "choices": ["S", "M"]]])
        _ = try await createInstance(shirts, "Small", ["size": "S"])
        let sizes = "/api/generalcontent/module/\(shirts)/field/\(try XCTUnwrap(shirtFields["size"]))"
        try await call("PUT", sizes, ["choices": ["M", "L"]], status: 409)
        let widened = try await call("PUT", sizes, ["choices": ["S", "M", "L"]])
        XCTAssertEqual(widened["report"]?["refused"], 0)
        XCTAssertEqual(widened["fields"]?.arrayValue?[0]["format"]?["values"], ["S", "M", "L"])
    }

    /// Issue 47: switching a date field to date-only is a change of its values. A value with a time
    /// of day no longer fits: the dry run reports it refused, the change without
    /// `refusedValues: "clear"` is a 409 that changes nothing, and with it the value is cleared
    /// (a midnight one is kept). (The bug: `dateOnly` alone was not counted as a change, so the
    /// field became date-only and kept a time of day it now refuses.)
    func testATimeOfDaySwitchedToDateOnlyIsPreviewedRefusedAndClearedOnlyWhenAsked() async throws {
        let (moduleId, ids) = try await createModule("Events", fields: [["name": "when", "fieldType": "Date"]])
        let midnight = 1_700_006_400_000.0  // 2023-11-15T00:00:00Z
        XCTAssertEqual(midnight.truncatingRemainder(dividingBy: 86_400_000), 0)
        let noon = midnight + 12 * 3_600_000
        let timed = try await createInstance(moduleId, "At noon", ["when": .number(noon)])
        let dated = try await createInstance(moduleId, "At midnight", ["when": .number(midnight)])
        let field = "/api/generalcontent/module/\(moduleId)/field/\(try XCTUnwrap(ids["when"]))"
        func stored() async throws -> [String: JSONValue] {
            let found = try await call("POST", "/api/generalcontent/instance/search", ["instanceIds": [.string(timed), .string(dated)]])
            return Dictionary(
                uniqueKeysWithValues: (found["items"]?.arrayValue ?? []).compactMap { item in
                    item["id"]?.stringValue.map { ($0, item["values"]?["when"] ?? .null) }
                })
        }

        let preview = try await call("PUT", field + "?dryRun=true", ["dateOnly": true])
        XCTAssertEqual(preview["holding"], 2)
        XCTAssertEqual(preview["refused"], 1, "\(preview)")
        XCTAssertEqual(preview["examples"]?.arrayValue?.first?["id"]?.stringValue, timed)

        let refused = try await call("PUT", field, ["dateOnly": true], status: 409)
        XCTAssertTrue(refused["error"]?["message"]?.stringValue?.contains("export the module first") ?? false, "\(refused)")
        XCTAssertEqual(refused["error"]?["extra"]?["refused"], 1, "the 409 carries the report")
        let unchanged = try await call("GET", "/api/generalcontent/module/\(moduleId)")
        XCTAssertNotEqual(unchanged["fields"]?.arrayValue?.first?["format"]?["precision"], "day", "the field is not date-only")
        var values = try await stored()
        XCTAssertEqual(values[timed], .number(noon), "a refused change keeps the time of day")
        XCTAssertEqual(values[dated], .number(midnight))

        let cleared = try await call("PUT", field, ["dateOnly": true, "refusedValues": "clear"])
        XCTAssertEqual(cleared["report"]?["refused"], 1)
        XCTAssertEqual(cleared["fields"]?.arrayValue?.first?["format"]?["precision"], "day")
        values = try await stored()
        XCTAssertEqual(values[timed], .null, "the time of day the field now refuses is cleared")
        XCTAssertEqual(values[dated], .number(midnight), "a date without a time of day is kept")
        // And the field refuses a new time of day.
        try await call("PUT", "/api/generalcontent/instance/\(dated)", ["values": ["when": .number(noon)]], status: 400)
    }
}
