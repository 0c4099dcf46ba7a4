import Foundation
import GRDB
import HaloContentStore

/// Edits made while offline (or failing on the network), kept durably in the pending-edits file
/// attached to the cache (`OutboxSchema`, under `$XDG_DATA_HOME`) and sent in
/// order, through batch requests (§13), when the server is reachable again.
///
/// - Durable: `enqueue` returns only after the entry is committed to that file, so quitting
///   the app loses nothing.
/// - Ordered: runs of consecutive entries of one kind go in one batch; batches go one after the
///   other, so the server sees the edits in queue order.
/// - Coalesced: editing a create that was not sent yet rewrites that create; deleting it drops it.
/// - Visible offline: while an edit waits, the cache's content tables show it (a create under its
///   local id, an update as edited, a deletion as gone), so offline search, the synced instances
///   and lookups by id answer with the user's version; once the edit is sent, refused or
///   discarded they show the server's copy again (see `OutboxShadow`).
/// - Idempotent creates: a queued create carries, in its local id, the server id it asks for
///   (`createdOrUpdated` with that id), so a create sent again after its answer was lost finds
///   the instance instead of duplicating it.
/// - Never silent: an update the server rejects with 409 (its copy changed after the version the
///   edit was based on) becomes a conflict holding both versions, listed by `conflicts()`.
public final class Outbox: Sendable {
    public let cache: HaloCache
    /// Sends the batches (its environment, TLS policy and token renewal on 401).
    public let core: CoreManager

    public init(cache: HaloCache, core: CoreManager) {
        self.cache = cache
        self.core = core
    }

    static let localIdPrefix = "local-"
    /// Whether `id` is the placeholder of a create not sent yet.
    public static func isLocalId(_ id: String) -> Bool { id.hasPrefix(localIdPrefix) }

    /// A new id in the server's format (24 hex digits: seconds since 1970, then random bytes, as
    /// ObjectIds are), so the instance keeps it on the server.
    static func newServerId() -> String {
        let seconds = UInt32(clamping: Int(Date().timeIntervalSince1970))
        var bytes = withUnsafeBytes(of: seconds.bigEndian) { Array($0) }
        var random = SystemRandomNumberGenerator()
        bytes += (0..<8).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The server id a queued create asks for: the 24 hex digits after `local-`. Nil for local ids
    /// queued by older versions (random UUIDs), which are sent as plain creates.
    public static func serverId(forLocalId id: String) -> String? {
        guard isLocalId(id) else { return nil }
        let hex = id.dropFirst(localIdPrefix.count)
        guard hex.count == 24, hex.allSatisfy(\.isHexDigit) else { return nil }
        return String(hex)
    }

    // MARK: Queueing

    /// Queues the creation of `instance` (its id is ignored); returns the entry, whose instance
    /// carries a local id `local-<24 hex>` to refer to it until it is sent. The hex part is the id
    /// the instance gets on the server (`serverId(forLocalId:)`).
    @discardableResult
    public func enqueueCreate(_ instance: ContentInstance) throws -> OutboxEntry {
        var local = instance
        local.id = Self.localIdPrefix + Self.newServerId()
        return try insert(.create, local)
    }

    /// Queues an update. `instance.updatedAt` must be the `updatedAt` of the version the edit was
    /// based on: the server uses it to detect conflicts. A second edit of an instance whose update
    /// still waits rewrites that update (both were based on the same server version; sent apart,
    /// the second would conflict with the first).
    @discardableResult
    public func enqueueUpdate(_ instance: ContentInstance) throws -> OutboxEntry {
        guard let id = instance.id else { throw HaloError.invalidInput(message: "An update needs the instance's id.") }
        if let waiting = Self.isLocalId(id) ? try pendingCreate(localId: id) : try pendingUpdate(of: id) {
            try rewrite(waiting, with: instance)
            if let rewritten = try entry(id: waiting) { return rewritten }
        }
        return try insert(.update, instance)
    }

    /// Queues a deletion (of a create not sent yet: drops that create).
    @discardableResult
    public func enqueueDelete(_ instance: ContentInstance) throws -> OutboxEntry? {
        guard let id = instance.id else { throw HaloError.invalidInput(message: "A deletion needs the instance's id.") }
        if Self.isLocalId(id), let create = try pendingCreate(localId: id) {
            try cache.write { db in
                try db.execute(sql: "DELETE FROM outbox_entry WHERE seq = ?", arguments: [create])
                try OutboxShadow.reconcile(id, in: db)
            }
            return nil
        }
        return try insert(.delete, instance)
    }

    // MARK: Listing

    /// Every entry, in queue order.
    public func entries() throws -> [OutboxEntry] {
        try cache.read { db in try Row.fetchAll(db, sql: "SELECT * FROM outbox_entry ORDER BY seq").map(Self.entry(from:)) }
    }

    /// Entries still to be sent.
    public func pending() throws -> [OutboxEntry] {
        try entries().filter { $0.state == .pending }
    }

    /// Whether an instance edit is still to be sent (cheaper than `pending()`). A waiting pocket
    /// save does not count: it never holds instance edits back, as they touch different data.
    public func hasPending() throws -> Bool {
        try cache.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM outbox_entry WHERE state = 'pending')") ?? false }
    }

