import Foundation
import Synchronization

/// The push-registration entry of a device (`devices[0]` on the wire).
public struct DeviceInfo: Sendable, Hashable, Codable {
    public var platform: String
    public var token: String
    public init(platform: String, token: String) { self.platform = platform; self.token = token }
}

/// This installation as the server knows it ("appuser", PROTOCOL §6). A reference type, as in
/// the seed, so `ManagerDelegate.managerWillSetupDevice(device:)` can add tags to it in place.
public final class Device: Sendable, CustomStringConvertible {
    private struct State {
        var id: String?
        var alias: String?
        var appId: Int?
        var email: String?
        var info: DeviceInfo?
        var tags: [Tag] = []
        var createdAt: Date?
        var updatedAt: Date?
        var eventStreamSecret: String?
    }
    private let state: Mutex<State>

    /// A device not yet known to the server.
    public init() { state = Mutex(State()) }

    /// Reads a device response (§6.2). `appId` may be a number or a numeric string.
    public init(wire: JSONValue) throws(HaloError) {
        guard case .object(let object) = wire else {
            throw .invalidResponse(status: nil, message: "a device must be a JSON object")
        }
        var state = State()
        state.id = object["id"]?.stringValue
        state.alias = object["alias"]?.stringValue
        state.appId = object["appId"]?.int64Value.map { Int($0) } ?? object["appId"]?.stringValue.flatMap { Int($0) }
        state.email = object["email"]?.stringValue
        if let first = object["devices"]?.arrayValue?.first,
            let platform = first["platform"]?.stringValue, let token = first["token"]?.stringValue
        {
            state.info = DeviceInfo(platform: platform, token: token)
        }
        do {
            state.tags = try (object["tags"]?.arrayValue ?? []).map { try Tag(wire: $0) }
        } catch {
            throw .invalidResponse(status: nil, message: "device tags: \(error)")
        }
        state.createdAt = object["createdAt"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        state.updatedAt = object["updatedAt"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        state.eventStreamSecret = object["eventStreamSecret"]?.stringValue
        self.state = Mutex(state)
    }

    public var id: String? { state.withLock { $0.id } }
    /// The credential of this device's notification stream (our extension), present only in the
    /// server's answer that issued it; the core keeps it in the keyring. Never sent back nor stored
    /// with the device.
    var eventStreamSecret: String? { state.withLock { $0.eventStreamSecret } }
    /// Server-generated identity (`anonymous-…`), used as `deviceId` by identified login.
    public var alias: String? { state.withLock { $0.alias } }
    public var appId: Int? { state.withLock { $0.appId } }
    public var email: String? {
        get { state.withLock { $0.email } }
        set { state.withLock { $0.email = newValue } }
    }
    /// Push registration (platform + token), if any.
    public var info: DeviceInfo? {
        get { state.withLock { $0.info } }
        set { state.withLock { $0.info = newValue } }
    }
    public var createdAt: Date? { state.withLock { $0.createdAt } }
    public var updatedAt: Date? { state.withLock { $0.updatedAt } }

    /// The device's tags by name (at most one per name, as iOS kept them).
    public var tags: [String: Tag] { Tag.byName(state.withLock { $0.tags }) }
    /// The tags in order, as sent.
    public var tagList: [Tag] { state.withLock { $0.tags } }

    /// Adds or replaces the custom tag `name` (the seed's `addTag(name:value:)`).
    public func addTag(name: String, value: String) {
        setTag(Tag(name: name, value: value, tagType: Tag.customType))
    }

    /// Adds or replaces a tag with the same name.
    public func setTag(_ tag: Tag) {
        state.withLock { state in
            if let index = state.tags.firstIndex(where: { $0.name == tag.name }) {
                state.tags[index] = tag
            } else {
                state.tags.append(tag)
            }
        }
    }

    /// Removes the tag `name`; returns whether one was removed.
    @discardableResult
    public func removeTag(name: String) -> Bool {
        state.withLock { state in
            let before = state.tags.count
            state.tags.removeAll { $0.name == name }
            return state.tags.count != before
        }
    }

    /// The request body of a save (§6.2, iOS shape): `id` when known, `replaceTokens` only on
    /// update, timestamps always (0 when unknown).
    public func requestJSON() -> JSONValue {
        state.withLock { state in
            var object: [String: JSONValue] = [
                "tags": .array(state.tags.map(\.wireJSON)),
                "devices": .array(state.info.map { [.object(["platform": .string($0.platform), "token": .string($0.token)])] } ?? []),
                "createdAt": .number((state.createdAt?.timeIntervalSince1970 ?? 0) * 1000),
                "updatedAt": .number((state.updatedAt?.timeIntervalSince1970 ?? 0) * 1000),
            ]
            if let id = state.id {
                object["id"] = .string(id)
                object["replaceTokens"] = .bool(true)
            }
            if let alias = state.alias { object["alias"] = .string(alias) }
            if let appId = state.appId { object["appId"] = .number(Double(appId)) }
            if let email = state.email { object["email"] = .string(email) }
            return .object(object)
        }
    }

    /// This device as a new registration: its tags, push token and email, without the server's
    /// `id`, `alias`, `appId` and timestamps. A device whose stream secret is lost registers again
    /// this way: renewing a secret needs the current one (docs/protocol.md §23.12).
    func registeringAgain() -> Device {
        let copy = Device()
        let kept = state.withLock { state in State(email: state.email, info: state.info, tags: state.tags) }
        copy.state.withLock { $0 = kept }
        return copy
    }

    /// A stored copy (JSON, no secrets) in the response shape, for persisting across launches.
    func storedJSON() -> JSONValue {
        let request = requestJSON()
        guard case .object(var object) = request else { return request }
        object["replaceTokens"] = nil
        return .object(object)
    }

    public var description: String {
        state.withLock { "Device(id: \($0.id ?? "none"), alias: \($0.alias ?? "none"), tags: \($0.tags.count))" }
    }
}
