import Foundation

extension LocalIdentityProvider {
    /// A person who can sign in at the provider.
    public struct Account: Sendable, Equatable, Codable {
        /// The stable user id (`sub` of ID tokens, Facebook's user `id`).
        public var subject: String
        /// Nil for an account without an email (possible on Facebook).
        public var email: String?
        /// Whether the provider vouches for the email (`email_verified`).
        public var emailVerified: Bool
        public var givenName: String
        public var familyName: String
        public var picture: String

        public init(
            subject: String, email: String?, emailVerified: Bool = true, givenName: String, familyName: String, picture: String = ""
        ) {
            self.subject = subject
            self.email = email
            self.emailVerified = emailVerified
            self.givenName = givenName
            self.familyName = familyName
            self.picture = picture
        }

        public var displayName: String { [givenName, familyName].filter { !$0.isEmpty }.joined(separator: " ") }
    }

    /// An application registered at the provider. Redirects may go to any loopback port (RFC 8252 §7.3).
    public struct Client: Sendable, Equatable, Codable {
        public var id: String
        /// Google's desktop clients have a (non-confidential) secret; nil for a public client.
        public var secret: String?
        /// Shown on the consent page.
        public var name: String

        public init(id: String, secret: String? = nil, name: String) {
            self.id = id
            self.secret = secret
            self.name = name
        }
    }

    public struct Settings: Sendable {
        /// Loopback only by default: the provider is for this machine.
        public var host = "127.0.0.1"
        public var port = 0
        public var accounts: [Account]
        public var clients: [Client]
        /// Lifetime of ID and access tokens. Tests shorten it to check that a session outlives them.
        public var tokenLifetime: Duration = .seconds(3600)
        /// Lifetime of an authorization code (RFC 6749 §4.1.2 recommends at most 10 minutes).
        public var codeLifetime: Duration = .seconds(120)
        /// What the consent page calls the provider.
        public var displayName = "HaloDesk test identity provider"

        public init(accounts: [Account], clients: [Client]) {
            self.accounts = accounts
            self.clients = clients
        }

        /// Client id HaloDesk uses for Google-style (OpenID Connect) sign-in at the local provider.
        public static let desktopClientId = "halodesk-desktop"
        /// Its secret (Google's desktop clients have one too, "not treated as a secret").
        public static let desktopClientSecret = "local-desktop-secret"
        /// Client id and secret of the Facebook-style app (the server inspects tokens with both).
        public static let facebookAppId = "halodesk-facebook-app"
        public static let facebookAppSecret = "local-facebook-app-secret"

        /// Three people: a verified email, an unverified one, and one without an email.
        public static var demo: Settings {
            Settings(
                accounts: [
                    Account(subject: "1001", email: "ada@example.com", givenName: "Ada", familyName: "Lovelace"),
                    Account(
                        subject: "1002", email: "grace@example.com", emailVerified: false, givenName: "Grace", familyName: "Hopper"),
                    Account(subject: "1003", email: nil, givenName: "Alan", familyName: "Turing"),
                ],
                clients: [
                    Client(id: desktopClientId, secret: desktopClientSecret, name: "HaloDesk"),
                    Client(id: facebookAppId, secret: facebookAppSecret, name: "HaloDesk"),
                ])
        }
    }
}
