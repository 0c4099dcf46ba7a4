import Foundation
import GRDB
import HaloContentStore

/// The cache side of sync (§14.3–14.4): where a module's sync stands, applying a streamed
/// answer chunk by chunk, and the seed's read/remove/log functions.
///
/// Consistency: each chunk is its own transaction and every chunk leaves each instance in a state
/// the server really had (upserts and deletions are idempotent). The sync point of a module
/// (`sync_timestamp`) only moves in the transaction that applies the answer's last chunk, so a
/// sync cut off anywhere is simply re-run from the previous point by the next sync. A large first
/// sync is instead one transaction from its first chunk to the sync point (`SyncChunkWriter`).
extension HaloCache {
    /// Where the sync of `key` stands.
    struct SyncState: Equatable {
        var locale: String?
        var syncTimestamp: Int64?
        var firstSyncInProgress: Bool
    }

    func syncState(key: String) throws -> SyncState? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT locale, sync_timestamp, first_sync_in_progress FROM cache_sync_state WHERE sync_key = ?",
                arguments: [key]
            ).map { SyncState(locale: $0[0], syncTimestamp: $0[1], firstSyncInProgress: $0[2]) }
        }
    }

    /// When the module's copy was last brought up to date: the sync point of its last completed
    /// sync (the server's clock), nil when it was never synced completely. An app shows it as
    /// "the copy from 14:02".
    public func lastSyncDate(moduleId key: String) throws -> Date? {
        guard let state = try syncState(key: key), !state.firstSyncInProgress, let point = state.syncTimestamp else { return nil }
        return HaloTimestamp.date(fromMilliseconds: Double(point))
    }

    /// Decides the window of the next request for `query` and, for a first sync (never synced,
    /// an interrupted first sync, or a locale change), drops the module's local instances.
    /// Returns the `fromSync` to send (nil = first sync).
    func beginSync(_ query: SyncQuery) throws -> Int64? {
        let key = query.moduleKey
        let locale = query.locale.rawValue
        if let explicit = query.fromSync { return HaloTimestamp.milliseconds(from: explicit) }
        return try write { db -> Int64? in
            let state = try Row.fetchOne(
                db, sql: "SELECT locale, sync_timestamp, first_sync_in_progress FROM cache_sync_state WHERE sync_key = ?", arguments: [key]
            ).map { SyncState(locale: $0[0], syncTimestamp: $0[1], firstSyncInProgress: $0[2]) }
            if let state, state.locale == locale, !state.firstSyncInProgress, let from = state.syncTimestamp {
                return from
            }
            try Self.dropInstances(key: key, in: db)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO cache_sync_state(sync_key, locale, sync_timestamp, first_sync_in_progress) VALUES (?, ?, NULL, 1)
                    """, arguments: [key, locale])
            if let id = query.moduleId {
                try db.execute(sql: "INSERT OR IGNORE INTO cache_sync_module(sync_key, module_id) VALUES (?, ?)", arguments: [key, id])
            }
            return nil
        }
    }

    /// Applies one chunk of an answer for `key` in one transaction (created/updated upsert,
    /// deleted removes), remembering which module ids the key covers.
    func applySyncChunk(key: String, upserts: [WireInstance], deletions: [String]) throws {
        guard !upserts.isEmpty || !deletions.isEmpty else { return }
        try write { db in try Self.apply(key: key, upserts: upserts, deletions: deletions, in: db) }
    }

    /// Applies the answer's last chunk, moves the sync point and appends the log entry, atomically.
    func finishSync(key: String, locale: String, entry: SyncLogEntry, upserts: [WireInstance], deletions: [String]) throws {
        try write { db in
            try Self.apply(key: key, upserts: upserts, deletions: deletions, in: db)
            try Self.recordSyncPoint(key: key, locale: locale, entry: entry, in: db)
        }
    }

    /// Whether a first sync announcing `announcedTotal` items (nil: not announced) should be
    /// written as one bulk transaction (`SyncChunkWriter`): only when the answer is at least as
    /// large as everything the cache already holds, since the bulk path rebuilds the content
    /// indexes over every stored row at its end.
    func prefersBulkFirstSync(announcedTotal: Int?) throws -> Bool {
        try read { db in try ContentTables.deferringIndexesPaysOff(forLoadOf: announcedTotal ?? 0, in: db) }
    }

    /// Moves the sync point of `key` and appends the log entry (inside the caller's transaction).
    static func recordSyncPoint(key: String, locale: String, entry: SyncLogEntry, in db: Database) throws {
        let timestamp = HaloTimestamp.milliseconds(from: entry.syncDate)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO cache_sync_state(sync_key, locale, sync_timestamp, first_sync_in_progress) VALUES (?, ?, ?, 0)
                """, arguments: [key, locale, timestamp])
        try db.execute(
            sql: """
                INSERT INTO cache_sync_log(sync_key, module_id, module_name, sync_date, locale, creations, updates, deletions)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key, entry.moduleId, entry.moduleName, timestamp, entry.locale?.rawValue,
                entry.creations, entry.updates, entry.deletions,
            ])
    }

    /// Upserts (created and updated alike: clients upsert, §14.2), then deletions, and records
    /// which module ids `key` covers (inside the caller's transaction).
    static func apply(key: String, upserts: [WireInstance], deletions: [String], in db: Database) throws {
        try dropOtherCopies(key: key, modules: Set(upserts.map(\.module)), in: db)
        try ContentTables.apply(.updated(upserts), in: db)
        if !deletions.isEmpty { try ContentTables.apply(.deleted(deletions), in: db) }
        try OutboxShadow.syncApplied(upserts: upserts, deletions: deletions, in: db)  // waiting edits stay visible
        for module in Set(upserts.map(\.module)) {
            try db.execute(sql: "INSERT OR IGNORE INTO cache_sync_module(sync_key, module_id) VALUES (?, ?)", arguments: [key, module])
        }
    }

    /// The module ids synced under `key` (the id itself, or every id seen under a name).
    func syncedModuleIds(key: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT module_id FROM cache_sync_module WHERE sync_key = ? ORDER BY module_id", arguments: [key])
    }

    /// A first sync by name that meets a module the cache holds under another key (the module
    /// was renamed and synced by its old name or by id): that copy may hold instances deleted on
    /// the server since, which a first sync never reports. The answer carries every live instance
    /// of the module, so the older copy goes before its first chunk is written (waiting edits are
    /// laid over again).
    private static func dropOtherCopies(key: String, modules: Set<String>, in db: Database) throws {
        let known = Set(try String.fetchAll(db, sql: "SELECT module_id FROM cache_sync_module WHERE sync_key = ?", arguments: [key]))
        let met = modules.subtracting(known)
        guard !met.isEmpty,
            try Bool.fetchOne(db, sql: "SELECT first_sync_in_progress FROM cache_sync_state WHERE sync_key = ?", arguments: [key]) == true
        else { return }
        for module in met.sorted() { try ContentTables.removeAll(moduleId: module, in: db) }
        try OutboxShadow.reapplyWaitingEdits(try OutboxShadow.waitingInstanceIds(in: db), in: db)
    }

    private static func dropInstances(key: String, in db: Database) throws {
        for module in try String.fetchAll(db, sql: "SELECT module_id FROM cache_sync_module WHERE sync_key = ?", arguments: [key]) {
            try ContentTables.removeAll(moduleId: module, in: db)
        }
        try db.execute(sql: "DELETE FROM cache_sync_module WHERE sync_key = ?", arguments: [key])
    }

    // MARK: The seed's functions (ContentManager forwards to these)

    /// The synced, not-deleted instances of a module (key = the module id or name used in the
    /// `SyncQuery`), newest first.
    public func getSyncedInstances(moduleId key: String) throws -> [ContentInstance] {
        try read { db -> [ContentInstance] in
            let modules = try syncedModuleIds(key: key, in: db)
            guard !modules.isEmpty else { return [] }
            let page = try ContentTables.search(
                SearchRequest(moduleIds: modules, pagination: .init(skip: true)), in: db)
            return try page.items.map(ContentInstance.init(stored:))
        }
    }

    /// Forgets a module's synced instances and its sync point (the next sync is a first sync).
    /// The sync log is kept (`clearSyncLog` clears it).
    public func removeSyncedInstances(moduleId key: String) throws {
        try write { db in
            try Self.dropInstances(key: key, in: db)
            try db.execute(sql: "DELETE FROM cache_sync_state WHERE sync_key = ?", arguments: [key])
        }
    }

    /// The sync log of a module, oldest first.
    public func getSyncLog(moduleId key: String) throws -> [SyncLogEntry] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT module_id, module_name, sync_date, locale, creations, updates, deletions
                    FROM cache_sync_log WHERE sync_key = ? ORDER BY seq
                    """, arguments: [key]
            ).map { row -> SyncLogEntry in
                let locale: String? = row[3]
                return SyncLogEntry(
                    moduleId: row[0], moduleName: row[1], syncDate: HaloTimestamp.date(fromMilliseconds: Double(row[2] as Int64)),
                    locale: locale.map { HaloLocale(rawValue: $0) }, creations: row[4], updates: row[5], deletions: row[6])
            }
        }
    }

    /// Empties the sync log of a module.
    public func clearSyncLog(moduleId key: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM cache_sync_log WHERE sync_key = ?", arguments: [key]) }
    }
}
