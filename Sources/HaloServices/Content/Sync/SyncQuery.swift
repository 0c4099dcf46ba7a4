import Foundation

/// What to synchronise: one module (by id or by name), a locale and a time window (PROTOCOL §14.1).
///
/// A builder as in the seed: `SyncQuery(moduleId: id).locale(.spanishSpain).fromSync(date)`.
public struct SyncQuery: Hashable, Sendable, HaloWireEncodable {
    /// How the module is named in the request.
    public enum ModuleSelector: Hashable, Sendable {
        case id(String)
        case name(String)
    }

    /// `to-cache` seconds of a first sync (no `fromSync`), as both SDKs sent (§1.4, §14.1).
    public static let firstSyncServerCacheSeconds = 86_400

    public private(set) var module: ModuleSelector
    /// iOS always sends a locale; `en-US` unless set.
    public private(set) var locale: HaloLocale = .englishUnitedStates
    public private(set) var fromSync: Date?
    public private(set) var toSync: Date?

    /// Syncs the module with this id.
    public init(moduleId: String) { module = .id(moduleId) }
    /// Syncs the module with this name.
    public init(moduleName: String) { module = .name(moduleName) }
    /// The seed's empty builder: choose the module with `moduleId(_:)` or `moduleName(_:)`
    /// (`validate()` refuses a query without one).
    public init() { module = .id("") }

    public var moduleId: String? { if case .id(let id) = module { return id } else { return nil } }
    public var moduleName: String? { if case .name(let name) = module { return name } else { return nil } }
    /// The module id or name as given: the key under which synced data is stored (§14.4).
    public var moduleKey: String {
        switch module {
        case .id(let id): return id
        case .name(let name): return name
        }
    }

    /// Selects the module by id (replacing a name).
    public func moduleId(_ id: String) -> SyncQuery { var copy = self; copy.module = .id(id); return copy }
    /// Selects the module by name (replacing an id).
    public func moduleName(_ name: String) -> SyncQuery { var copy = self; copy.module = .name(name); return copy }
    /// The locale of the synced texts (default `en-US`; `.allLocales` for every locale's text).
    public func locale(_ locale: HaloLocale) -> SyncQuery { var copy = self; copy.locale = locale; return copy }
    /// Only changes after this date (the previous result's `syncDate`); nil for a first sync.
    public func fromSync(_ date: Date?) -> SyncQuery { var copy = self; copy.fromSync = date; return copy }
    /// Only changes up to this date.
    public func toSync(_ date: Date?) -> SyncQuery { var copy = self; copy.toSync = date; return copy }

    /// Throws `HaloError.invalidInput` when no module was chosen (an empty id or name).
    public func validate() throws {
        if moduleKey.trimmingCharacters(in: .whitespaces).isEmpty {
            throw HaloError.invalidInput(message: "The sync query names no module: set moduleId or moduleName.")
        }
    }

    /// Whether this is a first sync (no `fromSync`): cacheable, and to be followed by an
    /// incremental one from the answer's `syncTimestamp` (§14.3).
    public var isFirstSync: Bool { fromSync == nil }

    /// The `to-cache` header value: 86400 on a first sync, none on incremental ones.
    public var serverCacheSeconds: Int? { isFirstSync ? Self.firstSyncServerCacheSeconds : nil }

    /// `{moduleId | moduleName, locale, fromSync?, toSync?}` with whole-millisecond timestamps.
    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        switch module {
        case .id(let id): builder.set("moduleId", id)
        case .name(let name): builder.set("moduleName", name)
        }
        if locale != .allLocales { builder.set("locale", locale.rawValue) }
        builder.set("fromSync", fromSync)
        builder.set("toSync", toSync)
        return builder.json
    }
}
