/// What happened to a push on the device (PROTOCOL §17.2).
public enum NotificationAction: String, Hashable, Sendable, CaseIterable {
    case receipt, open, dismiss
}

/// A push activity event, `POST /api/push/schedule/activity` (PROTOCOL §17.2).
public struct NotificationActivityEvent: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    /// The device alias.
    public var device: String
    /// The push's `scheduleId`.
    public var schedule: String
    public var action: NotificationAction
    /// `ios` / `android` for the original SDKs; omitted when nil (the server treats it as optional).
    public var platform: String?

    public init(device: String, schedule: String, action: NotificationAction, platform: String? = nil) {
        self.device = device
        self.schedule = schedule
        self.action = action
        self.platform = platform
    }

    /// The event for a received notification, or nil when the push carries no `scheduleId`.
    public init?(notification: HaloNotification, deviceAlias: String, action: NotificationAction, platform: String? = nil) {
        guard let schedule = notification.scheduleId else { return nil }
        self.init(device: deviceAlias, schedule: schedule, action: action, platform: platform)
    }

    /// Reads the server's echo `{device, schedule, action}` (fixtures `actionNotification*.json`).
    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "notification activity")
        device = try object.requiredString("device")
        schedule = try object.requiredString("schedule")
        let raw = try object.requiredString("action")
        guard let action = NotificationAction(rawValue: raw) else {
            throw HaloError.invalidResponse(status: nil, message: "Unknown notification action \"\(raw)\".")
        }
        self.action = action
        platform = object.string("platform")
    }

    /// The iOS JSON body.
    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("device", device)
        builder.set("schedule", schedule)
        builder.set("action", action.rawValue)
        builder.set("platform", platform)
        return builder.json
    }

    /// The Android form fields, in a stable order.
    public var formFields: [(name: String, value: String)] {
        var fields = [("device", device), ("schedule", schedule), ("action", action.rawValue)]
        if let platform { fields.append(("platform", platform)) }
        return fields.map { (name: $0.0, value: $0.1) }
    }
}
