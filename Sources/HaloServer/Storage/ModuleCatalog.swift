import Foundation
import GRDB
import HaloContentStore

/// Modules and their fields (the `server_module` / `server_field` tables). Content instances
/// reference modules by id; the content store does not know about modules.
enum ModuleCatalog {
    struct Module: Sendable {
        var id: String
        var name: String
        var isSingle: Bool
        var tags: JSONValue
        var createdBy: String?
        var updatedBy: String?
        var createdAt: Int64
        var updatedAt: Int64
        var deletedAt: Int64?
    }

    @discardableResult
    static func create(_ spec: ModuleSpec, id: String? = nil, createdBy: String?, now: Int64, in db: any SQLExecutor) throws -> String {
        let name = try checkedName(spec.name, in: db)
        var names = Set<String>()
        for field in spec.fields {
            try FieldDesign.check(field)
            guard names.insert(field.name).inserted else { throw APIError.badRequest("Two fields are named '\(field.name)'") }
        }
        let id = id ?? Identifiers.objectID()
        try db.execute(
            """
            INSERT INTO server_module (id, name, is_single, tags_json, created_by, created_at, updated_at)
            VALUES (?, ?, ?, '[]', ?, ?, ?)
            """, id, name, spec.isSingle, createdBy, now, now)
        for (position, field) in spec.fields.enumerated() {
            try FieldRecord(
                id: Identifiers.objectID(), moduleId: id, position: Int64(position), name: field.name,
                description: field.description, formatJson: field.format.jsonString(), fieldType: field.type.id, createdAt: now
            ).insert(db)
        }
        return id
    }

