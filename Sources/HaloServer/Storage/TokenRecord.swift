import HaloContentStore

/// A row of `server_token`: an issued token pair, stored as SHA-256 digests only (a copied
/// database file does not leak usable tokens).
struct TokenRecord: ServerRecord {
    static let databaseTableName = "server_token"
    static let primaryKey = ["access_hash"]

    var accessHash: String
    var refreshHash: String
    var clientId: String?
    var userId: String?
    var expiresAt: Int64
    var refreshExpiresAt: Int64
    var revoked: Bool = false
    var createdAt: Int64

    /// The token pair of this refresh digest, issued to `clientId`, not revoked and whose refresh
    /// token is still valid at `now`.
    static func refreshable(refreshHash: String, clientId: String, now: Int64, in db: any SQLExecutor) throws -> TokenRecord? {
        try fetchOne(
            db, where: "refresh_hash = ? AND client_id = ? AND revoked = 0 AND refresh_expires_at > ?", refreshHash, clientId,
            now)
    }

    /// Revokes the pair of this access digest. Returns whether it existed.
    @discardableResult
    static func revoke(accessHash: String, in db: any SQLExecutor) throws -> Bool {
        try db.execute("UPDATE \(databaseTableName) SET revoked = 1 WHERE access_hash = ?", accessHash) > 0
    }

    /// What an access token grants: the token's state with its client's or user's rights.
    struct Grant: Sendable, Decodable {
        var expiresAt: Int64
        var revoked: Bool
        var clientId: String?
        var userId: String?
        var clientEditor: Bool?
        var clientName: String?
        /// The app (`server_client.app_id`) of the token's client, if it has one.
        var clientAppId: Int64?
        var userEditor: Bool?
        var userDisplayName: String?
        var userEmail: String?
    }

    /// The grant of the token with this access digest, if any (revoked and expired ones included).
    static func grant(accessHash: String, in db: any SQLExecutor) throws -> Grant? {
        try db.fetchOne(
            """
            SELECT t.expires_at, t.revoked, t.client_id, t.user_id,
                   c.editor AS client_editor, c.name AS client_name, c.app_id AS client_app_id,
                   u.editor AS user_editor, u.display_name AS user_display_name, u.email AS user_email
            FROM server_token t
            LEFT JOIN server_client c ON c.id = t.client_id
            LEFT JOIN server_user u ON u.id = t.user_id
            WHERE t.access_hash = ?
            """, accessHash
        ).map { try SQLRowCoding.decode(Grant.self, from: $0) }
    }
}
