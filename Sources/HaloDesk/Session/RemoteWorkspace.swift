import Foundation
import HaloServices

/// A HALO server elsewhere: an SDK client configured for it, its client secret in the keyring.
enum RemoteWorkspace {
    /// Where the client secret for `clientId` on `environment` lives in the keyring.
    static func secretKeyring(environment: HaloEnvironment, clientId: String) -> Keyring {
        Keyring(server: "halo-desk-remote:\(environment.description)", account: "client:\(clientId)")
    }

    static func configuration(for choice: ServerChoice, settings: AppSettings) -> HaloConfiguration {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: choice.clientId, clientSecret: choice.clientSecret)
        configuration.environment = choice.environment
        configuration.disableSSLPinning = settings.disableSSLPinning
        configuration.applicationName = AppInfo.name
        configuration.applicationVersion = AppInfo.version
        configuration.socialProviders = socialProviders(settings: settings)
        return configuration
    }

    /// Browser sign-in providers: the configuration file's (GOOGLE_CLIENT_ID, FACEBOOK_APP_ID…),
    /// replaced network by network by those set in Preferences.
    static func socialProviders(settings: AppSettings) -> [Network: SocialProvider] {
        var providers = (try? HaloConfiguration.load())?.socialProviders ?? [:]
        if let chosen = try? settings.signInProviders?.providers(source: "Preferences") {
            providers.merge(chosen) { _, preferred in preferred }
        }
        return providers
    }

    /// An SDK client for `choice`, not started (nothing is sent).
    static func client(for choice: ServerChoice, settings: AppSettings) -> CoreManager {
        let core = CoreManager(configuration: configuration(for: choice, settings: settings))
        core.numberOfRetries = settings.numberOfRetries
        return core
    }

    /// Connects (start-up: token, device, version check) and returns the started client; with
    /// `notifications` it follows the live event stream (this device's notifications, others'
    /// content changes).
    static func open(_ choice: ServerChoice, settings: AppSettings, notifications: NotificationsAddon? = nil) async throws -> CoreManager {
        let core = client(for: choice, settings: settings)
        if let notifications { core.registerAddon(notifications) }
        try await core.startup()
        return core
    }

    /// The connection test: start-up plus a module listing, summarised in one sentence. It tries
    /// once (no retries) under the user's TLS settings.
    static func test(_ choice: ServerChoice, settings: AppSettings) async -> Result<String, Error> {
        do {
            var settings = settings
            settings.numberOfRetries = 0
            let core = try await open(choice, settings: settings)
            let modules = try await core.content.getModules()
            return .success("The server lists \(modules.modules.count) module\(modules.modules.count == 1 ? "" : "s").")
        } catch {
            return .failure(error)
        }
    }

    /// The certificate an https server presents (read without trusting it); nil for http or when
    /// nothing answered.
    static func presentedCertificate(_ choice: ServerChoice, settings: AppSettings) async -> ServerCertificate? {
        guard choice.environment.baseURL?.scheme?.lowercased() == "https" else { return nil }
        return try? await client(for: choice, settings: settings).serverCertificate()
    }
}
