/// The change set of one sync window (§14.2), all of it in memory. For large modules use
/// `ContentTables.forEachChange`, which delivers the same content in chunks.
public struct SyncChanges: Sendable, Hashable {
    /// Instances that appeared in the window (on a first sync: every current instance).
    public var created: [WireInstance]
    /// Instances the client already has that changed in the window.
    public var updated: [WireInstance]
    /// Ids of instances the client already has that were deleted in the window.
    public var deleted: [String]

    public init(created: [WireInstance] = [], updated: [WireInstance] = [], deleted: [String] = []) {
        self.created = created
        self.updated = updated
        self.deleted = deleted
    }
}

/// One chunk of a streamed change set. All `created` chunks come first, then `updated`, then
/// `deleted` — the order clients apply them in (§14.2).
public enum SyncChunk: Sendable, Hashable {
    case created([WireInstance])
    case updated([WireInstance])
    case deleted([String])
}

/// One chunk of a streamed change set as wire JSON (`ContentTables.forEachChangeAsWireJSON`):
/// `items` holds `count` instance objects separated by commas, ready to go between `[` and `]`.
public enum SyncTextChunk: Sendable, Hashable {
    case created(items: String, count: Int)
    case updated(items: String, count: Int)
    case deleted([String])
}
