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

    /// The ids of the segmentation tags the device carries.
    var tagIds: Set<String> {
        Set(((try? JSONValue(string: tagsJson))?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
    }

    /// The device with this id, if any.
    static func find(id: String, in db: any SQLExecutor) throws -> DeviceRecord? {
        try fetchOne(db, key: id)
    }

    /// The id of the device holding `alias`, if any (aliases are unique).
    static func owner(ofAlias alias: String, in db: any SQLExecutor) throws -> String? {
        try db.fetchValue(String.self, "SELECT id FROM \(databaseTableName) WHERE alias = ?", alias)
    }
}
