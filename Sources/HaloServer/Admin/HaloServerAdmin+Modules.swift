import Foundation
import GRDB
import HaloContentStore

/// A module as `halo-server module list` shows it.
public struct ModuleDescription: Sendable {
    public var id: String
    public var name: String
    public var isSingle: Bool
    /// In display order, with their ids.
    public var fields: [(id: String, field: ModuleField)]
    /// Live instances.
    public var instances: Int
}

/// A refused design change, said as the API says it (without the HTTP status).
public struct ModuleDesignError: Error, CustomStringConvertible {
    public var description: String
}

/// Module design for scripts and set-up (`halo-server module …`): the same `ModuleDesigner`, and
/// so the same rules, as the API (docs/protocol.md §23.10), acting as "Admin".
extension HaloServerAdmin {
    public func modules() async throws -> [ModuleDescription] {
        try await environment.storage.read { db in
            let counts = try ContentTables.moduleCounts(in: db)
            return try ModuleCatalog.all(in: db).sorted { $0.name < $1.name }.map { module in
                ModuleDescription(
                    id: module.id, name: module.name, isSingle: module.isSingle,
                    fields: try ModuleCatalog.fieldRecords(moduleId: module.id, in: db).map { ($0.id, try ModuleField($0)) },
                    instances: counts[module.id] ?? 0)
            }
        }
    }

    /// The live module with this id or name.
    public func module(_ idOrName: String) async throws -> ModuleDescription {
        let all = try await modules()
        guard let module = all.first(where: { $0.id == idOrName }) ?? all.first(where: { $0.name == idOrName }) else {
            throw ModuleDesignError(description: "No module named or with the id '\(idOrName)'")
        }
        return module
    }

    public func renameModule(_ moduleId: String, to name: String) async throws {
        try await design { try $0.renameModule(moduleId, to: name) }
    }

    /// Deletes the module and its instances (as soft deletes that sync reports); returns how many instances went.
    public func deleteModule(_ moduleId: String) async throws -> Int {
        try await design { try $0.deleteModule(moduleId) }
    }

    public func addField(_ field: ModuleField, toModule moduleId: String, at position: Int? = nil) async throws {
        try await design { _ = try $0.addField(field, to: moduleId, at: position) }
    }

    /// Changes a field as the API's field edit does: `change` holds `name`, `fieldType`, `choices`,
    /// `description` or `dateOnly`. A dry run reports and changes nothing; otherwise values the new
    /// definition refuses are cleared with `clearRefused`, else the change is refused.
    public func changeField(
        _ fieldId: String, ofModule moduleId: String, _ change: [String: JSONValue], dryRun: Bool, clearRefused: Bool = false
    ) async throws -> FieldChangeReport {
        try await design { designer in
            let field = try FieldDesign.field(from: change, base: try ModuleField(try designer.storedField(fieldId, of: moduleId)))
            if dryRun { return try designer.preview(fieldId, of: moduleId, becoming: field) }
            return try designer.editField(fieldId, of: moduleId, becoming: field, clearRefused: clearRefused)
        }
    }

    public func removeField(_ fieldId: String, ofModule moduleId: String, dryRun: Bool) async throws -> FieldChangeReport {
        try await design { try dryRun ? $0.previewRemoval(fieldId, of: moduleId) : $0.removeField(fieldId, of: moduleId) }
    }

    public func reorderFields(ofModule moduleId: String, as fieldIds: [String]) async throws {
        try await design { try $0.reorderFields(of: moduleId, as: fieldIds) }
    }

    private func design<T: Sendable>(_ change: @escaping @Sendable (ModuleDesigner) throws -> T) async throws -> T {
        let clock = environment.clock
        do {
            return try await environment.storage.write { db in
                try change(ModuleDesigner(clock: clock, principal: .admin, db: db))
            }
        } catch let error as APIError {
            throw ModuleDesignError(description: error.message)
        }
    }
}

extension Principal {
    /// Who `halo-server` commands act as.
    static let admin = Principal(clientId: nil, userId: nil, canEdit: true, displayName: "Admin")
}
