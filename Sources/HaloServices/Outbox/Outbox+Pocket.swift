import Foundation
import GRDB
import HaloContentStore

/// Pocket saves made while the server could not be reached (PROTOCOL §23.9), kept in
/// `outbox_pocket` and sent by `flush()` after the instance edits.
///
/// - One entry per user: a second save joins the first (the lists either names, the later one
///   winning, and the later `data`, which a save replaces whole) and keeps the first's base and
///   revision, since the server has seen neither.
/// - The replay sends it with `If-Match` of that revision. When the pocket moved on meanwhile, it
///   becomes a conflict holding both pockets until the user keeps one: never a silent overwrite.
///   A base without revision (a copy kept by an earlier version, a server without revisions) is
///   compared with the server's pocket instead, and sent only if they are the same.
/// - Sent only for the user signed in: another user's save waits for their next sign-in.
extension Outbox {
    /// Queues `save` (a pocket as `AuthManager.savePocket` sends it) of `owner`'s pocket, made on
    /// `base` (read from the server or the offline copy: its revision is the replay's `If-Match`).
    /// A save of `owner` already waiting takes this one in. Fails with `invalidInput` when the
    /// save breaks a rule of the server's pocket limits (`AuthManager.pocketLimits`).
    @discardableResult
    public func enqueuePocket(_ save: Pocket, basedOn base: Pocket, owner: String) throws -> OutboxPocketEntry {
        let limits = Pocket.limits(of: core)
        try save.validate(limits, basedOn: base)
        let now = HaloTimestamp.milliseconds(from: Date())
        return try cache.write { db in
            if let waiting = try Self.pocketEntry(owner: owner, in: db) {
                let joined = waiting.save
                for (key, list) in save.referencesToSave { joined.setReferences(key: key, values: list) }
                joined.setData(save.data)
                try joined.validate(limits, basedOn: waiting.base)
                // A failed save is tried again with the new one; a conflict stays for the user to settle.
                try db.execute(
                    sql: """
                        UPDATE outbox_pocket SET body = ?, queued_at = ?, last_error = NULL,
                            state = CASE state WHEN 'failed' THEN 'pending' ELSE state END
                        WHERE owner = ?
                        """, arguments: [joined.wireJSON.jsonString(sortedKeys: true), now, owner])
            } else {
                try db.execute(
                    sql: "INSERT INTO outbox_pocket(owner, body, base_body, base_revision, queued_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        owner, save.wireJSON.jsonString(sortedKeys: true), base.wireJSON.jsonString(sortedKeys: true), base.revision, now,
                    ])
            }
            guard let entry = try Self.pocketEntry(owner: owner, in: db) else {
                throw HaloError.cache(message: "The pocket save of \(owner) was not kept.")
            }
            return entry
        }
    }

    /// Every waiting pocket save (in practice one: the outbox is per account), oldest first.
    public func pocketEntries() throws -> [OutboxPocketEntry] {
        try cache.read { db in try Row.fetchAll(db, sql: "SELECT * FROM outbox_pocket ORDER BY queued_at").map(Self.pocketEntry(from:)) }
    }

    /// `owner`'s waiting pocket save, in any state.
    public func pocketEntry(owner: String) throws -> OutboxPocketEntry? {
        try cache.read { db in try Self.pocketEntry(owner: owner, in: db) }
    }

    /// Settles a conflict: `.keepMine` makes my save wait again, based on the server's pocket (the
    /// next flush sends it over that); `.takeTheirs` drops my save and keeps the server's pocket
    /// as the offline copy.
    public func resolve(_ entry: OutboxPocketEntry, keeping resolution: ConflictResolution) throws {
        guard let stored = try pocketEntry(owner: entry.owner), let server = stored.server else {
            throw HaloError.invalidInput(message: "The pocket save of \(entry.owner) is not in conflict.")
        }
        switch resolution {
        case .keepMine:
            try cache.write { db in
                try db.execute(
                    sql: """
                        UPDATE outbox_pocket SET base_body = server_copy, base_revision = server_revision, state = 'pending',
                            server_copy = NULL, server_revision = NULL, last_error = NULL
                        WHERE owner = ?
                        """, arguments: [entry.owner])
            }
        case .takeTheirs:
            try cache.write { db in try db.execute(sql: "DELETE FROM outbox_pocket WHERE owner = ?", arguments: [entry.owner]) }
            try cache.storeResponse(
                Pocket.keptCopy(wire: server.wireJSON, revision: server.revision),
                forKey: Pocket.keptAnswerKey(owner: entry.owner, filter: nil))
        }
    }

    /// Drops a pocket save for good.
    public func discard(_ entry: OutboxPocketEntry) throws {
        try cache.write { db in try db.execute(sql: "DELETE FROM outbox_pocket WHERE owner = ?", arguments: [entry.owner]) }
    }

    /// Queues a refused pocket save again as it is; the next flush sends it.
    public func retry(_ entry: OutboxPocketEntry) throws {
        try cache.write { db in
            try db.execute(
                sql: "UPDATE outbox_pocket SET state = 'pending', last_error = NULL WHERE owner = ? AND state = 'failed'",
                arguments: [entry.owner])
            guard db.changesCount == 1 else { throw HaloError.invalidInput(message: "The pocket save of \(entry.owner) has not failed.") }
        }
    }

    // MARK: Sending

    /// Sends the signed-in user's waiting pocket save, recording the outcome in `report` (a
    /// network failure as its `networkError`: the save still waits).
    func sendPockets(_ report: inout OutboxFlushReport) async throws {
        guard let account = core.auth.currentUser?.account else { return }
        for entry in try pocketEntries() where entry.owner == account && entry.state == .pending {
            // Compared after the answer: a save that joined this one meanwhile must not be lost.
            let sentBody = try cache.read { db in
                try String.fetchOne(db, sql: "SELECT body FROM outbox_pocket WHERE owner = ?", arguments: [entry.owner])
            }
            let outcome: PocketReplay
            do {
                outcome = try await replay(entry)
            } catch {
                let message = error.description
                if case .network = error {
                    try await writing { db in
                        try db.execute(sql: "UPDATE outbox_pocket SET last_error = ? WHERE owner = ?", arguments: [message, entry.owner])
                    }
                    report.networkError = error
                    return
                }
                try await writing { db in
                    try db.execute(
                        sql: "UPDATE outbox_pocket SET state = 'failed', last_error = ? WHERE owner = ?", arguments: [message, entry.owner])
                }
                if let failed = try pocketEntry(owner: entry.owner) { report.failedPockets.append(failed) }
                continue
            }
            switch outcome {
            case .saved(let saved):
                try await writing { db in
                    // Saved again while this one was on its way: the newer save waits, based on the answer.
                    try db.execute(
                        sql: "UPDATE outbox_pocket SET base_body = ?, base_revision = ? WHERE owner = ? AND body != ?",
                        arguments: [saved.wireJSON.jsonString(sortedKeys: true), saved.revision, entry.owner, sentBody])
                    try db.execute(sql: "DELETE FROM outbox_pocket WHERE owner = ? AND body = ?", arguments: [entry.owner, sentBody])
                }
                report.sentPockets.append(entry)
            case .conflict(let theirs):
                try await writing { db in
                    try db.execute(
                        sql:
                            "UPDATE outbox_pocket SET state = 'conflict', server_copy = ?, server_revision = ?, last_error = NULL WHERE owner = ?",
                        arguments: [theirs.wireJSON.jsonString(sortedKeys: true), theirs.revision, entry.owner])
                }
                if let conflict = try pocketEntry(owner: entry.owner) { report.pocketConflicts.append(conflict) }
            }
        }
    }

    private enum PocketReplay {
        case saved(Pocket)
        /// The pocket the server holds, which moved on since the save's base.
        case conflict(Pocket)
    }

    private func replay(_ entry: OutboxPocketEntry) async throws(HaloError) -> PocketReplay {
        var revision = entry.baseRevision
        if revision == nil {
            // Nothing to match: the save goes only over the very pocket it was made on.
            let current = try await core.auth.getPocket(filterReferences: nil, offlinePolicy: OfflinePolicy.none)
            guard current.hasSameContent(as: entry.base) else { return .conflict(current) }
            revision = current.revision
        }
        do {
            return .saved(try await core.auth.savePocket(entry.save, ifRevision: revision, basedOn: entry.base))
        } catch {
            guard let theirs = error.conflictingPocket else { throw error }
            return .conflict(theirs)
        }
    }

    private func writing(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await BlockingWork.run(name: "halo-cache-write") { [cache] in try cache.write(body) }
    }

    private static func pocketEntry(owner: String, in db: Database) throws -> OutboxPocketEntry? {
        try Row.fetchOne(db, sql: "SELECT * FROM outbox_pocket WHERE owner = ?", arguments: [owner]).map(pocketEntry(from:))
    }

    private static func pocketEntry(from row: Row) throws -> OutboxPocketEntry {
        let queued: Int64 = row["queued_at"]
        return OutboxPocketEntry(
            owner: row["owner"], saveJSON: try JSONValue(string: row["body"]), baseJSON: try JSONValue(string: row["base_body"]),
            baseRevision: row["base_revision"], queuedAt: HaloTimestamp.date(fromMilliseconds: Double(queued)),
            state: try OutboxPocketEntry.State(row: row) { try JSONValue(string: $0) }, serverRevision: row["server_revision"],
            lastError: row["last_error"])
    }
}
