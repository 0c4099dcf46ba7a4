import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// Starting, stopping and restarting the in-process server (the app's local workspace).
final class LifecycleTests: XCTestCase {
    func testBusyPortFailsFastAndDataSurvivesRestart() async throws {
        let first = try await TestServer.start()
        let token = try await first.appToken(editor: true)
        let moduleId = try await first.admin.addModule(ModuleSpec(name: "Keep", fields: []))
        let created = try await first.call(
            "POST", "/api/generalcontent/instance", token: token, body: .json(["module": .string(moduleId), "name": "persisted"]))
        let stamp = try XCTUnwrap(created.json["createdAt"]?.int64Value)

        // The same port again: start must throw, not hang.
        let clash = FileManager.default.temporaryDirectory.appendingPathComponent("halo-clash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: clash) }
        do {
            let second = try await HaloServerInstance.start(
                HaloServerConfiguration(port: first.server.port, dataDirectory: clash, logRequests: false))
            await second.stop()
            XCTFail("a second server bound the same port")
        } catch {}

        await first.stop(removeData: false)
        let refused = try? await first.call("GET", "/api/authentication/version")
        XCTAssertNil(refused, "a stopped server must not answer")

        // Restart on the same directory: the token and the instance are still there, and new
        // stamps stay above the stored ones.
        let again = try await TestServer.start(directory: first.directory)
        let found = try await again.call(
            "POST", "/api/generalcontent/instance/search", token: token, body: .json(["moduleName": "Keep", "pagination": ["skip": true]]))
        XCTAssertEqual(found.json.arrayValue?.first?["name"], "persisted")
        let later = try await again.call(
            "POST", "/api/generalcontent/instance", token: token, body: .json(["module": .string(moduleId), "name": "later"]))
        XCTAssertGreaterThan(later.json["createdAt"]?.int64Value ?? 0, stamp)
        await again.stop()
    }
}
