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
    @discardableResult
    public func saveDevice() async throws(HaloError) -> Device {
        let device = self.device ?? Device()
        let addons = self.addons
        addons.forEach { $0.willRegisterDevice(core: self) }
        let configuration = self.configuration
        let call: APIRequest
        if let id = device.id {
            var body = device.requestJSON()
            // A device without its stream credential here (keyring emptied, another computer's
            // copy) asks for a new one; a new device gets one anyway.
            if await DeviceStreamCredential.load(deviceId: id, environment: configuration.environment, core: self) == nil,
                case .object(var members) = body
            {
                members["renewEventStreamSecret"] = .bool(true)
                body = .object(members)
            }
            call = APIRequest(.put, "api/segmentation/appuser/\(APIRequest.formEncode(id))", body: .json(body))
        } else {
            call = APIRequest(.post, "api/segmentation/appuser", body: .json(device.requestJSON()))
        }
        let saved = try Device(wire: try await performJSON(call))
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
