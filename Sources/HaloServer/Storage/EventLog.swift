import Foundation
import GRDB
import HaloContentStore

/// The server's live events (our extension, docs/protocol.md §23.3), stored so that a client
/// that reconnects with `Last-Event-ID` receives what it missed, even across a server restart.
///
/// An event is written in the same transaction as the change it reports, so an event exists
/// exactly when its change committed, and ids (AUTOINCREMENT: never reused, and rolled-back
/// inserts do not advance them) follow commit order. Events older than the retention are pruned;
/// ids below the oldest kept one are then unknown, and a client asking for them gets `reset`.
enum EventLog {
    static let table = "server_event"

    /// What happened to an instance, in the words the stream uses.
    enum Change: String, Sendable {
        case created, updated, deleted
        /// Every instance of a module was deleted at once (truncate): one event, not thousands.
        case moduleCleared = "module-cleared"
        /// The module's name or fields changed (§23.10): read it and its instances again.
        case moduleChanged = "module-changed"
        /// The module was deleted, its instances with it.
        case moduleDeleted = "module-deleted"
    }

    /// One stored event, as streamed.
    struct Event: Sendable, Equatable {
        var id: Int64
        /// `content` (an instance or module changed).
        var kind: String
        /// The event's JSON payload.
        var data: String
        /// When it was recorded (milliseconds).
        var createdAt: Int64
        /// For a `notification`, whom it is for (`NotificationAudience` JSON); nil for events every
        /// stream carries.
        var audience: String? = nil
        /// For a `content` event, who may read the instance (`ContentReaders` JSON); nil: every token.
        var readers: String? = nil
    }

    /// Who may learn of a content change: the same rule as reading the instance. Drafts (never
    /// published, before and after the change) are editors' working material; a segmented
    /// instance reaches a device's stream only when the device carries one of its tags (HALO's
    /// partial segmentation; untagged instances are for everyone). Editors read everything.
    struct ContentReaders: Sendable, Equatable {
        var editorsOnly: Bool
        /// Segmentation tag ids of the instance, before and after the change.
        var tagIds: [String]

        /// The readers of a change from `before` (nil: created) to `after`; nil when every token may read it.
        init?(before: WireInstance?, after: WireInstance) {
            editorsOnly = (before ?? after).publishedAt == nil && after.publishedAt == nil
            var ids: [String] = []
            for tag in (before?.tags ?? []) + after.tags {
                let id = SegmentationTags.normalized(tag).id ?? ""
                if !ids.contains(id) { ids.append(id) }
            }
            tagIds = ids
            if !editorsOnly && tagIds.isEmpty { return nil }
        }

        init(json: String) throws {
            let value = try JSONValue(string: json)
            editorsOnly = value["editorsOnly"]?.boolValue ?? true
            tagIds = value["tagIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }

        var json: String {
            JSONValue.object(["editorsOnly": .bool(editorsOnly), "tagIds": .array(tagIds.map(JSONValue.string))]).jsonString()
        }

        /// Whether a non-editor stream reads it; `deviceTags` nil when the stream has no device credential
        /// (such a token may search every segment).
        func admit(deviceTags: Set<String>?) -> Bool {
            if editorsOnly { return false }
            guard let deviceTags, !tagIds.isEmpty else { return true }
            return tagIds.contains(where: deviceTags.contains)
        }
    }

    /// The answer to "what comes after id N".
    enum Backlog: Sendable, Equatable {
        /// Events after N, oldest first (maybe none).
        case events([Event])
        /// N is older than the retention, or not an id of this server: the client must resync.
        case reset(latestId: Int64)
    }

    static let migration = StorageMigration(
        "server-v2-events",
        sqlite: { db in
            try db.create(table: table) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull()
                t.column("module_id", .text)
                t.column("data_json", .text).notNull()
                t.column("created_at", .integer).notNull().indexed()
            }
        },
        postgres: StorageMigration.statements(
            """
            CREATE TABLE server_event (
                id \(PostgresTypes.generatedKey), kind \(PostgresTypes.text) NOT NULL, module_id \(PostgresTypes.text),
                data_json \(PostgresTypes.text) NOT NULL, created_at \(PostgresTypes.integer) NOT NULL)
            """,
            "CREATE INDEX server_event_on_created_at ON server_event(created_at)"))

    static let readersMigration = StorageMigration(
        "server-v5-event-readers",
        sqlite: { db in
            try db.alter(table: table) { t in t.add(column: "readers_json", .text) }
        },
        postgres: StorageMigration.statements("ALTER TABLE server_event ADD COLUMN readers_json \(PostgresTypes.text)"))

