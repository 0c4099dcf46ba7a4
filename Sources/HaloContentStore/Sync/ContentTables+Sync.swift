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
    public static func changes(moduleIds: [String], from: Int64?, to: Int64, in db: any SQLExecutor) throws -> SyncChanges {
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
    public static func countChanges(moduleIds: [String], from: Int64?, to: Int64, in db: any SQLExecutor) throws -> Int {
        var total = 0
        for (_, condition, _, _) in changeConditions(from: from) {
            for moduleId in Set(moduleIds) {
                let sql = "SELECT count(*) FROM content_instance i WHERE \(condition)"
                let named: [String: SQLValue] = ["module": .text(moduleId), "from": .integer(from ?? 0), "to": .integer(to)]
                if let db = db as? Database {
                    let arguments = StatementArguments(named.mapValues(\.databaseValue))
                    total += try Int.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) ?? 0
                } else {
                    let (positional, bindings) = SQLDialect.positional(sql, named)
                    total += try db.select(positional, bindings: bindings).first?.get(at: 0, as: Int.self) ?? 0
                }
            }
        }
        return total
    }

    /// The WHERE clause of each part of a window (0 created, 1 updated, 2 deleted) for one
    /// `:module`; the key it is read in order of, whose index (module, key) serves it; and the
    /// column holding that key in the rows it selects. A first sync has no updates or deletions:
    /// the client has nothing yet.
    private static func changeConditions(from: Int64?) -> [(kind: Int, condition: String, key: String, keyColumn: String)] {
        let live = "(i.deleted_at IS NULL OR i.deleted_at > :to)"
        let lastChanged = "coalesce(i.updated_at, i.created_at)"
        let inModule = "i.module = :module"
        let createdWindow = from == nil ? "i.created_at <= :to" : "i.created_at > :from AND i.created_at <= :to"
        let created = (0, "\(inModule) AND \(createdWindow) AND \(live)", "i.created_at", "created_at")
        guard from != nil else { return [created] }
        return [
            created,
            // Read along the (module, last change) index: for an updated instance its last change
            // is `updated_at`, so the window and the order are those of `updated_at`.
            (
                1,
                "\(inModule) AND \(lastChanged) > :from AND \(lastChanged) <= :to AND i.updated_at IS NOT NULL"
                    + " AND i.created_at <= :from AND \(live)", lastChanged, "updated_at"
            ),
            (2, "\(inModule) AND i.deleted_at > :from AND i.deleted_at <= :to AND i.created_at <= :from", "i.deleted_at", "deleted_at"),
        ]
    }

    /// Streams the change set in chunks of at most `chunkSize`: created chunks, then updated,
    /// then deleted, each ordered by storage key. Only one chunk is in memory at a time.
    public static func forEachChange(
        moduleIds: [String], from: Int64?, to: Int64, chunkSize: Int = 500, in db: any SQLExecutor,
        _ body: (SyncChunk) throws -> Void
    ) throws {
        var instances: [WireInstance] = []
        var ids: [String] = []
        try walkChanges(
            moduleIds: moduleIds, from: from, to: to, chunkSize: chunkSize, in: db,
            row: { kind, row in
                if kind == 2 { ids.append(row.text(1) ?? "") } else { instances.append(try ContentReader.instance(from: row)) }
            },
            endOfChunk: { kind in
                switch kind {
                case 0: try body(.created(instances))
                case 1: try body(.updated(instances))
                default: try body(.deleted(ids))
                }
                instances.removeAll(keepingCapacity: true)
                ids.removeAll(keepingCapacity: true)
            })
    }

    /// The same change set as `forEachChange`, each created or updated instance handed over as its
    /// wire JSON (the keys of `WireInstance`'s encoding; items separated by commas), written from
    /// the stored text of its values and tags without parsing it: the server's sync answer. With
    /// a `locale`, the values of instances of modules with localized fields (`localizedFields`,
    /// by module id) are parsed and localized as `WireInstance.localized` does.
    public static func forEachChangeAsWireJSON(
        moduleIds: [String], from: Int64?, to: Int64, chunkSize: Int = 500,
        locale: String?, localizedFields: [String: Set<String>], in db: any SQLExecutor,
        _ body: (SyncTextChunk) throws -> Void
    ) throws {
        var text = ""
        var count = 0
        var ids: [String] = []
        try walkChanges(
            moduleIds: moduleIds, from: from, to: to, chunkSize: chunkSize, in: db,
            row: { kind, row in
                if kind == 2 { return ids.append(row.text(1) ?? "") }
                if count > 0 { text += "," }
                try ContentReader.writeWireJSON(
                    of: row, locale: locale, localizedFields: localizedFields[row.text(2) ?? ""] ?? [], into: &text)
                count += 1
            },
            endOfChunk: { kind in
                switch kind {
                case 0: try body(.created(items: text, count: count))
                case 1: try body(.updated(items: text, count: count))
                default: try body(.deleted(ids))
                }
                text.removeAll(keepingCapacity: true)
                count = 0
                ids.removeAll(keepingCapacity: true)
            })
    }

    /// Hands each row of the change set (`ContentReader.columns`) to `row`, chunk by chunk, and
    /// calls `endOfChunk` after each chunk: kind 0 created, 1 updated, 2 deleted. Within a kind,
    /// module by module, rows come in the order of the index that finds them ((module, column),
    /// then pk): keyset pagination on that order makes each chunk one short index range. (Paging
    /// on pk alone made SQLite gather and sort the whole module for every chunk: quadratic.)
    private static func walkChanges(
        moduleIds: [String], from: Int64?, to: Int64, chunkSize: Int, in db: any SQLExecutor,
        row: (_ kind: Int, _ row: any ContentRow) throws -> Void, endOfChunk: (_ kind: Int) throws -> Void
    ) throws {
        let size = max(1, chunkSize)
        var seen = Set<String>()
        let modules = moduleIds.filter { seen.insert($0).inserted }
        for (kind, condition, key, keyColumn) in changeConditions(from: from) {
            let sql = """
                SELECT \(ContentReader.columns) FROM \(ContentReader.source)
                WHERE \(condition) AND (\(key), i.pk) > (:afterKey, :afterPK)
                ORDER BY \(key), i.pk LIMIT :limit
                """
            let keyIndex = ContentReader.columnIndex(of: keyColumn)
            for module in modules {
                var afterKey = Int64.min
                var afterPK: Int64 = 0
                while true {
                    let named: [String: SQLValue] = [
                        "module": .text(module), "from": .integer(from ?? 0), "to": .integer(to), "afterKey": .integer(afterKey),
                        "afterPK": .integer(afterPK), "limit": .integer(Int64(size)),
                    ]
                    var read = 0
                    if let db = db as? Database {
                        let arguments = StatementArguments(named.mapValues(\.databaseValue))
                        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
                        while let next = try rows.next() {
                            (afterKey, afterPK) = (next[keyIndex], next[0])
                            read += 1
                            try row(kind, next)
                        }
                    } else {
                        let (positional, bindings) = SQLDialect.positional(sql, named)
                        for next in try db.select(positional, bindings: bindings) {
                            (afterKey, afterPK) = (next.integer(keyIndex) ?? 0, next.integer(0) ?? 0)
                            read += 1
                            try row(kind, next)
                        }
                    }
                    if read > 0 { try endOfChunk(kind) }
                    if read < size { break }
                }
            }
        }
    }
}

