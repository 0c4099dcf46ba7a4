import Foundation
import GRDB
import Logging

/// The file of edits waiting for the server: user data, so it lives under `$XDG_DATA_HOME`
/// (`CacheLocation.outboxFile`), apart from the cache a cleaner may delete. The cache attaches it
/// as schema `outbox` on every connection, so the outbox and the content tables it shadows are
/// written in one transaction (`OutboxShadow`).
///
/// - `outbox_entry`: edits waiting for the server, in order; conflicts keep the server's copy.
/// - `outbox_base`: the server's copy of instances a waiting edit covers in the content tables
///   (see `OutboxShadow`); body NULL when the cache did not hold it.
/// - `outbox_pocket`: a pocket save waiting for the server, one per user (`Outbox+Pocket`): the
///   save, the pocket it was made on and that pocket's revision; a conflict keeps the server's.
///
/// In WAL mode a transaction over two files is atomic in each file, not across them: after a
/// crash between the two commits the content tables may lack a waiting edit's shadow, so every
/// open lays the waiting edits over the content tables again (`OutboxShadow.reapplyWaitingEdits`).
enum OutboxSchema {
    /// `PRAGMA application_id` of a pending-edits file: "HDO1" in ASCII.
    static let applicationID: Int32 = 0x4844_4F31
    /// The schema name the cache attaches the file under.
    static let schema = "outbox"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("outbox_v1") { db in
            try db.execute(
                sql: """
                    PRAGMA application_id = \(applicationID);
                    CREATE TABLE outbox_entry (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        instance_id TEXT,
                        module_id TEXT NOT NULL,
                        body TEXT NOT NULL,
                        base_updated_at INTEGER,
                        queued_at INTEGER NOT NULL,
                        state TEXT NOT NULL DEFAULT 'pending',
                        server_copy TEXT,
                        last_error TEXT
                    );
                    CREATE INDEX outbox_entry_instance ON outbox_entry(instance_id);
                    CREATE TABLE outbox_base (instance_id TEXT PRIMARY KEY, body TEXT) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("outbox_v2_pocket") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox_pocket (
                        owner TEXT PRIMARY KEY,
                        body TEXT NOT NULL,
                        base_body TEXT NOT NULL,
                        base_revision TEXT,
                        queued_at INTEGER NOT NULL,
                        state TEXT NOT NULL DEFAULT 'pending',
                        server_copy TEXT,
                        server_revision TEXT,
                        last_error TEXT
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }

    /// Makes `file` a usable pending-edits file before the cache attaches it: created 0600 in WAL
    /// mode with its tables, or migrated. A damaged or foreign file is moved aside (never deleted:
    /// the user may want its edits back) and its new path returned.
    static func prepare(_ file: URL, logger: Logging.Logger) throws -> URL? {
        do {
            try PrivateFiles.createDirectory(file.deletingLastPathComponent())
        } catch {
            throw HaloError.cache(
                message:
                    "Cannot create the folder for pending edits \(file.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        var movedAside: URL?
        if case .rejected(let reason) = CacheFileGuard.inspect(file, applicationID: applicationID) {
            do {
                movedAside = try CacheFileGuard.moveAside(file, reason: reason, logger: logger, what: "The pending edits file")
            } catch {
                throw HaloError.cache(
                    message:
                        "The pending edits file \(file.path) is unusable (\(reason)) and could not be moved aside: \(error.localizedDescription)"
                )
            }
        }
        PrivateFiles.prepareFile(file)
        for suffix in ["-wal", "-shm"] { PrivateFiles.narrow(file.path + suffix, to: PrivateFiles.fileMode) }
        do {
            let queue = try DatabaseQueue(path: file.path)
            defer { try? queue.close() }
            // WAL, as the cache: the pool's read-only readers can then read it while the writer writes.
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try migrator.migrate(queue)
        } catch {
            throw HaloError.cache(message: "Cannot open the pending edits file \(file.path): \(error)")
        }
        return movedAside
    }
}