    /// The instances with an entry in the outbox, in any state (local ids for creations not sent
    /// yet), read without decoding any entry.
    public func instanceIds() throws -> Set<String> {
        try cache.read { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT instance_id FROM outbox_entry WHERE instance_id IS NOT NULL"))
        }
    }

    /// How many entries (pocket saves included) are in each state, counted by SQLite (cheap enough
    /// to ask after every request: no entry is decoded).
    public func stateCounts() throws -> (pending: Int, conflicts: Int, failed: Int) {
        try cache.read { db in
            var counts = (pending: 0, conflicts: 0, failed: 0)
            let sql =
                "SELECT state, count(*) AS n FROM (SELECT state FROM outbox_entry UNION ALL SELECT state FROM outbox_pocket) GROUP BY state"
            for row in try Row.fetchAll(db, sql: sql) {
                let n: Int = row["n"]
                switch row["state"] as String {
                case "pending": counts.pending = n
                case "conflict": counts.conflicts = n
                case "failed": counts.failed = n
                default: break
                }
            }
            return counts
        }
    }

    /// Entries in conflict with the server's copy.
    public func conflicts() throws -> [OutboxEntry] {
        try entries().filter { if case .conflict = $0.state { return true } else { return false } }
    }

    /// Removes an entry (e.g. a failed one the user gave up on): the edit is lost, and the cache
    /// shows the server's copy again (or the instance's next waiting edit).
    public func discard(_ entry: OutboxEntry) throws {
        try cache.write { db in
            try db.execute(sql: "DELETE FROM outbox_entry WHERE seq = ?", arguments: [entry.id])
            if let id = entry.instance.id { try OutboxShadow.reconcile(id, in: db) }
        }
    }

    /// Queues a failed entry again as it is (e.g. after the module or the permissions were fixed
    /// on the server); the next flush sends it.
    public func retry(_ entry: OutboxEntry) throws {
        try cache.write { db in
            try db.execute(
                sql: "UPDATE outbox_entry SET state = 'pending', last_error = NULL WHERE seq = ? AND state = 'failed'",
                arguments: [entry.id])
            guard db.changesCount == 1 else {
                throw HaloError.invalidInput(message: "Outbox entry \(entry.id) has not failed.")
            }
            if let id = entry.instance.id { try OutboxShadow.reconcile(id, in: db) }
        }
    }

