import Foundation

/// The answer of a sync request (PROTOCOL §14.2), with the query it answered.
public struct SyncResult: Hashable, Sendable, HaloWireDecodable {
    /// The point in time the result is consistent with: the next sync's `fromSync`.
    public var syncDate: Date
    public var created: [ContentInstance]
    public var updated: [ContentInstance]
    /// Ids of instances deleted (or withdrawn) in the window.
    public var deleted: [String]
    /// The module id of the query, when it was built from an id.
    public var moduleId: String?
    /// The module name of the query, when it was built from a name.
    public var moduleName: String?
    public var locale: HaloLocale?

    public init(
        syncDate: Date, created: [ContentInstance] = [], updated: [ContentInstance] = [], deleted: [String] = [],
        moduleId: String? = nil, moduleName: String? = nil, locale: HaloLocale? = nil
    ) {
        self.syncDate = syncDate
        self.created = created
        self.updated = updated
        self.deleted = deleted
        self.moduleId = moduleId
        self.moduleName = moduleName
        self.locale = locale
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "sync result")
        guard let timestamp = object.date("syncTimestamp") else {
            throw HaloError.invalidResponse(status: nil, message: "The sync result has no numeric \"syncTimestamp\".")
        }
        syncDate = timestamp
        created = try object.list("created", ContentInstance.init(wire:))
        updated = try object.list("updated", ContentInstance.init(wire:))
        deleted = try object.list("deleted") { item in
            try WireObject(item, what: "deleted sync item").requiredString("id")
        }
    }

    /// The result read from wire JSON and tagged with the query that asked for it.
    public init(wire: JSONValue, query: SyncQuery) throws {
        try self.init(wire: wire)
        moduleId = query.moduleId
        moduleName = query.moduleName
        locale = query.locale
    }

    /// `syncTimestamp` as whole epoch milliseconds.
    public var syncTimestamp: Int64 { HaloTimestamp.milliseconds(from: syncDate) }

    /// The instance set after applying this result to `instances`: created, then updated (both
    /// upsert by id), then deleted — the order both SDKs used, so an id in both `created` and
    /// `updated` ends as the update (§14.2). Order: existing ids keep their place, new ones append.
    public func applied(to instances: [ContentInstance]) -> [ContentInstance] {
        var order: [String] = []
        var byId: [String: ContentInstance] = [:]
        for instance in instances + created + updated {
            guard let id = instance.id else { continue }
            if byId[id] == nil { order.append(id) }
            byId[id] = instance
        }
        let removed = Set(deleted)
        return order.filter { !removed.contains($0) }.compactMap { byId[$0] }
    }

    /// The result of two chained requests (first sync + immediate incremental one, §14.3) as one:
    /// lists concatenated, the later timestamp kept (Android's merge).
    public func merged(with next: SyncResult) -> SyncResult {
        var result = self
        result.created += next.created
        result.updated += next.updated
        result.deleted += next.deleted
        result.syncDate = max(syncDate, next.syncDate)
        return result
    }
}

/// A summary of one applied sync, as the SDK's sync log keeps it (§14.4).
public struct SyncLogEntry: Hashable, Sendable, Codable {
    public var moduleId: String?
    public var moduleName: String?
    public var syncDate: Date
    public var locale: HaloLocale?
    public var creations: Int
    public var updates: Int
    public var deletions: Int

    public init(
        moduleId: String?, moduleName: String?, syncDate: Date, locale: HaloLocale?, creations: Int, updates: Int,
        deletions: Int
    ) {
        self.moduleId = moduleId
        self.moduleName = moduleName
        self.syncDate = syncDate
        self.locale = locale
        self.creations = creations
        self.updates = updates
        self.deletions = deletions
    }

    /// The log entry of a result: its counts, date, module and locale.
    public init(result: SyncResult) {
        self.init(
            moduleId: result.moduleId, moduleName: result.moduleName, syncDate: result.syncDate, locale: result.locale,
            creations: result.created.count, updates: result.updated.count, deletions: result.deleted.count)
    }
}
