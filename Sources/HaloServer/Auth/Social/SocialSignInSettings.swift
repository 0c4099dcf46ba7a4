import Foundation

/// Which identity providers the server trusts and how it links their users to accounts: the file
/// `halo-server serve --social-config` reads (JSON, see docs/social-sign-in.md).
public struct SocialSignInSettings: Sendable, Codable, Equatable {
    /// OpenID Connect issuers whose ID tokens are accepted: the allow-list. Google is one; a
    /// company's identity server can be another.
    public var openIDProviders: [OpenIDProvider]
    public var facebook: FacebookApp?
    /// What happens when a provider does not vouch for the email (see `UnverifiedEmailPolicy`).
    public var unverifiedEmail: UnverifiedEmailPolicy
    /// Tolerated clock difference for `exp` and `iat`.
    public var clockSkewSeconds: Int

    public init(
        openIDProviders: [OpenIDProvider] = [], facebook: FacebookApp? = nil,
        unverifiedEmail: UnverifiedEmailPolicy = .separateAccount, clockSkewSeconds: Int = 60
    ) {
        self.openIDProviders = openIDProviders
        self.facebook = facebook
        self.unverifiedEmail = unverifiedEmail
        self.clockSkewSeconds = clockSkewSeconds
    }

    public struct OpenIDProvider: Sendable, Codable, Equatable {
        /// The network clients name in their login (`google`).
        public var network: SocialNetwork
        /// Exact `iss` of its ID tokens (Google: `https://accounts.google.com`).
        public var issuer: String
        /// Where its signing keys are published; nil: read `jwks_uri` from the issuer's discovery document.
        public var jwksURL: URL?
        /// Accepted audiences: the client ids of the apps that sign in (HALO's "Google ids").
        public var clientIds: [String]

        public init(network: SocialNetwork = .google, issuer: String, jwksURL: URL? = nil, clientIds: [String]) {
            self.network = network
            self.issuer = issuer
            self.jwksURL = jwksURL
            self.clientIds = clientIds
        }

        /// Google's documented issuer and key set (not reachable from the project's test machines).
        public static func google(clientIds: [String]) -> OpenIDProvider {
            OpenIDProvider(
                issuer: "https://accounts.google.com", jwksURL: URL(string: "https://www.googleapis.com/oauth2/v3/certs"),
                clientIds: clientIds)
        }
    }

    public struct FacebookApp: Sendable, Codable, Equatable {
        public var appId: String
        public var appSecret: String
        /// Graph API's token inspection (`debug_token`) and profile (`me`) endpoints.
        public var inspectURL: URL
        public var profileURL: URL
        /// Whether Facebook emails count as verified for linking to existing accounts. Off by
        /// default: Graph API does not say whether an email was confirmed.
        public var emailsAreVerified: Bool

        public init(
            appId: String, appSecret: String,
            inspectURL: URL = URL(string: "https://graph.facebook.com/debug_token")!,
            profileURL: URL = URL(string: "https://graph.facebook.com/me")!, emailsAreVerified: Bool = false
        ) {
            self.appId = appId
            self.appSecret = appSecret
            self.inspectURL = inspectURL
            self.profileURL = profileURL
            self.emailsAreVerified = emailsAreVerified
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            appId = try container.decode(String.self, forKey: .appId)
            appSecret = try container.decode(String.self, forKey: .appSecret)
            inspectURL =
                try container.decodeIfPresent(URL.self, forKey: .inspectURL) ?? URL(string: "https://graph.facebook.com/debug_token")!
            profileURL = try container.decodeIfPresent(URL.self, forKey: .profileURL) ?? URL(string: "https://graph.facebook.com/me")!
            emailsAreVerified = try container.decodeIfPresent(Bool.self, forKey: .emailsAreVerified) ?? false
        }
    }

    /// A sign-in whose email the provider does not vouch for never takes over an account with that
    /// email. `separateAccount` makes it its own account (without that email); `refuse` turns it away.
    public enum UnverifiedEmailPolicy: String, Sendable, Codable {
        case separateAccount, refuse
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        openIDProviders = try container.decodeIfPresent([OpenIDProvider].self, forKey: .openIDProviders) ?? []
        facebook = try container.decodeIfPresent(FacebookApp.self, forKey: .facebook)
        unverifiedEmail = try container.decodeIfPresent(UnverifiedEmailPolicy.self, forKey: .unverifiedEmail) ?? .separateAccount
        clockSkewSeconds = try container.decodeIfPresent(Int.self, forKey: .clockSkewSeconds) ?? 60
    }

    /// A settings file that cannot be read or parsed.
    public struct SettingsFileError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Reads the settings file, with a sentence for every mistake.
    public static func load(_ url: URL) throws -> SocialSignInSettings {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SettingsFileError(description: "Cannot read the social sign-in settings \(url.path)")
        }
        do { return try JSONDecoder().decode(SocialSignInSettings.self, from: data) } catch {
            throw SettingsFileError(description: "The social sign-in settings \(url.path) are not valid: \(error)")
        }
    }

    /// Trusting a provider that implements the local identity provider's endpoints (`/jwks`,
    /// `/debug_token`, `/me`) at `issuer`, for both networks: the local workspace and the tests.
    public static func localProvider(
        issuer: URL, clientIds: [String], facebookAppId: String, facebookAppSecret: String
    ) -> SocialSignInSettings {
        SocialSignInSettings(
            openIDProviders: [
                OpenIDProvider(issuer: issuer.absoluteString, jwksURL: issuer.appendingPathComponent("jwks"), clientIds: clientIds)
            ],
            facebook: FacebookApp(
                appId: facebookAppId, appSecret: facebookAppSecret, inspectURL: issuer.appendingPathComponent("debug_token"),
                profileURL: issuer.appendingPathComponent("me"), emailsAreVerified: true))
    }
}
