import GRDB
import HaloContentStore

/// A row of `server_pocket`: an identified user's pocket (§8), its two parts as JSON text, and
/// its revision (ours, §23.9): a number that grows with every save, served as the ETag.
struct PocketRecord: ServerRecord {
    static let databaseTableName = "server_pocket"
    static let primaryKey = ["user_id"]

    var userId: String
    var referencesJson: String
    var dataJson: String
    var updatedAt: Int64
    var revision: Int64

    /// The pocket's two parts: named reference lists and the `data` object, with the revision
    /// they were read at (0 for a user who never stored one).
    struct Pocket: Sendable {
        var references: [String: JSONValue] = [:]
        var data: [String: JSONValue] = [:]
        var revision: Int64 = 0

        /// The revision as an HTTP entity tag (a strong one: the revision names exact contents).
        var entityTag: String { "\"\(revision)\"" }

        /// Its size against the server's `pocketBytes` limit (`PocketLimits.pocketBytes`).
        var bytes: Int { PocketLimits.pocketBytes(references: references, data: data) }
    }

    /// The pocket of `userId`; empty when the user never stored one.
    static func pocket(userId: String, in db: any SQLExecutor) throws -> Pocket {
        guard let record = try fetchOne(db, key: userId) else { return Pocket() }
        return Pocket(
            references: try JSONValue(string: record.referencesJson).objectValue ?? [:],
            data: try JSONValue(string: record.dataJson).objectValue ?? [:], revision: record.revision)
    }

    /// Stores the pocket of `userId`, replacing the one stored, at the next revision; returns it
    /// with that revision.
    static func save(_ pocket: Pocket, userId: String, at time: Int64, in db: any SQLExecutor) throws -> Pocket {
        var saved = pocket
        saved.revision = pocket.revision + 1
        try PocketRecord(
            userId: userId, referencesJson: JSONValue.object(pocket.references).jsonString(),
            dataJson: JSONValue.object(pocket.data).jsonString(), updatedAt: time, revision: saved.revision
        ).upsert(db)
        return saved
    }

    static let revisionMigration = StorageMigration(
        "server-v3-pocket-revision",
        sqlite: { db in
            try db.alter(table: databaseTableName) { t in
                t.add(column: "revision", .integer).notNull().defaults(to: 0)
            }
        },
        postgres: StorageMigration.statements("ALTER TABLE server_pocket ADD COLUMN revision \(PostgresTypes.integer) NOT NULL DEFAULT 0"))
}
