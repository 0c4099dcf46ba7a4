import GRDB
import HaloContentStore

/// A row of `server_push_schedule`: a notification an editor sent or scheduled
/// (`POST /api/push/schedule/`, PROTOCOL §17.3). It goes out at `sendOn` as one `notification`
/// event on the live stream, addressed by `audience`; receipts, opens and dismissals come back
/// through the activity endpoint (`server_push_activity.schedule` = `id`).
struct PushScheduleRecord: ServerRecord {
    static let databaseTableName = "server_push_schedule"

    var id: String
    var appId: Int64
    var name: String
    /// When it is (or was) due, milliseconds.
    var sendOn: Int64
    /// When the event went out; nil while scheduled.
    var sentAt: Int64?
    /// When an editor withdrew it before it went out.
    var cancelledAt: Int64?
    /// `NotificationAudience` as JSON.
    var audienceJson: String
    /// The request's `payload` object (`notification` and `data`), as JSON.
    var payloadJson: String
    var createdBy: String
    var createdAt: Int64

    static let migration = StorageMigration(
        "server-v4-push-schedules",
        sqlite: { db in
            try db.create(table: databaseTableName) { t in
                t.primaryKey("id", .text)
                t.column("app_id", .integer).notNull()
                t.column("name", .text).notNull()
                t.column("send_on", .integer).notNull()
                t.column("sent_at", .integer)
                t.column("cancelled_at", .integer)
                t.column("audience_json", .text).notNull()
                t.column("payload_json", .text).notNull()
                t.column("created_by", .text).notNull()
                t.column("created_at", .integer).notNull()
            }
            // The scheduler asks "what is due and not sent" when something falls due.
            try db.create(
                index: "server_push_schedule_due", on: databaseTableName, columns: ["send_on"], condition: Column("sent_at") == nil)
            try db.create(
                index: "server_push_activity_schedule", on: PushActivityRecord.databaseTableName, columns: ["schedule", "action"])
            // A device's own secret for its notification stream (only its digest is kept).
            try db.alter(table: DeviceRecord.databaseTableName) { t in t.add(column: "stream_secret_digest", .text) }
            // Whom a notification event is for (nil for content events; their readers are `readers_json`).
            try db.alter(table: EventLog.table) { t in t.add(column: "audience_json", .text) }
        },
        postgres: StorageMigration.statements(
            """
            CREATE TABLE server_push_schedule (
                id \(PostgresTypes.text) PRIMARY KEY, app_id \(PostgresTypes.integer) NOT NULL, name \(PostgresTypes.text) NOT NULL, send_on \(PostgresTypes.integer) NOT NULL,
                sent_at \(PostgresTypes.integer), cancelled_at \(PostgresTypes.integer), audience_json \(PostgresTypes.text) NOT NULL, payload_json \(PostgresTypes.text) NOT NULL,
                created_by \(PostgresTypes.text) NOT NULL, created_at \(PostgresTypes.integer) NOT NULL)
            """,
            "CREATE INDEX server_push_schedule_due ON server_push_schedule(send_on) WHERE sent_at IS NULL",
            "CREATE INDEX server_push_activity_schedule ON server_push_activity(schedule, action)",
            "ALTER TABLE server_device ADD COLUMN stream_secret_digest \(PostgresTypes.text)",
            "ALTER TABLE server_event ADD COLUMN audience_json \(PostgresTypes.text)"))

    /// The schedules due at `now` that have not gone out (nor been withdrawn), oldest first.
    static func due(at now: Int64, in db: any SQLExecutor) throws -> [PushScheduleRecord] {
        try fetchAll(
            db,
            sql: """
                SELECT * FROM \(databaseTableName) WHERE sent_at IS NULL AND cancelled_at IS NULL AND send_on <= ?
                ORDER BY send_on, id
                """, now)
    }

    /// When the next schedule waiting to go out is due (nil: none is waiting).
    static func nextDue(in db: any SQLExecutor) throws -> Int64? {
        try db.fetchValue(
            Int64.self, "SELECT min(send_on) FROM \(databaseTableName) WHERE sent_at IS NULL AND cancelled_at IS NULL")
    }
}

/// Whom a notification is for (PROTOCOL §17.3 `appId`, `aliases`, `filterTags`), and the rule that
/// decides whether one device is among them: the devices of the app whose alias is listed, and
/// those carrying every listed tag; with neither list, every device of the app.
struct NotificationAudience: Sendable, Equatable {
    var appId: Int64
    var aliases: [String]
    /// Segmentation tag ids (a tag's id is derived from its name and value).
    var tagIds: [String]

    var isEveryone: Bool { aliases.isEmpty && tagIds.isEmpty }

    func includes(alias: String, appId deviceAppId: Int64, tagIds deviceTags: Set<String>) -> Bool {
        guard deviceAppId == appId else { return false }
        if isEveryone || aliases.contains(alias) { return true }
        return !tagIds.isEmpty && tagIds.allSatisfy(deviceTags.contains)
    }

    var json: String {
        JSONValue.object([
            "appId": .number(Double(appId)), "aliases": .array(aliases.map(JSONValue.string)),
            "tagIds": .array(tagIds.map(JSONValue.string)),
        ]).jsonString()
    }

    init(appId: Int64, aliases: [String], tagIds: [String]) {
        self.appId = appId
        self.aliases = aliases
        self.tagIds = tagIds
    }

    init(json: String) throws {
        let value = try JSONValue(string: json)
        appId = Int64(value["appId"]?.doubleValue ?? 0)
        aliases = value["aliases"]?.arrayValue?.compactMap(\.stringValue) ?? []
        tagIds = value["tagIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
