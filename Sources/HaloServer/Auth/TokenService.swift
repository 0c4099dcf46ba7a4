import Foundation
import GRDB
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

    func issue(clientId: String?, userId: String?, scope: String = "app", in db: Database) throws -> IssuedToken {
        let access = Identifiers.secret()
        let refresh = Identifiers.secret()
        let now = Self.nowMilliseconds()
        try db.execute(
            sql: """
                INSERT INTO server_token (access_hash, refresh_hash, client_id, user_id, expires_at,
                    refresh_expires_at, revoked, created_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
                """,
            arguments: [
                SecretHasher.tokenDigest(access), SecretHasher.tokenDigest(refresh), clientId, userId,
                now + lifetimeMilliseconds, now + refreshLifetimeMilliseconds, now,
            ])
        return IssuedToken(
            accessToken: access, refreshToken: refresh, expiresInMilliseconds: lifetimeMilliseconds,
            scope: scope)
    }

    /// Exchanges a refresh token of `clientId` for a new pair; the old pair is revoked (rotation).
    func refresh(_ refreshToken: String, clientId: String, in db: Database) throws -> IssuedToken? {
        let digest = SecretHasher.tokenDigest(refreshToken)
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT access_hash, user_id FROM server_token
                    WHERE refresh_hash = ? AND client_id = ? AND revoked = 0 AND refresh_expires_at > ?
                    """,
                arguments: [digest, clientId, Self.nowMilliseconds()])
        else { return nil }
        try db.execute(sql: "UPDATE server_token SET revoked = 1 WHERE access_hash = ?", arguments: [row["access_hash"] as String])
        return try issue(clientId: clientId, userId: row["user_id"], in: db)
    }

    /// Resolves the `Authorization` header. Missing, malformed, unknown, expired or revoked
    /// tokens are all 401 (§2.2): both SDKs only re-authenticate on 401.
    func authenticate(authorization: String?, in db: Database) throws -> Principal {
        guard let authorization, !authorization.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.unauthorized("Authentication required: send 'Authorization: Bearer <access token>'")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("Malformed Authorization header: expected 'Bearer <access token>'")
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT t.expires_at, t.revoked, t.client_id, t.user_id,
                           c.editor AS client_editor, c.name AS client_name,
                           u.editor AS user_editor, u.display_name, u.email
                    FROM server_token t
                    LEFT JOIN server_client c ON c.id = t.client_id
                    LEFT JOIN server_user u ON u.id = t.user_id
                    WHERE t.access_hash = ?
                    """,
                arguments: [SecretHasher.tokenDigest(token)])
        else { throw APIError.unauthorized("Invalid access token") }
        if row["revoked"] as Bool { throw APIError.unauthorized("Access token has been revoked") }
        if (row["expires_at"] as Int64) <= Self.nowMilliseconds() { throw APIError.unauthorized("Access token has expired") }
        let userId: String? = row["user_id"]
        let clientId: String? = row["client_id"]
        if let userId {
            let displayName: String = row["display_name"] ?? ""
            let email: String = row["email"] ?? userId
            return Principal(
                clientId: clientId, userId: userId, canEdit: row["user_editor"] ?? false,
                displayName: displayName.isEmpty ? email : displayName)
        }
        return Principal(
            clientId: clientId, userId: nil, canEdit: row["client_editor"] ?? false,
            displayName: row["client_name"] ?? "App")
    }

    /// Revokes one access token (and its refresh token). Returns whether it existed.
    func revoke(accessToken: String, in db: Database) throws -> Bool {
        try db.execute(
            sql: "UPDATE server_token SET revoked = 1 WHERE access_hash = ?",
            arguments: [SecretHasher.tokenDigest(accessToken)])
        return db.changesCount > 0
    }
}
