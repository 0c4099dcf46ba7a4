import Foundation
import JWTKit

/// Verifies social tokens against the providers `SocialSignInSettings` trusts:
/// - an OpenID Connect ID token (network `google`): signature against the issuer's JWKS (jwt-kit),
///   the issuer on the allow-list, an audience among its client ids, not expired (with skew);
/// - a Facebook access token: Graph API's `debug_token` with the app's credentials (valid, issued to
///   this app), then the profile, whose id must be the inspected user's.
public struct ProviderTokenVerifier: SocialTokenVerifier {
    public let settings: SocialSignInSettings
    private let caches: [String: JWKSCache]

    public init(settings: SocialSignInSettings) {
        self.settings = settings
        var caches: [String: JWKSCache] = [:]
        for provider in settings.openIDProviders {
            caches[provider.issuer] = JWKSCache(provider.jwksURL.map { .jwks($0) } ?? .discovery(issuer: provider.issuer))
        }
        self.caches = caches
    }

    public func verify(token: String, network: SocialNetwork) async throws -> SocialIdentity {
        switch network {
        case .google: return try await verifyIDToken(token, network: network)
        case .facebook: return try await verifyFacebook(token)
        }
    }

    // MARK: OpenID Connect

    /// The claims read from an ID token; checked here, not in `verify(using:)`, so each refusal has its own sentence.
    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var exp: Double
        var iat: Double?
        var email: String?
        var email_verified: FlexibleBool?
        var name: String?
        var given_name: String?
        var family_name: String?
        var picture: String?

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Google has sent `email_verified` both as a boolean and as the string "true".
    struct FlexibleBool: Codable, Sendable {
        var value: Bool
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) { value = bool } else { value = (try? container.decode(String.self)) == "true" }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    private func verifyIDToken(_ token: String, network: SocialNetwork) async throws -> SocialIdentity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.decodeSegment(parts[0]), let unverified = Self.decodeSegment(parts[1]),
            let issuer = unverified["iss"] as? String
        else {
            throw SocialTokenRejection("The \(network.displayName) token is not an ID token (a signed JWT)")
        }
        guard let provider = settings.openIDProviders.first(where: { $0.issuer == issuer && $0.network == network }),
            let cache = caches[issuer]
        else {
            throw SocialTokenRejection("ID tokens from \(issuer) are not trusted by this server")
        }
        let keys = try await cache.keys(for: header["kid"] as? String)
        let claims: Claims
        do { claims = try await keys.verify(token, as: Claims.self) } catch {
            throw SocialTokenRejection("The \(network.displayName) ID token's signature is not valid")
        }
        let now = Date().timeIntervalSince1970
        let skew = Double(settings.clockSkewSeconds)
        guard claims.iss == provider.issuer else {
            throw SocialTokenRejection("ID tokens from \(claims.iss) are not trusted by this server")
        }
        guard claims.aud.value.contains(where: provider.clientIds.contains) else {
            throw SocialTokenRejection("The \(network.displayName) ID token was issued to another application (audience)")
        }
        guard claims.exp + skew > now else { throw SocialTokenRejection("The \(network.displayName) ID token has expired") }
        if let iat = claims.iat, iat - skew > now {
            throw SocialTokenRejection("The \(network.displayName) ID token was issued in the future; check the clocks")
        }
        guard !claims.sub.isEmpty else { throw SocialTokenRejection("The \(network.displayName) ID token names no user") }
        return SocialIdentity(
            subject: "\(claims.iss)#\(claims.sub)", email: claims.email, emailVerified: claims.email_verified?.value == true,
            name: claims.given_name ?? claims.name ?? "", surname: claims.family_name ?? "", photoURL: claims.picture ?? "")
    }

    static func decodeSegment(_ segment: Substring) -> [String: Any]? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    // MARK: Facebook

    private func verifyFacebook(_ token: String) async throws -> SocialIdentity {
        guard let app = settings.facebook else {
            throw SocialTokenRejection("Sign-in with Facebook is not configured on this server (halo-server serve --social-config)")
        }
        let (_, inspection) = try await ProviderHTTP.json(
            app.inspectURL, query: [("input_token", token), ("access_token", "\(app.appId)|\(app.appSecret)")])
        guard let data = inspection["data"] as? [String: Any] else {
            throw SocialTokenRejection("Facebook could not inspect the token (the server's Facebook app credentials may be wrong)")
        }
        guard data["is_valid"] as? Bool == true else { throw SocialTokenRejection("The Facebook token is not valid or has expired") }
        guard Self.string(data["app_id"]) == app.appId else {
            throw SocialTokenRejection("The Facebook token was issued to another application")
        }
        if let expiresAt = data["expires_at"] as? Double, expiresAt > 0,
            expiresAt + Double(settings.clockSkewSeconds) < Date().timeIntervalSince1970
        {
            throw SocialTokenRejection("The Facebook token has expired")
        }
        guard let userId = Self.string(data["user_id"]), !userId.isEmpty else {
            throw SocialTokenRejection("The Facebook token names no user")
        }
        let (_, profile) = try await ProviderHTTP.json(
            app.profileURL, query: [("fields", "id,name,first_name,last_name,email"), ("access_token", token)])
        guard Self.string(profile["id"]) == userId else { throw SocialTokenRejection("Facebook's profile does not match the token") }
        let email = profile["email"] as? String
        return SocialIdentity(
            subject: userId, email: email, emailVerified: email != nil && app.emailsAreVerified,
            name: profile["first_name"] as? String ?? profile["name"] as? String ?? "", surname: profile["last_name"] as? String ?? "")
    }

    /// Graph API sends ids as strings, but be lenient with numbers.
    private static func string(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }
}

extension SocialNetwork {
    var displayName: String { self == .google ? "Google" : "Facebook" }
}