    /// A module name as stored: trimmed, not empty, at most 200 characters, and not the name of
    /// another live module (`except`: the module being renamed).
    static func checkedName(_ text: String, except moduleId: String? = nil, in db: any SQLExecutor) throws -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("A module needs a name") }
        guard name.count <= 200 else { throw APIError.badRequest("A module name has at most 200 characters") }
        let taken = try db.fetchColumn(String.self, "SELECT id FROM server_module WHERE name = ? AND deleted_at IS NULL", name)
        if taken.contains(where: { $0 != moduleId }) { throw APIError.badRequest("A module named \(name) already exists") }
        return name
    }

    /// The live modules (deleted ones stay as tombstones for sync, §23.10).
    static func all(in db: any SQLExecutor) throws -> [Module] {
        try db.fetchAll("SELECT * FROM server_module WHERE deleted_at IS NULL ORDER BY updated_at DESC, id").map(module(row:))
    }

    /// The module with this id; a deleted one only with `includingDeleted` (sync reports its deletions).
    static func module(id: String, includingDeleted: Bool = false, in db: any SQLExecutor) throws -> Module? {
        try db.fetchOne("SELECT * FROM server_module WHERE id = ?\(includingDeleted ? "" : " AND deleted_at IS NULL")", id)
            .map(module(row:))
    }

    /// The ids of the modules with this name, deleted ones included (a client syncing by a deleted
    /// module's name receives its deletions).
    static func ids(named name: String, in db: any SQLExecutor) throws -> [String] {
        try db.fetchColumn(String.self, "SELECT id FROM server_module WHERE name = ? ORDER BY id", name)
    }

    /// Records a change to the module (and its new name), stamped `at`.
    static func markChanged(_ moduleId: String, renamingTo name: String?, at stamp: Int64, by editor: String, in db: any SQLExecutor) throws
    {
        try db.execute(
            "UPDATE server_module SET name = coalesce(?, name), updated_at = ?, updated_by = ? WHERE id = ?", name, stamp, editor, moduleId)
    }

    /// Makes the module a tombstone (its instances are soft-deleted by the caller).
    static func markDeleted(_ moduleId: String, at stamp: Int64, by editor: String, in db: any SQLExecutor) throws {
        try db.execute(
            "UPDATE server_module SET deleted_at = ?, deleted_by = ?, updated_at = ?, updated_by = ? WHERE id = ?", stamp, editor, stamp,
            editor, moduleId)
    }

    static func setPosition(_ position: Int, ofField fieldId: String, in db: any SQLExecutor) throws {
        try db.execute("UPDATE server_field SET position = ? WHERE id = ?", position, fieldId)
    }

    /// Tombstones for deleted modules, and who last changed a module or field.
    static let designMigration = StorageMigration(
        "server-v6-module-design",
        sqlite: { db in
            try db.alter(table: "server_module") { t in
                t.add(column: "updated_by", .text)
                t.add(column: "deleted_at", .integer)
                t.add(column: "deleted_by", .text)
            }
            try db.alter(table: "server_field") { t in t.add(column: "updated_at", .integer) }
        },
        postgres: StorageMigration.statements(
            "ALTER TABLE server_module ADD COLUMN updated_by \(PostgresTypes.text)",
            "ALTER TABLE server_module ADD COLUMN deleted_at \(PostgresTypes.integer)",
            "ALTER TABLE server_module ADD COLUMN deleted_by \(PostgresTypes.text)",
            "ALTER TABLE server_field ADD COLUMN updated_at \(PostgresTypes.integer)"))

    /// The fields of a module as stored, in display order.
    static func fieldRecords(moduleId: String, in db: any SQLExecutor) throws -> [FieldRecord] {
        try FieldRecord.fetchAll(db, sql: "SELECT * FROM server_field WHERE module_id = ? ORDER BY position", moduleId)
    }

    static func fields(moduleId: String, in db: any SQLExecutor) throws -> [ModuleField] {
        try fieldRecords(moduleId: moduleId, in: db).map(ModuleField.init)
    }

    /// Names of the localized-text fields of every module (the search localizes them per §11.1).
    static func localizedFieldNames(in db: any SQLExecutor) throws -> [String: Set<String>] {
        try fieldNames(ofTypes: [.localizedText], in: db)
    }

    /// The names of `localizedFieldNames` and of the relation fields of every module (what a
    /// search's `include: ["all"]` follows), in one query (on PostgreSQL a query is a round trip).
    static func localizedAndRelationFieldNames(in db: any SQLExecutor) throws -> (
        localized: [String: Set<String>], relations: [String: Set<String>]
    ) {
        let localized: [FieldType] = [.localizedText]
        let relations: [FieldType] = [.singleRelation, .multipleRelation]
        let byType = try fieldNamesByType(localized + relations, in: db)
        return (names(of: localized, in: byType), names(of: relations, in: byType))
    }

    /// Names of the fields of these types, by module id.
    private static func fieldNames(ofTypes types: [FieldType], in db: any SQLExecutor) throws -> [String: Set<String>] {
        names(of: types, in: try fieldNamesByType(types, in: db))
    }

    /// The names `fieldNamesByType` found for these types, merged by module id.
    private static func names(of types: [FieldType], in byType: [FieldType: [String: Set<String>]]) -> [String: Set<String>] {
        types.compactMap { byType[$0] }.reduce(into: [:]) { result, names in result.merge(names) { $0.union($1) } }
    }

    /// Names of the fields of these types, by type and module id.
    private static func fieldNamesByType(_ types: [FieldType], in db: any SQLExecutor) throws -> [FieldType: [String: Set<String>]] {
        var result: [FieldType: [String: Set<String>]] = [:]
        let marks = Array(repeating: "?", count: types.count).joined(separator: ", ")
        for row in try db.select(
            "SELECT field_type, module_id, name FROM server_field WHERE field_type IN (\(marks))", bindings: types.map(\.id.sqlValue))
        {
            guard let type = types.first(where: { $0.id.sqlValue == row.values[0] }) else { continue }
            result[type, default: [:]][try row.get("module_id", as: String.self), default: []].insert(try row.get("name"))
        }
        return result
    }

    private static func module(row: SQLRow) throws -> Module {
        Module(
            id: try row.get("id"), name: try row.get("name"), isSingle: try row.get("is_single"),
            tags: try JSONValue(string: try row.get("tags_json")), createdBy: try row.get("created_by"),
            updatedBy: try row.get("updated_by"), createdAt: try row.get("created_at"), updatedAt: try row.get("updated_at"),
            deletedAt: try row.get("deleted_at"))
    }
}

/// A row of `server_field`: one field of a module, its `format` (§9.3) as JSON text.
struct FieldRecord: ServerRecord {
    static let databaseTableName = "server_field"

    var id: String
    var moduleId: String
    var position: Int64
    var name: String
    var description: String
    var formatJson: String
    var fieldType: String
    var createdAt: Int64
    var updatedAt: Int64? = nil
}
