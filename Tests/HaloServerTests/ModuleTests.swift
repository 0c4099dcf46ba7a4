import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// E12/E13 modules and their fields (§9).
final class ModuleTests: XCTestCase {
    func testListShapesFieldsAndSingleModule() async throws {
        let server = try await TestServer.start()
        let token = try await server.appToken()
        let allTypes = FieldType.allCases.map { type in
            ModuleField(
                "f\(type.rawValue)", type, description: type.name,
                choices: [.multipleChoice, .singleChoice, .multipleSelectDropdown, .singleSelectDropdown].contains(type) ? ["1", "2"] : nil)
        }
        let everything = try await server.admin.addModule(ModuleSpec(name: "Everything", fields: allTypes))
        for index in 0..<11 { try await server.admin.addModule(ModuleSpec(name: "M\(index)", fields: [])) }

        let plain = try await server.call(
            "GET", "/api/generalcontent/module?skip=true&withFields=false", token: token, headers: ["to-cache": "0"])
        let list = try XCTUnwrap(plain.json.arrayValue)
        XCTAssertEqual(list.count, 12)
        assertSameShape(plain.json, as: try Fixtures.load("ios/module_list_success_not_paginated.json"))
        assertSameShape(plain.json, as: try Fixtures.load("android/halo-sdk/getModules.json"))
        XCTAssertNil(list[0]["fields"])

        let paginated = try await server.call("GET", "/api/generalcontent/module?page=2&limit=5", token: token)
        assertSameShape(paginated.json, as: try Fixtures.load("ios/module_list_success_paginated.json"))
        XCTAssertEqual(paginated.json["pagination"], ["page": 2, "limit": 5, "offset": 5, "totalItems": 12, "totalPages": 3])
        XCTAssertEqual(paginated.json["items"]?.arrayValue?.count, 5)

        let withFields = try await server.call("GET", "/api/generalcontent/module?skip=true&withFields=true", token: token)
        let module = try XCTUnwrap(withFields.json.arrayValue?.first { $0["id"]?.stringValue == everything })
        let fixture = try Fixtures.load("android/halo-sdk/getModulesWithMetaData.json")
        assertSameShape(module, as: try XCTUnwrap(fixture.arrayValue?.first), freeForm: ["format", "params"])
        let fields = try XCTUnwrap(module["fields"]?.arrayValue)
        XCTAssertEqual(fields.count, 21)
        XCTAssertEqual(
            fields.compactMap { $0["fieldType"]?["id"]?.stringValue },
            (1...21).map { String(format: "%024d", $0) })
        XCTAssertEqual(fields[17]["format"], ["values": ["1", "2"], "default": "1"])

        let one = try await server.call("GET", "/api/generalcontent/module/\(everything)?withFields=true", token: token)
        XCTAssertEqual(one.json, module)
        let missing = try await server.call("GET", "/api/generalcontent/module/ffffffffffffffffffffffff", token: token)
        assertEnvelope(missing, status: 404)
        await server.stop()
    }
}
