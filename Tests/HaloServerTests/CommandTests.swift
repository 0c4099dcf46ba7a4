import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

/// The `halo-server` command's administration subcommands, run as child processes.
final class CommandTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("halo-server")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw NSError(domain: "CommandTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "halo-server not built at \(binary.path)"])
        }
        let process = Process()
        let output = Pipe()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = TestBackEnd.current.childEnvironment
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testServeRefusesUnknownOrInvalidLimits() throws {
        let unknown = try run(["serve", "--limit", "bogus=3", "--port", "0"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.output.contains("Unknown limit 'bogus'") && unknown.output.contains("sync-streams-per-token"), unknown.output)
        let invalid = try run(["serve", "--limit", "search-page-size=0", "--port", "0"])
        XCTAssertNotEqual(invalid.status, 0)
        XCTAssertTrue(invalid.output.contains("search-page-size needs a whole number of at least 1"), invalid.output)
        var configuration = HaloServerConfiguration(dataDirectory: URL(fileURLWithPath: "/nonexistent"))
        try configuration.setLimit("stall-timeout=7")
        try configuration.setLimit("search-like-pattern=50")
        try configuration.setLimit("login-account-failures=3")
        try configuration.setLimit("password-hashing=2")
        try configuration.setLimit("search-memory-bytes=0")  // 0 turns the searches' copies off
        XCTAssertEqual(configuration.limits.stallTimeout, .seconds(7))
        XCTAssertEqual(configuration.limits.searchMemoryBytes, 0)
        XCTAssertEqual(configuration.limits.search.likePattern, 50)
        XCTAssertEqual(configuration.loginThrottle.accountFailureLimit, 3)
        XCTAssertEqual(configuration.passwordHashingConcurrency, 2)
    }

    func testSeedClientAndUserCommands() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-cmd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try TestBackEnd.current.dataOptions(for: directory)
        let seeded = try run(["seed", "--instances", "120", "--modules", "3", "--seed", "9"] + data)
        XCTAssertEqual(seeded.status, 0, seeded.output)
        XCTAssertTrue(seeded.output.contains("Seeded 120 instances in 3 modules"), seeded.output)

        let client = try run(["client", "add", "--editor"] + data)
        XCTAssertEqual(client.status, 0, client.output)
        let words = client.output.split(whereSeparator: \.isWhitespace).map(String.init)
        let clientId = try XCTUnwrap(words.firstIndex(of: "id:").map { words[$0 + 1] })
        let secret = try XCTUnwrap(words.firstIndex(of: "secret:").map { words[$0 + 1] })
        let user = try run(["user", "add", "--email", "cli@example.com", "--password", "cli-password"] + data)
        XCTAssertEqual(user.status, 0, user.output)
        XCTAssertTrue(user.output.contains("identified-"))
        let duplicate = try run(["user", "add", "--email", "cli@example.com", "--password", "x"] + data)
        XCTAssertNotEqual(duplicate.status, 0)
        XCTAssertTrue(duplicate.output.contains("already exists"), duplicate.output)
        let wrong = try run(["seed"] + data)
        XCTAssertNotEqual(wrong.status, 0)

        // What the commands wrote is served: the client's token lists 120 instances.
        let server = try await TestServer.start(directory: directory)
        let token = try await server.token(for: ClientCredentials(clientId: clientId, clientSecret: secret))
        let all = try await server.call(
            "POST", "/api/generalcontent/instance/search", token: token, body: .json(["pagination": ["page": 1, "limit": 1]]))
        XCTAssertEqual(all.json["pagination"]?["totalItems"], 120)
        await server.stop(removeData: false)
    }

    /// `client add --app-id`: the client's devices belong to that HALO app (§23.12), and an app
    /// id below 1 is refused before anything is written.
    func testClientAddNamesItsApp() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-cmd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try TestBackEnd.current.dataOptions(for: directory)
        let refused = try run(["client", "add", "--app-id", "0"] + data)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.output.contains("--app-id must be a whole number from 1"), refused.output)
        let client = try run(["client", "add", "--app-id", "2"] + data)
        XCTAssertEqual(client.status, 0, client.output)
        let words = client.output.split(whereSeparator: \.isWhitespace).map(String.init)
        let clientId = try XCTUnwrap(words.firstIndex(of: "id:").map { words[$0 + 1] })
        let secret = try XCTUnwrap(words.firstIndex(of: "secret:").map { words[$0 + 1] })

        let server = try await TestServer.start(directory: directory)
        let token = try await server.token(for: ClientCredentials(clientId: clientId, clientSecret: secret))
        let device = try await server.call("POST", "/api/segmentation/appuser", token: token, body: .json([:]))
        XCTAssertEqual(device.status, 200, "\(device.json)")
        XCTAssertEqual(device.json["appId"], 2)
        let app1 = try await server.call("POST", "/api/segmentation/appuser", token: token, body: .json(["appId": 1]))
        XCTAssertEqual(app1.status, 400, "\(app1.json)")
        await server.stop(removeData: false)
    }

    func testModuleCommandsDesignModulesWithTheAPIsRules() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-cmd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try TestBackEnd.current.dataOptions(for: directory)
        let added = try run(
            ["module", "add", "Shoes", "--field", "title:Text", "--field", "size:Single choice=S,M,L", "--field", "code:Text"] + data)
        XCTAssertEqual(added.status, 0, added.output)
        // Two instances, saved through the API by an editor client.
        let server = try await TestServer.start(directory: directory)
        let moduleId = try await server.admin.module("Shoes").id
        let token = try await server.appToken(editor: true)
        for (name, code) in [("Twelve", "12"), ("Word", "abc")] {
            let answer = try await server.call(
                "POST", "/api/generalcontent/instance", token: token,
                body: .json(["module": .string(moduleId), "name": .string(name), "values": ["code": .string(code)]]))
            XCTAssertEqual(answer.status, 200)
        }
        await server.stop(removeData: false)

        let refused = try run(["module", "field", "type", "Shoes", "code", "Number"] + data)
        XCTAssertNotEqual(refused.status, 0, "a value would be lost")
        XCTAssertTrue(refused.output.contains("1 converted, 1 refused") && refused.output.contains("\"abc\""), refused.output)
        XCTAssertTrue(refused.output.contains("export the module first"), refused.output)
        let cleared = try run(["module", "field", "type", "Shoes", "code", "Number", "--clear-refused"] + data)
        XCTAssertEqual(cleared.status, 0, cleared.output)
        XCTAssertEqual(try run(["module", "field", "rename", "Shoes", "code", "sku"] + data).status, 0)
        XCTAssertEqual(try run(["module", "field", "order", "Shoes", "sku", "size", "title"] + data).status, 0)
        let listed = try run(["module", "list"] + data)
        XCTAssertTrue(
            listed.output.contains("Shoes  (\(moduleId), 2 instances)\n  sku: Number\n  size: Single choice = S, M, L\n  title: Text"),
            listed.output)
        let guarded = try run(["module", "delete", "Shoes"] + data)
        XCTAssertNotEqual(guarded.status, 0)
        XCTAssertTrue(guarded.output.contains("pass --yes"), guarded.output)
        let deleted = try run(["module", "delete", "Shoes", "--yes"] + data)
        XCTAssertTrue(deleted.output.contains("deleted Shoes and 2 instances"), deleted.output)
    }
}
