import Foundation

/// Who a notification goes to (PROTOCOL §17.3): every device of the app, the devices carrying
/// every one of some segmentation tags, or devices by alias.
public enum PushAudience: Sendable, Equatable {
    case everyone
    case tagged([Tag])
    case aliases([String])
}

/// A notification to send with `CoreManager.sendPush(_:)`: what an editor writes on the Send
/// Notification page.
public struct PushDraft: Sendable, Equatable {
    public var appId: Int
    /// The history's name for it (HALO's `name`); the title when empty.
    public var name: String
    public var title: String
    public var body: String
    public var audience: PushAudience
    /// When it goes out; nil (or a past date) sends it at once.
    public var sendOn: Date?
    /// The instance it opens (with its module), our extension.
    public var instance: (moduleId: String, instanceId: String)?
    /// A web page it opens instead.
    public var url: String?

    public init(
        appId: Int = 1, name: String = "", title: String, body: String = "", audience: PushAudience = .everyone,
        sendOn: Date? = nil, instance: (moduleId: String, instanceId: String)? = nil, url: String? = nil
    ) {
        self.appId = appId
        self.name = name
        self.title = title
        self.body = body
        self.audience = audience
        self.sendOn = sendOn
        self.instance = instance
        self.url = url
    }

    public static func == (lhs: PushDraft, rhs: PushDraft) -> Bool { lhs.wireJSON == rhs.wireJSON }

    /// The request body of `POST /api/push/schedule/`.
    var wireJSON: JSONValue {
        var notification: [String: JSONValue] = ["title": .string(title)]
        if !body.isEmpty { notification["body"] = .string(body) }
        var data: [String: JSONValue] = [:]
        if let instance {
            data["module"] = .string(instance.moduleId)
            data["instance"] = .string(instance.instanceId)
        }
        if let url { data["url"] = .string(url) }
        var json: [String: JSONValue] = [
            "appId": .number(Double(appId)), "name": .string(name.isEmpty ? title : name),
            "payload": .object(["notification": .object(notification), "data": .object(data)]),
        ]
        switch audience {
        case .everyone: break
        case .tagged(let tags):
            json["filterTags"] = .array(tags.map { .object(["name": .string($0.name), "value": .string($0.value ?? "")]) })
        case .aliases(let aliases): json["aliases"] = .array(aliases.map(JSONValue.string))
        }
        if let sendOn { json["sendOn"] = .number((sendOn.timeIntervalSince1970 * 1000).rounded()) }
        return .object(json)
    }
}

/// A notification sent or scheduled, as the server's history lists it, with what devices did
/// with it.
public struct PushSchedule: Sendable, Equatable, Identifiable {
    public enum Status: String, Sendable { case scheduled, sent, cancelled }

    public let id: String
    public let name: String
    public let title: String
    public let body: String
    public let status: Status
    public let sendOn: Date
    public let sentAt: Date?
    public let aliases: [String]
    /// How many segmentation tags a device must carry (the history keeps their ids only).
    public let tagCount: Int
    /// The instance it opens, if any.
    public let instanceId: String?
    /// Devices that received, opened and dismissed it.
    public let receipts: Int
    public let opens: Int
    public let dismissals: Int

    init(wire json: JSONValue) throws(HaloError) {
        guard let id = json["id"]?.stringValue, let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)) else {
            throw .invalidResponse(status: 200, message: "A notification in the history has no id or status")
        }
        func date(_ key: String) -> Date? { json[key]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) } }
        self.id = id
        self.status = status
        name = json["name"]?.stringValue ?? ""
        title = json["payload"]?["notification"]?["title"]?.stringValue ?? ""
        body = json["payload"]?["notification"]?["body"]?.stringValue ?? ""
        sendOn = date("sendOn") ?? Date(timeIntervalSince1970: 0)
        sentAt = date("sentAt")
        aliases = json["aliases"]?.arrayValue?.compactMap(\.stringValue) ?? []
        tagCount = json["filterTags"]?.arrayValue?.count ?? 0
        instanceId = json["payload"]?["data"]?["instance"]?.stringValue
        let activity = json["activity"]
        receipts = activity?["receipt"]?.int64Value.map { Int($0) } ?? 0
        opens = activity?["open"]?.int64Value.map { Int($0) } ?? 0
        dismissals = activity?["dismiss"]?.int64Value.map { Int($0) } ?? 0
    }
}

extension CoreManager {
    /// Sends or schedules a notification (HALO's send API, PROTOCOL §17.3; editors only: others
    /// get a 403). A refused value comes back as a 400 naming its key.
    public func sendPush(_ draft: PushDraft) async throws(HaloError) -> PushSchedule {
        try PushSchedule(wire: try await performJSON(APIRequest(.post, "api/push/schedule/", body: .json(draft.wireJSON))))
    }

    /// The newest notifications sent and scheduled (200 at most), newest first, with their
    /// receipt, open and dismiss counts.
    public func pushSchedules() async throws(HaloError) -> [PushSchedule] {
        let json = try await performJSON(APIRequest(.get, "api/push/schedule/"))
        var schedules: [PushSchedule] = []
        for entry in json.arrayValue ?? [] { schedules.append(try PushSchedule(wire: entry)) }
        return schedules
    }

    /// Withdraws a scheduled notification before it goes out (a 400 once sent).
    public func withdrawPush(id: String) async throws(HaloError) -> PushSchedule {
        try PushSchedule(wire: try await performJSON(APIRequest(.delete, "api/push/schedule/\(APIRequest.formEncode(id))")))
    }
}
