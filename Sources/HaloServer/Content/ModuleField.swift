import Foundation
import HaloContentStore

/// A field of a module: its name (the key in instance `values`), type and, for choice types, the
/// allowed choices.
public struct ModuleField: Sendable, Equatable {
    public var name: String
    public var type: FieldType
    public var description: String
    /// Allowed values of choice/dropdown fields (`format.values`); nil = unrestricted.
    public var choices: [String]?
    /// A Date field that holds days, not instants (`format.precision` "day", our extension):
    /// its values are 00:00 UTC of a day (docs/protocol.md, "Dates and times").
    public var isDateOnly: Bool

    public init(_ name: String, _ type: FieldType, description: String = "", choices: [String]? = nil, isDateOnly: Bool = false) {
        self.name = name
        self.type = type
        self.description = description
        self.choices = choices
        self.isDateOnly = isDateOnly && type == .date
    }

    /// The field's `format` object (§9.3).
    var format: JSONValue {
        if let choices {
            return ["values": .array(choices.map(JSONValue.string)), "default": choices.first.map(JSONValue.string) ?? nil]
        }
        if type == .localizedText { return ["default": "translation not set"] }
        if isDateOnly { return ["precision": "day"] }
        return [:]
    }

    init(_ record: FieldRecord) throws {
        guard let type = FieldType(id: record.fieldType) else {
            throw ContentStoreError.corruptData("unknown field type \(record.fieldType)")
        }
        self.init(record.name, type, description: record.description)
        let format = try JSONValue(string: record.formatJson)
        choices = format["values"]?.arrayValue?.compactMap(\.stringValue)
        isDateOnly = type == .date && format["precision"]?.stringValue == "day"
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

/// The wire shape of modules and fields (§9.3).
extension ModuleCatalog {
    /// Module JSON as in the fixtures (§9.3), with `fields` when asked.
    static func json(_ module: Module, fields: [FieldRecord]?) throws -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(module.id), "name": .string(module.name), "customerId": 1, "isSingle": .bool(module.isSingle),
            "enabled": true, "internalId": .string(module.id), "externalId": nil, "tags": module.tags,
            "pushTemplates": [], "importers": [], "exporters": [],
            "createdAt": .number(Double(module.createdAt)), "updatedAt": .number(Double(module.updatedAt)),
            "deletedAt": nil, "createdBy": module.createdBy.map(JSONValue.string) ?? nil,
            "updatedBy": (module.updatedBy ?? module.createdBy).map(JSONValue.string) ?? nil, "deletedBy": nil,
        ]
        if let fields {
            object["fields"] = .array(try fields.map(fieldJSON))
        }
        return .object(object)
    }

    private static func fieldJSON(_ record: FieldRecord) throws -> JSONValue {
        let field = try ModuleField(record)
        let createdAt = JSONValue.number(Double(record.createdAt))
        let updatedAt = JSONValue.number(Double(record.updatedAt ?? record.createdAt))
        return [
            "id": .string(record.id), "module": .string(record.moduleId), "name": .string(field.name),
            "description": .string(field.description), "format": try JSONValue(string: record.formatJson),
            "customerId": 1, "createdAt": createdAt, "updatedAt": updatedAt, "deletedAt": nil,
            "fieldType": field.type.json,
        ]
    }
}
