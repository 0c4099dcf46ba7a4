/// A row of `server_push_activity`: a push notification's receipt, open or dismissal (§17.2).
/// The table's integer `id` is assigned by SQLite.
struct PushActivityRecord: ServerRecord {
    static let databaseTableName = "server_push_activity"

    var device: String
    var schedule: String
    var action: String
    var platform: String?
    var createdAt: Int64
}
