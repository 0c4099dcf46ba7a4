import GRDB

/// The sync change-set query (§14.2).
///
/// For a window (from, to] — `from` nil on a first sync — and "live" meaning not deleted by `to`
/// (`deletedAt` null or later than `to`):
/// - created: live, createdAt in (from, to]; on a first sync every live instance created ≤ to;
/// - updated: live, updatedAt in (from, to], createdAt ≤ from (the client has it already);
/// - deleted: deletedAt in (from, to], createdAt ≤ from (an instance created and deleted inside
///   one window never reaches the client, so it is not reported either).
/// An id is listed in `created` only when its createdAt lies in this window, so no earlier window
/// can have delivered it (Android inserts `created` rows with "insert or fail").
extension ContentTables {
    /// The whole change set of a window for these modules. Prefer `forEachChange` for big modules.
    public static func changes(moduleIds: [String], from: Int64?, to: Int64, in db: Database) throws -> SyncChanges {
        var changes = SyncChanges()
        try forEachChange(moduleIds: moduleIds, from: from, to: to, chunkSize: 1000, in: db) { chunk in
            switch chunk {
            case .created(let items): changes.created += items
            case .updated(let items): changes.updated += items
            case .deleted(let ids): changes.deleted += ids
            }
        }
        return changes
    }

    /// How many items (created + updated + deleted) the change set of a window holds, e.g. for
    /// a progress total announced before streaming it.
    public static func countChanges(moduleIds: [String], from: Int64?, to: Int64, in db: Database) throws -> Int {
        var total = 0
        for (_, condition) in changeConditions(from: from) {
            let arguments: StatementArguments = ["modules": ContentReader.jsonArray(moduleIds), "from": from ?? 0, "to": to]
            total += try Int.fetchOne(db, sql: "SELECT count(*) FROM content_instance i WHERE \(condition)", arguments: arguments) ?? 0
        }
        return total
    }

    /// The WHERE clause of each part of a window (0 created, 1 updated, 2 deleted). A first sync
    /// has no updates or deletions: the client has nothing yet.
    private static func changeConditions(from: Int64?) -> [(kind: Int, condition: String)] {
        let live = "(i.deleted_at IS NULL OR i.deleted_at > :to)"
        let inModules = "i.module IN (SELECT value FROM json_each(:modules))"
        let createdWindow = from == nil ? "i.created_at <= :to" : "i.created_at > :from AND i.created_at <= :to"
        let created = (0, "\(inModules) AND \(createdWindow) AND \(live)")
        guard from != nil else { return [created] }
        return [
            created,
            (1, "\(inModules) AND i.updated_at > :from AND i.updated_at <= :to AND i.created_at <= :from AND \(live)"),
            (2, "\(inModules) AND i.deleted_at > :from AND i.deleted_at <= :to AND i.created_at <= :from"),
        ]
    }

    /// Streams the change set in chunks of at most `chunkSize`: created chunks, then updated,
    /// then deleted, each ordered by storage key. Only one chunk is in memory at a time.
    public static func forEachChange(
        moduleIds: [String], from: Int64?, to: Int64, chunkSize: Int = 500, in db: Database,
        _ body: (SyncChunk) throws -> Void
    ) throws {
        let size = max(1, chunkSize)
        let modules = ContentReader.jsonArray(moduleIds)
        for (kind, condition) in changeConditions(from: from) {
            var after: Int64 = 0
            while true {
                // Keyset pagination on pk: each chunk is one short index-driven query.
                let sql =
                    kind == 2
                    ? "SELECT i.pk, i.id FROM content_instance i WHERE \(condition) AND i.pk > :after ORDER BY i.pk LIMIT :limit"
                    : "SELECT i.pk FROM content_instance i WHERE \(condition) AND i.pk > :after ORDER BY i.pk LIMIT :limit"
                let arguments: StatementArguments = ["modules": modules, "from": from ?? 0, "to": to, "after": after, "limit": size]
                let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
                guard let last = rows.last else { break }
                after = last[0]
                switch kind {
                case 0: try body(.created(ContentReader.instances(pks: rows.map { $0[0] }, in: db)))
                case 1: try body(.updated(ContentReader.instances(pks: rows.map { $0[0] }, in: db)))
                default: try body(.deleted(rows.map { $0[1] }))
                }
                if rows.count < size { break }
            }
        }
    }
}

// MARK: - The client side: applying sync answers to a local copy (the SDK's offline cache)

extension ContentTables {
    /// Applies one chunk of a sync answer the way HALO clients do (§14.2): created and updated
    /// instances are upserted (an id may come in both lists), deleted ids are removed outright.
    public static func apply(_ chunk: SyncChunk, in db: Database) throws {
        switch chunk {
        case .created(let instances), .updated(let instances): try upsert(contentsOf: instances, in: db)
        case .deleted(let ids): try hardDelete(ids: ids, in: db)
        }
    }

    /// Applies a whole change set: created, then updated, then deleted.
    public static func apply(_ changes: SyncChanges, in db: Database) throws {
        try apply(.created(changes.created), in: db)
        try apply(.updated(changes.updated), in: db)
        try apply(.deleted(changes.deleted), in: db)
    }

    /// Removes every instance of a module, deleted or not (a first sync or a locale change
    /// starts the module's local copy afresh, §14.3). Returns how many were removed.
    @discardableResult
    public static func removeAll(moduleId: String, in db: Database) throws -> Int {
        let ids = try String.fetchAll(db, sql: "SELECT id FROM content_instance WHERE module = ?", arguments: [moduleId])
        try hardDelete(ids: ids, in: db)
        return ids.count
    }
}
