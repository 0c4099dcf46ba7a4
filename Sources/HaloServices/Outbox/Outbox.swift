import Foundation
import GRDB
import HaloContentStore
import Synchronization

/// Edits made while offline (or failing on the network), kept durably in the cache and sent in
/// order, through batch requests (§13), when the server is reachable again.
///
/// - Durable: `enqueue` returns only after the entry is committed to the cache file, so quitting
///   the app loses nothing.
/// - Ordered: runs of consecutive entries of one kind go in one batch; batches go one after the
///   other, so the server sees the edits in queue order.
/// - Coalesced: editing a create that was not sent yet rewrites that create; deleting it drops it.
/// - Visible offline: a create not sent yet is also stored in the cache's content tables under
///   its local id, so offline search and the synced instances include it until it is sent.
/// - Never silent: an update the server rejects with 409 (its copy changed after the version the
///   edit was based on) becomes a conflict holding both versions, listed by `conflicts()`.
public final class Outbox: Sendable {
    public let cache: HaloCache
    /// Sends the batches (its environment, TLS policy and token renewal on 401).
    public let core: CoreManager
    /// One flush at a time, so no edit is sent twice.
    private let flushing = Mutex(false)

    public init(cache: HaloCache, core: CoreManager) {
        self.cache = cache
        self.core = core
    }

    static let localIdPrefix = "local-"
    static func isLocalId(_ id: String) -> Bool { id.hasPrefix(localIdPrefix) }

    // MARK: Queueing

    /// Queues the creation of `instance` (its id is ignored); returns the entry, whose instance
    /// carries a local id to refer to it until the server assigns one.
    @discardableResult
    public func enqueueCreate(_ instance: ContentInstance) throws -> OutboxEntry {
        var local = instance
        local.id = Self.localIdPrefix + UUID().uuidString.lowercased()
        return try insert(.create, local)
    }

    /// Queues an update. `instance.updatedAt` must be the `updatedAt` of the version the edit was
    /// based on: the server uses it to detect conflicts.
    @discardableResult
    public func enqueueUpdate(_ instance: ContentInstance) throws -> OutboxEntry {
        guard let id = instance.id else { throw HaloError.invalidInput(message: "An update needs the instance's id.") }
        if Self.isLocalId(id), let create = try pendingCreate(localId: id) {
            try rewrite(create, with: instance)
            return try entry(id: create) ?? OutboxEntry(id: create, kind: .create, instance: instance, queuedAt: Date(), state: .pending)
        }
        return try insert(.update, instance)
    }

    /// Queues a deletion (of a create not sent yet: drops that create).
    @discardableResult
    public func enqueueDelete(_ instance: ContentInstance) throws -> OutboxEntry? {
        guard let id = instance.id else { throw HaloError.invalidInput(message: "A deletion needs the instance's id.") }
        if Self.isLocalId(id), let create = try pendingCreate(localId: id) {
            try cache.write { db in
                try db.execute(sql: "DELETE FROM cache_outbox WHERE seq = ?", arguments: [create])
                try ContentTables.hardDelete(ids: [id], in: db)
            }
            return nil
        }
        return try insert(.delete, instance)
    }

    // MARK: Listing

    /// Every entry, in queue order.
    public func entries() throws -> [OutboxEntry] {
        try cache.read { db in try Row.fetchAll(db, sql: "SELECT * FROM cache_outbox ORDER BY seq").map(Self.entry(from:)) }
    }

    /// Entries still to be sent.
    public func pending() throws -> [OutboxEntry] {
        try entries().filter { $0.state == .pending }
    }

