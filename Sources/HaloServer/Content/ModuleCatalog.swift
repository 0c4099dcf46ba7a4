import Foundation
import GRDB
import HaloContentStore

/// A field of a module: its name (the key in instance `values`), type and, for choice types, the
/// allowed choices.
public struct ModuleField: Sendable, Equatable {
    public var name: String
    public var type: FieldType
    public var description: String
    /// Allowed values of choice/dropdown fields (`format.values`); nil = unrestricted.
    public var choices: [String]?

    public init(_ name: String, _ type: FieldType, description: String = "", choices: [String]? = nil) {
        self.name = name
        self.type = type
        self.description = description
        self.choices = choices
    }

    /// The field's `format` object (§9.3).
    var format: JSONValue {
        if let choices {
            return ["values": .array(choices.map(JSONValue.string)), "default": choices.first.map(JSONValue.string) ?? nil]
        }
        if type == .localizedText { return ["default": "translation not set"] }
        return [:]
    }

    init(row: Row) throws {
        let typeId: String = row["field_type"]
        guard let type = FieldType(id: typeId) else { throw ContentStoreError.corruptData("unknown field type \(typeId)") }
        self.init(row["name"], type, description: row["description"])
        choices = try JSONValue(string: row["format_json"])["values"]?.arrayValue?.compactMap(\.stringValue)
    }
}

/// A module to create: name, single-item flag and fields in display order.
public struct ModuleSpec: Sendable {
    public var name: String
    public var isSingle: Bool
    public var fields: [ModuleField]

    public init(name: String, isSingle: Bool = false, fields: [ModuleField]) {
        self.name = name
        self.isSingle = isSingle
        self.fields = fields
    }
}

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
            try db.execute(
                sql: """
                    INSERT INTO server_field (id, module_id, position, name, description, format_json, field_type, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Identifiers.objectID(), id, position, field.name, field.description, field.format.jsonString(),
                    field.type.id, now,
                ])
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

    static func fields(moduleId: String, in db: Database) throws -> [ModuleField] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM server_field WHERE module_id = ? ORDER BY position", arguments: [moduleId]
        ).map(ModuleField.init(row:))
    }

    /// Names of the localized-text fields of every module (the search localizes them per §11.1).
    static func localizedFieldNames(in db: Database) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT module_id, name FROM server_field WHERE field_type = ?", arguments: [FieldType.localizedText.id])
        {
            result[row["module_id"], default: []].insert(row["name"])
        }
        return result
    }

    /// Module JSON as in the fixtures (§9.3), with `fields` when asked.
    static func json(_ module: Module, fields: [Row]?) throws -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(module.id), "name": .string(module.name), "customerId": 1, "isSingle": .bool(module.isSingle),
            "enabled": true, "internalId": .string(module.id), "externalId": nil, "tags": module.tags,
            "pushTemplates": [], "importers": [], "exporters": [],
            "createdAt": .number(Double(module.createdAt)), "updatedAt": .number(Double(module.updatedAt)),
            "deletedAt": nil, "createdBy": module.createdBy.map(JSONValue.string) ?? nil,
            "updatedBy": module.createdBy.map(JSONValue.string) ?? nil, "deletedBy": nil,
        ]
        if let fields {
            object["fields"] = .array(try fields.map { row in try fieldJSON(row) })
        }
        return .object(object)
    }

    static func fieldRows(moduleId: String, in db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: "SELECT * FROM server_field WHERE module_id = ? ORDER BY position", arguments: [moduleId])
    }

    private static func fieldJSON(_ row: Row) throws -> JSONValue {
        let field = try ModuleField(row: row)
        let createdAt = JSONValue.number(Double(row["created_at"] as Int64))
        return [
            "id": .string(row["id"]), "module": .string(row["module_id"]), "name": .string(field.name),
            "description": .string(field.description), "format": try JSONValue(string: row["format_json"]),
            "customerId": 1, "createdAt": createdAt, "updatedAt": createdAt, "deletedAt": nil,
            "fieldType": field.type.json,
        ]
    }

    private static func module(row: Row) throws -> Module {
        Module(
            id: row["id"], name: row["name"], isSingle: row["is_single"], tags: try JSONValue(string: row["tags_json"]),
            createdBy: row["created_by"], createdAt: row["created_at"], updatedAt: row["updated_at"])
    }
}
