import Foundation
import HaloContentStore

/// Sending notifications (PROTOCOL §17.3, on the live stream instead of Firebase): an editor's
/// `POST /api/push/schedule/` checked into a schedule, a due schedule turned into its
/// `notification` event, and the history with receipt, open and dismiss counts.
enum PushSchedules {
    /// The `payload.notification` keys carried to devices (§17.1); the rest of HALO's keys
    /// (localisation keys, Android's `tag`) are stored with the schedule but not used on desktops.
    static let notificationKeys = ["title", "body", "icon", "sound", "badge", "color", "click_action"]
    /// The `payload.data` keys carried to devices; `module` and `instance` (our extension) link the
    /// notification to an instance.
    static let dataKeys = ["url", "content_available", "type", "code", "module", "instance", "image"]
    /// Most aliases or tags one notification may name.
    static let audienceLimit = 1_000

    /// A request body, checked: everything wrong is a 400 naming the key.
    struct Input: Sendable {
        var appId: Int64
        var name: String
        var sendOn: Int64?
        var audience: NotificationAudience
        var payload: JSONValue

        init(_ body: [String: JSONValue]) throws {
            guard let appId = try body.optionalInteger("appId", in: 0...Int64(Int32.max)) else {
                throw APIError.badRequest("'appId' is required")
            }
            self.appId = appId
            name = try body.requiredString("name", maxLength: 200)
            sendOn = try body.optionalMilliseconds("sendOn")
            let aliases = try Self.list(body, "aliases") { item -> String in
                guard let alias = item.stringValue, !alias.isEmpty, alias.count <= 200 else {
                    throw APIError.badRequest("'aliases' must hold device aliases (strings)")
                }
                return alias
            }
            let tagIds = try Self.list(body, "filterTags") { item -> String in
                if let id = item["id"]?.stringValue, !id.isEmpty { return id }
                guard let name = item["name"]?.stringValue, !name.isEmpty else {
                    throw APIError.badRequest("'filterTags' must hold tags as {\"id\"} or {\"name\", \"value\"}")
                }
                return SegmentationTags.id(name: name, value: item["value"].flatMap(\.stringValue) ?? "")
            }
            audience = NotificationAudience(appId: appId, aliases: aliases, tagIds: tagIds)
            guard case .object(let payload)? = body["payload"] else { throw APIError.badRequest("'payload' must be an object") }
            let notification = try Self.object(payload, "notification")
            let data = try Self.object(payload, "data")
            let silent = data["content_available"].map { $0 == .string("1") || $0 == .number(1) || $0 == .bool(true) } ?? false
            let twoFactor = data["type"]?.stringValue?.uppercased() == "2_FACTOR"
            if !silent && !twoFactor && (notification["title"]?.stringValue ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                throw APIError.badRequest(
                    "'payload.notification.title' is required (a silent notification sets 'payload.data.content_available')")
            }
            for key in ["title", "body"] {
                if let text = notification[key]?.stringValue, text.count > 1_000 {
                    throw APIError.badRequest("'payload.notification.\(key)' is longer than 1000 characters")
                }
            }
            if let url = data["url"], url != .null, !(url.stringValue.map(WebAddress.isValid) ?? false) {
                throw APIError.badRequest("'payload.data.url' must be an http or https address")
            }
            if data["instance"] != nil && data["module"] == nil {
                throw APIError.badRequest("'payload.data.instance' needs its 'payload.data.module'")
            }
            // Every device stream receives it: bounded as a whole, not only its title and body.
            let bytes = PushLimits.payloadBytes(.object(payload))
            guard bytes <= PushLimits.payloadBytes else {
                throw APIError.badRequest(
                    "'payload' is limited to \(PushLimits.payloadBytes) bytes of compact JSON (UTF-8); this one is \(bytes) bytes")
            }
            self.payload = .object(payload)
        }

        private static func list<T>(_ body: [String: JSONValue], _ key: String, _ read: (JSONValue) throws -> T) throws -> [T] {
            switch body[key] {
            case nil, .null?: return []
            case .array(let items)? where items.count <= PushSchedules.audienceLimit: return try items.map(read)
            case .array?: throw APIError.badRequest("'\(key)' names more than \(PushSchedules.audienceLimit) entries")
            default: throw APIError.badRequest("'\(key)' must be a list")
            }
        }