    /// Whether any entry is still to be sent (cheaper than `pending()`).
    public func hasPending() throws -> Bool {
        try cache.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM cache_outbox WHERE state = 'pending')") ?? false }
    }

    /// Entries in conflict with the server's copy.
    public func conflicts() throws -> [OutboxEntry] {
        try entries().filter { if case .conflict = $0.state { return true } else { return false } }
    }

    /// Removes an entry (e.g. a failed one the user gave up on).
    public func discard(_ entry: OutboxEntry) throws {
        try cache.write { db in
            try db.execute(sql: "DELETE FROM cache_outbox WHERE seq = ?", arguments: [entry.id])
            if entry.kind == .create, let localId = entry.instance.id, Self.isLocalId(localId) {
                try ContentTables.hardDelete(ids: [localId], in: db)
            }
        }
    }

    /// Settles a conflict: `.keepMine` re-queues my version based on the server's copy (sent by
    /// the next flush); `.takeTheirs` drops my edit and stores the server's copy in the cache.
    public func resolve(_ entry: OutboxEntry, keeping resolution: ConflictResolution) throws {
        guard let stored = try self.entry(id: entry.id), case .conflict(let server) = stored.state else {
            throw HaloError.invalidInput(message: "Outbox entry \(entry.id) is not in conflict.")
        }
        switch resolution {
        case .keepMine:
            var mine = stored.instance
            mine.updatedAt = server.updatedAt
            let body = mine.fullJSON.jsonString(sortedKeys: false)
            try cache.write { db in
                try db.execute(sql: """
                    UPDATE cache_outbox SET body = ?, baseUpdatedAt = ?, state = 'pending', serverCopy = NULL, lastError = NULL
                    WHERE seq = ?
                    """, arguments: [body, server.updatedAt.map(HaloTimestamp.milliseconds(from:)), entry.id])
            }
        case .takeTheirs:
            let copy = try server.storedForm()
            try cache.write { db in
                try db.execute(sql: "DELETE FROM cache_outbox WHERE seq = ?", arguments: [entry.id])
                if copy.createdAt != nil { try ContentTables.upsert(copy, in: db) }
            }
        }
    }

    // MARK: Sending

    /// Sends every pending entry in order. Stops at the first network failure (the rest stays
    /// pending); server refusals become conflicts or failures and do not stop later entries,
    /// except later entries of the same instance, which wait behind a conflict.
    @discardableResult
    public func flush() async throws -> OutboxFlushReport {
        // A flush already under way sends everything pending: this call has nothing to add.
        guard flushing.withLock({ busy in defer { busy = true }; return !busy }) else { return OutboxFlushReport() }
        defer { flushing.withLock { $0 = false } }
        var report = OutboxFlushReport()
        var blocked = Set<String>()  // instances with an unresolved conflict or failure
        for entry in try entries() where entry.state != .pending {
            if let id = entry.instance.id { blocked.insert(id) }
        }
        while true {
            let run = try nextRun(excluding: blocked)
            guard !run.isEmpty else { break }
            let result: BatchResult
            do {
                result = try await send(run)
            } catch let error as HaloError {
                if case .server = error {
                    try record(error: error.description, on: run)
                    throw error
                }
                report.networkError = error
                try record(error: error.description, on: run)
                return report
            }
            try apply(result, to: run, report: &report, blocked: &blocked)
        }
        return report
    }

    /// The longest run of consecutive pending entries of one kind (not blocked), in queue order.
    private func nextRun(excluding blocked: Set<String>) throws -> [OutboxEntry] {
        var run: [OutboxEntry] = []
        for entry in try pending() {
            if let id = entry.instance.id, blocked.contains(id) { continue }
            if let first = run.first, first.kind != entry.kind { break }
            run.append(entry)
        }
        return run
    }

    private func send(_ run: [OutboxEntry]) async throws -> BatchResult {
        var operations = BatchOperations()
        for entry in run {
            switch entry.kind {
            case .create:
                var fresh = entry.instance
                fresh.id = nil
                operations.create(fresh)
            case .update: operations.update(entry.instance)
            case .delete: operations.delete(instanceId: entry.instance.id ?? "")
            }
        }
        // Never retried blindly: a batch whose answer was lost may have been applied already.
        let call = APIRequest(.post, "api/generalcontent/instance/batch", body: .json(operations.wireJSON), numberOfRetries: 0)
        let body = try await core.perform(call).body
        do {
            return try BatchResult(wire: JSONValue(data: body))
        } catch let error as HaloError {
            throw error
        } catch {
            throw HaloError.invalidResponse(status: 200, message: "The batch answer is not JSON: \(error)")
        }
    }

    /// Removes what succeeded (storing the server's instance in the cache), marks conflicts and
    /// failures, and rewrites later entries that referred to a create by its local id.
    private func apply(_ result: BatchResult, to run: [OutboxEntry], report: inout OutboxFlushReport, blocked: inout Set<String>) throws {
        try cache.write { db in
            for (position, entry) in run.enumerated() {
                let outcome = result.operations.first { $0.position == position && Self.matches($0.operation, entry.kind) }
                guard let outcome else {
                    try db.execute(sql: "UPDATE cache_outbox SET lastError = ? WHERE seq = ?",
                                   arguments: ["The batch answer did not mention this edit.", entry.id])
                    if let id = entry.instance.id { blocked.insert(id) }
                    continue
                }
                if outcome.success {
                    let current = try Row.fetchOne(db, sql: "SELECT * FROM cache_outbox WHERE seq = ?", arguments: [entry.id])
                        .map(Self.entry(from:))
                    if let current, current.instance != entry.instance, entry.kind == .create, let created = outcome.instance {
                        // Edited while its create was in flight: keep the edit, now as an update of the new instance.
                        try Self.turnIntoUpdate(entry.id, edited: current.instance, created: created, in: db)
                    } else {
                        try db.execute(sql: "DELETE FROM cache_outbox WHERE seq = ?", arguments: [entry.id])
                    }
                    if entry.kind == .create, let localId = entry.instance.id, Self.isLocalId(localId) {
                        try ContentTables.hardDelete(ids: [localId], in: db)  // the server's copy replaces it
                    }
                    if let instance = outcome.instance {
                        report.sent.append(instance)
                        let stored = try instance.storedForm()
                        if stored.createdAt != nil, !stored.id.isEmpty { try ContentTables.upsert(stored, in: db) }
                    }
                } else if let server = outcome.conflictingInstance {
                    try db.execute(sql: "UPDATE cache_outbox SET state = 'conflict', serverCopy = ?, lastError = ? WHERE seq = ?",
                                   arguments: [server.fullJSON.jsonString(sortedKeys: false), outcome.error?.message, entry.id])
                    var conflicted = entry
                    conflicted.state = .conflict(server: server)
                    report.conflicts.append(conflicted)
                    if let id = entry.instance.id { blocked.insert(id) }
                } else {
                    let message = outcome.error?.message ?? "The server refused the edit."
                    try db.execute(sql: "UPDATE cache_outbox SET state = 'failed', lastError = ? WHERE seq = ?",
                                   arguments: [message, entry.id])
                    var failed = entry
                    failed.state = .failed(message: message)
                    report.failed.append(failed)
                    if let id = entry.instance.id { blocked.insert(id) }
                }
            }
        }
    }

    private static func matches(_ operation: BatchOperationType, _ kind: OutboxEntry.Kind) -> Bool {
        switch kind {
        case .create: return operation == .create
        case .update: return operation == .update
        case .delete: return operation == .delete
        }
    }

    /// A create the user edited after it was sent becomes an update of the created instance,
    /// based on the server's answer (so it cannot conflict with itself).
    private static func turnIntoUpdate(_ seq: Int64, edited: ContentInstance, created: ContentInstance, in db: Database) throws {
        var update = edited
        update.id = created.id
        update.updatedAt = created.updatedAt
        try db.execute(sql: "UPDATE cache_outbox SET kind = 'update', instanceId = ?, body = ?, baseUpdatedAt = ? WHERE seq = ?",
                       arguments: [created.id, update.fullJSON.jsonString(sortedKeys: false),
                                   created.updatedAt.map(HaloTimestamp.milliseconds(from:)), seq])
    }

    private func record(error: String, on run: [OutboxEntry]) throws {
        try cache.write { db in
            for entry in run {
                try db.execute(sql: "UPDATE cache_outbox SET lastError = ? WHERE seq = ?", arguments: [error, entry.id])
            }
        }
    }

    // MARK: Storage

    private func insert(_ kind: OutboxEntry.Kind, _ instance: ContentInstance) throws -> OutboxEntry {
        let now = Date()
        let body = instance.fullJSON.jsonString(sortedKeys: false)
        let stored = kind == .create ? try instance.storedForm() : nil
        let seq = try cache.write { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO cache_outbox(kind, instanceId, moduleId, body, baseUpdatedAt, queuedAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [kind.rawValue, instance.id, instance.moduleId, body,
                                 instance.updatedAt.map(HaloTimestamp.milliseconds(from:)), HaloTimestamp.milliseconds(from: now)])
            let seq = db.lastInsertedRowID
            if let stored { try ContentTables.upsert(stored, in: db) }
            return seq
        }
        return OutboxEntry(id: seq, kind: kind, instance: instance, queuedAt: now, state: .pending)
    }

    private func pendingCreate(localId: String) throws -> Int64? {
        try cache.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM cache_outbox WHERE kind = 'create' AND instanceId = ? AND state = 'pending'",
                               arguments: [localId])
        }
    }

    /// Rewrites a create not sent yet (and its local copy in the content tables).
    private func rewrite(_ seq: Int64, with instance: ContentInstance) throws {
        let stored = try instance.storedForm()
        try cache.write { db in
            try db.execute(sql: "UPDATE cache_outbox SET body = ? WHERE seq = ?",
                           arguments: [instance.fullJSON.jsonString(sortedKeys: false), seq])
            try ContentTables.upsert(stored, in: db)
        }
    }

    private func entry(id: Int64) throws -> OutboxEntry? {
        try cache.read { db in try Row.fetchOne(db, sql: "SELECT * FROM cache_outbox WHERE seq = ?", arguments: [id]).map(Self.entry(from:)) }
    }

    private static func entry(from row: Row) throws -> OutboxEntry {
        let body: String = row["body"]
        let instance = try ContentInstance(wire: JSONValue(string: body))
        let state: OutboxEntry.State
        switch row["state"] as String {
        case "conflict":
            let copy: String? = row["serverCopy"]
            state = try .conflict(server: ContentInstance(wire: JSONValue(string: copy ?? "{}")))
        case "failed": state = .failed(message: row["lastError"] ?? "refused")
        default: state = .pending
        }
        let kind = OutboxEntry.Kind(rawValue: row["kind"]) ?? .update
        let queued: Int64 = row["queuedAt"]
        return OutboxEntry(
            id: row["seq"], kind: kind, instance: instance, queuedAt: HaloTimestamp.date(fromMilliseconds: Double(queued)),
            state: state, lastError: row["lastError"])
    }
}
