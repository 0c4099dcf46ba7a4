import Foundation
import GRDB
import HaloContentStore
import Logging
import Synchronization

/// The SDK's offline cache of one server: an SQLite file (GRDB, WAL mode so reads never wait
/// for a sync's writes) holding synced content in the shared content tables, the sync log and
/// answers kept for offline policies; with, attached, the file of edits not yet sent (the outbox,
/// user data kept under `$XDG_DATA_HOME`: see `OutboxSchema`).
///
/// Opening never fails because of the file's content: a corrupt or foreign cache is moved aside
/// and replaced by an empty cache (see `CacheFileGuard`), without touching the pending edits,
/// which are laid over the new cache at once. It fails only when a directory cannot be written.
/// Folders are 0700 and files 0600 (see `PrivateFiles`). On a read-only file system an existing
/// cache opens for reading only: its writes fail with `HaloError.cache`, and edits are then sent
/// without the outbox (see `EditOutcome.sentWithoutCache`).
public final class HaloCache: Sendable {
    /// The cache file.
    public let file: URL
    /// The file of pending edits attached to it.
    public let outboxFile: URL
    /// Where a rejected file was moved at open, if one was (for the app to mention).
    public let movedAsideFile: URL?
    /// Where a rejected pending-edits file was moved at open, if one was.
    public let movedAsideOutboxFile: URL?
    let pool: DatabasePool
    let logger: Logging.Logger
    /// Set while an `Outbox` of this cache sends: one flush at a time per cache, however many
    /// `Outbox` values the app makes, so no edit is sent twice.
    let outboxFlushing = Mutex(false)
    /// Set while a bulk first sync holds the writer (`SyncChunkWriter`): optional writes (kept
    /// answers) are skipped rather than queued behind it.
    let bulkSyncWriting = Mutex(false)

    /// Opens (creating or rebuilding if needed) the cache of the server at `baseURL` in
    /// `$XDG_CACHE_HOME/halo-desk/`, with its pending edits in `$XDG_DATA_HOME/halo-desk/outbox/`.
    public convenience init(serverURL baseURL: URL) throws {
        try self.init(file: CacheLocation.file(for: baseURL), outboxFile: CacheLocation.outboxFile(for: baseURL))
    }

    /// Opens (creating or rebuilding if needed) the cache at `file`, attaching the pending edits
    /// of `outboxFile` (default: beside the cache, `<name>.outbox.sqlite`; the SDK's own caches
    /// pass one under `$XDG_DATA_HOME`).
    public init(file: URL, outboxFile: URL? = nil, logger: Logging.Logger = Logging.Logger(label: "halo.cache")) throws {
        self.file = file
        let outboxFile = outboxFile ?? file.deletingPathExtension().appendingPathExtension("outbox.sqlite")
        self.outboxFile = outboxFile
        self.logger = logger
        do {
            try PrivateFiles.createDirectory(file.deletingLastPathComponent())
        } catch {
            throw HaloError.cache(
                message: "Cannot create the cache directory \(file.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        var movedAside: URL? = nil
        if case .rejected(let reason) = CacheFileGuard.inspect(file) {
            do {
                movedAside = try CacheFileGuard.moveAside(file, reason: reason, logger: logger)
            } catch {
                throw HaloError.cache(
                    message: "The cache \(file.path) is unusable (\(reason)) and could not be moved aside: \(error.localizedDescription)")
            }
        }
        movedAsideFile = movedAside
        movedAsideOutboxFile = try OutboxSchema.prepare(outboxFile, logger: logger)
        // The file exists, 0600, before SQLite opens it: SQLite gives the -wal and -shm files the
        // database file's mode. Files an older version left more open are narrowed.
        PrivateFiles.prepareFile(file)
        for suffix in ["-wal", "-shm"] { PrivateFiles.narrow(file.path + suffix, to: PrivateFiles.fileMode) }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            // A cache is rebuilt from the server if a power cut loses its last commits, so skip the
            // per-commit fsync; rarer checkpoints keep a big sync off the disk.
            // Pending edits are the user's: every commit of theirs reaches the disk.
            // An 8 MiB page cache per connection: a 100,000-instance first sync cost no more CPU
            // than with 16, 32 or 128 MiB (its pages reach the WAL whatever the size; 4 MiB cost
            // 3% more, 2 MiB 8%), and its memory grew by 39 MB instead of 96 with 32 MiB (the
            // index rebuild's sorter sizes its runs by the cache too). Incremental syncs and
            // offline searches took as long.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -8192; PRAGMA wal_autocheckpoint = 32768")
                try db.execute(sql: "ATTACH DATABASE ? AS \(OutboxSchema.schema)", arguments: [outboxFile.path])
                try db.execute(sql: "PRAGMA \(OutboxSchema.schema).synchronous = FULL")
            }
            pool = try DatabasePool(path: file.path, configuration: configuration)
            try CacheSchema.migrator.migrate(pool)
        } catch {
            throw HaloError.cache(message: "Cannot open the cache \(file.path): \(error)")
        }
        // A rebuilt cache, or a crash between the two files' commits: show the waiting edits again.
        // Nothing is written when none waits; best effort otherwise (a cache on a read-only file
        // system opens all the same).
        // On the writer connection: a reader opened here would outlive it and keep the WAL from
        // being merged when the cache closes.
        do {
            try pool.writeWithoutTransaction { db in
                let waiting = try OutboxShadow.waitingInstanceIds(in: db)
                guard !waiting.isEmpty else { return }
                try db.inTransaction {
                    try OutboxShadow.reapplyWaitingEdits(waiting, in: db)
                    return .commit
                }
            }
        } catch {
            logger.warning("The pending edits could not be laid over the cache \(file.path): \(error)")
        }
    }

    /// Runs `body` in one write transaction; database errors become `HaloError.cache`.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.write(body) } catch let error as HaloError { throw error } catch {
            throw HaloError.cache(message: "\(error)")
        }
    }

    /// Runs `body` on a read snapshot; database errors become `HaloError.cache`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch let error as HaloError { throw error } catch {
            throw HaloError.cache(message: "\(error)")
        }
    }

    /// `PRAGMA quick_check` of the open cache ("ok" when intact).
    public func integrityCheck() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
    }

    /// Closes the database (later calls fail). Optional: it also closes when released.
    public func close() throws {
        try pool.close()
    }

    // MARK: Kept answers (offline policies)

    /// Stores an answer under `key`, replacing an older one (nothing while a bulk first sync
    /// holds the writer: a kept answer only helps later, and the answer must not wait for it).
    public func storeResponse(_ body: Data, forKey key: String) throws {
        if bulkSyncWriting.withLock({ $0 }) {
            logger.debug("Not keeping \(key) while a first sync writes the cache.")
            return
        }
        let now = HaloTimestamp.milliseconds(from: Date())
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO cache_response(key, body, stored_at) VALUES (?, ?, ?)",
                arguments: [key, body, now])
        }
    }

    /// The answer stored under `key`, if any.
    public func storedResponse(forKey key: String) throws -> Data? {
        try storedAnswer(forKey: key)?.body
    }

    /// An answer kept for offline use, with when it was stored.
    public struct StoredAnswer: Sendable, Equatable {
        public let body: Data
        public let storedAt: Date
    }

    /// The answer stored under `key` and its time, if any.
    public func storedAnswer(forKey key: String) throws -> StoredAnswer? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT body, stored_at FROM cache_response WHERE key = ?", arguments: [key]).map { row in
                StoredAnswer(body: row["body"], storedAt: HaloTimestamp.date(fromMilliseconds: Double(row["stored_at"] as Int64)))
            }
        }
    }
}
