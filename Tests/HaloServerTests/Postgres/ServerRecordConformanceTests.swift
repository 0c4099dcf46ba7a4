import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer

/// The server's records (`server_*` tables: clients, users, tokens, pockets, devices, modules,
/// events, push schedules, import staging) run one scenario on SQLite and on PostgreSQL: every
/// answer of the second must be the answer of the first.
final class ServerRecordConformanceTests: XCTestCase {
    func testEveryRecordAnswersTheSameOnSQLiteAndPostgreSQL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("records-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try ServerDatabase.open(directory: directory)
        let onSQLite = try await sqlite.write { db in try Self.scenario(db) }

        let cluster = try PostgresCluster.shared()
        let storage = try cluster.storageOnNewDatabase(maximumConnections: 2)
        defer { storage.close() }
        try await PostgresMigrator.migrate(storage, to: ServerDatabase.migrations)
        let onPostgres = try await storage.write { db in try Self.scenario(db) }

        XCTAssertGreaterThan(onSQLite.count, 30)
        for (index, (expected, actual)) in zip(onSQLite, onPostgres).enumerated() {
            XCTAssertEqual(actual, expected, "answer \(index)")
        }
        XCTAssertEqual(onPostgres.count, onSQLite.count)
    }

    /// Writes and reads through the records; returns each answer as text.
    private static func scenario(_ db: any SQLExecutor) throws -> [String] {
        var answers = [String]()
        func note(_ value: Any?) { answers.append(value.map { "\($0)" } ?? "nil") }

        // Clients and users; emails match without case.
        try ClientRecord(id: "app", secretHash: "hash", name: "App", editor: false, createdAt: 1).insert(db)
        note(try ClientRecord.secretHash(clientId: "app", in: db))
        note(try ClientRecord.secretHash(clientId: "none", in: db))
        let ann = UserRecord(
            id: "u1", email: "Ann@Example.com", passwordHash: "pw", network: "halo", socialSubject: nil, name: "Ann",
            surname: "Lee", displayName: "", photoUrl: "", editor: true, deviceAlias: nil, createdAt: 2)
        try ann.insert(db)
        try UserRecord(
            id: "u2", email: nil, passwordHash: nil, network: "google", socialSubject: "g-42", name: "", surname: "",
            displayName: "Bo", photoUrl: "", editor: false, deviceAlias: nil, createdAt: 3
        ).insert(db)
        note(try UserRecord.exists(email: "ann@EXAMPLE.com", in: db))
        note(try UserRecord.exists(email: "bob@example.com", in: db))
        note(try UserRecord.passwordAccount(email: "ANN@example.com", in: db).map { "\($0.id) \($0.passwordHash)" })
        note(try UserRecord.socialAccountId(network: "google", subject: "g-42", in: db))
        note(try UserRecord.account(email: "ann@example.com", in: db)?.surname)
        try UserRecord.setDeviceAlias("desk", userId: "u1", in: db)
        note(try UserRecord.find(id: "u1", in: db)?.deviceAlias)
        var edited = try XCTUnwrap(try UserRecord.find(id: "u2", in: db))
        edited.email = "bo@example.com"
        try edited.update(db)
        note(try UserRecord.find(id: "u2", in: db)?.email)

        // Tokens: issue, authenticate, refresh (rotation), revoke.
        let tokens = TokenService(lifetimeMilliseconds: 3_600_000)
        let appToken = try tokens.issue(clientId: "app", userId: nil, in: db)
        let userToken = try tokens.issue(clientId: "app", userId: "u1", in: db)
        for token in [appToken, userToken] {
            let principal = try tokens.authenticate(authorization: "Bearer \(token.accessToken)", in: db)
            note("\(principal.clientId ?? "-") \(principal.userId ?? "-") \(principal.canEdit) \(principal.displayName)")
        }
        let refreshed = try XCTUnwrap(try tokens.refresh(userToken.refreshToken, clientId: "app", in: db))
        note(try tokens.refresh(userToken.refreshToken, clientId: "app", in: db) == nil)
        for authorization in ["Bearer \(userToken.accessToken)", "Bearer \(refreshed.accessToken)", "Bearer nope", "Basic x"] {
            do {
                note(try tokens.authenticate(authorization: authorization, in: db).userId)
            } catch {
                note(error)
            }
        }
        note(try tokens.revoke(accessToken: refreshed.accessToken, in: db))
        note(try tokens.revoke(accessToken: "unknown", in: db))

        // Pockets: empty, saved, replaced (the revision grows).
        note(try PocketRecord.pocket(userId: "u1", in: db).revision)
        var pocket = PocketRecord.Pocket()
        pocket.data = ["theme": "dark", "n": 3]
        pocket.references = ["favourites": ["a", "b"]]
        pocket = try PocketRecord.save(pocket, userId: "u1", at: 10, in: db)
        pocket.data["n"] = 4
        pocket = try PocketRecord.save(pocket, userId: "u1", at: 11, in: db)
        let stored = try PocketRecord.pocket(userId: "u1", in: db)
        note("\(stored.revision) \(JSONValue.object(stored.data).jsonString()) \(JSONValue.object(stored.references).jsonString())")

        // Devices.
        var device = DeviceRecord(
            id: "d1", alias: "desk", appId: 1, email: nil, devicesJson: "[]", tagsJson: #"[{"id":"t1"}]"#, createdAt: 5,
            updatedAt: 5)
        try device.insert(db)
        note(try DeviceRecord.owner(ofAlias: "desk", in: db))
        device.streamSecretDigest = "digest"
        device.updatedAt = 6
        try device.update(db)
        let found = try DeviceRecord.find(id: "d1", in: db)
        note("\(found?.streamSecretDigest ?? "-") \(found?.updatedAt ?? 0) \(found?.tagIds.sorted() ?? [])")

        // Modules (rows written as the designer writes them) and the catalog's reads.
        try db.execute(
            "INSERT INTO server_module (id, name, is_single, tags_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", "m1",
            "News", false, "[]", 7, 7)
        try db.execute(
            "INSERT INTO server_module (id, name, is_single, tags_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", "m2",
            "banners", true, "[]", 8, 9)
        try FieldRecord(
            id: "f1", moduleId: "m1", position: 0, name: "title", description: "", formatJson: "{}", fieldType: "localizedText",
            createdAt: 7
        ).insert(db)
        note(try ModuleCatalog.all(in: db).map { "\($0.id) \($0.name) \($0.isSingle)" })
        note(try ModuleCatalog.ids(named: "News", in: db))
        note(try ModuleCatalog.localizedFieldNames(in: db))
        do { _ = try ModuleCatalog.checkedName(" News ", in: db) } catch { note(error) }
        note(try ModuleCatalog.checkedName(" News ", except: "m1", in: db))
        try ModuleCatalog.markChanged("m1", renamingTo: "Stories", at: 12, by: "Ann", in: db)
        note(try ModuleCatalog.module(id: "m1", in: db).map { "\($0.name) \($0.updatedAt)" })

        // The event log: ids in order, the backlog, pruning.
        note(try EventLog.latestId(in: db))
        for stamp in Int64(20)...22 {
            try EventLog.recordContentChange(.updated, module: "m1", instance: "i\(stamp)", by: "Ann", at: stamp, in: db)
        }
        note(try EventLog.latestId(in: db))
        if case .events(let events) = try EventLog.backlog(after: 1, limit: 10, in: db) { note(events.map(\.id)) }
        note(try EventLog.events(ids: [3, 1], in: db).map(\.createdAt))
        note(try EventLog.hasEvents(before: 21, in: db))
        note(try EventLog.prune(before: 21, in: db))
        if case .reset(let latest) = try EventLog.backlog(after: 0, limit: 10, in: db) { note("reset \(latest)") }

        // Push schedules.
        for (id, sendOn) in [("s1", Int64(100)), ("s2", 50)] {
            try PushScheduleRecord(
                id: id, appId: 1, name: id, sendOn: sendOn, sentAt: nil, cancelledAt: nil, audienceJson: "{}", payloadJson: "{}",
                createdBy: "Ann", createdAt: 1
            ).insert(db)
        }
        note(try PushScheduleRecord.nextDue(in: db))
        note(try PushScheduleRecord.due(at: 100, in: db).map(\.id))
        try PushActivityRecord(device: "d1", schedule: "s1", action: "receipt", platform: "linux", createdAt: 2).insert(db)
        try PushActivityRecord(device: "d1", schedule: "s1", action: "receipt", platform: nil, createdAt: 3).insert(db)
        note(try PushSchedules.activityCounts(of: ["s1", "s2"], in: db))

        // Import staging.
        try ImportStaging.create(id: "imp", moduleId: "m1", owner: "u1", at: 30, in: db)
        try ImportStaging.addRow(line: 1, instanceId: "i1", json: "{}", to: "imp", in: db)
        try ImportStaging.addRow(line: 2, instanceId: nil, json: "[]", to: "imp", in: db)
        let record = try XCTUnwrap(try ImportStaging.find(id: "imp", in: db))
        try ImportStaging.record(added: 2, problems: ["bad"], keep: 10, in: record, in: db)
        note(try ImportStaging.find(id: "imp", in: db).map { "\($0.rows) \($0.problemCount) \($0.problems)" })
        note(try ImportStaging.rows(of: "imp", after: 0, limit: 10, in: db).map { "\($0.line) \($0.json)" })
        note(try ImportStaging.line(staging: "i1", in: "imp", in: db))
        note(try ImportStaging.hasLine(2, in: "imp", in: db))
        try ImportStaging.pruneStarted(before: 31, in: db)
        note(try ImportStaging.find(id: "imp", in: db) == nil)
        return answers
    }
}
