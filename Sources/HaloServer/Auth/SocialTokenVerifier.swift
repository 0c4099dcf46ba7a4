/// A social network an identified user can sign in with (§7.2).
public enum SocialNetwork: String, Sendable, CaseIterable {
    case google
    case facebook
}

/// The identity a social token proves.
public struct SocialIdentity: Sendable, Equatable {
    /// Stable id of the account at the provider (Google `sub`, Facebook user id).
    public var subject: String
    public var email: String
    public var name: String
    public var surname: String
    public var photoURL: String

    public init(subject: String, email: String, name: String = "", surname: String = "", photoURL: String = "") {
        self.subject = subject
        self.email = email
        self.name = name
        self.surname = surname
        self.photoURL = photoURL
    }
}

/// Why a social token was refused; the message reaches the client in a 400 envelope.
public struct SocialTokenRejection: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Checks a Google ID token or Facebook access token. Verifying needs the provider (network access
/// and app credentials), so the server takes it as a plug-in; it must never accept unverified tokens.
public protocol SocialTokenVerifier: Sendable {
    /// Returns the verified identity or throws `SocialTokenRejection`.
    func verify(token: String, network: SocialNetwork) async throws -> SocialIdentity
}

/// The default verifier: rejects every social token with a clear message.
public struct UnconfiguredSocialTokenVerifier: SocialTokenVerifier {
    public init() {}
    public func verify(token: String, network: SocialNetwork) async throws -> SocialIdentity {
        throw SocialTokenRejection("Sign-in with Google/Facebook is not configured on this server")
    }
}
