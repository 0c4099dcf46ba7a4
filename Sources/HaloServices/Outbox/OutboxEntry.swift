import Foundation

/// One edit waiting in the outbox (or stuck in it, see `state`).
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable { case create, update, delete }

    public enum State: Sendable, Hashable {
        /// Waiting to be sent.
        case pending
        /// The server's copy changed after the version this edit was based on. Both versions are
        /// kept; resolve with `Outbox.resolve(_:keeping:)`.
        case conflict(server: ContentInstance)
        /// The server refused the edit for another reason (validation, permissions, not found);
        /// it stays visible until discarded.
        case failed(message: String)
    }

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
}

/// How to settle a conflict.
public enum ConflictResolution: Sendable, Hashable {
    /// Send my version again, now based on the server's current copy.
    case keepMine
    /// Drop my edit and keep the server's copy (it replaces the cached one).
    case takeTheirs
}
