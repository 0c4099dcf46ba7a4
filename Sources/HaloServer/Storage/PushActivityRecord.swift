import HaloContentStore

/// A row of `server_push_activity`: a push notification's receipt, open or dismissal (§17.2).
/// The table's integer `id` is assigned by SQLite.
struct PushActivityRecord: ServerRecord {
    static let databaseTableName = "server_push_activity"

    var device: String
    var schedule: String
    var action: String
    var platform: String?
    var createdAt: Int64
}

/// `server_push_recipient`: the devices a notification was addressed to when it went out (its
/// audience, §17.3, resolved at that moment), so that activity (§17.2) counts only what happened.
enum PushRecipients {
    static let table = "server_push_recipient"

    /// Records the devices `audience` names now as the recipients of `schedule`.
    static func record(schedule: String, audience: NotificationAudience, in db: any SQLExecutor) throws {
        if audience.isEveryone {
            try db.execute(
                "INSERT INTO \(table) (schedule, device) SELECT ?, id FROM \(DeviceRecord.databaseTableName) WHERE app_id = ?",
                schedule, audience.appId)
            return
        }
        var condition = "app_id = ?"
        var bindings: [SQLValue] = [audience.appId.sqlValue]
        if audience.tagIds.isEmpty {
            // Only aliases: read just those devices (at most `PushSchedules.audienceLimit`).
            condition += " AND alias IN (\(Array(repeating: "?", count: audience.aliases.count).joined(separator: ",")))"
            bindings += audience.aliases.map(\.sqlValue)
        }
        let rows = try db.select(
            "SELECT id, alias, tags_json FROM \(DeviceRecord.databaseTableName) WHERE \(condition)", bindings: bindings)
        for row in rows {
            let tags = ((try? JSONValue(string: try row.get("tags_json", as: String.self)))?.arrayValue ?? [])
                .compactMap { $0["id"]?.stringValue }
            guard audience.includes(alias: try row.get("alias"), appId: audience.appId, tagIds: Set(tags)) else { continue }
            try db.execute("INSERT INTO \(table) (schedule, device) VALUES (?, ?)", schedule, try row.get("id", as: String.self))
        }
    }

    /// Whether `schedule` was addressed to the device `deviceId` when it went out.
    static func includes(schedule: String, deviceId: String, in db: any SQLExecutor) throws -> Bool {
        try db.fetchOne("SELECT 1 FROM \(table) WHERE schedule = ? AND device = ?", schedule, deviceId) != nil
    }

    /// Notifications record whom they went to. Those sent before this step recorded nobody: activity
    /// reported for them is refused (404), as their audience when sent is no longer known.
    static let migration = StorageMigration(
        "server-v10-push-recipients",
        sqlite: { db in try db.execute(sql: statement(text: "TEXT")) },
        postgres: StorageMigration.statements(statement(text: PostgresTypes.text)))

    private static func statement(text: String) -> String {
        "CREATE TABLE server_push_recipient (schedule \(text) NOT NULL, device \(text) NOT NULL, PRIMARY KEY (schedule, device))"
    }
}
