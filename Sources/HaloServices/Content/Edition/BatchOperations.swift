/// The kinds of operation a batch can carry (PROTOCOL §13).
public enum BatchOperationType: String, Hashable, Sendable, CaseIterable {
    case create, update, createOrUpdate, delete, truncate

    /// The request key of the iOS body (§13.1).
    public var requestKey: String {
        switch self {
        case .create: return "created"
        case .update: return "updated"
        case .createOrUpdate: return "createdOrUpdated"
        case .delete: return "deleted"
        case .truncate: return "truncated"
        }
    }
}

/// Several edits sent in one request (`POST /api/generalcontent/instance/batch`, §13.1).
///
/// ```swift
/// var operations = BatchOperations()
/// operations.create(newInstance)
/// operations.delete(instanceId: "5874c5f06a3a0d1e00c8039d")
/// operations.truncate(moduleId: "000000000000000000000003")
/// ```
/// Results refer to operations by type and position within that type's list, so the order of
/// calls per type is kept.
public struct BatchOperations: Hashable, Sendable, HaloWireEncodable {
    public private(set) var created: [ContentInstance] = []
    public private(set) var updated: [ContentInstance] = []
    public private(set) var createdOrUpdated: [ContentInstance] = []
    /// Ids of instances to delete.
    public private(set) var deleted: [String] = []
    /// Ids of modules whose instances are all deleted.
    public private(set) var truncated: [String] = []

    /// An empty batch.
    public init() {}

    /// Creates the instance (its id, if any, is ignored by the server).
    public mutating func create(_ instance: ContentInstance) { created.append(instance) }
    /// Updates the instance (it must have an id).
    public mutating func update(_ instance: ContentInstance) { updated.append(instance) }
    /// Creates the instance, or updates it when its id exists.
    public mutating func createOrUpdate(_ instance: ContentInstance) { createdOrUpdated.append(instance) }
    /// Deletes the instance with this id.
    public mutating func delete(instanceId: String) { deleted.append(instanceId) }
    /// Deletes an instance; one without an id cannot be deleted and is reported as invalid input.
    public mutating func delete(_ instance: ContentInstance) throws {
        guard let id = instance.id else {
            throw HaloError.invalidInput(message: "The instance \"\(instance.name)\" has no id, so it cannot be deleted.")
        }
        deleted.append(id)
    }
    /// Deletes every instance of the module.
    public mutating func truncate(moduleId: String) { truncated.append(moduleId) }

    /// Adds an instance operation by type (the iOS `addOperation` form). `truncate` uses the
    /// instance's module; `delete` its id.
    public mutating func addOperation(type: BatchOperationType, instance: ContentInstance) throws {
        switch type {
        case .create: create(instance)
        case .update: update(instance)
        case .createOrUpdate: createOrUpdate(instance)
        case .delete: try delete(instance)
        case .truncate: truncate(moduleId: instance.moduleId)
        }
    }

    /// The number of operations.
    public var count: Int { created.count + updated.count + createdOrUpdated.count + deleted.count + truncated.count }
    public var isEmpty: Bool { count == 0 }

    /// The §13.1 body with iOS keys; keys without operations are omitted.
    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        func put(_ type: BatchOperationType, _ items: [JSONValue]) {
            if !items.isEmpty { builder.set(type.requestKey, .array(items)) }
        }
        put(.create, created.map(\.wireJSON))
        put(.update, updated.map(\.wireJSON))
        put(.createOrUpdate, createdOrUpdated.map(\.wireJSON))
        put(.delete, deleted.map { ["id": .string($0)] })
        put(.truncate, truncated.map { ["module": .string($0)] })
        return builder.json
    }
}
