import Foundation

/// A content module: a typed collection of instances in the CMS (PROTOCOL §9.3).
public struct Module: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    public var id: String?
    public var name: String?
    public var customerId: Int?
    /// Single-item module; absent on the wire means `false`.
    public var isSingle: Bool
    /// Read by Android; absent in the fixtures.
    public var enabled: Bool?
    public var internalId: String?
    public var createdAt: Date?
    public var updatedAt: Date?
    public var deletedAt: Date?
    /// Editor display names; the fixtures contain the literal `"undefined"`, kept as sent.
    public var createdBy: String?
    public var updatedBy: String?
    public var deletedBy: String?
    /// The tags in wire order (several may share a name).
    public var tagList: [Tag]
    /// The field definitions; present only when the module was requested `withFields=true`.
    public var fields: [ModuleField]?

    /// The seed's `tags: [String: Tag]`, keyed by tag name.
    public var tags: [String: Tag] { Tag.byName(tagList) }

    public init(
        id: String? = nil, name: String? = nil, customerId: Int? = nil, isSingle: Bool = false,
        enabled: Bool? = nil, internalId: String? = nil, createdAt: Date? = nil, updatedAt: Date? = nil,
        deletedAt: Date? = nil, createdBy: String? = nil, updatedBy: String? = nil, deletedBy: String? = nil,
        tags: [Tag] = [], fields: [ModuleField]? = nil
    ) {
        self.id = id
        self.name = name
        self.customerId = customerId
        self.isSingle = isSingle
        self.enabled = enabled
        self.internalId = internalId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.createdBy = createdBy
        self.updatedBy = updatedBy
        self.deletedBy = deletedBy
        self.tagList = tags
        self.fields = fields
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "module")
        id = object.string("id")
        name = object.string("name")
        customerId = object.int("customerId")
        isSingle = object.bool("isSingle") ?? false
        enabled = object.bool("enabled")
        internalId = object.string("internalId")
        createdAt = object.date("createdAt")
        updatedAt = object.date("updatedAt")
        deletedAt = object.date("deletedAt")
        createdBy = object.string("createdBy")
        updatedBy = object.string("updatedBy")
        deletedBy = object.string("deletedBy")
        tagList = try object.list("tags", Tag.init(wire:))
        fields = object["fields"] == nil ? nil : try object.list("fields", ModuleField.init(wire:))
    }

    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("id", id)
        builder.set("name", name)
        builder.set("customerId", customerId)
        builder.set("isSingle", isSingle)
        builder.set("enabled", enabled)
        builder.set("internalId", internalId)
        builder.set("createdAt", createdAt)
        builder.set("updatedAt", updatedAt)
        builder.set("deletedAt", deletedAt)
        builder.set("createdBy", createdBy)
        builder.set("updatedBy", updatedBy)
        builder.set("deletedBy", deletedBy)
        builder.set("tags", .array(tagList.map(\.wireJSON)))
        if let fields { builder.set("fields", .array(fields.map(\.wireJSON))) }
        return builder.json
    }

    /// Reads a module list in either shape the server may send (§9.1): a plain array, or the
    /// paginated object `{pagination, items}`.
    public static func list(wire: JSONValue) throws -> [Module] {
        try PaginatedModules(wire: wire).modules
    }
}

/// One field definition of a module (PROTOCOL §9.3, with `withFields=true`).
public struct ModuleField: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    public var id: String?
    /// The id of the module the field belongs to.
    public var moduleId: String?
    public var name: String
    public var description: String?
    /// Type-specific options, e.g. `{"values":["1","2"],"default":"2"}`; `{}` or `""` when none.
    public var format: JSONValue?
    public var customerId: Int?
    public var fieldType: ModuleFieldType?
    public var createdAt: Date?
    public var updatedAt: Date?
    public var deletedAt: Date?

    /// A choice field's allowed values (`format.values`), nil when the field lists none.
    public var choices: [String]? { format?["values"]?.arrayValue?.compactMap(\.stringValue) }
    /// A Date field that holds days (`format.precision` "day", our extension).
    public var isDateOnly: Bool { format?["precision"]?.stringValue == "day" }

    public init(
        id: String? = nil, moduleId: String? = nil, name: String, description: String? = nil,
        format: JSONValue? = nil, customerId: Int? = nil, fieldType: ModuleFieldType? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil, deletedAt: Date? = nil
    ) {
        self.id = id
        self.moduleId = moduleId
        self.name = name
        self.description = description
        self.format = format
        self.customerId = customerId
        self.fieldType = fieldType
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "module field")
        id = object.string("id")
        moduleId = object.string("module")
        name = try object.requiredString("name")
        description = object.string("description")
        format = object["format"]
        customerId = object.int("customerId")
        fieldType = try object["fieldType"].map(ModuleFieldType.init(wire:))
        createdAt = object.date("createdAt")
        updatedAt = object.date("updatedAt")
        deletedAt = object.date("deletedAt")
    }

    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("id", id)
        builder.set("module", moduleId)
        builder.set("name", name)
        builder.set("description", description)
        if let format { builder.set("format", format) }
        builder.set("customerId", customerId)
        if let fieldType { builder.set("fieldType", fieldType.wireJSON) }
        builder.set("createdAt", createdAt)
        builder.set("updatedAt", updatedAt)
        builder.set("deletedAt", deletedAt)
        return builder.json
    }
}

/// The type of a module field and its validation rules (PROTOCOL §9.3 built-in types table).
public struct ModuleFieldType: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    public var id: String?
    /// `Text`, `Number`, `Date`, `Localized text`, … (see §9.3).
    public var name: String
    public var rules: [ModuleFieldRule]
    /// Whether the value may be long (shown in a multi-line editor).
    public var isLongValue: Bool
    /// The built-in type this is, by id or else by name; nil for a type HALO does not define.
    public var type: FieldType? { id.flatMap(FieldType.init(id:)) ?? FieldType(name: name) }
    public var createdAt: Date?
    public var updatedAt: Date?
    public var deletedAt: Date?

    public init(
        id: String? = nil, name: String, rules: [ModuleFieldRule] = [], isLongValue: Bool = false,
        createdAt: Date? = nil, updatedAt: Date? = nil, deletedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.rules = rules
        self.isLongValue = isLongValue
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "field type")
        id = object.string("id")
        name = try object.requiredString("name")
        rules = try object.list("rules", ModuleFieldRule.init(wire:))
        isLongValue = object.bool("isLongValue") ?? false
        createdAt = object.date("createdAt")
        updatedAt = object.date("updatedAt")
        deletedAt = object.date("deletedAt")
    }

    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("id", id)
        builder.set("name", name)
        builder.set("rules", .array(rules.map(\.wireJSON)))
        builder.set("isLongValue", isLongValue)
        builder.set("createdAt", createdAt)
        builder.set("updatedAt", updatedAt)
        builder.set("deletedAt", deletedAt)
        return builder.json
    }
}

/// A validation rule of a field type, e.g. `custom||isString` with error key `validator.8`.
public struct ModuleFieldRule: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    public var rule: String
    /// Rule parameters as sent (numbers kept as numbers, unlike iOS which dropped them).
    public var params: [JSONValue]
    public var error: String?

    public init(rule: String, params: [JSONValue] = [], error: String? = nil) {
        self.rule = rule
        self.params = params
        self.error = error
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "field rule")
        rule = try object.requiredString("rule")
        params = object.array("params") ?? []
        error = object.string("error")
    }

    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("rule", rule)
        builder.set("params", .array(params))
        builder.set("error", error)
        return builder.json
    }
}
