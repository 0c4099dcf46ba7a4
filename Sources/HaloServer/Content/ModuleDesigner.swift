import Foundation
import GRDB
import HaloContentStore

/// Module and field design (our extension, docs/protocol.md §23.10): create, rename and delete
/// modules; add, edit (rename, retype, new choices), remove and reorder fields. Runs inside the
/// caller's write transaction, so search, sync and field validation see a change at once and a
/// refused change leaves nothing behind.
///
/// A change that alters stored values (a field renamed, retyped or removed) rewrites the module's
/// live instances with new `updatedAt` stamps, so an incremental sync re-sends them as updates;
/// deleting a module soft-deletes its instances, so sync reports them as deletions. Live streams get
/// one `module-changed` or `module-deleted` event rather than one per instance.
struct ModuleDesigner {
    let clock: MonotonicClock
    let principal: Principal
    let db: any SQLExecutor

    /// Refused values shown as examples in a report.
    static let exampleLimit = 5

    // MARK: Modules

    func createModule(_ spec: ModuleSpec) throws -> String {
        let id = try ModuleCatalog.create(spec, createdBy: principal.displayName, now: clock.next(), in: db)
        try record(.moduleChanged, id)
        return id
    }

    /// Renames a module; its id stays, so clients syncing by id see no change.
    func renameModule(_ moduleId: String, to text: String) throws {
        _ = try liveModule(moduleId)
        let name = try ModuleCatalog.checkedName(text, except: moduleId, in: db)
        try touch(moduleId, renamingTo: name)
    }

    /// Deletes a module and (softly) its instances; returns how many instances went.
    func deleteModule(_ moduleId: String) throws -> Int {
        _ = try liveModule(moduleId)
        let stamp = clock.next()
        let count = try ContentTables.truncate(moduleId: moduleId, at: stamp, by: principal.displayName, in: db)
        try ModuleCatalog.markDeleted(moduleId, at: stamp, by: principal.displayName, in: db)
        try EventLog.recordContentChange(.moduleDeleted, module: moduleId, instance: nil, by: principal.displayName, at: stamp, in: db)
        return count
    }

    // MARK: Fields

    /// Adds a field at `position` (0-based; nil: last). Instances hold no value for it yet.
    func addField(_ field: ModuleField, to moduleId: String, at position: Int? = nil) throws -> FieldRecord {
        _ = try liveModule(moduleId)
        try FieldDesign.check(field)
        var records = try ModuleCatalog.fieldRecords(moduleId: moduleId, in: db)
        try checkFree(field.name, among: records)
        let now = clock.next()
        let record = FieldRecord(
            id: Identifiers.objectID(), moduleId: moduleId, position: 0, name: field.name, description: field.description,
            formatJson: field.format.jsonString(), fieldType: field.type.id, createdAt: now, updatedAt: now)
        records.insert(record, at: min(max(position ?? records.count, 0), records.count))
        try record.insert(db)
        try renumber(records)
        try touch(moduleId)
        return record
    }

    /// What changing field `fieldId` to `field` does to stored values. Nothing is written.
    func preview(_ fieldId: String, of moduleId: String, becoming field: ModuleField) throws -> FieldChangeReport {
        let (_, old) = try fieldRecord(fieldId, of: moduleId)
        return try report(moduleId, oldName: old.name) { FieldDesign.outcome(of: $0, in: field) }
    }

    /// Changes field `fieldId` to `field` (name, description, type, choices). Values the new
    /// definition refuses are cleared only with `clearRefused`; otherwise such a change is refused
    /// (409, with the report) and nothing changes.
    func editField(_ fieldId: String, of moduleId: String, becoming field: ModuleField, clearRefused: Bool) throws -> FieldChangeReport {
        let (record, old) = try fieldRecord(fieldId, of: moduleId)
        try FieldDesign.check(field)
        if field.name != old.name { try checkFree(field.name, among: try ModuleCatalog.fieldRecords(moduleId: moduleId, in: db)) }
        let valuesChange = field.type != old.type || field.choices != old.choices || field.isDateOnly != old.isDateOnly
        let report = try report(moduleId, oldName: old.name) { valuesChange ? FieldDesign.outcome(of: $0, in: field) : .kept }
        if report.refused > 0 && !clearRefused {
            throw APIError(
                .conflict,
                "\(report.refused) of \(report.holding) values of '\(old.name)' do not fit a \(field.type.name) field: export the module first if you need them, then clear them or cancel",
                extra: report.json)
        }
        var updated = record
        updated.name = field.name
        updated.description = field.description
        updated.fieldType = field.type.id
        updated.formatJson = field.format.jsonString()
        updated.updatedAt = clock.next()
        try updated.update(db)
        if field.name != old.name || valuesChange {
            try rewriteInstances(moduleId) { values in
                guard let value = values.removeValue(forKey: old.name) else { return }
                switch valuesChange ? FieldDesign.outcome(of: value, in: field) : .kept {
                case .kept: values[field.name] = value
                case .converted(let converted): values[field.name] = converted
                case .refused: break
                }
            }
        }
        try touch(moduleId)
        return report
    }

