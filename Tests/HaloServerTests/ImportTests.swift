import Foundation
import GRDB
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Imports (our extension, docs/protocol.md §23.11): rows staged in chunks and checked as they
/// arrive, bad rows named by line and field, all or nothing at commit, ids update or create,
/// an import of what is stored changes nothing, and a killed server leaves no instance behind.
final class ImportTests: XCTestCase {
    var server: TestServer!
    var editor: String!
    var moduleId: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        editor = try await server.appToken(editor: true)
        moduleId = try await server.admin.addModule(
            ModuleSpec(
                name: "Books",
                fields: [
                    ModuleField("title", .text), ModuleField("pages", .number), ModuleField("out", .date, isDateOnly: true),
                    ModuleField("genres", .multipleChoice, choices: ["fantasy", "history", "poetry"]),
                ]))
    }

    override func tearDown() async throws {
        await server?.stop()
    }

    @discardableResult
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil, token: String? = nil, status: Int = 200) async throws -> JSONValue
    {
        try await server.expect(method, path, body, token: token ?? editor, status: status)
    }

    func start() async throws -> String {
        let started = try await call("POST", "/api/generalcontent/module/\(moduleId!)/import")
        return try XCTUnwrap(started["importId"]?.stringValue)
    }

    func stage(_ importId: String, _ rows: [(Int, JSONValue)]) async throws -> JSONValue {
        try await call(
            "POST", "/api/generalcontent/import/\(importId)/rows",
            ["rows": .array(rows.map { ["line": .number(Double($0.0)), "instance": $0.1] })])
    }

    func instances() async throws -> [JSONValue] {
        try await call(
            "POST", "/api/generalcontent/instance/search",
            ["moduleIds": [.string(moduleId)], "pagination": ["skip": true], "sort": "name asc"]
        ).arrayValue ?? []
    }

    func testRowsAreCheckedAsTheyArriveAndCommittedAllOrNothing() async throws {
        // Bad rows are named by line and field; good rows of the same chunk are staged.
        let bad = try await start()
        let answer = try await stage(
            bad,
            [
                (2, ["name": "Dune", "values": ["title": "Dune", "pages": "412", "out": "1965-08-01", "genres": #"["fantasy"]"#]]),
                (3, ["name": "Broken", "values": ["pages": "many"]]),
                (4, ["name": "", "values": ["title": "No name"]]),
                (5, ["name": "Odd", "values": ["author": "Nobody", "genres": "cooking"]]),
            ])
        XCTAssertEqual(answer["staged"], 1)
        let problems = (answer["problems"]?.arrayValue ?? []).map {
            "\($0["line"]?.int64Value ?? 0) \($0["field"]?.stringValue ?? "-")"
        }
        XCTAssertEqual(problems, ["3 pages", "4 name", "5 author", "5 genres"])
        let refused = try await call("POST", "/api/generalcontent/import/\(bad)/commit", status: 400)
        XCTAssertEqual(refused["error"]?["extra"]?["problemCount"], 4)
        XCTAssertTrue(refused["error"]?["message"]?.stringValue?.contains("nothing was imported") ?? false)
        let afterRefusal = try await instances()
        XCTAssertEqual(afterRefusal.count, 0, "all or nothing")
        try await call("DELETE", "/api/generalcontent/import/\(bad)")
        try await call("POST", "/api/generalcontent/import/\(bad)/commit", status: 404)

        // A good import: text cells become typed values; ids update or create with that id.
        let existing = try await call(
            "POST", "/api/generalcontent/instance", ["module": .string(moduleId), "name": "Emma", "values": ["title": "Emma"]])
        let emmaId = try XCTUnwrap(existing["id"]?.stringValue)
        let good = try await start()
        let staged = try await stage(
            good,
            [
                (1, ["name": "Dune", "values": ["title": "Dune", "pages": "412", "out": "1965-08-01", "genres": #"["fantasy"]"#]]),
                (2, ["id": .string(emmaId), "name": "Emma", "values": ["title": "Emma", "pages": 474]]),
                (3, ["id": "odyssey-1", "name": "Odyssey", "values": ["title": "Odyssey", "genres": "poetry"]]),
            ])
        XCTAssertEqual(staged["problems"], [])
        // Another editor cannot touch it.
        let other = try await server.appToken(editor: true)
        try await call("POST", "/api/generalcontent/import/\(good)/commit", token: other, status: 404)
        let outcome = try await call("POST", "/api/generalcontent/import/\(good)/commit")
        XCTAssertEqual(outcome, ["created": 2, "updated": 1, "unchanged": 0])
        let listed = try await instances()
        let stored = Dictionary(uniqueKeysWithValues: listed.compactMap { item in item["name"]?.stringValue.map { ($0, item) } })
        XCTAssertEqual(stored["Dune"]?["values"]?["pages"], 412)
        XCTAssertEqual(stored["Dune"]?["values"]?["out"], .number(-139_449_600_000), "1965-08-01 at 00:00 UTC")
        XCTAssertEqual(stored["Dune"]?["values"]?["genres"], ["fantasy"])
        XCTAssertEqual(stored["Emma"]?["values"]?["pages"], 474)
        XCTAssertEqual(stored["Odyssey"]?["id"], "odyssey-1")
        XCTAssertEqual(stored["Odyssey"]?["values"]?["genres"], ["poetry"])

        // Importing what is stored changes nothing (no new stamp for sync).
        let sync = try await call("POST", "/api/generalcontent/instance/sync", ["moduleId": .string(moduleId)])
        let stamp = try XCTUnwrap(sync["syncTimestamp"]?.doubleValue)
        let again = try await start()
        let current = try await instances()
        let rows = current.enumerated().map { index, item -> (Int, JSONValue) in (index + 1, item) }
        let restaged = try await stage(again, rows)
        XCTAssertEqual(restaged["problems"], [])
        let second = try await call("POST", "/api/generalcontent/import/\(again)/commit")
        XCTAssertEqual(second, ["created": 0, "updated": 0, "unchanged": 3])
        let delta = try await call(
            "POST", "/api/generalcontent/instance/sync", ["moduleId": .string(moduleId), "fromSync": .number(stamp)])
        XCTAssertEqual(delta["updated"]?.arrayValue?.count, 0)
        XCTAssertEqual(delta["created"]?.arrayValue?.count, 0)

        // Readers may not import.
        let reader = try await server.appToken()
        try await call("POST", "/api/generalcontent/module/\(moduleId!)/import", token: reader, status: 403)
    }

    /// An import at least as large as the store rebuilds the search indexes once at its end
    /// (`ContentTables.withSecondaryIndexesDeferred`); a smaller one updates them row by row.
    /// Either way, searches by value and by `like` answer from the new rows at once.
    func testSearchesFindImportedRowsWhetherTheIndexesWereRebuiltOrUpdated() async throws {
        func importBooks(_ numbers: ClosedRange<Int>) async throws {
            let importId = try await start()
            let rows = numbers.map { number -> (Int, JSONValue) in
                let values: JSONValue = ["title": .string("Volume \(number) of the saga"), "pages": .number(Double(number))]
                return (number - numbers.lowerBound + 1, ["name": .string("Book \(number)"), "values": values])
            }
            let staged = try await stage(importId, rows)
            XCTAssertEqual(staged["problems"], [])
            let outcome = try await call("POST", "/api/generalcontent/import/\(importId)/commit")
            XCTAssertEqual(outcome["created"]?.int64Value, Int64(numbers.count))
        }
        func names(where operation: String, _ property: String, is value: JSONValue) async throws -> [String] {
            let answer = try await call(
                "POST", "/api/generalcontent/instance/search",
                [
                    "moduleIds": [.string(moduleId)], "pagination": ["skip": true],
                    "searchValues": ["operation": .string(operation), "property": .string(property), "value": value],
                ])
            return (answer.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        }
        func indexNames() throws -> Set<String> {
            // Only SQLite drops and rebuilds indexes for a large import.
            guard TestBackEnd.current == .sqlite else { return [] }
            let database = try DatabaseQueue(path: server.directory.appendingPathComponent("halo.sqlite").path)
            return Set(try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'") })
        }
        let indexesBefore = try indexNames()

        try await importBooks(1...300)  // into an empty store: the indexes are rebuilt at the end
        try await importBooks(301...310)  // into 300 stored instances: updated row by row
        XCTAssertEqual(try indexNames(), indexesBefore, "every index is back after the rebuild")
        for first in [1, 301] {
            let byValue = try await names(where: "=", "pages", is: .number(Double(first + 5)))
            XCTAssertEqual(byValue, ["Book \(first + 5)"])
            let byLike = try await names(where: "like", "title", is: .string("volume \(first + 7) of"))
            XCTAssertEqual(byLike, ["Book \(first + 7)"])
        }
    }

    func testAKilledServerLeavesNoImportedInstanceBehind() async throws {
        let binary = try ChildServer.builtBinary()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-import-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await TestBackEnd.current.admin(for: directory)
        let module = try await setup.addModule(ModuleSpec(name: "Notes", fields: [ModuleField("body", .text)]))
        let client = try await setup.addClient(editor: true)
        let first = try ChildServer(binary: binary, directory: directory)
        defer { first.kill() }
        let port = try first.waitForPort()
        let base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)"))
        let session = URLSession(configuration: .ephemeral)
        func call(_ method: String, _ path: String, token: String? = nil, body: HTTPBody? = nil) async throws -> HTTPAnswer {
            try await TestServer.call(method, path, baseURL: base, session: session, token: token, body: body)
        }
        let granted = try await call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret)]))
        let token = try XCTUnwrap(granted.json["access_token"]?.stringValue)
        let started = try await call("POST", "/api/generalcontent/module/\(module)/import", token: token)
        let importId = try XCTUnwrap(started.json["importId"]?.stringValue)
        for chunk in 0..<5 {
            let rows: [JSONValue] = (1...1_000).map { index in
                let line = chunk * 1_000 + index
                return ["line": .number(Double(line)), "instance": ["name": .string("Note \(line)"), "values": ["body": "text"]]]
            }
            let answer = try await call(
                "POST", "/api/generalcontent/import/\(importId)/rows", token: token, body: .json(["rows": .array(rows)]))
            XCTAssertEqual(answer.status, 200)
        }
        first.kill()  // before the commit: 5,000 rows staged

        let admin = try await TestBackEnd.current.admin(for: directory)
        let counts = try await admin.instanceCounts()
        XCTAssertEqual(counts[module] ?? 0, 0, "staged rows are not instances")
        let second = try ChildServer(binary: binary, directory: directory, port: port)
        defer { second.kill() }
        _ = try second.waitForPort()
        let search = try await call(
            "POST", "/api/generalcontent/instance/search", token: token,
            body: .json(["moduleIds": [.string(module)], "pagination": ["page": 1, "limit": 1]]))
        XCTAssertEqual(search.json["pagination"]?["totalItems"], 0)
    }
}
