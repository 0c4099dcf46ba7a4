import Foundation
import HaloServer
import HaloServices
import XCTest

/// Runs the built `halo` executable against a real server, as a script would.
final class CLITests: XCTestCase {
    struct Run { let status: Int32; let stdout: String; let stderr: String }

    var server: FlowServer!
    var home: URL!

    override func setUp() async throws {
        server = try await FlowServer.start()
        home = server.directory.appendingPathComponent("home")
    }

    override func tearDown() async throws {
        await server?.stop()
    }

    var haloBinary: URL {
        get throws { try Self.haloBinary }
    }

    /// The `halo` binary next to the test bundle (same build products directory).
    static var haloBinary: URL {
        get throws {
            let candidates = [
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("halo"),
                Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("halo"),
                Bundle.main.bundleURL.appendingPathComponent("halo"),
            ]
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw HaloError.configuration(message: "halo binary not found next to the tests (build it with swift build --build-tests)")
            }
            return found
        }
    }

    func halo(_ arguments: [String], stdin: String? = nil, credentials: Bool = true, environment extra: [String: String] = [:]) throws
        -> Run
    {
        let process = Process()
        process.executableURL = try haloBinary
        var all = arguments
        if credentials {
            all += [
                "--server", server.baseURL.absoluteString, "--client-id", server.client.clientId, "--client-secret",
                server.client.clientSecret,
            ]
        }
        process.arguments = all
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// `halo module …`: a module created with its fields, instances saved, a field retyped (refused
    /// while a value would be lost, then with --clear-refused), renamed, reordered and removed, the
    /// module renamed and deleted; `halo modules` and the server agree at each step.
    func testModuleCommandsDesignAModuleThroughTheAPI() async throws {
        let added = try halo([
            "module", "add", "Shoes", "--field", "title:Text", "--field", "code:Text", "--field", "size:Single choice=S,M",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        let moduleId = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for (name, code) in [("Twelve", "12"), ("Word", "abc")] {
            let saved = try halo(["save", "--json"], stdin: #"{"module":"\#(moduleId)","name":"\#(name)","values":{"code":"\#(code)"}}"#)
            XCTAssertEqual(saved.status, 0, saved.stderr)
        }
        let refused = try halo(["module", "field", "type", "Shoes", "code", "Number"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stdout.contains("2 of 2 instances hold a value: 0 kept, 1 converted, 1 refused"), refused.stdout)
        XCTAssertTrue(refused.stderr.contains("export the module first"), refused.stderr)
        let retyped = try halo(["module", "field", "type", "Shoes", "code", "Number", "--clear-refused"])
        XCTAssertEqual(retyped.status, 0, retyped.stderr)
        XCTAssertEqual(try halo(["module", "field", "rename", "Shoes", "code", "sku"]).status, 0)
        XCTAssertEqual(try halo(["module", "field", "order", "Shoes", "size", "sku", "title"]).status, 0)
        let guarded = try halo(["module", "field", "remove", "Shoes", "sku"])
        XCTAssertTrue(guarded.stderr.contains("1 instances hold a value for 'sku'; pass --yes"), guarded.stderr)
        XCTAssertEqual(try halo(["module", "field", "remove", "Shoes", "title", "--yes"]).status, 0)

        let schema = try await server.server.admin.module(moduleId)
        XCTAssertEqual(schema.fields.map { "\($0.field.name):\($0.field.type.name)" }, ["size:Single choice", "sku:Number"])
        let search = try halo(["search", "--module-id", moduleId, "--filter", "sku = 12", "--json"])
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertEqual(try JSONValue(string: search.stdout)["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["Twelve"])

        XCTAssertEqual(try halo(["module", "rename", "Shoes", "Footwear"]).status, 0)
        XCTAssertTrue(try halo(["modules"]).stdout.contains("Footwear"))
        let deleted = try halo(["module", "delete", "Footwear"])
        XCTAssertEqual(deleted.stdout, "deleted Footwear and 2 instances\n", deleted.stderr)
        XCTAssertFalse(try halo(["modules"]).stdout.contains("Footwear"))
    }

    /// `halo export` / `halo import`: CSV with a column per field and per locale, formulas
    /// neutralised; a file with bad rows is refused with each row named and imports nothing; a
    /// good file imports; an export imported again changes nothing (CSV and JSON).
    func testExportAndImportRoundTrip() async throws {
        let moduleId = try await server.server.admin.addModule(
            ModuleSpec(
                name: "Menu",
                fields: [
                    ModuleField("dish", .localizedText), ModuleField("price", .number), ModuleField("vegan", .boolean),
                    ModuleField("since", .date, isDateOnly: true), ModuleField("allergens", .multipleChoice, choices: ["nuts", "gluten"]),
                    ModuleField("note", .text),
                ]))
        let good = FileManager.default.temporaryDirectory.appendingPathComponent("menu-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: good) }
        try Data(
            """
            name,dish[en-US],dish[es-ES],price,vegan,since,allergens,note
            Soup,Tomato soup,Sopa de tomate,4.5,true,2024-03-01,[],"Hot, spicy"
            Cake,Cake,Pastel,3,false,2023-12-24,"[""nuts"",""gluten""]",'=1+1

            """.utf8
        ).write(to: good)
        let imported = try halo(["import", "Menu", good.path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "2 created, 0 updated, 0 unchanged\n")

        let exported = try halo(["export", "Menu", "--format", "csv"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let lines = exported.stdout.components(separatedBy: "\r\n")
        XCTAssertEqual(lines[0], "id,name,dish[en-US],dish[es-ES],price,vegan,since,allergens,note")
        XCTAssertTrue(exported.stdout.contains(",4.5,true,2024-03-01,[],\"Hot, spicy\""), exported.stdout)
        XCTAssertTrue(exported.stdout.contains(",'=1+1"), "a formula is neutralised: \(exported.stdout)")
        let search = try halo(["search", "--module", "Menu", "--json"])
        let cake = try XCTUnwrap(try JSONValue(string: search.stdout)["items"]?.arrayValue?.first { $0["name"] == "Cake" })
        XCTAssertEqual(cake["values"]?["note"], "=1+1", "stored as typed; only the file neutralises it")
        XCTAssertEqual(cake["values"]?["allergens"], ["nuts", "gluten"])
        XCTAssertEqual(cake["values"]?["dish"]?["es-ES"], "Pastel")

        // The export imported again changes nothing, as CSV and as JSON.
        let roundTrip = good.deletingLastPathComponent().appendingPathComponent("menu-export-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: roundTrip) }
        try Data(exported.stdout.utf8).write(to: roundTrip)
        XCTAssertEqual(try halo(["import", "Menu", roundTrip.path]).stdout, "0 created, 0 updated, 2 unchanged\n")
        let json = roundTrip.deletingPathExtension().appendingPathExtension("json")
        defer { try? FileManager.default.removeItem(at: json) }
        XCTAssertEqual(try halo(["export", "Menu", "--output", json.path]).status, 0)
        XCTAssertNotNil(try JSONValue(data: Data(contentsOf: json))["createdOrUpdated"]?.arrayValue)
        let jsonImport = try halo(["import", "Menu", json.path])
        XCTAssertEqual(jsonImport.stdout, "0 created, 0 updated, 2 unchanged\n", jsonImport.stderr)

        // A module larger than one page is exported whole, each instance once.
        let big = try await server.server.admin.seedBenchmark(instances: 2_500, modules: 1)[0]
        let bigExport = try halo(["export", big, "--format", "json"])
        XCTAssertEqual(bigExport.status, 0, bigExport.stderr)
        let bigIds = try JSONValue(string: bigExport.stdout)["createdOrUpdated"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        XCTAssertEqual(bigIds.count, 2_500)
        XCTAssertEqual(Set(bigIds).count, 2_500, "pages neither skip nor repeat an instance")

        // Bad rows: each named by line and field; nothing imported.
        let bad = good.deletingLastPathComponent().appendingPathComponent("menu-bad-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: bad) }
        try Data("name,price,vegan\nTea,2,true\nCoffee,cheap,true\n,3,maybe\n".utf8).write(to: bad)
        let refused = try halo(["import", "Menu", bad.path])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("line 3, price: 'price' (Number) cannot hold \"cheap\""), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("line 4, name: 'name' is required"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("line 4, vegan:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was imported"), refused.stderr)
        let counts = try await server.server.admin.instanceCounts()
        XCTAssertEqual(counts[moduleId], 2, "Tea was not imported either")
        let unknownColumn = bad.deletingLastPathComponent().appendingPathComponent("menu-col-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: unknownColumn) }
        try Data("name,calories\nTea,2\n".utf8).write(to: unknownColumn)
        XCTAssertTrue(try halo(["import", "Menu", unknownColumn.path]).stderr.contains("Line 1: the column 'calories' is not a field"))
    }

    /// `halo save` / `halo delete` with an offline cache that cannot be opened (its folder's
    /// parent is a regular file: root ignores file modes, so a chmod would not do) or written
    /// (a read-only tmpfs, when this machine lets the tests mount one): the edit reaches the
    /// server, the command succeeds, and one warning line on stderr says the cache is unusable.
    func testEditsAreSentDirectlyWhenTheOfflineCacheIsUnusable() async throws {
        let moduleId = try await server.server.admin.addModule(ModuleSpec(name: "Notes", fields: [ModuleField("title", .text)]))
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let notAFolder = home.appendingPathComponent("cache-is-a-file")
        try Data("x".utf8).write(to: notAFolder)
        let warning = "halo: warning: the offline cache is unusable ("
        let suffix = "); the edit was sent directly\n"

        let saved = try halo(
            ["save", "--json"], stdin: #"{"module":"\#(moduleId)","name":"No cache","values":{"title":"a"}}"#,
            environment: ["XDG_CACHE_HOME": notAFolder.path])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertTrue(saved.stderr.hasPrefix(warning) && saved.stderr.hasSuffix(suffix), saved.stderr)
        XCTAssertEqual(saved.stderr.filter { $0 == "\n" }.count, 1, "one line on stderr")
        let id = try XCTUnwrap(try JSONValue(string: saved.stdout)["id"]?.stringValue)
        let get = try halo(["get", id, "--json"])
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(try JSONValue(string: get.stdout)["name"], "No cache", "the server has it")

        let deleted = try halo(["delete", id, "--json"], environment: ["XDG_CACHE_HOME": notAFolder.path])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertTrue(deleted.stderr.hasPrefix(warning) && deleted.stderr.hasSuffix(suffix), deleted.stderr)
        XCTAssertEqual(try halo(["get", id]).status, 3, "deleted on the server")

        // A cache that exists but sits on a read-only file system: it opens for reading only.
        guard let mount = try TmpfsMount.make(sizeKB: 4096) else { throw XCTSkip("mounting a tmpfs is not allowed here") }
        defer { mount.unmount() }
        let readOnly = ["XDG_CACHE_HOME": mount.directory.path]
        let first = try halo(
            ["save"], stdin: #"{"module":"\#(moduleId)","name":"With a cache","values":{"title":"b"}}"#, environment: readOnly)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stderr, "", "a usable cache: no warning")
        XCTAssertTrue(FileManager.default.fileExists(atPath: mount.directory.appendingPathComponent("halo-desk").path))
        try mount.remountReadOnly()
        let second = try halo(
            ["save", "--json"], stdin: #"{"module":"\#(moduleId)","name":"Read-only cache","values":{"title":"c"}}"#,
            environment: readOnly)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.hasPrefix(warning) && second.stderr.hasSuffix(suffix), second.stderr)
        let secondId = try XCTUnwrap(try JSONValue(string: second.stdout)["id"]?.stringValue)
        XCTAssertEqual(try JSONValue(string: try halo(["get", secondId, "--json"]).stdout)["name"], "Read-only cache")
    }

    func testScriptingCommandsAndExitCodes() async throws {
        let moduleId = try await server.server.admin.addModule(
            ModuleSpec(
                name: "Products",
                fields: [
                    ModuleField("title", .text), ModuleField("price", .number), ModuleField("inStock", .boolean),
                ]))
        try await server.server.admin.addUser(email: "dora@example.com", password: "dora-pass")

        let modules = try halo(["modules", "--json"])
        XCTAssertEqual(modules.status, 0, modules.stderr)
        XCTAssertEqual(try JSONValue(string: modules.stdout).arrayValue?.first?["id"]?.stringValue, moduleId)
        let table = try halo(["modules"])
        XCTAssertTrue(table.stdout.hasPrefix("ID"), table.stdout)
        XCTAssertTrue(table.stdout.contains("Products"))

        let saved = try halo(
            ["save", "--json"],
            stdin: """
                {"module":"\(moduleId)","name":"Dear abbey","values":{"title":"abbey","price":50,"inStock":false},"tags":[]}
                """)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let id = try XCTUnwrap(try JSONValue(string: saved.stdout)["id"]?.stringValue)

        let batch = try halo(
            ["batch"],
            stdin: """
                {"created":[{"module":"\(moduleId)","name":"Cheap","values":{"title":"xyz","price":1,"inStock":true}}]}
                """)
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertTrue(batch.stdout.contains("create"), batch.stdout)

        let search = try halo(["search", "--module", "Products", "--filter", "price >= 10 and (inStock = true or title like ab)", "--json"])
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertEqual(try JSONValue(string: search.stdout)["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, [id])
        // Metadata in the same expression (`meta.`), alone and with values; `--meta` adds to it.
        func names(_ arguments: [String]) throws -> [String] {
            let result = try halo(["search", "--module", "Products", "--json"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try JSONValue(string: result.stdout)["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted() ?? []
        }
        XCTAssertEqual(try names(["--filter", #"meta.name like "chea""#]), ["Cheap"])
        XCTAssertEqual(try names(["--filter", #"price >= 0 and meta.name like "abbe""#]), ["Dear abbey"])
        XCTAssertEqual(try names(["--filter", "price >= 0 and meta.deletedAt = null", "--meta", #"name like "chea""#]), ["Cheap"])
        let mixed = try halo(["search", "--filter", "price >= 10 or meta.name like abc"])
        XCTAssertEqual(mixed.status, 1)
        XCTAssertTrue(mixed.stderr.contains("The metadata condition at character 16"), mixed.stderr)
        let jsonFilter = try halo([
            "search", "--module", "Products", "--filter", #"{"operation":"<","property":"price","value":10,"type":"number"}"#,
        ])
        XCTAssertEqual(jsonFilter.status, 0, jsonFilter.stderr)
        XCTAssertTrue(jsonFilter.stdout.contains("Cheap") && !jsonFilter.stdout.contains("abbey"), jsonFilter.stdout)
        // --print-request prints the body and sends nothing; that body, sent as it is, finds the same.
        let printed = try halo(
            ["search", "--module", "Products", "--filter", "price >= 10 and (inStock = true or title like ab)", "--print-request"],
            credentials: false)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let body = try JSONValue(string: printed.stdout)
        XCTAssertEqual(body["moduleName"], "Products", printed.stdout)
        let (core, _) = server.makeCore()
        let sent = try JSONValue(
            data: try await core.perform(APIRequest(.post, "api/generalcontent/instance/search", body: .json(body))).body)
        XCTAssertEqual((sent["items"]?.arrayValue ?? sent.arrayValue ?? []).compactMap { $0["id"]?.stringValue }, [id])
        let badFilter = try halo(["search", "--filter", "price >>> 3"])
        XCTAssertEqual(badFilter.status, 1)
        XCTAssertTrue(badFilter.stderr.hasPrefix("halo: usage: Invalid filter"), badFilter.stderr)

        let get = try halo(["get", id, "--json"])
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(try JSONValue(string: get.stdout)["name"], "Dear abbey")
        let missing = try halo(["get", "000000000000000000000bad"])
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "halo: not found: Instance 000000000000000000000bad not found (HTTP 404)\n")

        let sync = try halo(["sync", "Products"])
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertTrue(sync.stdout.hasPrefix("created 2, updated 0, deleted 0"), sync.stdout)

        let deleted = try halo(["delete", id, "--json"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertNotNil(try JSONValue(string: deleted.stdout)["deletedAt"]?.doubleValue)
        XCTAssertEqual(try halo(["delete", "000000000000000000000bad"]).status, 3)

        let user = ["--user", "dora@example.com", "--password", "dora-pass"]
        let set = try halo(["pocket", "set"] + user, stdin: #"{"references":{"favorites":["a","b"]},"data":{"theme":"dark"}}"#)
        XCTAssertEqual(set.status, 0, set.stderr)
        let pocket = try halo(["pocket", "get", "--reference", "favorites"] + user)
        XCTAssertEqual(pocket.status, 0, pocket.stderr)
        XCTAssertEqual(
            try JSONValue(string: pocket.stdout), try JSONValue(string: #"{"references":{"favorites":["a","b"]},"data":{"theme":"dark"}}"#))
        let tooBig = try halo(["pocket", "set"] + user, stdin: #"{"data":{"x":"\#(String(repeating: "y", count: 2100))"}}"#)
        XCTAssertEqual(tooBig.status, 1)
        XCTAssertTrue(tooBig.stderr.contains("limit is 2000"), tooBig.stderr)

        // Exit codes scripts rely on.
        let wrongPassword = try halo(["pocket", "get", "--user", "dora@example.com", "--password", "nope"])
        XCTAssertEqual(wrongPassword.status, 2, wrongPassword.stderr)
        XCTAssertTrue(wrongPassword.stderr.hasPrefix("halo: auth: Login failed: "), wrongPassword.stderr)
        let badSecret = try halo(
            [
                "modules", "--server", server.baseURL.absoluteString, "--client-id", server.client.clientId,
                "--client-secret", "wrong",
            ], credentials: false)
        XCTAssertEqual(badSecret.status, 2, badSecret.stderr)
        XCTAssertTrue(badSecret.stderr.hasPrefix("halo: auth: "), badSecret.stderr)
        XCTAssertEqual(badSecret.stderr.filter { $0 == "\n" }.count, 1, "one line on stderr")
        let offline = try halo(
            ["modules", "--server", "http://127.0.0.1:9", "--client-id", "a", "--client-secret", "b"], credentials: false)
        XCTAssertEqual(offline.status, 5, offline.stderr)
        XCTAssertTrue(offline.stderr.hasPrefix("halo: network: "), offline.stderr)
        let remoteHTTP = try halo(
            ["modules", "--server", "http://example.com", "--client-id", "a", "--client-secret", "b"], credentials: false)
        XCTAssertEqual(remoteHTTP.status, 1, remoteHTTP.stderr)
        XCTAssertTrue(remoteHTTP.stderr.contains("loopback"), remoteHTTP.stderr)
        XCTAssertEqual(try halo(["frobnicate"], credentials: false).status, 1)
        XCTAssertEqual(try halo(["get"]).status, 1)
        let help = try halo(["--help"], credentials: false)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("Exit codes"), help.stdout)
    }
}
