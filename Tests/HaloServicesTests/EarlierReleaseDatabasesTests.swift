import Foundation
import GRDB
import HaloServer
import XCTest

@testable import HaloServices

/// Databases made by the release before the storage changes (commit 2fd2e5d, see
/// `Tests/Fixtures/databases/README.md`) open with today's code and keep all their data: a local
/// workspace (server database) and an offline cache with pending edits, which still reach the
/// server.
final class EarlierReleaseDatabasesTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/databases")
    static let client = ClientCredentials(clientId: "J1UHh7bdHXtZoj6fS99LlWWi", clientSecret: "KDdF6gkFKgLYQXQcgyWBOyQs8ohtbVAHENC5O4ju")
    static let products = "6b05056e93bdb32122a85513"

    /// Decompresses fixture `name` to `destination`.
    static func unpack(_ name: String, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", folder.appendingPathComponent(name).path]
        XCTAssertTrue(FileManager.default.createFile(atPath: destination.path, contents: nil))
        let output = try FileHandle(forWritingTo: destination)
        gzip.standardOutput = output
        try gzip.run()
        gzip.waitUntilExit()
        try output.close()
        XCTAssertEqual(gzip.terminationStatus, 0, "gzip -dc \(name)")
    }

    /// A server on the earlier release's workspace database (a copy).
    func startWorkspaceServer() async throws -> OfflineTestServer {
        let directory = try temporaryDirectory("earlier-workspace")
        try Self.unpack("local-workspace-2fd2e5d.sqlite.gz", to: directory.appendingPathComponent("halo.sqlite"))
        return try await OfflineTestServer.start(directory: directory, client: Self.client)
    }

    func testALocalWorkspaceOfTheEarlierReleaseOpensWithAllItsData() async throws {
        let server = try await startWorkspaceServer()
        defer { Task { await server.stop() } }

        // Content: every instance of the five demo modules.
        let counts = try await server.admin.instanceCounts()
        XCTAssertEqual(counts.values.reduce(0, +), 360)
        XCTAssertEqual(counts.count, 5)
        let found = try await server.call(
            "POST", "api/generalcontent/instance/search",
            ["moduleIds": [.string(Self.products)], "searchValues": ["operation": "like", "property": "title", "value": "orchid"]])
        XCTAssertGreaterThan(found["pagination"]?["totalItems"]?.doubleValue ?? 0, 0, "search (and its trigram index) works")

        // Accounts: the stored app client and both users still sign in; the reader's pocket is there.
        let core = try server.core()
        let login = try await core.auth.login(
            authProfile: AuthProfile(email: "reader@example.com", password: "reader-password-1"), stayLoggedIn: false)
        XCTAssertEqual(login.userProfile.email, "reader@example.com")
        let pocket = try await core.auth.getPocket()
        XCTAssertEqual(pocket.data, ["theme": "dark", "favourites": 3])
        XCTAssertEqual(pocket.references["saved"], ["a1", "b2"])
        let editorGrant = try await OfflineTestServer.send(
            HTTPRequest(
                method: .post, url: server.baseURL.appendingPathComponent("api/oauth/token"),
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("grant_type=password&username=editor%40halo.local&password=oiJZyC75I7tVYogN".utf8)))
        XCTAssertNotNil(try JSONValue(data: editorGrant)["access_token"]?.stringValue)
    }

    func testAnOfflineCacheOfTheEarlierReleaseKeepsItsPendingEditsAndSendsThem() async throws {
        let server = try await startWorkspaceServer()
        defer { Task { await server.stop() } }
        // Edits go out as the workspace's editor, as the app sends them.
        var configuration = try server.sdkConfiguration()
        configuration.userCredentials = Credentials(username: "editor@halo.local", password: "oiJZyC75I7tVYogN")
        let core = CoreManager(configuration: configuration)
        core.numberOfRetries = 0
        core.authenticationMode = .user
        // The cache file of this server, where the SDK looks for it.
        try Self.unpack(
            "offline-cache-2fd2e5d.sqlite.gz", to: CacheLocation.file(for: server.baseURL, in: core.configuration.cacheDirectory))

        let outbox = try core.content.outbox()
        let waiting = try outbox.pending()
        XCTAssertEqual(waiting.map(\.kind), [.update, .delete, .create])
        // The cache of the days of one cache per server became the signed-in account's, and its
        // edits moved out of it, to user data under $XDG_DATA_HOME, on this first start.
        let earlierFile = CacheLocation.file(for: server.baseURL, in: core.configuration.cacheDirectory)
        XCTAssertEqual(
            try core.offlineCache().file,
            CacheLocation.file(for: server.baseURL, account: "editor@halo.local", in: core.configuration.cacheDirectory))
        XCTAssertFalse(FileManager.default.fileExists(atPath: earlierFile.path), "adopted, not copied")
        let outboxFile = CacheLocation.outboxFile(for: server.baseURL, account: "editor@halo.local", in: core.configuration.dataDirectory)
        XCTAssertEqual(try core.offlineCache().outboxFile, outboxFile)
        XCTAssertTrue(outboxFile.path.hasPrefix(core.configuration.dataDirectory.path))
        let moved = try DatabaseQueue(path: outboxFile.path)
        let movedCount = try await moved.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_entry") }
        XCTAssertEqual(movedCount, 3)
        try moved.close()
        XCTAssertEqual(
            try core.offlineCache().searchLocally(body: ["moduleIds": [.string(Self.products)], "pagination": ["skip": true]])
                .instances.count,
            150 + 1 - 1, "the synced copy with the edits applied locally (one created, one deleted)")

        let report = try await outbox.flush()
        XCTAssertEqual(report.sent.count, 3, "conflicts \(report.conflicts.map(\.state)) failed \(report.failed.map(\.state))")
        XCTAssertEqual(try outbox.entries(), [])
        let onServer = try await server.instances(moduleIds: [Self.products])
        let names = Set(onServer.compactMap { $0["name"]?.stringValue })
        XCTAssertTrue(names.contains("Renamed offline"))
        XCTAssertTrue(names.contains("Created offline"))
        XCTAssertFalse(onServer.contains { $0["id"]?.stringValue == "871d5eace98183d474e4da5c" }, "the deletion arrived")
        XCTAssertEqual(onServer.count, 150)
    }

    /// Once opened, both files have today's schema to the character: snake_case columns only, and
    /// the tables, indexes and triggers of files created today (a bulk load drops and re-creates
    /// the content indexes by name from today's definitions, so they must match exactly).
    func testDatabasesOfTheEarlierReleaseEndWithTheSchemaOfNewOnes() async throws {
        let earlier = try await startWorkspaceServer()
        await earlier.stop()
        let fresh = try await OfflineTestServer.start()
        await fresh.stop()
        let earlierServer = try Self.schema(of: earlier.directory.appendingPathComponent("halo.sqlite"))
        XCTAssertEqual(earlierServer, try Self.schema(of: fresh.directory.appendingPathComponent("halo.sqlite")))
        Self.assertSnakeCase(earlierServer, expecting: ["content_instance": ["created_at", "deleted_by", "customer_id"]])

        let cacheFile = try temporaryDirectory("earlier-cache").appendingPathComponent("cache.sqlite")
        try Self.unpack("offline-cache-2fd2e5d.sqlite.gz", to: cacheFile)
        try HaloCache(file: cacheFile).close()
        let freshCache = try temporaryCache()
        try freshCache.close()
        let earlierCache = try Self.schema(of: cacheFile)
        XCTAssertEqual(earlierCache, try Self.schema(of: freshCache.file))
        Self.assertSnakeCase(
            earlierCache,
            expecting: [
                "content_instance": ["updated_at", "published_at"], "cache_sync_state": ["sync_key", "first_sync_in_progress"],
                "cache_sync_log": ["module_name", "sync_date"], "cache_response": ["stored_at"],
            ])
        XCTAssertNil(earlierCache.columns["cache_outbox"], "pending edits moved to their own file")
        XCTAssertNil(earlierCache.columns["cache_outbox_base"])
        let earlierOutbox = try Self.schema(of: HaloCache(file: cacheFile).outboxFile)
        XCTAssertEqual(earlierOutbox, try Self.schema(of: freshCache.outboxFile))
        Self.assertSnakeCase(
            earlierOutbox,
            expecting: [
                "outbox_entry": ["instance_id", "base_updated_at", "queued_at", "server_copy", "last_error"],
                "outbox_base": ["instance_id"],
            ])
        XCTAssertTrue(
            earlierCache.objects.contains(
                "index content_instance_deleted on content_instance: "
                    + "CREATE INDEX content_instance_deleted ON content_instance(deleted_at) WHERE deleted_at IS NOT NULL"))
    }

    /// What `sqlite_master` holds (one line per table, index, trigger and view) and the columns of
    /// every table.
    struct Schema: Equatable {
        var objects: [String]
        var columns: [String: [String]]
    }

    static func schema(of file: URL) throws -> Schema {
        let queue = try DatabaseQueue(path: file.path)
        defer { try? queue.close() }
        return try queue.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT type, name, tbl_name, coalesce(sql, '') AS sql FROM sqlite_master ORDER BY type, name")
            var columns: [String: [String]] = [:]
            for row in rows where row["type"] as String == "table" {
                let table: String = row["name"]
                columns[table] = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                    .map { $0["name"] }
            }
            let objects = rows.map { row -> String in
                let (type, name, table, sql): (String, String, String, String) = (row["type"], row["name"], row["tbl_name"], row["sql"])
                return "\(type) \(name) on \(table): \(sql)"
            }
            return Schema(objects: objects, columns: columns)
        }
    }

    /// Every column of our tables is snake_case, and `expecting` names some of them.
    static func assertSnakeCase(_ schema: Schema, expecting: [String: [String]], line: UInt = #line) {
        for (table, columns) in schema.columns where ["content_", "cache_", "server_", "outbox_"].contains(where: table.hasPrefix) {
            for column in columns where column.contains(where: \.isUppercase) {
                XCTFail("\(table).\(column) is not snake_case", line: line)
            }
        }
        for (table, columns) in expecting {
            XCTAssertTrue(Set(columns).isSubset(of: schema.columns[table] ?? []), "\(table): \(schema.columns[table] ?? [])", line: line)
        }
    }
}
