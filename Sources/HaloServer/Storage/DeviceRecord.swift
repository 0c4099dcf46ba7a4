import GRDB

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

    /// The device with this id, if any.
    static func find(id: String, in db: Database) throws -> DeviceRecord? {
        try fetchOne(db, key: id)
    }

    /// The id of the device holding `alias`, if any (aliases are unique).
    static func owner(ofAlias alias: String, in db: Database) throws -> String? {
        try select(Column("id"), as: String.self).filter(Column("alias") == alias).fetchOne(db)
    }
}
