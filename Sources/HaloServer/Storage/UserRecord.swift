import GRDB

/// A row of `server_user`: an editor account (password grant) or an identified user (E8/E9).
/// Emails compare without case (the column's collation).
struct UserRecord: ServerRecord {
    static let databaseTableName = "server_user"

    var id: String
    var email: String
    var passwordHash: String?
    var network: String
    var socialSubject: String?
    var name: String
    var surname: String
    var displayName: String
    var photoUrl: String
    var editor: Bool
    var deviceAlias: String?
    var createdAt: Int64

    private static let email = Column("email")

    static func find(id: String, in db: Database) throws -> UserRecord? {
        try fetchOne(db, key: id)
    }

    static func exists(email: String, in db: Database) throws -> Bool {
        try !filter(Self.email == email).isEmpty(db)
    }

    /// The id and password hash of the account `email`, when it has a password.
    static func passwordAccount(email: String, in db: Database) throws -> (id: String, passwordHash: String)? {
        let user = try filter(Self.email == email && Column("password_hash") != nil).fetchOne(db)
        return user.flatMap { user in user.passwordHash.map { (user.id, $0) } }
    }

    /// The id of the account of a social identity: the same network and subject, or the same email.
    static func socialAccountId(network: String, subject: String, email: String, in db: Database) throws -> String? {
        try select(Column("id"), as: String.self)
            .filter((Column("network") == network && Column("social_subject") == subject) || Self.email == email)
            .fetchOne(db)
    }

    /// Remembers the device (its alias) a user last signed in from.
    static func setDeviceAlias(_ alias: String, userId: String, in db: Database) throws {
        try filter(key: userId).updateAll(db, Column("device_alias").set(to: alias))
    }
}
