/// A social network an identified user can sign in with (§7.2).
public enum SocialNetwork: String, Sendable, CaseIterable, Codable {
    case google
    case facebook
}

/// The identity a social token proves.
public struct SocialIdentity: Sendable, Equatable {
    /// Stable id of the account at the provider: `<issuer>#<sub>` for OpenID Connect (a `sub` is
    /// unique only within its issuer), the user id for Facebook.
    public var subject: String
    /// Nil when the provider gave none (possible on Facebook).
    public var email: String?
    /// Whether a trusted provider vouches that the person owns `email`. Only then is the sign-in
    /// linked to an existing account with that email.
    public var emailVerified: Bool
    public var name: String
    public var surname: String
    public var photoURL: String

    public init(
        subject: String, email: String?, emailVerified: Bool, name: String = "", surname: String = "", photoURL: String = ""
    ) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.surname = surname
        self.photoURL = photoURL
    }
}

/// Why a social token was refused; the message reaches the client in a 400 envelope.
public struct SocialTokenRejection: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Checks a Google (OpenID Connect) ID token or a Facebook access token. `ProviderTokenVerifier` is
/// the real one; tests may plug in others. It must never accept an unverified token.
public protocol SocialTokenVerifier: Sendable {
    /// Returns the verified identity or throws `SocialTokenRejection`.
    func verify(token: String, network: SocialNetwork) async throws -> SocialIdentity
}

/// The default verifier: rejects every social token with a clear message.
public struct UnconfiguredSocialTokenVerifier: SocialTokenVerifier {
    public init() {}
    public func verify(token: String, network: SocialNetwork) async throws -> SocialIdentity {
        throw SocialTokenRejection(
            "Sign-in with \(network == .google ? "Google" : "Facebook") is not configured on this server (halo-server serve --social-config)"
        )
    }
}
