import GRDB

/// A row of `server_client`: an app client (client id + hashed secret, §3.2); `editor` clients
/// may edit content (§23.1).
struct ClientRecord: ServerRecord {
    static let databaseTableName = "server_client"

    var id: String
    var secretHash: String
    var name: String
    var editor: Bool
    var appId: Int64 = 1
    var createdAt: Int64

    /// The stored secret hash of client `id`, if the client exists.
    static func secretHash(clientId id: String, in db: Database) throws -> String? {
        try select(Column("secret_hash"), as: String.self).filter(key: id).fetchOne(db)
    }
}
