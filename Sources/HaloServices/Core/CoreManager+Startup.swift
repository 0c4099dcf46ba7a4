import Foundation

extension CoreManager {
    /// Starts the SDK (PROTOCOL §4.1): clears tokens, loads the stored device (refreshing it from
    /// the server; any failure starts a new one), sets system tags, sets up and starts add-ons,
    /// calls the delegate's `managerWillSetupDevice`, saves the device, logs the stored
    /// identified user in again, and runs the version check. Tokens are obtained on the first 401.
    public func startup() async throws(HaloError) {
        let configuration = self.configuration
        guard configuration.appCredentials != nil || configuration.userCredentials != nil else {
            throw .configuration(message: "No credentials: set CLIENT_ID and CLIENT_SECRET in Halo.plist or appCredentials in code")
        }
        await tokens.clearAll()
        // Keep a mode chosen in code (e.g. `.user`); app+ only comes back through a login below.
        if authenticationMode == .appPlus { authenticationMode = .app }
        if authenticationMode == .app && configuration.appCredentials == nil { authenticationMode = .user }

        let store = DeviceStore(directory: configuration.dataDirectory)
        var device = store.load(environment: configuration.environment, credentials: configuration.appCredentials) ?? Device()
        if let id = device.id {
            do {
                device = try Device(wire: try await performJSON(APIRequest(.get, "api/segmentation/appuser/\(APIRequest.formEncode(id))")))
            } catch {
                log.warning("The stored device \(id) could not be loaded (\(error)); registering a new one")
                device = Device()
            }
        }
        if configuration.enableSystemTags {
            SystemTags.collect(
                applicationName: configuration.applicationName, applicationVersion: configuration.applicationVersion,
                environment: configuration.environment
            ).forEach(device.setTag)
        }
        setDevice(device)

        for addon in addons {
            if await !addon.setup(core: self) { log.warning("Add-on \(addon.addonName) failed to set up") }
        }
        for addon in addons {
            if await !addon.startup(core: self) { log.warning("Add-on \(addon.addonName) failed to start") }
        }
        delegate?.managerWillSetupDevice(device: device)
        _ = try await saveDevice()
        await auth.loginWithStoredProfile()
        await checkVersion()
        log.info("HALO started against \(configuration.environment)")
    }

    /// The seed's form: `handler(true)` once everything is ready, `false` on failure (logged).
    public func startup(completionHandler handler: (@Sendable (Bool) -> Void)?) {
        Task {
            do {
                try await startup()
                handler?(true)
            } catch {
                logMessage("Startup failed: \(error)", level: .error)
                handler?(false)
            }
        }
    }

    /// Saves the current device: `PUT appuser/{id}` when it has an id, else `POST appuser`.
    /// The server's copy replaces it and is persisted for this environment.
    ///
    /// Renewing a device's stream credential needs the current one (docs/protocol.md §23.12): a
    /// device whose credential is not at hand (keyring emptied or unreachable, another computer's
    /// copy) registers again when its notifications are wanted (a `NotificationsAddon` is
    /// installed), and is otherwise saved as it is, without a stream of its own. A device the
    /// server no longer lets this app update (404) registers again, as Android does.
    @discardableResult
    public func saveDevice() async throws(HaloError) -> Device {
        var device = self.device ?? Device()
        let addons = self.addons
        addons.forEach { $0.willRegisterDevice(core: self) }
        let configuration = self.configuration
        if let id = device.id, !getAddons(type: NotificationsAddon.self).isEmpty,
            await DeviceStreamCredential.load(deviceId: id, environment: configuration.environment, core: self) == nil
        {
            log.info("The stream credential of device \(id) is not at hand: registering the device again for its notifications")
            device = device.registeringAgain()
        }
        let saved: Device
        if let id = device.id {
            let update = APIRequest(.put, "api/segmentation/appuser/\(APIRequest.formEncode(id))", body: .json(device.requestJSON()))
            do {
                saved = try Device(wire: try await performJSON(update))
            } catch .server(404, _, _) {
                log.info("The server no longer has device \(id) for this app: registering the device again")
                saved = try Device(wire: try await performJSON(Self.registration(of: device.registeringAgain())))
            }
        } else {
            saved = try Device(wire: try await performJSON(Self.registration(of: device)))
        }
        setDevice(saved)
        if let id = saved.id, let secret = saved.eventStreamSecret {
            await DeviceStreamCredential.store(secret, deviceId: id, environment: configuration.environment, core: self)
        }
        do {
            try DeviceStore(directory: configuration.dataDirectory).save(
                saved, environment: configuration.environment,
                credentials: configuration.appCredentials)
        } catch {
            log.warning("\(error)")
        }
        addons.forEach { $0.didRegisterDevice(core: self) }
        return saved
    }

    /// `POST appuser` of a device not yet known to the server.
    private static func registration(of device: Device) -> APIRequest {
        APIRequest(.post, "api/segmentation/appuser", body: .json(device.requestJSON()))
    }

    /// The seed's form of `saveDevice`.
    public func saveDevice(completionHandler handler: (@Sendable (HTTPResponse?, Result<Device?, HaloError>) -> Void)? = nil) {
        Task {
            do throws(HaloError) { handler?(nil, .success(try await saveDevice())) } catch { handler?(nil, .failure(error)) }
        }
    }

    /// Forgets the device stored for the current environment (a new one is created at next start).
    public func removeStoredDevice() {
        let configuration = self.configuration
        DeviceStore(directory: configuration.dataDirectory).remove(environment: configuration.environment)
        setDevice(nil)
    }

    /// The version check (§5): `GET api/authentication/version` (`to-cache: 86400`). Logs a
    /// warning when the server asks for a newer Linux SDK (`minLinux`); failures are only logged.
    func checkVersion() async {
        do {
            let json = try await performJSON(APIRequest(.get, "api/authentication/version", headers: ["to-cache": "86400"]))
            let version = json.arrayValue?.first ?? json
            setServerVersion(version)
            if let minimum = version["minLinux"]?.stringValue, Self.isVersion(Self.sdkVersion, olderThan: minimum) {
                log.warning("This HALO SDK (\(Self.sdkVersion)) is older than the server's minimum \(minimum)")
            }
        } catch {
            log.warning("Version check failed: \(error)")
        }
    }

    /// Numeric dotted comparison; `-SNAPSHOT` style suffixes are ignored.
    static func isVersion(_ version: String, olderThan other: String) -> Bool {
        func parts(_ text: String) -> [Int] {
            text.split(separator: "-").first.map { $0.split(separator: ".").map { Int($0) ?? 0 } } ?? []
        }
        let (a, b) = (parts(version), parts(other))
        for index in 0..<max(a.count, b.count) {
            let (x, y) = (index < a.count ? a[index] : 0, index < b.count ? b[index] : 0)
            if x != y { return x < y }
        }
        return false
    }
}
