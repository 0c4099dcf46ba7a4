import Foundation

/// A HALO environment (PROTOCOL §1.1). Named ones map to the official hosts; `custom` takes any base URL.
public enum HaloEnvironment: Sendable, Equatable, CustomStringConvertible {
    case int, qa, stage, prod
    case custom(String)

    /// Parses a configuration value: a known name (case-insensitive) or a URL.
    public init(_ value: String) {
        switch value.lowercased() {
        case "int": self = .int
        case "qa": self = .qa
        case "stage": self = .stage
        case "prod": self = .prod
        default: self = .custom(value)
        }
    }

    /// The base URL every API path is resolved against.
    public var baseURL: URL? {
        switch self {
        case .int: return URL(string: "https://int.halo-db.com")
        case .qa, .stage: return URL(string: "https://stage.halo-db.com")
        case .prod: return URL(string: "https://halo-db.com")
        case .custom(let value):
            guard let url = URL(string: value), url.scheme != nil, url.host != nil else { return nil }
            return url
        }
    }

    /// Test environments mark devices with the `Test Device` system tag.
    public var isTestEnvironment: Bool {
        switch self {
        case .int, .qa, .stage: return true
        default: return false
        }
    }

    /// A name usable in file names and keyring attributes (stored device / credentials are per environment).
    public var description: String {
        switch self {
        case .int: return "int"
        case .qa: return "qa"
        case .stage: return "stage"
        case .prod: return "prod"
        case .custom(let url): return url
        }
    }
}

/// How requests are authenticated (the seed's `AuthenticationMode`).
public enum AuthenticationMode: String, Sendable, Codable {
    /// The application's client credentials (client-credentials and refresh grants).
    case app
    /// An identified user's token obtained by login (set after `AuthManager.login`).
    case appPlus
    /// Editor/integration user credentials (password grant).
    case user
}

/// Client or user credentials (the seed's `Credentials`).
public struct Credentials: Sendable, Equatable {
    public enum Kind: Sendable { case app, user }
    public let kind: Kind
    /// The client id (app) or user name (user).
    public let username: String
    /// The client secret (app) or password (user).
    public let password: String

    public init(clientId: String, clientSecret: String) {
        kind = .app; username = clientId; password = clientSecret
    }

    public init(username: String, password: String) {
        kind = .user; self.username = username; self.password = password
    }
}

/// Where stored data lives and how cached data is used (the seed's `OfflinePolicy`).
public enum OfflinePolicy: String, Sendable, Codable {
    /// Network only.
    case none
    /// Load from the network, store the result, fall back to stored data on failure.
    case loadAndStoreLocalData
    /// Return stored data without loading.
    case returnLocalDataDontLoad
}

/// Everything `CoreManager` is configured with: the seed's `Halo.plist` keys plus the Linux places.
public struct HaloConfiguration: Sendable {
    public var appCredentials: Credentials?
    public var userCredentials: Credentials?
    public var environment: HaloEnvironment = .prod
    public var disableSSLPinning = false
    public var enableSystemTags = false
    /// Certificate authorities to trust instead of the system's (a PEM file); nil for the system's.
    public var certificateAuthoritiesFile: URL?
    /// Folder of pinned certificates (`.cer`, `.crt`, `.der`, `.pem`). When it holds any, only
    /// they are trusted (the seed's SSL pinning); when it is empty or missing, certificate
    /// authorities decide, as in a browser.
    public var certificatesDirectory: URL = XDGDirectories.config.appendingPathComponent("certificates", isDirectory: true)
    /// Folder of the stored device files.
    public var dataDirectory: URL = XDGDirectories.data
    /// Where the offline cache files live (one per server).
    public var cacheDirectory: URL = XDGDirectories.cache
    /// The application's name and version, reported in system tags.
    public var applicationName: String = ProcessInfo.processInfo.processName
    public var applicationVersion: String = "1.0"
    /// Browser sign-in providers by network (the Social SDK's Google and Facebook integrations).
    /// Keys `GOOGLE_CLIENT_ID` and `FACEBOOK_APP_ID` make the presets; `GOOGLE_DISCOVERY_URL`
    /// (any OpenID Connect issuer's discovery document) replaces Google's endpoints.
    public var socialProviders: [Network: SocialProvider] = [:]

    public init() {}

    /// The default configuration file: `$XDG_CONFIG_HOME/halo-desk/Halo.plist`.
    public static var defaultFile: URL { XDGDirectories.config.appendingPathComponent("Halo.plist") }

    /// Loads a configuration file. `nameOrPath` is a file name inside `$XDG_CONFIG_HOME/halo-desk/`
    /// or a path (absolute, or containing `/`). The file is a property list (XML or binary) or JSON.
    public static func load(_ nameOrPath: String = "Halo.plist") throws(HaloError) -> HaloConfiguration {
        let url =
            nameOrPath.contains("/")
            ? URL(fileURLWithPath: nameOrPath)
            : XDGDirectories.config.appendingPathComponent(nameOrPath)
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .configuration(message: "Cannot read configuration file \(url.path)")
        }
        return try parse(data, source: url.lastPathComponent)
    }

    /// Parses configuration file contents (plist or JSON) with the seed's keys.
    public static func parse(_ data: Data, source: String = "configuration") throws(HaloError) -> HaloConfiguration {
        let object: Any
        if let json = try? JSONSerialization.jsonObject(with: data), json is [String: Any] {
            object = json
        } else if let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) {
            object = plist
        } else {
            throw .configuration(message: "\(source) is neither a property list nor JSON")
        }
        guard let keys = object as? [String: Any] else {
            throw .configuration(message: "\(source) must hold a dictionary of keys")
        }
        func string(_ key: String) throws(HaloError) -> String? {
            guard let value = keys[key] else { return nil }
            guard let text = value as? String else { throw .configuration(message: "\(key) in \(source) must be a string") }
            return text
        }
        func bool(_ key: String) throws(HaloError) -> Bool {
            switch keys[key] {
            case nil: return false
            case let value as Bool: return value
            case let value as NSNumber: return value.boolValue
            case let value as String where ["yes", "true", "1"].contains(value.lowercased()): return true
            case let value as String where ["no", "false", "0"].contains(value.lowercased()): return false
            default: throw .configuration(message: "\(key) in \(source) must be a boolean")
            }
        }
        var configuration = HaloConfiguration()
        if let id = try string("CLIENT_ID") {
            guard let secret = try string("CLIENT_SECRET") else {
                throw .configuration(message: "\(source) has CLIENT_ID but no CLIENT_SECRET")
            }
            configuration.appCredentials = Credentials(clientId: id, clientSecret: secret)
        }
        if let user = try string("USERNAME"), let password = try string("PASSWORD") {
            configuration.userCredentials = Credentials(username: user, password: password)
        }
        if let environment = try string("ENVIRONMENT") {
            configuration.environment = HaloEnvironment(environment)
            guard configuration.environment.baseURL != nil else {
                throw .configuration(message: "ENVIRONMENT \(environment) in \(source) is neither int/qa/stage/prod nor a URL")
            }
        }
        configuration.disableSSLPinning = try bool("DISABLE_SSL_PINNING")
        configuration.enableSystemTags = try bool("ENABLE_SYSTEM_TAGS")
        configuration.socialProviders = try SocialProviderKeys(
            googleClientId: string("GOOGLE_CLIENT_ID"), googleDiscoveryURL: string("GOOGLE_DISCOVERY_URL"),
            facebookAppId: string("FACEBOOK_APP_ID")
        ).providers(source: source)
        return configuration
    }
}
