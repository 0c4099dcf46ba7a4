import Foundation
import GRDB
import HaloContentStore

/// Keeps the cache's content tables showing the user's waiting edits on top of the server's truth.
///
/// While an edit of an instance waits (pending, or in conflict: both are the user's unsettled
/// intent), offline reads — search, synced instances, instance by id — see the user's version; a
/// waiting deletion hides the instance. The server's copy it covers is kept aside in
/// `outbox_base` (body NULL when the cache did not hold the instance), so that when the edit
/// is sent, refused or discarded the content tables go back to the server's truth.
///
/// Every function runs inside the caller's write transaction over the cache and its attached
/// pending-edits file; a crash between the two files' commits is mended at the next open
/// (`reapplyWaitingEdits`).
enum OutboxShadow {
    /// Before the first edit of `id` is laid over it: remember what the cache holds (once; later
    /// edits of the same instance cover the same server copy).
    static func rememberServerCopy(of id: String, in db: Database) throws {
        let held = try ContentTables.instance(id: id, in: db)
        try db.execute(
            sql: "INSERT OR IGNORE INTO outbox_base(instance_id, body) VALUES (?, ?)",
            arguments: [id, try held.map(encode)])
    }

    /// The server's current copy became known (a conflict, a sent edit's answer, a sync): it is
    /// what the cache goes back to once no edit covers it. `nil`: the server no longer has it.
    static func serverCopyArrived(_ copy: WireInstance?, for id: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO outbox_base(instance_id, body) VALUES (?, ?)",
            arguments: [id, try copy.map(encode)])
    }

    /// Makes the content tables show the newest waiting edit of `id`, or else the server's copy;
    /// forgets the server's copy once no entry of `id` is left in the outbox at all.
    static func reconcile(_ id: String, in db: Database) throws {
        let newest = try Row.fetchOne(
            db,
            sql: """
                SELECT kind, body FROM outbox_entry WHERE instance_id = ? AND state IN ('pending', 'conflict')
                ORDER BY seq DESC LIMIT 1
                """, arguments: [id])
        if let newest {
            if newest["kind"] as String == OutboxEntry.Kind.delete.rawValue {
                try ContentTables.hardDelete(ids: [id], in: db)
            } else {
                let body: String = newest["body"]
                try ContentTables.upsert(ContentInstance(wire: JSONValue(string: body)).storedForm(), in: db)
            }
            return
        }
        guard let base = try Row.fetchOne(db, sql: "SELECT body FROM outbox_base WHERE instance_id = ?", arguments: [id]) else {
            return  // no edit ever covered it: the content tables already hold the server's truth
        }
        if let body = base["body"] as String? {
            try ContentTables.upsert(decode(body), in: db)
        } else {
            try ContentTables.hardDelete(ids: [id], in: db)
        }
        let stillQueued =
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM outbox_entry WHERE instance_id = ?)", arguments: [id]) ?? false
        if !stillQueued {  // a failed entry keeps the copy, for when it is retried and discarded
            try db.execute(sql: "DELETE FROM outbox_base WHERE instance_id = ?", arguments: [id])
        }
    }

    /// Lays every waiting edit over the content tables again: run at open, for a cache rebuilt
    /// empty beside its pending edits, or after a crash between the cache's commit and the
    /// pending-edits file's (two files do not commit atomically together).
    static func reapplyWaitingEdits(_ ids: [String], in db: Database) throws {
        for id in ids { try reconcile(id, in: db) }
    }

    /// The instances a waiting edit (pending or in conflict) covers.
    static func waitingInstanceIds(in db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: "SELECT DISTINCT instance_id FROM outbox_entry WHERE instance_id IS NOT NULL AND state IN ('pending', 'conflict')")
    }

    /// A sync just wrote these server copies into the content tables: for instances covered by a
    /// waiting edit they become the remembered server copy, and the edit is laid over them again.
    static func syncApplied(upserts: [WireInstance], deletions: [String], in db: Database) throws {
        let covered = Set(try String.fetchAll(db, sql: "SELECT instance_id FROM outbox_base"))
        guard !covered.isEmpty else { return }
        for instance in upserts where covered.contains(instance.id) {
            try serverCopyArrived(instance, for: instance.id, in: db)
            try reconcile(instance.id, in: db)
        }
        for id in deletions where covered.contains(id) {
            try serverCopyArrived(nil, for: id, in: db)
            try reconcile(id, in: db)
        }
    }

    private static func encode(_ instance: WireInstance) throws -> String {
        String(decoding: try JSONEncoder().encode(instance), as: UTF8.self)
    }

    private static func decode(_ body: String) throws -> WireInstance {
        try JSONDecoder().decode(WireInstance.self, from: Data(body.utf8))
    }
}
