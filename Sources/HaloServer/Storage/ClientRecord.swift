import HaloContentStore

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
    static func secretHash(clientId id: String, in db: any SQLExecutor) throws -> String? {
        try db.fetchValue(String.self, "SELECT secret_hash FROM \(databaseTableName) WHERE id = ?", id)
    }
}
