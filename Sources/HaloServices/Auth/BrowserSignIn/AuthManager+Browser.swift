import Foundation

extension AuthManager {
    /// How long a browser sign-in waits for the browser to come back by default.
    public static let browserSignInTimeout: Duration = .seconds(300)

    /// Signs in with Google or Facebook through the user's browser (RFC 8252): the provider's page
    /// opens through `openBrowser`, the answer comes back to a one-shot listener on 127.0.0.1, the
    /// code is exchanged (PKCE S256), and HALO's identified login gets the provider's token. With
    /// `stayLoggedIn` what renews the session (the provider's refresh token) goes to the keyring.
    /// Cancelling the task cancels the sign-in; `timeout` ends it too. The browser's page is sent
    /// once the outcome is known, and says it: signed in, or not and what to do (or, after 15 s,
    /// that HaloDesk is still finishing; the caller shows the outcome).
    ///
    /// - Parameter openBrowser: shows the address to the user. The app opens it with GTK, the CLI
    ///   with `xdg-open` (or prints it). The SDK itself never starts a browser. It runs while the
    ///   sign-in waits for the browser; the sign-in returns once it has returned.
    public func loginWithBrowser(
        network: Network, stayLoggedIn: Bool, timeout: Duration = browserSignInTimeout,
        openBrowser: @escaping @Sendable (URL) async throws -> Void
    ) async throws(HaloError) -> User {
        let core = try requireCore()
        guard let configured = core.configuration.socialProviders[network] else {
            let name = network == .facebook ? "Facebook" : network == .google ? "Google" : network.rawValue
            throw .configuration(message: "Sign-in with \(name) is not set up: add its client id in Preferences or the configuration file.")
        }
        let provider = await configured.withSecret(from: core.configuration)
        let signIn = BrowserSignIn(provider: provider, transport: core.transport, trust: core.providerTrust)
        let user = try await signIn.run(openBrowser: openBrowser, timeout: timeout) { tokens throws(HaloError) in
            // The browser's page waits for this (up to the listener's wait): it tells the truth.
            let session = ProviderSession(provider: provider, tokens: tokens)
            let (profile, token) = try await loginRequest(session.authProfile, core: core)
            let stored = stayLoggedIn ? await store(.provider(session), core: core) : false
            if stored { await Self.keepClientSecret(of: provider) }
            let user = User(userProfile: profile, token: token, credentialsStored: stored)
            await begin(user, session: .provider(session), stored: stored, core: core)
            return user
        }
        core.log.info("Signed in with \(provider.displayName)")
        return user
    }

    /// Renewing later (a refresh grant at the next start) needs the client's secret too.
    private static func keepClientSecret(of provider: SocialProvider) async {
        guard let secret = provider.clientSecret else { return }
        try? await SocialProvider.secretKeyring(clientId: provider.clientId).store(
            secret, label: "\(provider.displayName) sign-in client secret (HALO)")
    }

    /// The seed's Social SDK call for Google, on the desktop.
    public func loginWithGoogle(stayLoggedIn: Bool, openBrowser: @escaping @Sendable (URL) async throws -> Void)
        async throws(HaloError) -> User
    {
        try await loginWithBrowser(network: .google, stayLoggedIn: stayLoggedIn, openBrowser: openBrowser)
    }

    /// The seed's Social SDK call for Facebook, on the desktop.
    public func loginWithFacebook(stayLoggedIn: Bool, openBrowser: @escaping @Sendable (URL) async throws -> Void)
        async throws(HaloError) -> User
    {
        try await loginWithBrowser(network: .facebook, stayLoggedIn: stayLoggedIn, openBrowser: openBrowser)
    }
}

extension CoreManager {
    /// Identity providers are public services: certificate authorities vouch for them (the
    /// configured bundle if any, else the system's), never the HALO server's pins.
    var providerTrust: TLSTrust { .certificateAuthorities(bundle: configuration.certificateAuthoritiesFile) }
}
