import Foundation

/// The kind of a push (PROTOCOL §17.1).
public enum HaloNotificationType: String, Hashable, Sendable, CaseIterable {
    case normal, silent, twoFactor
}

/// A HALO push payload, parsed (PROTOCOL §17.1; the seed's `HaloNotification`).
///
/// Reads both payload styles: Android's flat FCM data (every value a string, `image` and `extra`
/// as JSON text) and iOS's APNs `userInfo` (`aps.alert.title/body`, `aps.sound`, numbers).
public struct HaloNotification: Hashable, Sendable {
    public var scheduleId: String?
    public var title: String?
    public var body: String?
    /// Android drawable name.
    public var icon: String?
    public var sound: String?
    public var badge: String?
    /// `#rrggbb`.
    public var color: String?
    public var clickAction: String?
    /// Rich image (Android `image`).
    public var image: NotificationImage?
    /// Deep link.
    public var url: String?
    /// Custom data: an object when `extra` held JSON, else its text.
    public var extra: JSONValue?
    public var type: HaloNotificationType
    /// The two-factor code, on `twoFactor` pushes.
    public var code: String?
    /// The payload as received.
    public var payload: [String: JSONValue]

    /// Parses a payload given as JSON (an object).
    public init(payload json: JSONValue) throws {
        guard case .object(let fields) = json else {
            throw HaloError.invalidInput(message: "A notification payload must be a JSON object, got \(json.wireKindName).")
        }
        self.init(payload: fields)
    }

    /// Parses a payload given as a Foundation dictionary (the seed's `[AnyHashable: Any]`).
    public init(userInfo: [AnyHashable: Any]) {
        guard case .object(let fields) = AnyJSONConversion.json(from: userInfo) else {
            self.init(payload: [:])
            return
        }
        self.init(payload: fields)
    }

    /// Parses a payload given as JSON members.
    public init(payload: [String: JSONValue]) {
        self.payload = payload
        let aps = payload["aps"]?.objectValue ?? [:]
        let alert = aps["alert"]
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let s)?: return s
            case .number(let n)?: return JSONValue.number(n).jsonString()
            case .bool(let b)?: return b ? "true" : "false"
            default: return nil
            }
        }
        scheduleId = text(payload["scheduleId"])
        title = text(payload["title"]) ?? text(alert?["title"])
        // A plain-string `aps.alert` is the body.
        body = text(payload["body"]) ?? text(alert?["body"]) ?? alert?.stringValue
        icon = text(payload["icon"])
        sound = text(payload["sound"]) ?? text(aps["sound"])
        badge = text(payload["badge"]) ?? text(aps["badge"])
        color = text(payload["color"])
        clickAction = text(payload["click_action"])
        url = text(payload["url"])
        code = text(payload["code"])
        image = payload["image"].flatMap(NotificationImage.init(payloadValue:))
        extra = payload["extra"].map(Self.embeddedJSON)
        type = Self.classify(payload: payload, aps: aps)
    }

    /// The payload as Foundation values, the seed's `[AnyHashable: Any]` form.
    public var userInfo: [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        for (key, value) in payload { info[key] = AnyJSONConversion.any(from: value) }
        return info
    }

    /// Silent if `content_available` (or APNs `content-available`) is 1; else two-factor if
    /// `type` is `2_FACTOR` (any case); else normal.
    static func classify(payload: [String: JSONValue], aps: [String: JSONValue]) -> HaloNotificationType {
        func isOne(_ value: JSONValue?) -> Bool {
            switch value {
            case .string(let s)?: return s.trimmingCharacters(in: .whitespaces) == "1" || s.lowercased() == "true"
            case .number(let n)?: return n == 1
            case .bool(let b)?: return b
            default: return false
            }
        }
        if isOne(payload["content_available"]) || isOne(aps["content-available"]) { return .silent }
        if payload["type"]?.stringValue?.uppercased() == "2_FACTOR" { return .twoFactor }
        return .normal
    }

    /// A value that may be JSON written as text (FCM data carries only strings).
    static func embeddedJSON(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value,
            let first = text.first(where: { !$0.isWhitespace }), first == "{" || first == "[",
            let parsed = try? JSONValue(string: text)
        else { return value }
        return parsed
    }
}

/// The rich image of an Android push: `{"url": …, "layout": …}` (fixtures `*Notification.json`).
public struct NotificationImage: Hashable, Sendable, HaloWireDecodable {
    public enum Layout: String, Hashable, Sendable, CaseIterable {
        case `default`, expanded, left, right, top, bottom, background
    }

    public var url: String
    public var layout: Layout

    public init(url: String, layout: Layout = .default) {
        self.url = url
        self.layout = layout
    }

    /// Reads `{url, layout}`; an unknown layout is `.default`.
    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "notification image")
        url = try object.requiredString("url")
        layout = object.string("layout").flatMap(Layout.init(rawValue:)) ?? .default
    }

    /// The image from a payload value: an object, or JSON text of one; nil when unreadable.
    init?(payloadValue: JSONValue) {
        guard let image = try? NotificationImage(wire: HaloNotification.embeddedJSON(payloadValue)) else { return nil }
        self = image
    }
}
