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
        return configuration
    }

    /// Connects (start-up: token, device, version check) and returns the started client.
    static func open(_ choice: ServerChoice, settings: AppSettings) async throws -> CoreManager {
        let core = CoreManager(configuration: configuration(for: choice, settings: settings))
        core.numberOfRetries = settings.numberOfRetries
        try await core.startup()
        return core
    }

    /// The connection test: start-up plus a module listing, summarised in one sentence.
    static func test(_ choice: ServerChoice) async -> Result<String, Error> {
        do {
            var settings = AppSettings()
            settings.numberOfRetries = 0
            let core = try await open(choice, settings: settings)
            let modules = try await core.content.getModules()
            return .success("The server lists \(modules.modules.count) module\(modules.modules.count == 1 ? "" : "s").")
        } catch {
            return .failure(error)
        }
    }
}
