import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `halo-server` child process killed with SIGKILL in the middle of a large batch leaves
/// all of the batch or none of it (one transaction per request).
final class CrashTests: XCTestCase {
    func testKillMidBatchLeavesAllOrNothing() async throws {
        let binary = try ChildServer.builtBinary()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await TestBackEnd.current.admin(for: directory)
        let moduleId = try await setup.addModule(
            ModuleSpec(name: "Crash", fields: [ModuleField("title", .text), ModuleField("price", .number)]))
        let client = try await setup.addClient(editor: true)

        let child = try ChildServer(binary: binary, directory: directory)
        defer { child.kill() }
        let base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(try child.waitForPort())"))
        let session = URLSession(configuration: .ephemeral)
        let token = try await Self.token(base, client, session)

        let count = 15_000
        let created = (0..<count).map { index -> JSONValue in
            [
                "module": .string(moduleId), "name": .string("item \(index)"),
                "values": ["title": .string("t\(index)"), "price": .number(Double(index))],
            ]
        }
        var request = URLRequest(url: base.appendingPathComponent("api/generalcontent/instance/batch"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = JSONValue.object(["created": .array(created)]).data(sortedKeys: false)
        let batch = Task { try await session.data(for: request) }

        // Kill once the batch's transaction is under way: on SQLite its pages start spilling into
        // the WAL; on PostgreSQL it holds the write lock (and has written for a moment).
        let wal = directory.appendingPathComponent("halo.sqlite-wal")
        let initialWAL = Self.size(wal)
        let deadline = Date().addingTimeInterval(30)
        if TestBackEnd.current == .sqlite {
            while Self.size(wal) < initialWAL + 2_000_000 && Date() < deadline {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        } else {
            while try !PostgresDatabases.writeInProgress(for: directory) && Date() < deadline {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            try await Task.sleep(nanoseconds: 300_000_000)
        }
        child.kill()
        let outcome = await batch.result
        if case .success(let (_, response)) = outcome {
            XCTFail("the batch finished before the kill (status \((response as? HTTPURLResponse)?.statusCode ?? 0)); make it larger")
        }

        let after = try await TestBackEnd.current.admin(for: directory)
        let stored = try await after.instanceCounts()[moduleId] ?? 0
        XCTAssertTrue(stored == 0 || stored == count, "a killed batch left \(stored) of \(count) instances")
        XCTAssertEqual(stored, 0, "killed before commit, so nothing of it may remain")
    }

    private static func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    static func token(_ base: URL, _ client: ClientCredentials, _ session: URLSession) async throws -> String {
        var request = URLRequest(url: base.appendingPathComponent("api/oauth/token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            TestServer.formEncode([
                ("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret),
            ]).utf8)
        let (data, _) = try await session.data(for: request)
        return try XCTUnwrap(try JSONValue(data: data)["access_token"]?.stringValue)
    }
}
