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
        var createdAt: Int64
        var updatedAt: Int64
    }

    @discardableResult
    static func create(_ spec: ModuleSpec, id: String? = nil, createdBy: String?, now: Int64, in db: Database) throws -> String {
        let name = spec.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw APIError.badRequest("A module needs a name") }
        if try !ids(named: name, in: db).isEmpty { throw APIError.badRequest("A module named \(name) already exists") }
        let id = id ?? Identifiers.objectID()
        try db.execute(
            sql: """
                INSERT INTO server_module (id, name, is_single, tags_json, created_by, created_at, updated_at)
                VALUES (?, ?, ?, '[]', ?, ?, ?)
                """,
            arguments: [id, name, spec.isSingle, createdBy, now, now])
        for (position, field) in spec.fields.enumerated() {
            try FieldRecord(
                id: Identifiers.objectID(), moduleId: id, position: Int64(position), name: field.name,
                description: field.description, formatJson: field.format.jsonString(), fieldType: field.type.id, createdAt: now
            ).insert(db)
        }
        return id
    }

    static func all(in db: Database) throws -> [Module] {
        try Row.fetchAll(db, sql: "SELECT * FROM server_module ORDER BY updated_at DESC, id").map(module(row:))
    }

    static func module(id: String, in db: Database) throws -> Module? {
        try Row.fetchOne(db, sql: "SELECT * FROM server_module WHERE id = ?", arguments: [id]).map(module(row:))
    }

    static func ids(named name: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM server_module WHERE name = ? ORDER BY id", arguments: [name])
    }

    /// The fields of a module as stored, in display order.
    static func fieldRecords(moduleId: String, in db: Database) throws -> [FieldRecord] {
        try FieldRecord.fetchAll(
            db, sql: "SELECT * FROM server_field WHERE module_id = ? ORDER BY position", arguments: [moduleId])
    }

    static func fields(moduleId: String, in db: Database) throws -> [ModuleField] {
        try fieldRecords(moduleId: moduleId, in: db).map(ModuleField.init)
    }

    /// Names of the localized-text fields of every module (the search localizes them per §11.1).
    static func localizedFieldNames(in db: Database) throws -> [String: Set<String>] {
        try fieldNames(ofTypes: [.localizedText], in: db)
    }

    /// Names of the relation fields of every module (what a search's `include: ["all"]` follows).
    static func relationFieldNames(in db: Database) throws -> [String: Set<String>] {
        try fieldNames(ofTypes: [.singleRelation, .multipleRelation], in: db)
    }

    /// Names of the fields of these types, by module id.
    private static func fieldNames(ofTypes types: [FieldType], in db: Database) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT module_id, name FROM server_field WHERE field_type IN (SELECT value FROM json_each(?))",
            arguments: [JSONValue.array(types.map { .string($0.id) }).jsonString()])
        {
            result[row["module_id"], default: []].insert(row["name"])
        }
        return result
    }

    private static func module(row: Row) throws -> Module {
        Module(
            id: row["id"], name: row["name"], isSingle: row["is_single"], tags: try JSONValue(string: row["tags_json"]),
            createdBy: row["created_by"], createdAt: row["created_at"], updatedAt: row["updated_at"])
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
}
