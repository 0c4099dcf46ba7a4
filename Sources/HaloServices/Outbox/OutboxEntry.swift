import Foundation

/// Where an outbox entry stands; `Server` is what a conflict keeps of the server's version.
public enum OutboxEntryState<Server: Sendable & Hashable>: Sendable, Hashable {
    /// Waiting to be sent.
    case pending
    /// The server's copy changed after the version this edit was based on. Both versions are
    /// kept; resolve with `Outbox.resolve(_:keeping:)`.
    case conflict(server: Server)
    /// The server refused the edit for another reason (validation, permissions, not found);
    /// it stays visible until discarded.
    case failed(message: String)
}

/// One edit waiting in the outbox (or stuck in it, see `state`).
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable { case create, update, delete }

    /// A conflict keeps the server's instance.
    public typealias State = OutboxEntryState<ContentInstance>

    /// Queue position: edits are sent in this order.
    public let id: Int64
    public let kind: Kind
    /// The instance as the user left it. A create not sent yet has a local id `local-…`.
    public var instance: ContentInstance
    public var queuedAt: Date
    public var state: State
    /// The last network error met while sending (the entry is still pending).
    public var lastError: String?

    /// Whether `instance.id` is a placeholder the server has not assigned yet.
    public var hasLocalId: Bool { instance.id.map(Outbox.isLocalId) ?? true }
}

/// What one `Outbox.flush()` did.
public struct OutboxFlushReport: Sendable, Equatable {
    /// Entries the server accepted (removed from the outbox), with the server's resulting instance.
    /// Also done, though refused, are edits the server already had — an update whose "conflicting"
    /// copy has the same content (listed with that copy), a deletion of an instance already gone
    /// (not listed) — typically resends after a lost answer.
    public var sent: [ContentInstance] = []
    /// Entries that became conflicts in this flush.
    public var conflicts: [OutboxEntry] = []
    /// Entries the server refused for another reason.
    public var failed: [OutboxEntry] = []
    /// The server's refusal of each entry in `failed`, by entry id (status and message).
    public var refusals: [Int64: HaloError] = [:]
    /// Set when the server could not be reached; everything not yet sent stays pending.
    public var networkError: HaloError?
    /// Pocket saves the server accepted, that became conflicts, or that it refused.
    public var sentPockets: [OutboxPocketEntry] = []
    public var pocketConflicts: [OutboxPocketEntry] = []
    public var failedPockets: [OutboxPocketEntry] = []
}

/// A pocket save waiting in the outbox (one per user: a later save joins it), or stuck in it.
/// The pocket is not content: it has no instance, so it is an entry of its own.
public struct OutboxPocketEntry: Sendable, Hashable, Identifiable {
    /// A conflict keeps the pocket the server holds now (its revision is `serverRevision`).
    public typealias State = OutboxEntryState<JSONValue>

    /// Whose pocket (`User.account`).
    public let owner: String
    public var id: String { owner }
    /// The save as `savePocket` sends it: all of `data`, the lists it changes (null: deleted).
    public let saveJSON: JSONValue
    /// The pocket the save was made on, and its revision: the `If-Match` of the replay.
    public let baseJSON: JSONValue
    public let baseRevision: String?
    public let queuedAt: Date
    public let state: State
    /// In a conflict, the revision of the server's pocket.
    public let serverRevision: String?
    /// The last network error met while sending (the entry is still pending).
    public let lastError: String?

    /// The save to send.
    public var save: Pocket { (try? Pocket(wire: saveJSON)) ?? Pocket() }
    /// The pocket the save was made on.
    public var base: Pocket { (try? Pocket(wire: baseJSON, revision: baseRevision)) ?? Pocket() }
    /// The pocket as the save leaves it, on the base it was made on.
    public var result: Pocket { base.applying(save) }
    /// In a conflict, the pocket the server holds now.
    public var server: Pocket? {
        guard case .conflict(let wire) = state else { return nil }
        return try? Pocket(wire: wire, revision: serverRevision)
    }
}

/// How to settle a conflict.
public enum ConflictResolution: Sendable, Hashable {
    /// Send my version again, now based on the server's current copy.
    case keepMine
    /// Drop my edit and keep the server's copy (it replaces the cached one).
    case takeTheirs
}
