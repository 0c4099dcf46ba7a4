import HaloContentStore

/// A row of `server_device`: a device ("appuser", §6) as stored. Devices and tags are JSON arrays
/// kept as text; the routes give them their wire shape.
struct DeviceRecord: ServerRecord {
    static let databaseTableName = "server_device"

    var id: String
    var alias: String
    var appId: Int64
    var customerId: Int64 = 1
    var email: String?
    var devicesJson: String
    var tagsJson: String
    var createdAt: Int64
    var updatedAt: Int64
    /// SHA-256 of the device's event stream secret (our extension): who holds the secret receives
    /// the device's notifications. Nil for a device registered before the server had streams.
    var streamSecretDigest: String? = nil
    /// The app client whose token registered the device (docs/protocol.md §23.12). Nil, with
    /// `userId` nil too, for a device registered before devices had owners: the first client that
    /// updates it becomes its owner.
    var clientId: String? = nil
    /// The user whose token without an app client (an editor's) registered the device.
    var userId: String? = nil

    /// The ids of the segmentation tags the device carries.
    var tagIds: Set<String> {
        Set(((try? JSONValue(string: tagsJson))?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
    }

    /// Whether the device was registered before devices had owners (and nobody claimed it since).
    var isUnclaimed: Bool { clientId == nil && userId == nil }

    /// The device with this id, if any.
    static func find(id: String, in db: any SQLExecutor) throws -> DeviceRecord? {
        try fetchOne(db, key: id)
    }

    /// The device holding `alias`, if any (aliases are unique).
    static func find(alias: String, in db: any SQLExecutor) throws -> DeviceRecord? {
        try fetchOne(db, where: "alias = ?", alias)
    }

    /// The id of the device holding `alias`, if any (aliases are unique).
    static func owner(ofAlias alias: String, in db: any SQLExecutor) throws -> String? {
        try db.fetchValue(String.self, "SELECT id FROM \(databaseTableName) WHERE alias = ?", alias)
    }

    // MARK: Who may act on a device

    /// Whether `principal` may read, change or report activity for this device (§23.12):
    /// - editors act on every device;
    /// - a token of an app client acts on its client's devices, and on unclaimed ones;
    /// - a user token without an app client acts only on the devices its user's identified logins
    ///   named (`deviceId`, §7.2) and on those it registered.
    /// Anything else is answered as if the device did not exist (404).
    func isReachable(by principal: Principal, in db: any SQLExecutor) throws -> Bool {
        if principal.canEdit { return true }
        if let client = principal.clientId { return clientId == client || isUnclaimed }
        guard let user = principal.userId else { return false }
        if userId == user { return true }
        return try Self.isNamed(deviceId: id, byUser: user, in: db)
    }

    /// Whether an identified login of `userId` named this device (`server_user_device`).
    static func isNamed(deviceId: String, byUser userId: String, in db: any SQLExecutor) throws -> Bool {
        try db.fetchOne("SELECT 1 FROM server_user_device WHERE user_id = ? AND device_id = ?", userId, deviceId) != nil
    }

    /// Records that an identified login of `userId` named the device `deviceId` (its `deviceId`,
    /// §7.2): the user's tokens without an app client may act on it from now on.
    static func recordNaming(deviceId: String, byUser userId: String, at now: Int64, in db: any SQLExecutor) throws {
        try db.execute(
            "INSERT INTO server_user_device (user_id, device_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", userId,
            deviceId, now)
    }

    /// Devices get owners (§23.12): `client_id`, the app client whose token registered the device,
    /// and `user_id`, the user whose token without a client registered it; `server_user_device`
    /// lists the devices each user's identified logins named.
    ///
    /// Devices registered before this step have neither owner: each belongs to the first app
    /// client that updates it (`PUT …/appuser/{id}` with that client's token, app or user), and
    /// until then any app client's token may read and update it. The device a user's login named
    /// before this step (`server_user.device_alias`) is carried over as named.
    static let ownerMigration = StorageMigration(
        "server-v9-device-owners",
        sqlite: { db in for statement in ownerStatements(text: "TEXT", integer: "INTEGER") { try db.execute(sql: statement) } },
        postgres: { db in
            for statement in ownerStatements(text: PostgresTypes.text, integer: PostgresTypes.integer) { try db.execute(statement) }
        })

    private static func ownerStatements(text: String, integer: String) -> [String] {
        [
            "ALTER TABLE server_device ADD COLUMN client_id \(text)",
            "ALTER TABLE server_device ADD COLUMN user_id \(text)",
            """
            CREATE TABLE server_user_device (
                user_id \(text) NOT NULL REFERENCES server_user(id) ON DELETE CASCADE, device_id \(text) NOT NULL,
                created_at \(integer) NOT NULL, PRIMARY KEY (user_id, device_id))
            """,
            """
            INSERT INTO server_user_device (user_id, device_id, created_at)
            SELECT u.id, d.id, u.created_at FROM server_user u JOIN server_device d ON d.alias = u.device_alias
            """,
        ]
    }
}
