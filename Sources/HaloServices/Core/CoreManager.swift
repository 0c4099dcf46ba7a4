import Foundation
import Logging
import Synchronization

/// The seed's entry points: `Manager.core`, `Manager.auth`, `Manager.content`.
///
/// The shared core reads `$XDG_CONFIG_HOME/halo-desk/Halo.plist` when it exists; set its
/// properties from code before `startup` otherwise. Tests and apps that need several
/// independent SDK instances create their own `CoreManager(configuration:)` and use its
/// `auth` and `content` instead of these singletons.
public enum Manager {
    public static let core = CoreManager(configuration: (try? HaloConfiguration.load()) ?? HaloConfiguration())
    public static var auth: AuthManager { core.auth }
    public static var content: ContentManager { core.content }
}

/// Hooks into the start-up process (the seed's `ManagerDelegate`).
public protocol ManagerDelegate: AnyObject, Sendable {
    /// Called at every `startup`, before the device is saved, so the app can add tags to it.
    func managerWillSetupDevice(device: Device)
}

/// The seed's core manager: configuration, start-up, the device, add-ons, logging, and the
/// request pipeline every manager sends its calls through.
public final class CoreManager: Sendable {
    private struct State {
        var configuration: HaloConfiguration
        var authenticationMode: AuthenticationMode = .app
        var defaultOfflinePolicy: OfflinePolicy = .none
        var cacheTimeToLive: TimeInterval = 0
        var numberOfRetries = 0
        var retryBaseDelay: TimeInterval = 0.5
        var timeoutIntervalForRequest: TimeInterval = 60
        var timeoutIntervalForResource: TimeInterval = 600
        var maximumResponseBytes = 64 * 1024 * 1024
        var logLevel: LogLevel = .warning
        var loggers: [any Logger] = []
        var addons: [any Addon] = []
        var delegate: (any ManagerDelegate)?
        var device: Device?
        /// The device's event stream credential (see `DeviceStreamCredential`).
        var deviceStreamCredential: DeviceStreamCredential?
        /// The TLS policy once read (see `tlsTrust`).
        var trust: TLSTrust?
        var serverVersion: JSONValue?
    }

    private let state: Mutex<State>
    let tokens = TokenCoordinator()
    let transport: CurlTransport
    /// A swift-log logger whose handler forwards to this core's registered `Logger`s.
    var log: Logging.Logger {
        let core = WeakBox(self)
        return Logging.Logger(label: "HaloServices") { _ in HaloLogHandler(core: core) }
    }

    /// Identified users, login and the pocket.
    public var auth: AuthManager {
        _auth.withLock { manager in
            if let manager { return manager }
            let created = AuthManager(core: self)
            manager = created
            return created
        }
    }
    /// Modules, search, edition, batch and sync.
    public var content: ContentManager {
        _content.withLock { manager in
            if let manager { return manager }
            let created = ContentManager(core: self)
            manager = created
            return created
        }
    }
    private let _auth = Mutex<AuthManager?>(nil)
    private let _content = Mutex<ContentManager?>(nil)

    /// Version of this SDK, compared with the server's minimum (version check, §5).
    public static let sdkVersion = "2.5.0"

    public init(configuration: HaloConfiguration = HaloConfiguration(), transport: CurlTransport = CurlTransport()) {
        let state = Mutex(State(configuration: configuration))
        self.state = state
        self.transport = transport
    }

    // MARK: Configuration

    /// The whole configuration (credentials, environment, flags, folders).
    public var configuration: HaloConfiguration {
        get { state.withLock { $0.configuration } }
        set {
            state.withLock {
                $0.configuration = newValue; $0.trust = nil
            }
        }
    }

    /// Reads a configuration file (name in `$XDG_CONFIG_HOME/halo-desk/` or path; plist or JSON).
    public func configure(fromFile nameOrPath: String) throws(HaloError) {
        configuration = try HaloConfiguration.load(nameOrPath)
    }

    public var appCredentials: Credentials? {
        get { configuration.appCredentials }
        set { state.withLock { $0.configuration.appCredentials = newValue } }
    }

