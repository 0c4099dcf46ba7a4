import Foundation
import GRDB
import HaloContentStore
import Synchronization

/// The server's SQLite database: one WAL-mode `DatabasePool` in the data directory, migrated on
/// open. Content instances live in the content store's `content_*` tables; everything else
/// (clients, users, tokens, devices, pockets, modules, push activity) in the `server_*` tables below.
///
/// The database holds password hashes and tokens: the data directory is private to its owner
/// (0700) and the database with its `-wal` and `-shm` files are 0600, both when created and,
/// repaired, on every open.
enum ServerDatabase {
    static let fileName = "halo.sqlite"
    /// The database file and the two SQLite keeps next to it in WAL mode.
    static let fileNames = [fileName, fileName + "-wal", fileName + "-shm"]

    /// How much of the database file connections map into memory (SQLite caps it at its
    /// compile-time maximum, 2 GB in Debian's build).
    static let mappedBytes: Int64 = 1 << 32

    static func open(directory: URL) throws -> DatabasePool {
        try preparePrivateFiles(in: directory)
        openDirectories.withLock { directories in
            directories.removeAll { $0 == directory.path }
            directories.append(directory.path)
            if directories.count > 16 { directories.removeFirst(directories.count - 16) }
        }
        var configuration = Configuration()
        // Several processes (server + `halo-server user add`) may write the same file.
        configuration.busyMode = .timeout(10)
        // Each streamed sync holds a reader until its client has read the answer; leave room for searches.
        configuration.maximumReaderCount = 12
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL still survives a killed process; only power loss may lose the last commits.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The writer's page cache: SQLite's default 2 MB made a large transaction (an import,
            // a module rewrite) spill its pages to the WAL and read them back, a third of an
            // import's CPU. Readers keep the default: up to 12 of them stream answers at once.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -65536") }
            // Connections map the file instead of copying each page they read out of the OS cache
            // with pread (a quarter of a search's CPU); all of them share the mapping's pages.
            try db.execute(sql: "PRAGMA mmap_size = \(Self.mappedBytes)")
        }
        let pool = try DatabasePool(path: directory.appendingPathComponent(fileName).path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }

    /// Creates the data directory (0700) and an empty database file (0600) when missing, so GRDB
    /// and SQLite never create them with the umask's wider modes (SQLite gives the `-wal` and
    /// `-shm` files the database file's mode), and narrows the modes of existing ones.
    ///
    /// Only what the server's user owns is changed, and never a sticky directory (`--data /tmp`
    /// must not make /tmp private).
    static func preparePrivateFiles(in directory: URL) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: directory.path) {
            try manager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        restrict(directory.path, to: 0o700, skippingSticky: true)
        let database = directory.appendingPathComponent(fileName).path
        let descriptor = createExclusively(database, mode: 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            let reason = String(cString: strerror(errno))
            throw HaloServerStartError("Cannot create the database file \(database): \(reason)")
        }
        for name in fileNames { restrict(directory.appendingPathComponent(name).path, to: 0o600, skippingSticky: false) }
    }

