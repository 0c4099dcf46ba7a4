import GRDB
import HaloContentStore

/// A row of `server_pocket`: an identified user's pocket (§8), its two parts as JSON text.
struct PocketRecord: ServerRecord {
    static let databaseTableName = "server_pocket"

    var userId: String
    var referencesJson: String
    var dataJson: String
    var updatedAt: Int64

    /// The pocket's two parts: named reference lists and the `data` object.
    struct Pocket: Sendable {
        var references: [String: JSONValue] = [:]
        var data: [String: JSONValue] = [:]
    }

    /// The pocket of `userId`; empty when the user never stored one.
    static func pocket(userId: String, in db: Database) throws -> Pocket {
        guard let record = try fetchOne(db, key: userId) else { return Pocket() }
        return Pocket(
            references: try JSONValue(string: record.referencesJson).objectValue ?? [:],
            data: try JSONValue(string: record.dataJson).objectValue ?? [:])
    }

    /// Stores the pocket of `userId`, replacing the one stored.
    static func save(_ pocket: Pocket, userId: String, at time: Int64, in db: Database) throws {
        try PocketRecord(
            userId: userId, referencesJson: JSONValue.object(pocket.references).jsonString(),
            dataJson: JSONValue.object(pocket.data).jsonString(), updatedAt: time
        ).upsert(db)
    }
}
