import GRDB
import HaloContentStore

/// A row of `server_user`: an editor account (password grant) or an identified user (E8/E9).
/// Emails compare without case (the column's collation).
struct UserRecord: ServerRecord {
    static let databaseTableName = "server_user"

    var id: String
    /// Nil for a social account without an email, or whose email the provider did not vouch for.
    var email: String?
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

    /// "The email is ?", without case: on SQLite the column's NOCASE collation does it (and its
    /// unique index answers); on PostgreSQL the unique index is on `lower(email)`, and lower() of
    /// the "C" collation folds ASCII letters only, exactly as NOCASE.
    private static func emailIs(_ db: any SQLExecutor) -> String {
        db.dialect == .postgres ? "lower(email) = lower(?)" : "email = ?"
    }

    static func find(id: String, in db: any SQLExecutor) throws -> UserRecord? {
        try fetchOne(db, key: id)
    }

    static func exists(email: String, in db: any SQLExecutor) throws -> Bool {
        try db.fetchOne("SELECT 1 FROM \(databaseTableName) WHERE \(emailIs(db))", email) != nil
    }

    /// The id and password hash of the account `email`, when it has a password.
    static func passwordAccount(email: String, in db: any SQLExecutor) throws -> (id: String, passwordHash: String)? {
        let user = try fetchOne(db, where: "\(emailIs(db)) AND password_hash IS NOT NULL", email)
        return user.flatMap { user in user.passwordHash.map { (user.id, $0) } }
    }

    /// The id of the account that signed in before with this network and provider subject.
    static func socialAccountId(network: String, subject: String, in db: any SQLExecutor) throws -> String? {
        try db.fetchValue(
            String.self, "SELECT id FROM \(databaseTableName) WHERE network = ? AND social_subject = ?", network, subject)
    }

    /// The account with this email and what social identity it already has, if any.
    static func account(email: String, in db: any SQLExecutor) throws -> UserRecord? {
        try fetchOne(db, where: emailIs(db), email)
    }

    /// Version 1 required an email of every user; social accounts may have none (a Facebook user
    /// without one, or an email the provider does not vouch for). SQLite cannot drop NOT NULL, so
    /// the table is rebuilt (GRDB defers foreign key checks to the end of the migration).
    static let optionalEmailMigration = StorageMigration(
        "server-v2-optional-email",
        sqlite: { db in
            try db.create(table: "server_user_v2") { t in
                t.primaryKey("id", .text)
                t.column("email", .text).unique().collate(.nocase)
                t.column("password_hash", .text)
                t.column("network", .text).notNull().defaults(to: "halo")
                t.column("social_subject", .text)
                t.column("name", .text).notNull().defaults(to: "")
                t.column("surname", .text).notNull().defaults(to: "")
                t.column("display_name", .text).notNull().defaults(to: "")
                t.column("photo_url", .text).notNull().defaults(to: "")
                t.column("editor", .boolean).notNull().defaults(to: false)
                t.column("device_alias", .text)
                t.column("created_at", .integer).notNull()
            }
            try db.execute(
                sql: """
                    INSERT INTO server_user_v2 (id, email, password_hash, network, social_subject, name, surname,
                        display_name, photo_url, editor, device_alias, created_at)
                    SELECT id, email, password_hash, network, social_subject, name, surname,
                        display_name, photo_url, editor, device_alias, created_at FROM server_user
                    """)
            try db.drop(table: "server_user")
            try db.rename(table: "server_user_v2", to: "server_user")
            try db.create(index: "server_user_social", on: "server_user", columns: ["network", "social_subject"])
        },
        postgres: StorageMigration.statements(
            "ALTER TABLE server_user ALTER COLUMN email DROP NOT NULL",
            "CREATE INDEX server_user_social ON server_user(network, social_subject)"))

    /// Remembers the device (its alias) a user last signed in from.
    static func setDeviceAlias(_ alias: String, userId: String, in db: any SQLExecutor) throws {
        try db.execute("UPDATE \(databaseTableName) SET device_alias = ? WHERE id = ?", alias, userId)
    }
}