    /// Settles a conflict: `.keepMine` re-queues my version based on the server's copy (sent by
    /// the next flush); `.takeTheirs` drops my edit and stores the server's copy in the cache.
    public func resolve(_ entry: OutboxEntry, keeping resolution: ConflictResolution) throws {
        guard let stored = try self.entry(id: entry.id), case .conflict(let server) = stored.state else {
            throw HaloError.invalidInput(message: "Outbox entry \(entry.id) is not in conflict.")
        }
        let copy = server.storedForm()
        let instanceId = stored.instance.id ?? copy.id
        switch resolution {
        case .keepMine:
            var mine = stored.instance
            mine.updatedAt = server.updatedAt
            let body = mine.fullJSON.jsonString(sortedKeys: false)
            try cache.write { db in
                try db.execute(
                    sql: """
                        UPDATE outbox_entry SET body = ?, base_updated_at = ?, state = 'pending', server_copy = NULL, last_error = NULL
                        WHERE seq = ?
                        """, arguments: [body, server.updatedAt.map(HaloTimestamp.milliseconds(from:)), entry.id])
                if !copy.id.isEmpty { try OutboxShadow.serverCopyArrived(copy, for: instanceId, in: db) }
                try OutboxShadow.reconcile(instanceId, in: db)
            }
        case .takeTheirs:
            try cache.write { db in
                try db.execute(sql: "DELETE FROM outbox_entry WHERE seq = ?", arguments: [entry.id])
                if !copy.id.isEmpty { try OutboxShadow.serverCopyArrived(copy, for: instanceId, in: db) }
                try OutboxShadow.reconcile(instanceId, in: db)
            }
        }
    }

    // MARK: Sending