    /// chmod `path` to `mode` when it exists, is ours and has other permission bits.
    private static func restrict(_ path: String, to mode: mode_t, skippingSticky: Bool) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_uid == geteuid() else { return }
        if skippingSticky && info.st_mode & 0o1000 != 0 { return }
        let permissions = info.st_mode & 0o7777
        if permissions != mode { _ = chmod(path, mode) }
    }

    // MARK: Free space

    /// Data directories opened by this process (the latest 16), for `diskIsNearlyFull`.
    private static let openDirectories = Mutex<[String]>([])

    /// Whether the disk of a database this process opened has less than `threshold` bytes left
    /// for it. Tells a full disk apart when SQLite only reports the transaction it rolled back.
    static func diskIsNearlyFull(threshold: UInt64 = 1 << 20) -> Bool {
        openDirectories.withLock { directories in
            directories.contains { path in
                var info = statvfs()
                guard statvfs(path, &info) == 0 else { return false }
                return UInt64(info.f_bavail) * UInt64(info.f_frsize) < threshold
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.register(migrations)
        return migrator
    }

    /// The whole schema, in the order it grew; both back ends run exactly this list.
    static let migrations: [StorageMigration] =
        ContentTables.migrations + [
            v1Migration, EventLog.migration, PocketRecord.revisionMigration, UserRecord.optionalEmailMigration,
            PushScheduleRecord.migration, EventLog.readersMigration, ModuleCatalog.designMigration, ImportStaging.migration,
            LoginThrottle.recordsMigration, DeviceRecord.ownerMigration, PushRecipients.migration,
        ]

    static let v1Migration = StorageMigration(
        "server-v1",
        sqlite: { db in
            try db.create(table: "server_client") { t in
                t.primaryKey("id", .text)
                t.column("secret_hash", .text).notNull()
                t.column("name", .text).notNull()
                t.column("editor", .boolean).notNull().defaults(to: false)
                t.column("app_id", .integer).notNull().defaults(to: 1)
                t.column("created_at", .integer).notNull()
            }
            // Editor accounts (password grant) and identified users (E8/E9) are one table: an
            // identified user may be made an editor, and either can own a pocket.
            try db.create(table: "server_user") { t in
                t.primaryKey("id", .text)
                t.column("email", .text).notNull().unique().collate(.nocase)
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
            try db.create(table: "server_token") { t in
                t.primaryKey("access_hash", .text)
                t.column("refresh_hash", .text).notNull().unique()
                t.column("client_id", .text).references("server_client", onDelete: .cascade)
                t.column("user_id", .text).references("server_user", onDelete: .cascade)
                t.column("expires_at", .integer).notNull()
                t.column("refresh_expires_at", .integer).notNull()
                t.column("revoked", .boolean).notNull().defaults(to: false)
                t.column("created_at", .integer).notNull()
            }
            try db.create(table: "server_device") { t in
                t.primaryKey("id", .text)
                t.column("alias", .text).notNull().unique()
                t.column("app_id", .integer).notNull()
                t.column("customer_id", .integer).notNull().defaults(to: 1)
                t.column("email", .text)
                t.column("devices_json", .text).notNull()
                t.column("tags_json", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.column("updated_at", .integer).notNull()
            }
            try db.create(table: "server_pocket") { t in
                t.primaryKey("user_id", .text).references("server_user", onDelete: .cascade)
                t.column("references_json", .text).notNull()
                t.column("data_json", .text).notNull()
                t.column("updated_at", .integer).notNull()
            }
            try db.create(table: "server_module") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull().indexed()
                t.column("is_single", .boolean).notNull().defaults(to: false)
                t.column("tags_json", .text).notNull().defaults(to: "[]")
                t.column("created_by", .text)
                t.column("created_at", .integer).notNull()
                t.column("updated_at", .integer).notNull()
            }
            try db.create(table: "server_field") { t in
                t.primaryKey("id", .text)
                t.column("module_id", .text).notNull().indexed().references("server_module", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("name", .text).notNull()
                t.column("description", .text).notNull().defaults(to: "")
                t.column("format_json", .text).notNull().defaults(to: "{}")
                t.column("field_type", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.uniqueKey(["module_id", "name"])
            }
            try db.create(table: "server_push_activity") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("device", .text).notNull()
                t.column("schedule", .text).notNull()
                t.column("action", .text).notNull()
                t.column("platform", .text)
                t.column("created_at", .integer).notNull()
            }
        },
        postgres: StorageMigration.statements(
            """
            CREATE TABLE server_client (
                id \(PostgresTypes.text) PRIMARY KEY, secret_hash \(PostgresTypes.text) NOT NULL, name \(PostgresTypes.text) NOT NULL,
                editor \(PostgresTypes.integer) NOT NULL DEFAULT 0, app_id \(PostgresTypes.integer) NOT NULL DEFAULT 1, created_at \(PostgresTypes.integer) NOT NULL)
            """,
            // Emails compare without case, as SQLite's NOCASE does: lower() of the "C" collation
            // folds ASCII letters only, exactly as NOCASE.
            """
            CREATE TABLE server_user (
                id \(PostgresTypes.text) PRIMARY KEY, email \(PostgresTypes.text) NOT NULL, password_hash \(PostgresTypes.text),
                network \(PostgresTypes.text) NOT NULL DEFAULT 'halo', social_subject \(PostgresTypes.text),
                name \(PostgresTypes.text) NOT NULL DEFAULT '', surname \(PostgresTypes.text) NOT NULL DEFAULT '',
                display_name \(PostgresTypes.text) NOT NULL DEFAULT '', photo_url \(PostgresTypes.text) NOT NULL DEFAULT '',
                editor \(PostgresTypes.integer) NOT NULL DEFAULT 0, device_alias \(PostgresTypes.text), created_at \(PostgresTypes.integer) NOT NULL)
            """,
            "CREATE UNIQUE INDEX server_user_email ON server_user (lower(email))",
            """
            CREATE TABLE server_token (
                access_hash \(PostgresTypes.text) PRIMARY KEY, refresh_hash \(PostgresTypes.text) NOT NULL UNIQUE,
                client_id \(PostgresTypes.text) REFERENCES server_client(id) ON DELETE CASCADE,
                user_id \(PostgresTypes.text) REFERENCES server_user(id) ON DELETE CASCADE,
                expires_at \(PostgresTypes.integer) NOT NULL, refresh_expires_at \(PostgresTypes.integer) NOT NULL,
                revoked \(PostgresTypes.integer) NOT NULL DEFAULT 0, created_at \(PostgresTypes.integer) NOT NULL)
            """,
            """
            CREATE TABLE server_device (
                id \(PostgresTypes.text) PRIMARY KEY, alias \(PostgresTypes.text) NOT NULL UNIQUE, app_id \(PostgresTypes.integer) NOT NULL,
                customer_id \(PostgresTypes.integer) NOT NULL DEFAULT 1, email \(PostgresTypes.text), devices_json \(PostgresTypes.text) NOT NULL,
                tags_json \(PostgresTypes.text) NOT NULL, created_at \(PostgresTypes.integer) NOT NULL, updated_at \(PostgresTypes.integer) NOT NULL)
            """,
            """
            CREATE TABLE server_pocket (
                user_id \(PostgresTypes.text) PRIMARY KEY REFERENCES server_user(id) ON DELETE CASCADE,
                references_json \(PostgresTypes.text) NOT NULL, data_json \(PostgresTypes.text) NOT NULL, updated_at \(PostgresTypes.integer) NOT NULL)
            """,
            """
            CREATE TABLE server_module (
                id \(PostgresTypes.text) PRIMARY KEY, name \(PostgresTypes.text) NOT NULL, is_single \(PostgresTypes.integer) NOT NULL DEFAULT 0,
                tags_json \(PostgresTypes.text) NOT NULL DEFAULT '[]', created_by \(PostgresTypes.text),
                created_at \(PostgresTypes.integer) NOT NULL, updated_at \(PostgresTypes.integer) NOT NULL)
            """,
            "CREATE INDEX server_module_on_name ON server_module(name)",
            """
            CREATE TABLE server_field (
                id \(PostgresTypes.text) PRIMARY KEY,
                module_id \(PostgresTypes.text) NOT NULL REFERENCES server_module(id) ON DELETE CASCADE,
                position \(PostgresTypes.integer) NOT NULL, name \(PostgresTypes.text) NOT NULL, description \(PostgresTypes.text) NOT NULL DEFAULT '',
                format_json \(PostgresTypes.text) NOT NULL DEFAULT '{}', field_type \(PostgresTypes.text) NOT NULL, created_at \(PostgresTypes.integer) NOT NULL,
                UNIQUE (module_id, name))
            """,
            "CREATE INDEX server_field_on_module_id ON server_field(module_id)",
            """
            CREATE TABLE server_push_activity (
                id \(PostgresTypes.generatedKey), device \(PostgresTypes.text) NOT NULL, schedule \(PostgresTypes.text) NOT NULL, action \(PostgresTypes.text) NOT NULL,
                platform \(PostgresTypes.text), created_at \(PostgresTypes.integer) NOT NULL)
            """))
}

/// `open(2)` with O_CREAT | O_EXCL (a free function: inside `ServerDatabase`, `open` is its own).
private func createExclusively(_ path: String, mode: mode_t) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
}