        private static func object(_ payload: [String: JSONValue], _ key: String) throws -> [String: JSONValue] {
            switch payload[key] {
            case nil, .null?: return [:]
            case .object(let members)?: return members
            default: throw APIError.badRequest("'payload.\(key)' must be an object")
            }
        }
    }

    /// Sends `schedule` now: marks it sent, writes its event and records the devices its audience
    /// names at this moment (`PushRecipients`: only they may report activity), in the caller's
    /// transaction, so it goes out exactly once whatever crashes around it.
    static func send(_ schedule: inout PushScheduleRecord, at now: Int64, in db: any SQLExecutor) throws {
        schedule.sentAt = now
        try schedule.update(db)
        let audience = try NotificationAudience(json: schedule.audienceJson)
        try EventLog.recordNotification(data: try eventData(schedule), audience: audience, at: now, in: db)
        try PushRecipients.record(schedule: schedule.id, audience: audience, in: db)
    }

    /// What devices receive: the flat keys of a push payload (§17.1), strings as Firebase sends
    /// them, with the schedule's id.
    static func eventData(_ schedule: PushScheduleRecord) throws -> JSONValue {
        let payload = try JSONValue(string: schedule.payloadJson)
        var data: [String: JSONValue] = ["scheduleId": .string(schedule.id)]
        for key in notificationKeys { if let value = payload["notification"]?[key], value != .null { data[key] = flat(value) } }
        for key in dataKeys { if let value = payload["data"]?[key], value != .null { data[key] = flat(value) } }
        if let extra = payload["data"]?["extra"], extra != .null { data["extra"] = .string(extra.stringValue ?? extra.jsonString()) }
        return .object(data)
    }

    private static func flat(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string: value
        case .number(let n): .string(JSONValue.canonicalText(of: n))
        case .bool(let b): .string(b ? "1" : "0")
        default: .string(value.jsonString())
        }
    }

    /// A schedule as the API shows it, with what devices reported back.
    static func render(_ schedule: PushScheduleRecord, activity: [String: Int]) throws -> JSONValue {
        let audience = try NotificationAudience(json: schedule.audienceJson)
        var json: [String: JSONValue] = [
            "id": .string(schedule.id), "appId": .number(Double(schedule.appId)), "name": .string(schedule.name),
            "sendOn": .number(Double(schedule.sendOn)), "payload": try JSONValue(string: schedule.payloadJson),
            "aliases": .array(audience.aliases.map(JSONValue.string)),
            "filterTags": .array(audience.tagIds.map { .object(["id": .string($0)]) }),
            "status": .string(schedule.cancelledAt != nil ? "cancelled" : schedule.sentAt != nil ? "sent" : "scheduled"),
            "createdBy": .string(schedule.createdBy), "createdAt": .number(Double(schedule.createdAt)),
            "activity": .object(PushRoutes.actions.sorted().reduce(into: [:]) { $0[$1] = .number(Double(activity[$1] ?? 0)) }),
        ]
        if let sentAt = schedule.sentAt { json["sentAt"] = .number(Double(sentAt)) }
        if let cancelledAt = schedule.cancelledAt { json["cancelledAt"] = .number(Double(cancelledAt)) }
        return .object(json)
    }

    /// Receipt, open and dismiss counts of the schedules `ids` (distinct devices, so a retried
    /// report counts once).
    static func activityCounts(of ids: [String], in db: any SQLExecutor) throws -> [String: [String: Int]] {
        guard !ids.isEmpty else { return [:] }
        var counts: [String: [String: Int]] = [:]
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        for row in try db.select(
            """
            SELECT schedule, action, count(DISTINCT device) AS n FROM \(PushActivityRecord.databaseTableName)
            WHERE schedule IN (\(marks)) GROUP BY schedule, action
            """, bindings: ids.map(\.sqlValue))
        {
            counts[try row.get("schedule", as: String.self), default: [:]][try row.get("action", as: String.self)] = try row.get("n")
        }
        return counts
    }
}
