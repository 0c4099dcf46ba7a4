import Foundation
import HaloIdentityProvider
import HaloServer
import HaloServices

/// The app's embedded default: a HaloServer running in-process on 127.0.0.1 with its data under
/// `$XDG_DATA_HOME/halo-desk/local`, seeded with the demo workspace on first use.
///
/// Credentials: the demo app client and editor are created once; their ids go to
/// `local/workspace.json`, their secrets to the keyring. Without a keyring the app — which owns
/// this server — issues itself a fresh app client instead of storing a secret in a file.
final class LocalWorkspace: Sendable {
    struct Identity: Codable, Equatable {
        var clientId: String
        var editorEmail: String
    }

    let server: HaloServerInstance
    /// The local identity provider the Google and Facebook buttons sign in at (no internet needed).
    let identityProvider: LocalIdentityProvider
    let core: CoreManager
    /// The demo editor's email and, when the keyring holds it, password (to prefill sign-in).
    let editorEmail: String
    let editorPassword: String?

    private init(
        server: HaloServerInstance, identityProvider: LocalIdentityProvider, core: CoreManager, editorEmail: String,
        editorPassword: String?
    ) {
        self.server = server
        self.identityProvider = identityProvider
        self.core = core
        self.editorEmail = editorEmail
        self.editorPassword = editorPassword
    }

    static var defaultDirectory: URL { XDGDirectories.data.appendingPathComponent("local", isDirectory: true) }

    /// Starts the server (seeding it on first use) and a started SDK client talking to it, which
    /// follows the live event stream through `notifications`.
    static func open(directory: URL = defaultDirectory, notifications: NotificationsAddon = NotificationsAddon()) async throws
        -> LocalWorkspace
    {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let identityProvider = try await LocalIdentityProvider.start(.demo)
        var serverConfiguration = HaloServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, logRequests: false)
        serverConfiguration.trustSocialProviders(Self.trust(identityProvider))
        let server: HaloServerInstance
        do { server = try await HaloServerInstance.start(serverConfiguration) } catch {
            await identityProvider.stop()
            throw error
        }
        do {
            let identityFile = directory.appendingPathComponent("workspace.json")
            let keyring = { (account: String) in Keyring(server: "halo-desk-local:\(directory.path)", account: account) }
            let clientId: String, clientSecret: String, editorEmail: String, editorPassword: String?

            if let data = try? Data(contentsOf: identityFile),
                let identity = try? JSONDecoder().decode(Identity.self, from: data)
            {
                editorEmail = identity.editorEmail
                editorPassword = try? await keyring("user:\(identity.editorEmail)").lookup()
                if let secret = try? await keyring("client:\(identity.clientId)").lookup() {
                    (clientId, clientSecret) = (identity.clientId, secret)
                } else {
                    let client = try await server.admin.addClient(name: "HaloDesk (no keyring)")
                    (clientId, clientSecret) = (client.clientId, client.clientSecret)
                }
            } else {
                let demo = try await server.admin.seedDemo()
                (clientId, clientSecret, editorEmail) = (demo.clientId, demo.clientSecret, demo.editorEmail)
                // Without a keyring the password can only be shown now; the secret is never written to a file.
                _ = try? await keyring("user:\(demo.editorEmail)").store(demo.editorPassword, label: "HaloDesk local workspace editor")
                _ = try? await keyring("client:\(demo.clientId)").store(demo.clientSecret, label: "HaloDesk local workspace app client")
                editorPassword = demo.editorPassword
                let identity = Identity(clientId: demo.clientId, editorEmail: demo.editorEmail)
                try JSONEncoder().encode(identity).write(to: identityFile, options: .atomic)
            }

            var configuration = HaloConfiguration()
            configuration.appCredentials = Credentials(clientId: clientId, clientSecret: clientSecret)
            configuration.environment = .custom(server.baseURL.absoluteString)
            configuration.dataDirectory = directory.appendingPathComponent("client", isDirectory: true)
            configuration.applicationName = AppInfo.name
            configuration.applicationVersion = AppInfo.version
            configuration.socialProviders = Self.providers(identityProvider)
            let core = CoreManager(configuration: configuration)
            core.registerAddon(notifications)
            try await core.startup()
            return LocalWorkspace(
                server: server, identityProvider: identityProvider, core: core, editorEmail: editorEmail, editorPassword: editorPassword)
        } catch {
            await server.stop()
            await identityProvider.stop()
            throw error
        }
    }

    /// The server trusts the local provider's ID tokens (as Google's) and access tokens (as Facebook's).
    private static func trust(_ provider: LocalIdentityProvider) -> SocialSignInSettings {
        SocialSignInSettings.localProvider(
            issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
            facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
            facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret)
    }

    /// The buttons sign in at the local provider, which stands in for Google and Facebook.
    private static func providers(_ provider: LocalIdentityProvider) -> [Network: SocialProvider] {
        let clients = Dictionary(uniqueKeysWithValues: provider.settings.clients.map { ($0.id, $0.secret) })
        return [
            .google: .openIDConnect(
                network: .google, displayName: "Google", issuer: provider.issuer, clientId: LocalIdentityProvider.Settings.desktopClientId,
                clientSecret: clients[LocalIdentityProvider.Settings.desktopClientId] ?? nil),
            .facebook: .openIDConnect(
                network: .facebook, displayName: "Facebook", issuer: provider.issuer,
                clientId: LocalIdentityProvider.Settings.facebookAppId,
                clientSecret: clients[LocalIdentityProvider.Settings.facebookAppId] ?? nil),
        ]
    }

    func close() async {
        await server.stop()
        await identityProvider.stop()
    }
}