    /// How many values removing field `fieldId` takes away. Nothing is written.
    func previewRemoval(_ fieldId: String, of moduleId: String) throws -> FieldChangeReport {
        let (_, old) = try fieldRecord(fieldId, of: moduleId)
        return try report(moduleId, oldName: old.name) { _ in .refused }
    }

    /// Removes field `fieldId` and its values from every instance.
    func removeField(_ fieldId: String, of moduleId: String) throws -> FieldChangeReport {
        let (record, old) = try fieldRecord(fieldId, of: moduleId)
        let report = try report(moduleId, oldName: old.name) { _ in .refused }
        try record.delete(db)
        try renumber(try ModuleCatalog.fieldRecords(moduleId: moduleId, in: db))
        try rewriteInstances(moduleId) { values in values.removeValue(forKey: old.name) }
        try touch(moduleId)
        return report
    }

    /// Puts the fields in the order of `fieldIds`, which must name each of them once.
    func reorderFields(of moduleId: String, as fieldIds: [String]) throws {
        _ = try liveModule(moduleId)
        let records = try ModuleCatalog.fieldRecords(moduleId: moduleId, in: db)
        guard fieldIds.count == records.count, Set(fieldIds) == Set(records.map(\.id)) else {
            throw APIError.badRequest("'fieldIds' must list each of the module's \(records.count) field ids once")
        }
        let byId = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        try renumber(fieldIds.compactMap { byId[$0] })
        try touch(moduleId)
    }

    /// The stored definition of field `fieldId` (404 when the module or field is unknown).
    func storedField(_ fieldId: String, of moduleId: String) throws -> FieldRecord {
        try fieldRecord(fieldId, of: moduleId).0
    }

    // MARK: Helpers

    private func liveModule(_ moduleId: String) throws -> ModuleCatalog.Module {
        guard let module = try ModuleCatalog.module(id: moduleId, in: db) else { throw APIError.notFound("Module \(moduleId) not found") }
        return module
    }

    private func fieldRecord(_ fieldId: String, of moduleId: String) throws -> (FieldRecord, ModuleField) {
        _ = try liveModule(moduleId)
        guard let record = try FieldRecord.fetchOne(db, key: fieldId), record.moduleId == moduleId else {
            throw APIError.notFound("Field \(fieldId) of module \(moduleId) not found")
        }
        return (record, try ModuleField(record))
    }

    private func checkFree(_ name: String, among records: [FieldRecord]) throws {
        if records.contains(where: { $0.name == name }) { throw APIError.badRequest("The module already has a field named '\(name)'") }
    }

    private func renumber(_ records: [FieldRecord]) throws {
        for (position, record) in records.enumerated() where record.position != Int64(position) {
            try ModuleCatalog.setPosition(position, ofField: record.id, in: db)
        }
    }

    /// Marks the module changed (renamed, with `name`), with one live event.
    private func touch(_ moduleId: String, renamingTo name: String? = nil) throws {
        let stamp = clock.next()
        try ModuleCatalog.markChanged(moduleId, renamingTo: name, at: stamp, by: principal.displayName, in: db)
        try record(.moduleChanged, moduleId, at: stamp)
    }

    private func record(_ change: EventLog.Change, _ moduleId: String, at stamp: Int64? = nil) throws {
        try EventLog.recordContentChange(
            change, module: moduleId, instance: nil, by: principal.displayName, at: stamp ?? clock.current(), in: db)
    }

    /// Counts what `outcome` does to the values stored under `oldName` in the module's live instances.
    private func report(_ moduleId: String, oldName: String, _ outcome: (JSONValue) -> FieldDesign.Outcome) throws
        -> FieldChangeReport
    {
        var report = FieldChangeReport(field: oldName)
        try forEachLiveInstance(moduleId) { instance in
            report.instances += 1
            guard let value = instance.values[oldName], !value.isNull else { return }
            report.holding += 1
            switch outcome(value) {
            case .kept: report.kept += 1
            case .converted: report.converted += 1
            case .refused:
                report.refused += 1
                if report.examples.count < Self.exampleLimit {
                    report.examples.append(.init(instanceId: instance.id, instanceName: instance.name, value: value))
                }
            }
        }
        return report
    }

    /// Rewrites every live instance of the module through `change`, with a new `updatedAt` each.
    private func rewriteInstances(_ moduleId: String, _ change: (inout [String: JSONValue]) -> Void) throws {
        var changed: [WireInstance] = []
        try forEachLiveInstance(moduleId) { instance in
            var instance = instance
            change(&instance.values)
            instance.updatedAt = clock.next()
            instance.updatedBy = principal.displayName
            instance.revision = (instance.revision ?? 0) + 1
            changed.append(instance)
            if changed.count == 1_000 {
                try ContentTables.upsert(contentsOf: changed, in: db)
                changed.removeAll(keepingCapacity: true)
            }
        }
        try ContentTables.upsert(contentsOf: changed, in: db)
    }

    private func forEachLiveInstance(_ moduleId: String, _ body: (WireInstance) throws -> Void) throws {
        let ids = try ContentTables.liveInstanceIds(moduleId: moduleId, in: db)
        for chunk in stride(from: 0, to: ids.count, by: 1_000) {
            for instance in try ContentTables.instances(ids: Array(ids[chunk..<min(chunk + 1_000, ids.count)]), in: db) {
                try body(instance)
            }
        }
    }
}
