import Foundation
import HaloContentStore
import Hummingbird

/// An issued token pair, in the wire shape of §3.2 (`expires_in` in milliseconds).
struct IssuedToken: Sendable {
    var accessToken: String
    var refreshToken: String
    var expiresInMilliseconds: Int64
    var scope: String

    var json: JSONValue {
        [
            "access_token": .string(accessToken), "refresh_token": .string(refreshToken),
            "expires_in": .number(Double(expiresInMilliseconds)), "token_type": "Bearer", "scope": .string(scope),
        ]
    }
}

/// Issues, checks and revokes bearer tokens. Only SHA-256 digests are stored, so a copied
/// database file does not leak usable tokens.
struct TokenService: Sendable {
    var lifetimeMilliseconds: Int64
    /// Refresh tokens outlive access tokens so the iOS refresh grant (§3.4) works after expiry.
    var refreshLifetimeMilliseconds: Int64 { max(lifetimeMilliseconds * 30, 30 * 86_400_000) }

    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    func issue(clientId: String?, userId: String?, scope: String = "app", in db: any SQLExecutor) throws -> IssuedToken {
        let access = Identifiers.secret()
        let refresh = Identifiers.secret()
        let now = Self.nowMilliseconds()
        try TokenRecord(
            accessHash: SecretHasher.tokenDigest(access), refreshHash: SecretHasher.tokenDigest(refresh), clientId: clientId,
            userId: userId, expiresAt: now + lifetimeMilliseconds, refreshExpiresAt: now + refreshLifetimeMilliseconds,
            createdAt: now
        ).insert(db)
        return IssuedToken(
            accessToken: access, refreshToken: refresh, expiresInMilliseconds: lifetimeMilliseconds,
            scope: scope)
    }

    /// Exchanges a refresh token of `clientId` for a new pair; the old pair is revoked (rotation).
    func refresh(_ refreshToken: String, clientId: String, in db: any SQLExecutor) throws -> IssuedToken? {
        guard
            let pair = try TokenRecord.refreshable(
                refreshHash: SecretHasher.tokenDigest(refreshToken), clientId: clientId, now: Self.nowMilliseconds(), in: db)
        else { return nil }
        try TokenRecord.revoke(accessHash: pair.accessHash, in: db)
        return try issue(clientId: clientId, userId: pair.userId, in: db)
    }

    /// Resolves the `Authorization` header. Missing, malformed, unknown, expired or revoked
    /// tokens are all 401 (§2.2): both SDKs only re-authenticate on 401.
    func authenticate(authorization: String?, in db: any SQLExecutor) throws -> Principal {
        guard let authorization, !authorization.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.unauthorized("Authentication required: send 'Authorization: Bearer <access token>'")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("Malformed Authorization header: expected 'Bearer <access token>'")
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard let grant = try TokenRecord.grant(accessHash: SecretHasher.tokenDigest(token), in: db) else {
            throw APIError.unauthorized("Invalid access token")
        }
        if grant.revoked { throw APIError.unauthorized("Access token has been revoked") }
        if grant.expiresAt <= Self.nowMilliseconds() { throw APIError.unauthorized("Access token has expired") }
        if let userId = grant.userId {
            let displayName = grant.userDisplayName ?? ""
            let email = grant.userEmail ?? userId
            return Principal(
                clientId: grant.clientId, userId: userId, canEdit: grant.userEditor ?? false,
                displayName: displayName.isEmpty ? email : displayName, clientAppId: grant.clientAppId)
        }
        return Principal(
            clientId: grant.clientId, userId: nil, canEdit: grant.clientEditor ?? false,
            displayName: grant.clientName ?? "App", clientAppId: grant.clientAppId)
    }

    /// The app client an identified login is made for (§23.12): the client of the bearer token
    /// sent with it, when that token is valid or only expired (iOS logs in again with its expired
    /// user token, §7.2). No token, or a malformed, unknown or revoked one: nil (the login still
    /// succeeds; its token then has no client).
    func loginClient(authorization: String?, in db: any SQLExecutor) throws -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard let grant = try TokenRecord.grant(accessHash: SecretHasher.tokenDigest(token), in: db), !grant.revoked else { return nil }
        return grant.clientId
    }

    /// Revokes one access token (and its refresh token). Returns whether it existed.
    func revoke(accessToken: String, in db: any SQLExecutor) throws -> Bool {
        try TokenRecord.revoke(accessHash: SecretHasher.tokenDigest(accessToken), in: db)
    }
}