// MARK: - The client side: applying sync answers to a local copy (the SDK's offline cache)

extension ContentTables {
    /// Applies one chunk of a sync answer the way HALO clients do (§14.2): created and updated
    /// instances are upserted (an id may come in both lists), deleted ids are removed outright.
    public static func apply(_ chunk: SyncChunk, in db: any SQLExecutor) throws {
        switch chunk {
        case .created(let instances), .updated(let instances): try upsert(contentsOf: instances, in: db)
        case .deleted(let ids): try hardDelete(ids: ids, in: db)
        }
    }

    /// Applies a whole change set: created, then updated, then deleted.
    public static func apply(_ changes: SyncChanges, in db: any SQLExecutor) throws {
        try apply(.created(changes.created), in: db)
        try apply(.updated(changes.updated), in: db)
        try apply(.deleted(changes.deleted), in: db)
    }

    /// Removes every instance of a module, deleted or not (a first sync or a locale change
    /// starts the module's local copy afresh, §14.3). Returns how many were removed.
    @discardableResult
    public static func removeAll(moduleId: String, in db: any SQLExecutor) throws -> Int {
        let ids = try db.fetchColumn(String.self, "SELECT id FROM content_instance WHERE module = ?", moduleId)
        try hardDelete(ids: ids, in: db)
        try resetValueIndex(ofModule: moduleId, in: db)
        return ids.count
    }
}
