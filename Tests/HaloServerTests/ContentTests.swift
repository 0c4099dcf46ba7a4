import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

/// E14–E19: search, edition, batch and sync over real HTTP (§11–§14).
final class ContentTests: XCTestCase {
    var server: TestServer!
    var editor: String!
    var reader: String!
    var moduleId: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        editor = try await server.appToken(editor: true)
        reader = try await server.appToken()
        moduleId = try await server.admin.addModule(
            ModuleSpec(
                name: "Products",
                fields: [
                    ModuleField("title", .text), ModuleField("price", .number), ModuleField("inStock", .boolean),
                    ModuleField("label", .localizedText), ModuleField("size", .singleChoice, choices: ["S", "M"]),
                    ModuleField("link", .website), ModuleField("released", .date, isDateOnly: true),
                    ModuleField("doors", .time),
                ]))
    }

    override func tearDown() async throws { await server.stop() }

    private func create(_ name: String, _ values: JSONValue, token: String? = nil) async throws -> JSONValue {
        let answer = try await server.call(
            "POST", "/api/generalcontent/instance", token: token ?? editor,
            body: .json(["module": .string(moduleId), "name": .string(name), "values": values, "tags": [], "createdAt": 1]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return answer.json
    }

    private func search(_ body: JSONValue, token: String? = nil) async throws -> HTTPAnswer {
        try await server.call(
            "POST", "/api/generalcontent/instance/search", token: token ?? reader, body: .json(body), headers: ["to-cache": "0"])
    }

    private func sync(_ body: JSONValue) async throws -> JSONValue {
        let answer = try await server.call("POST", "/api/generalcontent/instance/sync", token: reader, body: .json(body))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return answer.json
    }

    func testSearchPaginationShapesAndFilters() async throws {
        for index in 0..<25 {
            _ = try await create(
                "Item \(index)", ["title": .string("Title \(index)"), "price": .number(Double(index)), "inStock": .bool(index % 2 == 0)])
        }
        let firstPage = try await search(["moduleIds": [.string(moduleId)], "segmentMode": "partial"])
        assertSameShape(firstPage.json, as: try Fixtures.load("ios/search_success_paginated.json"))
        assertSameShape(firstPage.json, as: try Fixtures.load("android/halo-content/searchPaginatedItems.json"))
        XCTAssertEqual(firstPage.json["pagination"], ["page": 1, "limit": 10, "offset": 0, "totalItems": 25, "totalPages": 3])
        XCTAssertEqual(firstPage.json["items"]?.arrayValue?.count, 10)

        let lastPage = try await search(["moduleName": "Products", "pagination": ["page": 3, "limit": 10, "skip": "false"]])
        XCTAssertEqual(lastPage.json["items"]?.arrayValue?.count, 5)
        XCTAssertEqual(lastPage.json["pagination"]?["offset"], 20)

        for skip: JSONValue in ["true", true] {
            let all = try await search(["moduleNames": ["Products"], "pagination": ["skip": skip]])
            XCTAssertEqual(all.json.arrayValue?.count, 25, "skip \(skip)")
            assertSameShape(all.json, as: try Fixtures.load("android/halo-content/searchNotPaginatedItems.json"))
        }

        // Nested filter, Android-style reversed operands and `values.` projection.
        let filtered = try await search([
            "moduleIds": [.string(moduleId)], "fields": ["values.title"], "sort": "name asc",
            "searchValues": [
                "condition": "and",
                "operands": [
                    [
                        "condition": "or",
                        "operands": [
                            ["operation": "=", "property": "inStock", "value": true, "type": "string"],
                            ["operation": "like", "property": "title", "value": "itle 7", "type": "string"],
                        ],
                    ],
                    ["operation": "<=", "property": "price", "value": 10, "type": "number"],
                    ["operation": ">=", "property": "price", "value": 5, "type": "number"],
                ],
            ],
            "pagination": ["skip": true],
        ])
        let names = filtered.json.arrayValue?.compactMap { $0["name"]?.stringValue }
        XCTAssertEqual(names, ["Item 10", "Item 6", "Item 7", "Item 8"])
        XCTAssertEqual(filtered.json.arrayValue?.first?["values"], ["title": "Title 10"])

        let invalid = try await search(["searchValues": ["operation": "~", "property": "price", "value": 1]])
        XCTAssertTrue(assertEnvelope(invalid, status: 400).contains("Invalid search"))
        let badSort = try await search(["sort": "price sideways"])
        assertEnvelope(badSort, status: 400)
        let unknownModule = try await search(["moduleName": "Nope"])
        XCTAssertTrue(assertEnvelope(unknownModule, status: 400).contains("Nope"))
    }

    /// Searches read in-memory copies of the compared fields once a field was compared twice
    /// (`SearchMemory`); a save, an update or a deletion is seen by the very next search.
    func testRepeatedSearchesSeeEveryWrite() async throws {
        for n in 1...20 { _ = try await create("Item \(n)", ["title": .string("road \(n)"), "price": .number(Double(n))]) }
        let body: JSONValue = [
            "moduleIds": [.string(moduleId)],
            "searchValues": [
                "condition": "or",
                "operands": [
                    ["property": "price", "operation": ">=", "value": 18], ["property": "title", "operation": "like", "value": "ROAD 1"],
                ],
            ], "sort": "name asc", "pagination": ["skip": true],
        ]
        func names() async throws -> [String] {
            let answer = try await search(body)
            XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
            return answer.json.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        }
        let expected = [
            "Item 1", "Item 10", "Item 11", "Item 12", "Item 13", "Item 14", "Item 15", "Item 16", "Item 17", "Item 18", "Item 19",
            "Item 20",
        ]
        // Three times each: the second search makes the copies, the third reads them.
        func assertNames(_ wanted: [String], _ message: String, line: UInt = #line) async throws {
            for run in 0..<3 {
                let found = try await names()
                XCTAssertEqual(found, wanted, "\(message), search \(run + 1)", line: line)
            }
        }
        try await assertNames(expected, "before any write")

        let created = try await create("A new one", ["title": "nothing alike", "price": 99])
        try await assertNames(["A new one"] + expected, "a creation")
        let id = try XCTUnwrap(created["id"]?.stringValue)
        let updated = try await server.call(
            "PUT", "/api/generalcontent/instance/\(id)", token: editor,
            body: .json(["id": .string(id), "module": .string(moduleId), "name": "Zed", "values": ["title": "nothing", "price": 1]]))
        XCTAssertEqual(updated.status, 200)
        try await assertNames(expected, "an update")
        let first = try await search([
            "moduleIds": [.string(moduleId)], "metaSearch": ["property": "name", "operation": "=", "value": "Item 20"],
        ])
        let twenty = try XCTUnwrap(first.json["items"]?.arrayValue?.first?["id"]?.stringValue)
        let deleted = try await server.call("DELETE", "/api/generalcontent/instance/\(twenty)", token: editor)
        XCTAssertEqual(deleted.status, 200)
        try await assertNames(Array(expected.dropLast()), "a deletion")
    }

    func testIncludeReturnsRelatedInstancesBesideItems() async throws {
        let people = try await server.admin.addModule(ModuleSpec(name: "People", fields: [ModuleField("name", .text)]))
        let posts = try await server.admin.addModule(ModuleSpec(name: "Posts", fields: [ModuleField("author", .singleRelation)]))
        let ada = try await server.call(
            "POST", "/api/generalcontent/instance", token: editor, body: .json(["module": .string(people), "name": "Ada"]))
        let adaId = try XCTUnwrap(ada.json["id"]?.stringValue)
        let post = try await server.call(
            "POST", "/api/generalcontent/instance", token: editor,
            body: .json(["module": .string(posts), "name": "Hello", "values": ["author": .string(adaId)]]))
        XCTAssertEqual(post.status, 200)
        let plain = try await search(["moduleName": "Posts"])
        XCTAssertNil(plain.json["included"])
        let included = try await search(["moduleName": "Posts", "include": ["all"]])
        XCTAssertEqual(included.json["items"]?.arrayValue?.first?["values"]?["author"]?.stringValue, adaId)
        XCTAssertEqual(included.json["included"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, [adaId])
        let related = try await search([
            "relatedTo": [["fieldName": "author", "instanceIds": [.string(adaId)]]], "pagination": ["skip": true],
        ])
        XCTAssertEqual(related.json.arrayValue?.compactMap { $0["name"]?.stringValue }, ["Hello"])
    }

    func testCreateUpdateDeleteConflictAndValidation() async throws {
        let created = try await create("First", ["title": "Hello", "price": 12.5, "label": ["en-US": "Hi", "es-ES": "Hola"], "size": "S"])
        assertSameShape(created, as: try Fixtures.load("android/halo-content/contentManipulation.json"))
        assertSameShape(created, as: try Fixtures.load("ios/content_instance.json"))
        let id = try XCTUnwrap(created["id"]?.stringValue)
        XCTAssertEqual(created["createdBy"], "Editor app")
        XCTAssertNotEqual(created["createdAt"], 1, "the server stamps createdAt itself")

        let updated = try await server.call(
            "PUT", "/api/generalcontent/instance/\(id)", token: editor,
            body: .json([
                "id": .string(id), "module": .string(moduleId), "name": "First v2", "values": ["title": "Hello again"],
                "publishedAt": 1_700_000_000_000,
            ]))
        XCTAssertEqual(updated.status, 200)
        XCTAssertEqual(updated.json["name"], "First v2")
        XCTAssertEqual(updated.json["publishedAt"], 1_700_000_000_000)
        let stamp = try XCTUnwrap(updated.json["updatedAt"]?.int64Value)

        // A client holding an older copy gets 409 with the current copy in `extra`.
        let stale = try await server.call(
            "PUT", "/api/generalcontent/instance/\(id)", token: editor,
            body: .json(["name": "Lost update", "updatedAt": .number(Double(stamp - 5))]))
        XCTAssertTrue(assertEnvelope(stale, status: 409).contains("updated after your data retrieval"))
        XCTAssertEqual(stale.json["error"]?["extra"]?["name"], "First v2")
        XCTAssertEqual(stale.json["error"]?["extra"]?["id"]?.stringValue, id)

        let cases: [(JSONValue, String)] = [
            (["price": "cheap"], "price"), (["title": 5], "title"), (["inStock": "yes"], "inStock"),
            (["label": ["english": "x"]], "label"), (["size": "XXL"], "size"), (["link": "not a url"], "link"),
            (["unknown": 1], "unknown"), (["released": 1_804_118_400_001], "released"), (["doors": "19:30"], "doors"),
        ]
        for (values, field) in cases {
            let answer = try await server.call(
                "POST", "/api/generalcontent/instance", token: editor,
                body: .json(["module": .string(moduleId), "name": "bad", "values": values]))
            assertEnvelope(answer, status: 400)
            XCTAssertEqual(answer.json["error"]?["extra"]?["field"]?.stringValue, field, "\(values)")
        }

        // A date-only field takes 00:00 UTC of a day, and says so in its format; a time any timestamp.
        let days = try await create("Days", ["released": 1_804_118_400_000, "doors": 67_500_000])
        XCTAssertEqual(days["values"]?["released"], 1_804_118_400_000)
        let module = try await server.call("GET", "/api/generalcontent/module/\(moduleId!)?withFields=true", token: editor)
        let released = module.json["fields"]?.arrayValue?.first { $0["name"] == "released" }
        XCTAssertEqual(released?["format"], ["precision": "day"])

        let deleted = try await server.call("DELETE", "/api/generalcontent/instance/\(id)", token: editor)
        XCTAssertEqual(deleted.status, 200)
        XCTAssertNotNil(deleted.json["deletedAt"]?.int64Value)
        XCTAssertEqual(deleted.json["deletedBy"], "Editor app")
        let again = try await server.call("DELETE", "/api/generalcontent/instance/\(id)", token: editor)
        assertEnvelope(again, status: 404)
        let putDeleted = try await server.call("PUT", "/api/generalcontent/instance/\(id)", token: editor, body: .json(["name": "x"]))
        assertEnvelope(putDeleted, status: 404)
        let gone = try await search(["instanceIds": [.string(id)], "pagination": ["skip": true]])
        XCTAssertEqual(gone.json.arrayValue?.count, 0)
    }

    func testBatchReportsEveryOperationAndCounters() async throws {
        let keep = try await create("Keep", ["title": "k"])
        let keepId = try XCTUnwrap(keep["id"]?.stringValue)
        let otherModule = try await server.admin.addModule(ModuleSpec(name: "Other", fields: []))
        for index in 0..<3 {
            _ = try await server.call(
                "POST", "/api/generalcontent/instance", token: editor,
                body: .json(["module": .string(otherModule), "name": .string("o\(index)")]))
        }
        let body: JSONValue = [
            "truncated": [["module": .string(otherModule)]],
            "truncate": [["module": .string(otherModule), "name": "android style"]],
            "created": [
                ["module": .string(moduleId), "name": "New", "values": ["price": 3]],
                ["module": .string(moduleId), "name": "Broken", "values": ["price": "x"]],
            ],
            "updated": [["id": .string(keepId), "name": "Keep v2", "updatedAt": 1]],
            "createdOrUpdated": [
                ["id": .string(keepId), "module": .string(moduleId), "name": "Keep v3"],
                ["id": "client-chosen-id", "module": .string(moduleId), "name": "Chosen"],
            ],
            "deleted": [["id": "ffffffffffffffffffffffff"], keep],
        ]
        let answer = try await server.call("POST", "/api/generalcontent/instance/batch", token: editor, body: .json(body))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        let operations = try XCTUnwrap(answer.json["operations"]?.arrayValue)
        let summary = operations.map {
            "\($0["operation"]?.stringValue ?? "?")#\($0["position"]?.int64Value ?? -1):\($0["success"]?.boolValue ?? false)"
        }
        XCTAssertEqual(
            summary,
            [
                "truncate#0:true", "truncate#1:true", "create#0:true", "create#1:false", "update#0:true",
                "createOrUpdate#0:true", "createOrUpdate#1:true", "delete#0:false", "delete#1:true",
            ])
        XCTAssertEqual(operations[0]["module"]?.stringValue, otherModule)
        XCTAssertEqual(operations[0]["data"], ["deletedInstances": 3])
        XCTAssertEqual(operations[1]["data"], ["deletedInstances": 0])
        XCTAssertEqual(operations[3]["data"]?["error"]?["status"], 400)
        XCTAssertEqual(operations[3]["data"]?["error"]?["extra"]?["field"], "price")
        XCTAssertEqual(operations[7]["data"]?["error"]?["status"], 404)
        XCTAssertEqual(operations[6]["data"]?["id"], "client-chosen-id")
        XCTAssertEqual(operations[8]["data"]?["name"], "Keep v3")
        XCTAssertNotNil(operations[8]["data"]?["deletedAt"]?.int64Value)
        XCTAssertEqual(
            answer.json["results"],
            [
                "total": ["total": 9, "success": 7, "failure": 2], "truncate": ["success": 2, "failure": 0],
                "create": ["success": 1, "failure": 1], "update": ["success": 1, "failure": 0],
                "createOrUpdate": ["success": 2, "failure": 0], "delete": ["success": 1, "failure": 1],
            ])
        let fixture = try Fixtures.load("android/halo-content/batchManipulation.json")
        assertSameShape(operations[2], as: try XCTUnwrap(fixture["operations"]?.arrayValue?[2]))
        assertSameShape(operations[3], as: try XCTUnwrap(fixture["operations"]?.arrayValue?[3]))
        assertSameShape(answer.json["results"] ?? nil, as: try XCTUnwrap(fixture["results"]))

        // A 409 inside a batch carries the current copy.
        let conflict = try await server.call(
            "POST", "/api/generalcontent/instance/batch", token: editor,
            body: .json([
                "updated": [["id": "client-chosen-id", "name": "late", "updatedAt": 1]],
                "createdOrUpdated": [["id": "client-chosen-id", "name": "bump"]],
            ]))
        let conflictOps = try XCTUnwrap(conflict.json["operations"]?.arrayValue)
        XCTAssertEqual(conflictOps[0]["success"], true, "the first update of an unedited instance has nothing to conflict with")
        let late = try await server.call(
            "POST", "/api/generalcontent/instance/batch", token: editor,
            body: .json(["updated": [["id": "client-chosen-id", "name": "late", "updatedAt": 1]]]))
        let lateOp = try XCTUnwrap(late.json["operations"]?.arrayValue?.first)
        XCTAssertEqual(lateOp["data"]?["error"]?["status"], 409)
        XCTAssertEqual(lateOp["data"]?["error"]?["extra"]?["name"], "bump")
        let readOnly = try await server.call("POST", "/api/generalcontent/instance/batch", token: reader, body: .json(body))
        assertEnvelope(readOnly, status: 403)
    }

    func testSyncReportsExactlyTheChangesOfEachWindow() async throws {
        let a = try await create("A", ["title": "a", "label": ["en-US": "Apple", "es-ES": "Manzana"]])
        let b = try await create("B", ["title": "b"])
        let c = try await create("C", ["title": "c"])
        let first = try await sync(["moduleName": "Products"])
        assertSameShape(first, as: try Fixtures.load("ios/from_sync.json"))
        assertSameShape(first, as: try Fixtures.load("android/halo-content/syncCreateModule.json"))
        XCTAssertEqual(
            Set(first["created"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []),
            Set([a, b, c].compactMap { $0["id"]?.stringValue }))
        XCTAssertEqual(first["updated"], [])
        XCTAssertEqual(first["deleted"], [])
        let t1 = try XCTUnwrap(first["syncTimestamp"]?.int64Value)

        // Nothing changed: three empty arrays (syncUpToDate.json).
        let idle = try await sync(["moduleId": .string(moduleId), "fromSync": .number(Double(t1))])
        XCTAssertEqual(idle["created"], [])
        XCTAssertEqual(idle["updated"], [])
        XCTAssertEqual(idle["deleted"], [])

        let d = try await create("D", ["title": "d"])
        let bId = try XCTUnwrap(b["id"]?.stringValue)
        let cId = try XCTUnwrap(c["id"]?.stringValue)
        _ = try await server.call("PUT", "/api/generalcontent/instance/\(bId)", token: editor, body: .json(["name": "B2"]))
        _ = try await server.call("DELETE", "/api/generalcontent/instance/\(cId)", token: editor)

        // iOS sends fractional milliseconds and a locale; Android sends toSync as well.
        let second = try await sync(["moduleId": .string(moduleId), "fromSync": .number(Double(t1) + 0.4), "locale": "es-ES"])
        XCTAssertEqual(second["created"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, [d["id"]?.stringValue].compactMap { $0 })
        XCTAssertEqual(second["updated"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["B2"])
        XCTAssertEqual(second["deleted"], [["id": .string(cId)]])
        let t2 = try XCTUnwrap(second["syncTimestamp"]?.int64Value)
        XCTAssertGreaterThanOrEqual(t2, t1)

        let toSync = try await sync(["moduleName": "Products", "fromSync": .number(Double(t2)), "toSync": .number(Double(t2 + 1))])
        // Echoed as HALO did; PostgreSQL clamps a toSync ahead of its watermark (t2: nothing was
        // written since) to the watermark, so no later write of another process can fall behind it.
        XCTAssertEqual(toSync["syncTimestamp"]?.int64Value, TestBackEnd.current == .sqlite ? t2 + 1 : t2)
        XCTAssertEqual(toSync["created"], [])

        let localized = try await sync(["moduleName": "Products", "locale": "es-ES"])
        let apple = localized["created"]?.arrayValue?.first { $0["id"] == a["id"] }
        XCTAssertEqual(apple?["values"]?["label"], "Manzana")

        let missing = try await server.call("POST", "/api/generalcontent/instance/sync", token: reader, body: .json(["moduleName": "Nope"]))
        assertEnvelope(missing, status: 404)
        let noModule = try await server.call("POST", "/api/generalcontent/instance/sync", token: reader, body: .json(["locale": "en-US"]))
        assertEnvelope(noModule, status: 400)
        let noToken = try await server.call("POST", "/api/generalcontent/instance/sync", body: .json(["moduleName": "Products"]))
        assertEnvelope(noToken, status: 401)
    }

    func testConcurrentWritersAllLand() async throws {
        let server = self.server!
        let editor = self.editor!
        let moduleId = self.moduleId!
        let ids = try await withThrowingTaskGroup(of: [String].self) { group in
            for writer in 0..<8 {
                group.addTask {
                    var ids: [String] = []
                    for index in 0..<10 {
                        let answer = try await server.call(
                            "POST", "/api/generalcontent/instance", token: editor,
                            body: .json([
                                "module": .string(moduleId), "name": .string("w\(writer)-\(index)"),
                                "values": ["price": .number(Double(index))],
                            ]))
                        XCTAssertEqual(answer.status, 200)
                        if let id = answer.json["id"]?.stringValue { ids.append(id) }
                    }
                    return ids
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        XCTAssertEqual(Set(ids).count, 80)
        let all = try await search(["moduleIds": [.string(moduleId)], "pagination": ["page": 1, "limit": 1]])
        XCTAssertEqual(all.json["pagination"]?["totalItems"], 80)
        let synced = try await sync(["moduleId": .string(moduleId)])
        XCTAssertEqual(synced["created"]?.arrayValue?.count, 80)
        let stamps = synced["created"]?.arrayValue?.compactMap { $0["createdAt"]?.int64Value } ?? []
        XCTAssertEqual(Set(stamps).count, 80, "the monotonic clock gives every write its own stamp")
    }

    func testBadInputGetsItsOwn4xx() async throws {
        let malformed = try await server.call(
            "POST", "/api/generalcontent/instance/search", token: reader,
            body: .raw(Data("{\"moduleIds\": [".utf8), contentType: "application/json"))
        XCTAssertTrue(assertEnvelope(malformed, status: 400).contains("Malformed JSON"))
        let wrongType = try await server.call(
            "POST", "/api/generalcontent/instance", token: editor, body: .raw(Data("name=x".utf8), contentType: "text/plain"))
        XCTAssertTrue(assertEnvelope(wrongType, status: 415).contains("application/json"))
        let notObject = try await server.call("POST", "/api/generalcontent/instance", token: editor, body: .json([1, 2]))
        assertEnvelope(notObject, status: 400)
        let noModule = try await server.call("POST", "/api/generalcontent/instance", token: editor, body: .json(["name": "x"]))
        XCTAssertTrue(assertEnvelope(noModule, status: 400).contains("module"))
        let unknownModule = try await server.call(
            "POST", "/api/generalcontent/instance", token: editor, body: .json(["module": "ffffffffffffffffffffffff", "name": "x"]))
        XCTAssertTrue(assertEnvelope(unknownModule, status: 400).contains("ffffffffffffffffffffffff"))
        let badDate = try await server.call(
            "POST", "/api/generalcontent/instance", token: editor,
            body: .json(["module": .string(moduleId), "name": "x", "publishedAt": "soon"]))
        XCTAssertTrue(assertEnvelope(badDate, status: 400).contains("publishedAt"))
        let badBatch = try await server.call("POST", "/api/generalcontent/instance/batch", token: editor, body: .json(["created": "x"]))
        assertEnvelope(badBatch, status: 400)
        let leaf: JSONValue = ["operation": "=", "property": "price", "value": 1]
        let deep = (0..<20).reduce(leaf) { node, _ in
            ["condition": "and", "operands": [node]]
        }
        let tooDeep = try await search(["searchValues": deep])
        assertEnvelope(tooDeep, status: 400)

        let small = try await TestServer.start(maxBodyBytes: 1024)
        let token = try await small.appToken()
        let huge = try await small.call(
            "POST", "/api/generalcontent/instance/search", token: token,
            body: .json(["moduleName": .string(String(repeating: "x", count: 4096))]))
        XCTAssertTrue(assertEnvelope(huge, status: 413).contains("1024"))
        await small.stop()
    }
}