    /// Records a content change, inside the transaction that made it.
    static func recordContentChange(
        _ change: Change, module: String, instance: String?, readers: ContentReaders? = nil, by actor: String, at stamp: Int64,
        in db: any SQLExecutor
    ) throws {
        var payload: [String: JSONValue] = [
            "change": .string(change.rawValue), "module": .string(module), "by": .string(actor), "at": .number(Double(stamp)),
        ]
        if let instance { payload["instance"] = .string(instance) }
        try insert(
            "INSERT INTO \(table) (kind, module_id, data_json, readers_json, created_at) VALUES ('content', ?, ?, ?, ?)",
            [.text(module), .text(JSONValue.object(payload).jsonString()), readers?.json.sqlValue ?? .null, .integer(stamp)], in: db)
    }

    /// Records a notification going out (`data`: the payload the SDKs read, PROTOCOL §17.1), for
    /// the devices of `audience` only.
    static func recordNotification(data: JSONValue, audience: NotificationAudience, at stamp: Int64, in db: any SQLExecutor) throws {
        try insert(
            "INSERT INTO \(table) (kind, data_json, audience_json, created_at) VALUES ('notification', ?, ?, ?)",
            [.text(data.jsonString()), .text(audience.json), .integer(stamp)], in: db)
    }

    /// The PostgreSQL channel that carries the id of each event to every server process when its
    /// transaction commits (`PostgresEventListener`). Ids only: the rows stay the source.
    static let notificationChannel = "halo_events"

    /// Inserts one event. On PostgreSQL it also notifies `notificationChannel` with its id, which
    /// PostgreSQL delivers at commit (and drops on rollback). SQLite's broker observes the commit.
    private static func insert(_ sql: String, _ bindings: [SQLValue], in db: any SQLExecutor) throws {
        guard db.dialect == .postgres else {
            try db.run(sql, bindings: bindings)
            return
        }
        let id = try db.select(sql + " RETURNING id", bindings: bindings).first?.get(at: 0, as: Int64.self)
        try db.execute("SELECT pg_notify(?, ?)", notificationChannel, String(id ?? 0))
    }

    /// The id of the newest event (0 when none was ever written).
    static func latestId(in db: any SQLExecutor) throws -> Int64 {
        switch db.dialect {
        case .sqlite: try db.fetchValue(Int64.self, "SELECT seq FROM sqlite_sequence WHERE name = ?", table) ?? 0
        // The identity column's sequence: its last value once it handed one out.
        case .postgres:
            try db.fetchValue(Int64.self, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \(table)_id_seq") ?? 0
        }
    }

    /// At most `limit` events after `lastId`, or `reset` when `lastId` cannot be resumed from.
    static func backlog(after lastId: Int64, limit: Int, in db: any SQLExecutor) throws -> Backlog {
        let latest = try latestId(in: db)
        if lastId > latest { return .reset(latestId: latest) }
        if lastId < latest {
            // Ids only disappear by pruning: a gap right after `lastId` means events were lost to it.
            let oldest = try db.fetchValue(Int64.self, "SELECT min(id) FROM \(table)") ?? latest + 1
            if oldest > lastId + 1 { return .reset(latestId: latest) }
        }
        return .events(
            try fetch(
                db, "SELECT id, kind, data_json, created_at, audience_json, readers_json FROM \(table) WHERE id > ? ORDER BY id LIMIT ?",
                [lastId.sqlValue, limit.sqlValue])
        )
    }

    /// The events with these ids, oldest first.
    static func events(ids: [Int64], in db: any SQLExecutor) throws -> [Event] {
        guard !ids.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        return try fetch(
            db, "SELECT id, kind, data_json, created_at, audience_json, readers_json FROM \(table) WHERE id IN (\(marks)) ORDER BY id",
            ids.map(\.sqlValue))
    }

    private static func fetch(_ db: any SQLExecutor, _ sql: String, _ arguments: [SQLValue]) throws -> [Event] {
        try db.select(sql, bindings: arguments).map { row in
            Event(
                id: try row.get("id"), kind: try row.get("kind"), data: try row.get("data_json"),
                createdAt: try row.get("created_at"), audience: try row.get("audience_json"), readers: try row.get("readers_json"))
        }
    }

    /// Whether any event is stamped before `cutoff` (milliseconds): a read before pruning, so an
    /// idle server does not write every heartbeat.
    static func hasEvents(before cutoff: Int64, in db: any SQLExecutor) throws -> Bool {
        try db.fetchValue(Bool.self, "SELECT EXISTS (SELECT 1 FROM \(table) WHERE created_at < ?)", cutoff) ?? false
    }

    /// Deletes the events stamped before `cutoff` (milliseconds). Ids follow commit order and
    /// stamps come from the monotonic clock, so this removes a prefix of the log.
    @discardableResult
    static func prune(before cutoff: Int64, in db: any SQLExecutor) throws -> Int {
        try db.execute("DELETE FROM \(table) WHERE created_at < ?", cutoff)
    }
}