    /// Sends every pending entry in order, then the waiting pocket save (`Outbox+Pocket`). Stops
    /// at the first network failure (the rest stays pending); server refusals become conflicts or
    /// failures and do not stop later entries, except later entries of the same instance, which
    /// wait behind a conflict.
    @discardableResult
    public func flush() async throws -> OutboxFlushReport {
        // A flush already under way sends everything pending: this call has nothing to add.
        guard
            cache.outboxFlushing.withLock({ busy in
                defer { busy = true }; return !busy
            })
        else { return OutboxFlushReport() }
        defer { cache.outboxFlushing.withLock { $0 = false } }
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
                    try await BlockingWork.run(name: "halo-cache-write") { [self] in try record(error: error.description, on: run) }
                    throw error
                }
                report.networkError = error
                try await BlockingWork.run(name: "halo-cache-write") { [self] in try record(error: error.description, on: run) }
                return report
            }
            (report, blocked) = try await BlockingWork.run(name: "halo-cache-write") { [self, report, blocked] in
                var (report, blocked) = (report, blocked)
                try apply(result, to: run, report: &report, blocked: &blocked)
                return (report, blocked)
            }
        }
        try await sendPockets(&report)
        return report
    }

    /// The longest run of consecutive pending entries sent as one batch operation kind (not
    /// blocked), in queue order: the server runs a batch's kinds in its own order (§13.2).
    private func nextRun(excluding blocked: Set<String>) throws -> [OutboxEntry] {
        var run: [OutboxEntry] = []
        for entry in try pending() {
            if let id = entry.instance.id, blocked.contains(id) { continue }
            if let first = run.first, Self.operation(for: first) != Self.operation(for: entry) { break }
            run.append(entry)
        }
        return run
    }

    /// How an entry goes on the wire: a create that carries its server id is a `createOrUpdate`
    /// of that id, which a resend cannot duplicate.
    private static func operation(for entry: OutboxEntry) -> BatchOperationType {
        switch entry.kind {
        case .create: return entry.instance.id.flatMap(serverId(forLocalId:)) == nil ? .create : .createOrUpdate
        case .update: return .update
        case .delete: return .delete
        }
    }

    private func send(_ run: [OutboxEntry]) async throws -> BatchResult {
        var operations = BatchOperations()
        for entry in run {
            switch Self.operation(for: entry) {
            case .createOrUpdate:
                var fresh = entry.instance
                fresh.id = entry.instance.id.flatMap(Self.serverId(forLocalId:))
                fresh.updatedAt = nil  // a resend finds the instance and must not conflict with its own first send
                operations.createOrUpdate(fresh)
            case .create:
                var fresh = entry.instance
                fresh.id = nil
                operations.create(fresh)
            case .update: operations.update(entry.instance)
            case .delete, .truncate: operations.delete(instanceId: entry.instance.id ?? "")
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
                let outcome = result.operations.first { $0.position == position && $0.operation == Self.operation(for: entry) }
                guard let outcome else {
                    try db.execute(
                        sql: "UPDATE outbox_entry SET last_error = ? WHERE seq = ?",
                        arguments: ["The batch answer did not mention this edit.", entry.id])
                    if let id = entry.instance.id { blocked.insert(id) }
                    continue
                }
                let redundant = Self.wasAlreadyApplied(entry, outcome)
                if outcome.success || redundant {
                    let current = try Row.fetchOne(db, sql: "SELECT * FROM outbox_entry WHERE seq = ?", arguments: [entry.id])
                        .map(Self.entry(from:))
                    if let current, current.instance != entry.instance, entry.kind != .delete, let created = outcome.instance {
                        // Edited while in flight: keep the newer edit, as an update based on the server's answer.
                        try Self.turnIntoUpdate(entry.id, edited: current.instance, created: created, in: db)
                    } else {
                        try db.execute(sql: "DELETE FROM outbox_entry WHERE seq = ?", arguments: [entry.id])
                    }
                    if entry.kind == .create, let localId = entry.instance.id, Self.isLocalId(localId) {
                        try OutboxShadow.reconcile(localId, in: db)  // the server's copy replaces the local one
                    }
                    if let instance = outcome.success ? outcome.instance : outcome.conflictingInstance {
                        report.sent.append(instance)
                        let stored = instance.storedForm()
                        if !stored.id.isEmpty {
                            try OutboxShadow.serverCopyArrived(stored, for: stored.id, in: db)
                            try OutboxShadow.reconcile(stored.id, in: db)
                        }
                    } else if redundant, let id = entry.instance.id {  // deleted already: gone from the server
                        try OutboxShadow.serverCopyArrived(nil, for: id, in: db)
                        try OutboxShadow.reconcile(id, in: db)
                    }
                } else if let server = outcome.conflictingInstance {
                    try db.execute(
                        sql: "UPDATE outbox_entry SET state = 'conflict', server_copy = ?, last_error = ? WHERE seq = ?",
                        arguments: [server.fullJSON.jsonString(sortedKeys: false), outcome.error?.message, entry.id])
                    var conflicted = entry
                    conflicted.state = .conflict(server: server)
                    report.conflicts.append(conflicted)
                    if let id = entry.instance.id {
                        blocked.insert(id)
                        let copy = server.storedForm()
                        if copy.id == id { try OutboxShadow.serverCopyArrived(copy, for: id, in: db) }
                    }
                } else {
                    let message = outcome.error?.message ?? "The server refused the edit."
                    try db.execute(
                        sql: "UPDATE outbox_entry SET state = 'failed', last_error = ? WHERE seq = ?",
                        arguments: [message, entry.id])
                    var failed = entry
                    failed.state = .failed(message: message)
                    report.failed.append(failed)
                    report.refusals[entry.id] = outcome.error?.haloError ?? .server(status: 400, message: message, extra: nil)
                    if let id = entry.instance.id {
                        blocked.insert(id)
                        try OutboxShadow.reconcile(id, in: db)  // a refused edit no longer hides the server's copy
                    }
                }
            }
        }
    }

    /// Whether a refusal only says the edit is already on the server — a resend after a lost
    /// answer, or the same change made elsewhere: an update "in conflict" with a copy whose content
    /// equals mine, or a deletion of an instance the server no longer has.
    private static func wasAlreadyApplied(_ entry: OutboxEntry, _ outcome: BatchOperationResult) -> Bool {
        guard !outcome.success else { return false }
        switch entry.kind {
        case .delete: return outcome.error?.status == 404
        case .update: return outcome.conflictingInstance.map { sameContent($0, entry.instance) } ?? false
        case .create: return false
        }
    }

    /// Same name, values, tags and publication dates (what an edit can change).
    static func sameContent(_ one: ContentInstance, _ other: ContentInstance) -> Bool {
        func tags(_ instance: ContentInstance) -> Set<String> { Set(instance.tagList.map { "\($0.name)=\($0.value ?? "")" }) }
        return one.name == other.name && one.values == other.values && tags(one) == tags(other)
            && one.publishedAt == other.publishedAt && one.removedAt == other.removedAt && one.archivedAt == other.archivedAt
    }

    /// A create or update the user edited again while it was being sent becomes an update of the
    /// server's resulting instance, based on the server's answer (so it cannot conflict with itself).
    private static func turnIntoUpdate(_ seq: Int64, edited: ContentInstance, created: ContentInstance, in db: Database) throws {
        var update = edited
        update.id = created.id
        update.updatedAt = created.updatedAt
        try db.execute(
            sql: "UPDATE outbox_entry SET kind = 'update', instance_id = ?, body = ?, base_updated_at = ? WHERE seq = ?",
            arguments: [
                created.id, update.fullJSON.jsonString(sortedKeys: false),
                created.updatedAt.map(HaloTimestamp.milliseconds(from:)), seq,
            ])
    }

    private func record(error: String, on run: [OutboxEntry]) throws {
        try cache.write { db in
            for entry in run {
                try db.execute(sql: "UPDATE outbox_entry SET last_error = ? WHERE seq = ?", arguments: [error, entry.id])
            }
        }
    }

    // MARK: Storage

    private func insert(_ kind: OutboxEntry.Kind, _ instance: ContentInstance) throws -> OutboxEntry {
        let now = Date()
        let body = instance.fullJSON.jsonString(sortedKeys: false)
        let seq = try cache.write { db -> Int64 in
            if let id = instance.id { try OutboxShadow.rememberServerCopy(of: id, in: db) }
            try db.execute(
                sql: """
                    INSERT INTO outbox_entry(kind, instance_id, module_id, body, base_updated_at, queued_at) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    kind.rawValue, instance.id, instance.moduleId, body,
                    instance.updatedAt.map(HaloTimestamp.milliseconds(from:)), HaloTimestamp.milliseconds(from: now),
                ])
            let seq = db.lastInsertedRowID
            if let id = instance.id { try OutboxShadow.reconcile(id, in: db) }
            return seq
        }
        return OutboxEntry(id: seq, kind: kind, instance: instance, queuedAt: now, state: .pending)
    }

    private func pendingCreate(localId: String) throws -> Int64? {
        try cache.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT seq FROM outbox_entry WHERE kind = 'create' AND instance_id = ? AND state = 'pending'",
                arguments: [localId])
        }
    }

    /// The newest entry of `id` when it is an update still waiting to be sent.
    private func pendingUpdate(of id: String) throws -> Int64? {
        try cache.read { db in
            guard
                let newest = try Row.fetchOne(
                    db, sql: "SELECT seq, kind, state FROM outbox_entry WHERE instance_id = ? ORDER BY seq DESC LIMIT 1",
                    arguments: [id]),
                newest["kind"] as String == OutboxEntry.Kind.update.rawValue, newest["state"] as String == "pending"
            else { return nil }
            return newest["seq"]
        }
    }

    /// Rewrites a create or an update not sent yet (and its local copy in the content tables).
    private func rewrite(_ seq: Int64, with instance: ContentInstance) throws {
        try cache.write { db in
            try db.execute(
                sql: "UPDATE outbox_entry SET body = ? WHERE seq = ?",
                arguments: [instance.fullJSON.jsonString(sortedKeys: false), seq])
            if let id = instance.id { try OutboxShadow.reconcile(id, in: db) }
        }
    }

    private func entry(id: Int64) throws -> OutboxEntry? {
        try cache.read { db in try Row.fetchOne(db, sql: "SELECT * FROM outbox_entry WHERE seq = ?", arguments: [id]).map(Self.entry(from:))
        }
    }

    private static func entry(from row: Row) throws -> OutboxEntry {
        let body: String = row["body"]
        let instance = try ContentInstance(wire: JSONValue(string: body))
        let state = try OutboxEntry.State(row: row) { try ContentInstance(wire: JSONValue(string: $0)) }
        let kind = OutboxEntry.Kind(rawValue: row["kind"]) ?? .update
        let queued: Int64 = row["queued_at"]
        return OutboxEntry(
            id: row["seq"], kind: kind, instance: instance, queuedAt: HaloTimestamp.date(fromMilliseconds: Double(queued)),
            state: state, lastError: row["last_error"])
    }
}

extension OutboxEntryState {
    /// Reads the `state`, `server_copy` and `last_error` columns of an outbox row; `server` reads
    /// the server's copy kept by a conflict.
    init(row: Row, server: (String) throws -> Server) throws {
        switch row["state"] as String {
        case "conflict": self = .conflict(server: try server(row["server_copy"] ?? "{}"))
        case "failed": self = .failed(message: row["last_error"] ?? "refused")
        default: self = .pending
        }
    }
}
