import GRDB

/// A row of `server_token`: an issued token pair, stored as SHA-256 digests only (a copied
/// database file does not leak usable tokens).
struct TokenRecord: ServerRecord {
    static let databaseTableName = "server_token"

    var accessHash: String
    var refreshHash: String
    var clientId: String?
    var userId: String?
    var expiresAt: Int64
    var refreshExpiresAt: Int64
    var revoked: Bool = false
    var createdAt: Int64

    private static let revoked = Column("revoked")

    /// The token pair of this refresh digest, issued to `clientId`, not revoked and whose refresh
    /// token is still valid at `now`.
    static func refreshable(refreshHash: String, clientId: String, now: Int64, in db: Database) throws -> TokenRecord? {
        try filter(
            Column("refresh_hash") == refreshHash && Column("client_id") == clientId && Self.revoked == false
                && Column("refresh_expires_at") > now
        ).fetchOne(db)
    }

    /// Revokes the pair of this access digest. Returns whether it existed.
    @discardableResult
    static func revoke(accessHash: String, in db: Database) throws -> Bool {
        try filter(key: accessHash).updateAll(db, Self.revoked.set(to: true)) > 0
    }

    /// What an access token grants: the token's state with its client's or user's rights.
    struct Grant: Sendable, FetchableRecord {
        var expiresAt: Int64
        var revoked: Bool
        var clientId: String?
        var userId: String?
        var clientEditor: Bool?
        var clientName: String?
        var userEditor: Bool?
        var userDisplayName: String?
        var userEmail: String?

        init(row: Row) {
            expiresAt = row["expires_at"]
            revoked = row["revoked"]
            clientId = row["client_id"]
            userId = row["user_id"]
            clientEditor = row["client_editor"]
            clientName = row["client_name"]
            userEditor = row["user_editor"]
            userDisplayName = row["display_name"]
            userEmail = row["email"]
        }
    }

    /// The grant of the token with this access digest, if any (revoked and expired ones included).
    static func grant(accessHash: String, in db: Database) throws -> Grant? {
        try Grant.fetchOne(
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
            arguments: [accessHash])
    }
}
