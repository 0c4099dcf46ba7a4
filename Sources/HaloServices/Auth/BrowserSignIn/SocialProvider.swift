import Foundation

/// Where and how HaloDesk signs a person in through the browser for one HALO network: an OAuth 2.0
/// authorization server used with the authorization code flow and PKCE (RFC 8252, RFC 7636).
/// `google` and `facebook` are the documented presets (not reachable from the project's test
/// machines); any OpenID Connect provider works through its discovery document.
public struct SocialProvider: Sendable, Codable, Equatable {
    /// The HALO network the resulting token is sent with: Google's ID token, Facebook's access token.
    public var network: Network
    /// What the buttons and pages call it ("Google").
    public var displayName: String
    /// Nil when `discoveryURL` provides it.
    public var authorizationEndpoint: URL?
    public var tokenEndpoint: URL?
    /// `…/.well-known/openid-configuration`: fills the endpoints left nil.
    public var discoveryURL: URL?
    public var clientId: String
    /// Google's desktop clients have a secret that is "not treated as a secret"; still kept in the
    /// keyring, never in a configuration file (see `SocialProvider.secretKeyring`).
    public var clientSecret: String?
    public var scopes: [String]

    public init(
        network: Network, displayName: String, authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil,
        discoveryURL: URL? = nil, clientId: String, clientSecret: String? = nil, scopes: [String]
    ) {
        self.network = network
        self.displayName = displayName
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.discoveryURL = discoveryURL
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.scopes = scopes
    }

    /// Google's documented endpoints for installed apps ("OAuth 2.0 for Mobile & Desktop Apps").
    public static func google(clientId: String, clientSecret: String? = nil) -> SocialProvider {
        SocialProvider(
            network: .google, displayName: "Google",
            authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth"),
            tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token"),
            discoveryURL: URL(string: "https://accounts.google.com/.well-known/openid-configuration"),
            clientId: clientId, clientSecret: clientSecret, scopes: ["openid", "email", "profile"])
    }

    /// Facebook Login's documented manual flow (dialog and Graph API token endpoint).
    public static func facebook(appId: String) -> SocialProvider {
        SocialProvider(
            network: .facebook, displayName: "Facebook",
            authorizationEndpoint: URL(string: "https://www.facebook.com/v19.0/dialog/oauth"),
            tokenEndpoint: URL(string: "https://graph.facebook.com/v19.0/oauth/access_token"),
            clientId: appId, scopes: ["email", "public_profile"])
    }

    /// An OpenID Connect provider known only by its issuer (a company's identity server, or the
    /// local identity provider): endpoints come from its discovery document.
    public static func openIDConnect(network: Network, displayName: String, issuer: URL, clientId: String, clientSecret: String? = nil)
        -> SocialProvider
    {
        SocialProvider(
            network: network, displayName: displayName,
            discoveryURL: issuer.appendingPathComponent(".well-known/openid-configuration"), clientId: clientId,
            clientSecret: clientSecret, scopes: network == .facebook ? ["email", "public_profile"] : ["openid", "email", "profile"])
    }

    /// The token HALO's identified login takes for this network (PROTOCOL §7.2).
    var tokenKind: TokenKind { network == .facebook ? .accessToken : .idToken }
    enum TokenKind { case idToken, accessToken }

    /// The secret is not written with the rest: it lives in the keyring.
    enum CodingKeys: String, CodingKey {
        case network, displayName, authorizationEndpoint, tokenEndpoint, discoveryURL, clientId, scopes
    }

    /// Where a provider's client secret is kept.
    public static func secretKeyring(clientId: String) -> Keyring {
        Keyring(server: "halo-social-provider", account: clientId)
    }

    /// This provider with its client secret: the configuration's when it names the same client,
    /// else the keyring's (stored by an earlier "stay signed in"), else none (a public client).
    func withSecret(from configuration: HaloConfiguration) async -> SocialProvider {
        guard clientSecret == nil else { return self }
        var provider = self
        if let configured = configuration.socialProviders[network], configured.clientId == clientId {
            provider.clientSecret = configured.clientSecret
        }
        if provider.clientSecret == nil {
            provider.clientSecret = try? await Self.secretKeyring(clientId: clientId).lookup()
        }
        return provider
    }
}
