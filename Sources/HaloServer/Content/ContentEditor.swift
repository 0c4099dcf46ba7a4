import Foundation
import GRDB
import HaloContentStore

/// Create, update, delete and truncate content (E15–E18). Used by the single-instance routes and
/// by batch, so both apply exactly the same rules. Runs inside the caller's write transaction;
/// every stamp comes from the `MonotonicClock` inside it (see `SyncRoutes` for why).
struct ContentEditor {
    let clock: MonotonicClock
    let principal: Principal
    let db: any SQLExecutor

    static let conflictMessage =
        "The specified instance was updated after your data retrieval. Please, resolve the conflict and try again."

    func create(_ input: InstanceInput, id: String? = nil) throws -> WireInstance {
        let moduleId = input.instance.module
        guard !moduleId.isEmpty else { throw APIError.badRequest("'module' (the module id) is required") }
        let fields = try fieldsOfModule(moduleId)
        let name = input.instance.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("'name' is required") }
        if let problem = FieldValidator.validate(input.instance.values, fields: fields) { throw problem.apiError }
        var instance = input.instance
        instance.id = id ?? Identifiers.objectID()
        instance.name = name
        instance.createdAt = clock.next()
        instance.createdBy = principal.displayName
        instance.updatedAt = nil
        instance.updatedBy = nil
        instance.deletedAt = nil
        instance.deletedBy = nil
        instance.customerId = 1
        instance.revision = 0
        try ContentTables.upsert(instance, in: db)
        try record(.created, instance)
        return instance
    }

    /// Replaces the instance's content. Dates absent from the body are cleared (clients send every
    /// set date); `values`, `tags` and `name` absent from the body are kept.
    func update(id: String, _ input: InstanceInput) throws -> WireInstance {
        let current = try liveInstance(id)
        let sent = input.instance
        if !sent.module.isEmpty && sent.module != current.module {
            throw APIError.badRequest("An instance cannot move to another module (\(current.module) → \(sent.module))")
        }
        if let theirs = sent.updatedAt, let ours = current.updatedAt, theirs < ours {
            let extra = (try? JSONValue(data: JSONResponse.encoder().encode(current))) ?? [:]
            throw APIError(.conflict, Self.conflictMessage, extra: extra)
        }
        var instance = current
        if input.present.contains("name") {
            let name = sent.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { throw APIError.badRequest("'name' must not be empty") }
            instance.name = name
        }
        if input.present.contains("values") {
            if let problem = FieldValidator.validate(sent.values, fields: try fieldsOfModule(current.module)) {
                throw problem.apiError
            }
            instance.values = sent.values
        }
        if input.present.contains("tags") { instance.tags = sent.tags }
        instance.publishedAt = sent.publishedAt
        instance.removedAt = sent.removedAt
        instance.archivedAt = sent.archivedAt
        instance.updatedAt = clock.next()
        instance.updatedBy = principal.displayName
        instance.revision = (current.revision ?? 0) + 1
        try ContentTables.upsert(instance, in: db)
        try record(.updated, instance, before: current)
        return instance
    }

    /// Updates when the id exists, creates (keeping a client-chosen id) otherwise.
    func createOrUpdate(_ input: InstanceInput) throws -> WireInstance {
        let id = input.instance.id
        if !id.isEmpty, try ContentTables.instance(id: id, in: db) != nil { return try update(id: id, input) }
        if !id.isEmpty { try Self.checkClientChosenId(id) }
        return try create(input, id: id.isEmpty ? nil : id)
    }

    /// An id a client picks for a new instance (§23.2): letters, digits, `-` and `_`, at most 64.
    static func checkClientChosenId(_ id: String) throws {
        guard id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw APIError.badRequest("'id' may only hold letters, digits, '-' and '_' (at most 64)") }
    }

    /// Soft delete: `deletedAt` is set so the next incremental sync reports the id.
    func delete(id: String) throws -> WireInstance {
        let current = try liveInstance(id)
        guard let deleted = try ContentTables.softDelete(id: id, at: clock.next(), by: principal.displayName, in: db)
        else { throw APIError.notFound("Instance \(id) not found") }
        try record(.deleted, deleted, before: current)
        return deleted
    }

    /// Soft-deletes every instance of a module; returns how many.
    func truncate(moduleId: String) throws -> Int {
        guard !moduleId.isEmpty else { throw APIError.badRequest("'module' (the module id) is required") }
        _ = try fieldsOfModule(moduleId)
        let stamp = clock.next()
        let count = try ContentTables.truncate(moduleId: moduleId, at: stamp, by: principal.displayName, in: db)
        try EventLog.recordContentChange(.moduleCleared, module: moduleId, instance: nil, by: principal.displayName, at: stamp, in: db)
        return count
    }

    /// The live event for a change to `instance` (same transaction, so it exists iff the change does).
    /// Only those who could read the instance, before or after, learn of it (`ContentReaders`).
    private func record(_ change: EventLog.Change, _ instance: WireInstance, before: WireInstance? = nil) throws {
        let stamp = instance.deletedAt ?? instance.updatedAt ?? instance.createdAt ?? clock.current()
        try EventLog.recordContentChange(
            change, module: instance.module, instance: instance.id, readers: EventLog.ContentReaders(before: before, after: instance),
            by: principal.displayName, at: stamp, in: db)
    }

    private func liveInstance(_ id: String) throws -> WireInstance {
        guard let instance = try ContentTables.instance(id: id, in: db), instance.deletedAt == nil else {
            throw APIError.notFound("Instance \(id) not found")
        }
        return instance
    }

    private func fieldsOfModule(_ moduleId: String) throws -> [ModuleField] {
        guard try ModuleCatalog.module(id: moduleId, in: db) != nil else {
            throw APIError.badRequest("Unknown module '\(moduleId)'")
        }
        return try ModuleCatalog.fields(moduleId: moduleId, in: db)
    }
}