    public var userCredentials: Credentials? {
        get { configuration.userCredentials }
        set { state.withLock { $0.configuration.userCredentials = newValue } }
    }

    public var environment: HaloEnvironment { configuration.environment }

    /// Switches environment: tokens are dropped and the next requests go to the new base URL.
    /// Like the seed, the handler gets `true` once done; call `startup` again to register the device there.
    public func setEnvironment(_ environment: HaloEnvironment, completionHandler handler: (@Sendable (Bool) -> Void)? = nil) {
        guard environment.baseURL != nil else { handler?(false); return }
        state.withLock {
            $0.configuration.environment = environment; $0.device = nil; $0.trust = nil
        }
        Task {
            await tokens.clearAll(); handler?(true)
        }
    }

    /// The mode used by requests that do not choose one.
    public var authenticationMode: AuthenticationMode {
        get { state.withLock { $0.authenticationMode } }
        set { state.withLock { $0.authenticationMode = newValue } }
    }

    /// Default offline policy of requests (the seed's default, `.none`, always asks the server).
    public var defaultOfflinePolicy: OfflinePolicy {
        get { state.withLock { $0.defaultOfflinePolicy } }
        set { state.withLock { $0.defaultOfflinePolicy = newValue } }
    }

    /// How old an answer kept offline may be and still be used without asking the server, under
    /// `.loadAndStoreLocalData` (per call: `APIRequest.cacheTimeToLive`, `SearchQuery.cacheTimeToLive`).
    /// 0, the default, asks the server every time it can be reached, as the seed's SDKs did. It
    /// decides when to refresh, never whether to show: offline, answers of any age are used, and
    /// say how old they are (`AnswerSource`).
    public var cacheTimeToLive: TimeInterval {
        get { state.withLock { $0.cacheTimeToLive } }
        set { state.withLock { $0.cacheTimeToLive = max(0, newValue) } }
    }

    /// Retries after network errors and 5xx responses (exponential backoff), per request overridable.
    public var numberOfRetries: Int {
        get { state.withLock { $0.numberOfRetries } }
        set { state.withLock { $0.numberOfRetries = max(0, newValue) } }
    }

    /// First retry delay in seconds; doubled on each further retry.
    public var retryBaseDelay: TimeInterval {
        get { state.withLock { $0.retryBaseDelay } }
        set { state.withLock { $0.retryBaseDelay = max(0, newValue) } }
    }

