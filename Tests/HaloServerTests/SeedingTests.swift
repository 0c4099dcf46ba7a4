import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// Demo and benchmark seeding, and streamed sync over many chunks.
final class SeedingTests: XCTestCase {
    func testDemoWorkspaceIsUsableWithPrintedCredentials() async throws {
        let server = try await TestServer.start()
        let credentials = try await server.admin.seedDemo()
        let token = try await server.token(for: ClientCredentials(clientId: credentials.clientId, clientSecret: credentials.clientSecret))
        let modules = try await server.call("GET", "/api/generalcontent/module?skip=true&withFields=true", token: token)
        let moduleList: [JSONValue] = modules.json.arrayValue ?? []
        let names = Set(moduleList.compactMap { $0["name"]?.stringValue })
        let expected: Set<String> = ["Articles", "Products", "Events", "Translations"]
        XCTAssertTrue(expected.isSubset(of: names), "\(names)")
        let fields: [JSONValue] = moduleList.flatMap { module -> [JSONValue] in module["fields"]?.arrayValue ?? [] }
        let types = Set(fields.compactMap { field -> String? in field["fieldType"]?["id"]?.stringValue })
        XCTAssertEqual(types.count, 21, "every field type is used")
        let counts = try await server.admin.instanceCounts()
        XCTAssertGreaterThanOrEqual(counts.values.reduce(0, +), 300)

        // Drafts exist next to published items; the translations sync per locale into key → text.
        let drafts = try await server.call(
            "POST", "/api/generalcontent/instance/search", token: token,
            body: .json([
                "moduleName": "Articles", "metaSearch": ["operation": "=", "property": "publishedAt", "value": nil, "type": "null"],
            ]))
        XCTAssertGreaterThan(drafts.json["pagination"]?["totalItems"]?.int64Value ?? 0, 0)
        let translations = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: token, body: .json(["moduleName": "Translations", "locale": "nl-NL"]))
        let createdTranslations: [JSONValue] = translations.json["created"]?.arrayValue ?? []
        let pairs = Dictionary(
            createdTranslations.compactMap { item -> (String, String)? in
                guard let key = item["values"]?["key"]?.stringValue, let value = item["values"]?["value"]?.stringValue else { return nil }
                return (key, value)
            }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(pairs["sign_in"], "Inloggen")

        let basic = Data("\(credentials.editorEmail):\(credentials.editorPassword)".utf8).base64EncodedString()
        let editorToken = try await server.call(
            "POST", "/api/oauth/token?_user", body: .form([("grant_type", "password")]), headers: ["Authorization": "Basic \(basic)"])
        XCTAssertEqual(editorToken.status, 200)
        await server.stop()
    }

    func testBenchmarkSeedIsDeterministicAndSyncStreamsManyChunks() async throws {
        let server = try await TestServer.start()
        let other = try await TestServer.start()
        let moduleIds = try await server.admin.seedBenchmark(instances: 1_234, modules: 1, seed: 42)
        let sameIds = try await other.admin.seedBenchmark(instances: 1_234, modules: 1, seed: 42)
        XCTAssertEqual(moduleIds, sameIds)
        let token = try await server.appToken(editor: true)
        let otherToken = try await other.appToken()

        let full = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: token, body: .json(["moduleId": .string(moduleIds[0])]))
        let otherFull = try await other.call(
            "POST", "/api/generalcontent/instance/sync", token: otherToken, body: .json(["moduleId": .string(moduleIds[0])]))
        let created = try XCTUnwrap(full.json["created"]?.arrayValue, "the streamed body is one valid JSON document")
        XCTAssertEqual(created.count, 1_234)
        XCTAssertEqual(created, otherFull.json["created"]?.arrayValue, "same seed, same data")
        let sample = try XCTUnwrap(created.first)
        XCTAssertNotNil(sample["values"]?["price"]?.doubleValue)
        XCTAssertNotNil(sample["values"]?["inStock"]?.boolValue)
        XCTAssertNotNil(sample["values"]?["title"]?.stringValue)
        let averageValuesSize = created.map { ($0["values"] ?? nil).data().count }.reduce(0, +) / created.count
        XCTAssertTrue((600...800).contains(averageValuesSize), "values average \(averageValuesSize) bytes")

        let t1 = try XCTUnwrap(full.json["syncTimestamp"]?.int64Value)
        let truncate = try await server.call(
            "POST", "/api/generalcontent/instance/batch", token: token, body: .json(["truncated": [["module": .string(moduleIds[0])]]]))
        XCTAssertEqual(truncate.json["operations"]?.arrayValue?.first?["data"], ["deletedInstances": 1_234])
        let incremental = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: token,
            body: .json(["moduleId": .string(moduleIds[0]), "fromSync": .number(Double(t1))]))
        XCTAssertEqual(incremental.json["deleted"]?.arrayValue?.count, 1_234)
        XCTAssertEqual(incremental.json["created"], [])
        XCTAssertEqual(incremental.json["updated"], [])
        await server.stop()
        await other.stop()
    }

    /// `seed --fields 50`: the 8 search fields, then mixed types with choices, each instance holding a value of each.
    func testBenchmarkSeedWithManyFields() async throws {
        let server = try await TestServer.start()
        let module = try await server.admin.seedBenchmark(instances: 12, modules: 1, fields: 50)[0]
        let token = try await server.appToken()
        let answer = try await server.call("GET", "/api/generalcontent/module/\(module)?withFields=true", token: token)
        let fields = try XCTUnwrap(answer.json["fields"]?.arrayValue)
        XCTAssertEqual(fields.count, 50)
        XCTAssertEqual(fields.prefix(8).compactMap { $0["name"]?.stringValue }, HaloServerAdmin.benchmarkFields.map(\.name))
        XCTAssertEqual(
            fields[8...13].compactMap { $0["name"]?.stringValue },
            ["text9", "number10", "boolean11", "date12", "singleChoice13", "longText14"])
        XCTAssertEqual(fields[12]["format"]?["values"], ["red", "green", "blue", "black"])
        let synced = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: token, body: .json(["moduleId": .string(module)]))
        let created = try XCTUnwrap(synced.json["created"]?.arrayValue)
        XCTAssertEqual(created.count, 12)
        XCTAssertEqual(created.first?["values"]?.objectValue?.count, 50)
        await server.stop()
    }
}
