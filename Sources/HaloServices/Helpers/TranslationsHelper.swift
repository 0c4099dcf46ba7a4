import Foundation

/// Texts of an app kept in a HALO module, one instance per text (PROTOCOL §15).
///
/// Loading syncs the module for the locale and maps `values[keyField]` → `values[valueField]`
/// over every synced instance. The sync itself is done by a `TranslationsSyncPerformer` — in the
/// SDK, `Manager.content`'s sync followed by its synced instances — so this type holds no network
/// or storage code of its own.
///
/// ```swift
/// let texts = TranslationsHelper(moduleName: "Texts", locale: .englishUnitedStates,
///                                keyField: "key", valueField: "value", sync: performer)
///     .defaultText("—").loadingText("…")
/// try await texts.load()
/// texts.getText(key: "first_screen")
/// ```
public final class TranslationsHelper: @unchecked Sendable {
    // Mutable state is guarded by `lock`; every access goes through `state`.

    /// How a synced instance becomes a map entry.
    public enum MappingRule: Sendable {
        /// iOS: only instances whose key and value fields are both strings.
        case stringsOnly
        /// Android: a missing or non-string key/value reads as `""` (an instance with empty
        /// values yields the entry `"" → ""`).
        case optionalStrings
    }

    public let module: SyncQuery.ModuleSelector
    public let keyField: String
    public let valueField: String
    public let mappingRule: MappingRule
    private let sync: TranslationsSyncPerformer

    private struct State {
        var locale: HaloLocale
        var defaultText: String?
        var loadingText: String?
        var translations: [String: String] = [:]
        var isLoading = false
        /// Bumped by every load and locale change, so an outdated load does not overwrite a newer one.
        var generation = 0
    }

    private let lock = NSLock()
    private var unsafeState: State

    private func state<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&unsafeState)
    }

    /// Translations from a module given by id (the seed's initializer).
    public convenience init(
        moduleId: String, locale: HaloLocale, keyField: String, valueField: String,
        mappingRule: MappingRule = .stringsOnly, sync: @escaping TranslationsSyncPerformer
    ) {
        self.init(
            module: .id(moduleId), locale: locale, keyField: keyField, valueField: valueField,
            mappingRule: mappingRule, sync: sync)
    }

    /// Translations from a module given by name.
    public convenience init(
        moduleName: String, locale: HaloLocale, keyField: String, valueField: String,
        mappingRule: MappingRule = .stringsOnly, sync: @escaping TranslationsSyncPerformer
    ) {
        self.init(
            module: .name(moduleName), locale: locale, keyField: keyField, valueField: valueField,
            mappingRule: mappingRule, sync: sync)
    }

    public init(
        module: SyncQuery.ModuleSelector, locale: HaloLocale, keyField: String, valueField: String,
        mappingRule: MappingRule = .stringsOnly, sync: @escaping TranslationsSyncPerformer
    ) {
        self.module = module
        self.keyField = keyField
        self.valueField = valueField
        self.mappingRule = mappingRule
        self.sync = sync
        self.unsafeState = State(locale: locale)
    }

    // MARK: Configuration (chainable, as in the seed)

    /// The text returned for keys with no translation.
    @discardableResult
    public func defaultText(_ text: String?) -> TranslationsHelper { state { $0.defaultText = text }; return self }

    /// The text returned for unknown keys while a load is running (falls back to the default text).
    @discardableResult
    public func loadingText(_ text: String?) -> TranslationsHelper { state { $0.loadingText = text }; return self }

    /// Sets the locale without loading; `changeLocale` also clears and reloads.
    @discardableResult
    public func locale(_ locale: HaloLocale) -> TranslationsHelper { state { $0.locale = locale }; return self }

    public var currentLocale: HaloLocale { state { $0.locale } }
    public var isLoading: Bool { state { $0.isLoading } }

    // MARK: Reading

    /// The translation of `key`, or the loading text (while loading) or default text.
    public func getText(key: String) -> String? {
        state { s in
            if let text = s.translations[key] { return text }
            return s.isLoading ? (s.loadingText ?? s.defaultText) : s.defaultText
        }
    }

    /// Each key's translation or the default text.
    public func getTexts(keys: String...) -> [String: String?] { getTexts(keys: keys) }

    public func getTexts(keys: [String]) -> [String: String?] {
        Dictionary(keys.map { ($0, getText(key: $0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every loaded translation.
    public func getAllTexts() -> [String: String] { state { $0.translations } }

    /// Forgets the loaded translations (lookups give the default text until the next load).
    public func clearTranslations() { state { $0.translations = [:] } }

    // MARK: Loading

    /// Syncs the module for the current locale and rebuilds the map. On failure the previous map
    /// stays and the error is thrown.
    public func load() async throws {
        let (query, generation) = state { s -> (SyncQuery, Int) in
            s.isLoading = true
            s.generation += 1
            return (self.query(locale: s.locale), s.generation)
        }
        do {
            let instances = try await sync(query)
            let map = Self.translations(from: instances, keyField: keyField, valueField: valueField, rule: mappingRule)
            state { s in
                guard s.generation == generation else { return }
                s.translations = map
                s.isLoading = false
            }
        } catch {
            state { s in if s.generation == generation { s.isLoading = false } }
            throw error
        }
    }

    /// The seed's completion form of `load()`: the handler gets the module key and the error, if any.
    public func load(completionHandler handler: (@Sendable (String, HaloError?) -> Void)? = nil) {
        let moduleKey = query(locale: currentLocale).moduleKey
        Task {
            do {
                try await load()
                handler?(moduleKey, nil)
            } catch let error as HaloError {
                handler?(moduleKey, error)
            } catch {
                handler?(moduleKey, .invalidResponse(status: nil, message: "\(error)"))
            }
        }
    }

    /// Switches locale: clears the map and loads the new locale (a first sync for it, §15).
    /// Changing to the current locale does nothing.
    public func changeLocale(_ locale: HaloLocale) async throws {
        let changed = state { s -> Bool in
            guard s.locale != locale else { return false }
            s.locale = locale
            s.translations = [:]
            return true
        }
        if changed { try await load() }
    }

    private func query(locale: HaloLocale) -> SyncQuery {
        switch module {
        case .id(let id): return SyncQuery(moduleId: id).locale(locale)
        case .name(let name): return SyncQuery(moduleName: name).locale(locale)
        }
    }

    /// The key → text map of a set of synced instances under `rule` (later instances win on a
    /// repeated key).
    public static func translations(
        from instances: [ContentInstance], keyField: String, valueField: String, rule: MappingRule
    ) -> [String: String] {
        var map: [String: String] = [:]
        for instance in instances {
            let key = instance.values[keyField]?.stringValue
            let value = instance.values[valueField]?.stringValue
            switch rule {
            case .stringsOnly:
                if let key, let value { map[key] = value }
            case .optionalStrings:
                map[key ?? ""] = value ?? ""
            }
        }
        return map
    }
}

/// Performs the sync of a translations module and returns every instance synced for it
/// (after applying the result), e.g. `Manager.content.sync(query:)` then its synced instances.
public typealias TranslationsSyncPerformer = @Sendable (SyncQuery) async throws -> [ContentInstance]
