import Foundation

/// What renews an identified user's session: the profile to log in with again (email and password,
/// or a provider token given by the caller), or the provider session a browser sign-in left.
/// "Stay logged in" keeps it in the keyring.
enum SessionCredentials: Sendable, Equatable {
    case profile(AuthProfile)
    case provider(ProviderSession)

    var keyringLabel: String {
        switch self {
        case .profile(let profile): return "HALO account \(profile.email ?? profile.network.rawValue)"
        case .provider(let session): return "HALO account (\(session.provider.displayName) sign-in)"
        }
    }

    func encoded() throws -> String {
        let data: Data
        switch self {
        case .profile(let profile): data = try JSONEncoder().encode(profile)
        case .provider(let session): data = try JSONEncoder().encode(StoredProviderSession(providerSession: session))
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads what `encoded()` wrote (and what earlier releases wrote: a bare profile). A provider
    /// session gets its client secret back from the configuration or the keyring.
    static func decode(_ secret: String, configuration: HaloConfiguration) async -> SessionCredentials? {
        let data = Data(secret.utf8)
        if var stored = try? JSONDecoder().decode(StoredProviderSession.self, from: data).providerSession {
            stored.provider = await stored.provider.withSecret(from: configuration)
            return .provider(stored)
        }
        return (try? JSONDecoder().decode(AuthProfile.self, from: data)).map(SessionCredentials.profile)
    }

    private struct StoredProviderSession: Codable {
        var providerSession: ProviderSession
    }
}

/// A browser sign-in's lasting part: the provider (without its secret), the token HALO's login
/// takes, and the provider's refresh token when it gave one. Google's ID tokens last an hour; the
/// refresh token gets a new one without the browser. Facebook gives no refresh token, but its
/// access tokens last for weeks.
struct ProviderSession: Sendable, Codable, Equatable {
    var provider: SocialProvider
    var token: String
    var refreshToken: String?

    init(provider: SocialProvider, tokens: BrowserSignIn.ProviderTokens) {
        self.provider = provider
        token = (provider.tokenKind == .idToken ? tokens.idToken : nil) ?? tokens.accessToken
        refreshToken = tokens.refreshToken
    }

    var authProfile: AuthProfile { AuthProfile(token: token, network: provider.network) }

    /// New provider tokens through the refresh grant; unchanged when there is no refresh token.
    func renewed(transport: CurlTransport, trust: TLSTrust) async throws(HaloError) -> ProviderSession {
        guard let refreshToken else { return self }
        let tokens = try await BrowserSignIn(provider: provider, transport: transport, trust: trust).refresh(refreshToken)
        return ProviderSession(provider: provider, tokens: tokens)
    }
}