    public var timeoutIntervalForRequest: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForRequest } }
        set { state.withLock { $0.timeoutIntervalForRequest = newValue } }
    }

    public var timeoutIntervalForResource: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForResource } }
        set { state.withLock { $0.timeoutIntervalForResource = newValue } }
    }

    /// Larger responses fail with `HaloError.invalidResponse`.
    public var maximumResponseBytes: Int {
        get { state.withLock { $0.maximumResponseBytes } }
        set { state.withLock { $0.maximumResponseBytes = newValue } }
    }

    public var delegate: (any ManagerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The device as last saved (nil before `startup`).
    public var device: Device? { state.withLock { $0.device } }

    /// The server's version object from the last version check.
    public var serverVersion: JSONValue? { state.withLock { $0.serverVersion } }

    // MARK: Logging

    public var logLevel: LogLevel {
        get { state.withLock { $0.logLevel } }
        set { state.withLock { $0.logLevel = newValue } }
    }

    /// Registers a logger (do it before `startup` to see every request).
    public func addLogger(_ logger: any Logger) {
        state.withLock { $0.loggers.append(logger) }
    }

    /// Sends `message` to every registered logger when `level` is within `logLevel`.
    public func logMessage(_ message: String, level: LogLevel) {
        let (loggers, threshold) = state.withLock { ($0.loggers, $0.logLevel) }
        guard level != .none, level <= threshold else { return }
        for logger in loggers { logger.logMessage(message, level: level) }
    }

    /// The seed's labelled form `logMessage(message:level:)`.
    public func logMessage(message: String, level: LogLevel) { logMessage(message, level: level) }

    // MARK: Content

    /// The seed's `getModules`, documented on the core manager (Core Manager page, Content
    /// chapter "Retrieving modules"): `content.getModules()` with a completion handler.
    public func getModules(completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<PaginatedModules?, HaloError>) -> Void) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await content.getModules())) } catch { handler(nil, .failure(error)) }
        }
    }

    // MARK: Add-ons

    /// Registers an add-on (before `startup`): `willRegisterAddon`, then `didRegisterAddon`.
    public func registerAddon(_ addon: any Addon) {
        addon.willRegisterAddon(core: self)
        state.withLock { $0.addons.append(addon) }
        addon.didRegisterAddon(core: self)
    }

    /// The registered add-ons of a type.
    public func getAddons<T>(type: T.Type) -> [T] {
        state.withLock { $0.addons.compactMap { $0 as? T } }
    }

    var addons: [any Addon] { state.withLock { $0.addons } }

    /// Linux-neutral counterparts of the UIApplication hooks: the host app calls these.
    public func applicationDidStart() { addons.forEach { $0.applicationDidStart(core: self) } }
    public func applicationDidBecomeActive() { addons.forEach { $0.applicationDidBecomeActive(core: self) } }
    public func applicationWillTerminate() { addons.forEach { $0.applicationWillTerminate(core: self) } }

    // MARK: Trust

    /// The TLS policy from the configuration, as a browser with pinning: certificate authorities
    /// decide, unless the certificates folder holds pins (read once; `pinCertificate` re-reads).
    func tlsTrust() throws(HaloError) -> TLSTrust {
        let configuration = self.configuration
        let authorities = TLSTrust.certificateAuthorities(bundle: configuration.certificateAuthoritiesFile)
        // Plain http (loopback only, enforced by the transport) has no certificate to pin.
        if configuration.disableSSLPinning || configuration.environment.baseURL?.scheme?.lowercased() == "http" { return authorities }
        if let trust = state.withLock({ $0.trust }) { return trust }
        let trust = try PinnedPublicKeys.read(from: configuration.certificatesDirectory).map(TLSTrust.pinned) ?? authorities
        state.withLock { $0.trust = trust }
        return trust
    }

    /// The certificate the configured server presents, read without trusting it: what the user
    /// is shown before pinning it.
    public func serverCertificate() async throws(HaloError) -> ServerCertificate {
        guard let url = configuration.environment.baseURL else {
            throw .configuration(message: "No server is configured")
        }
        return try await transport.presentedCertificate(at: url, timeout: min(timeoutIntervalForRequest, 30))
    }

    /// Pins `certificate` for the configured server: saved in the certificates folder, after which
    /// only the pinned certificates are trusted (unless `disableSSLPinning`).
    @discardableResult
    public func pinCertificate(_ certificate: ServerCertificate) throws(HaloError) -> CertificatePin {
        let configuration = self.configuration
        let pin = try certificate.pin(
            in: configuration.certificatesDirectory, host: configuration.environment.baseURL?.host ?? "server")
        state.withLock { $0.trust = nil }
        return pin
    }

    /// Takes back a pin made by `pinCertificate` (the user's Undo).
    public func undoPin(_ pin: CertificatePin) throws(HaloError) {
        try pin.undo()
        state.withLock { $0.trust = nil }
    }

    /// True when the certificates folder pins `certificate`'s key.
    public func isPinned(_ certificate: ServerCertificate) -> Bool {
        certificate.isPinned(in: configuration.certificatesDirectory)
    }

    func setDevice(_ device: Device?) { state.withLock { $0.device = device } }
    var deviceStreamCredential: DeviceStreamCredential? {
        get { state.withLock { $0.deviceStreamCredential } }
        set { state.withLock { $0.deviceStreamCredential = newValue } }
    }
    func setServerVersion(_ version: JSONValue?) { state.withLock { $0.serverVersion = version } }

}

/// Holds a weak reference (used where a closure must not keep the core alive).
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T? = nil) { self.value = value }
}
