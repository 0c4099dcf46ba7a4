import Foundation

/// A field to create or the new definition of one (module design, docs/protocol.md §23.10).
public struct FieldDefinition: Sendable, Equatable {
    public var name: String
    public var type: FieldType
    public var description: String
    /// The allowed values of a choice field, in order.
    public var choices: [String]?
    /// A Date field that holds days (00:00 UTC), not instants.
    public var dateOnly: Bool

    public init(_ name: String, _ type: FieldType, description: String = "", choices: [String]? = nil, dateOnly: Bool = false) {
        self.name = name
        self.type = type
        self.description = description
        self.choices = choices
        self.dateOnly = dateOnly
    }

    /// The definition of a field as its module declares it (an unknown type reads as Text).
    public init(_ field: ModuleField) {
        self.init(
            field.name, field.fieldType?.type ?? .text, description: field.description ?? "", choices: field.choices,
            dateOnly: field.isDateOnly)
    }

    var wireObject: [String: JSONValue] {
        var object: [String: JSONValue] = [
            "name": .string(name), "fieldType": .string(type.name), "description": .string(description), "dateOnly": .bool(dateOnly),
        ]
        if let choices { object["choices"] = .array(choices.map(JSONValue.string)) }
        return object
    }
}

/// What to do with values a field change refuses.
public enum RefusedValues: String, Sendable {
    /// Refuse the change while any value would be lost (the server answers 409 with the report).
    case cancel
    /// Clear them (export the module first if they matter).
    case clear
}

/// Module design (our extension, §23.10), for editor tokens. Each call answers the module as
/// the server now has it (with its fields); the offline cache's copy of the module list is left
/// to the next `getModules`.
extension ContentManager {
    public func createModule(name: String, isSingle: Bool = false, fields: [FieldDefinition] = []) async throws(HaloError) -> Module {
        try await design(
            .post, "api/generalcontent/module",
            ["name": .string(name), "isSingle": .bool(isSingle), "fields": .array(fields.map { .object($0.wireObject) })]
        ).module
    }

    /// Renames a module; its id stays.
    public func renameModule(id: String, to name: String) async throws(HaloError) -> Module {
        try await design(.put, "api/generalcontent/module/\(id)", ["name": .string(name)]).module
    }

    /// Deletes a module and its instances (sync reports them as deletions); returns how many went.
    public func deleteModule(id: String) async throws(HaloError) -> Int {
        let answer = try await core().performJSON(APIRequest(.delete, "api/generalcontent/module/\(id)"))
        return answer["deletedInstances"]?.int64Value.map { Int($0) } ?? 0
    }

    /// Adds a field at `position` (0-based; nil: last).
    public func addField(_ field: FieldDefinition, toModule moduleId: String, at position: Int? = nil) async throws(HaloError) -> Module {
        var body = field.wireObject
        if let position { body["position"] = .number(Double(position)) }
        return try await design(.post, "api/generalcontent/module/\(moduleId)/field", .object(body)).module
    }

    /// Changes field `fieldId` to `field` (rename, type, choices, description). With `dryRun` only
    /// the report comes back (module nil) and nothing changes.
    public func changeField(
        _ fieldId: String, ofModule moduleId: String, to field: FieldDefinition, refusedValues: RefusedValues = .cancel,
        dryRun: Bool = false
    ) async throws(HaloError) -> (module: Module?, report: FieldChangeReport) {
        var body = field.wireObject
        body["refusedValues"] = .string(refusedValues.rawValue)
        let path = "api/generalcontent/module/\(moduleId)/field/\(fieldId)"
        return try await designWithReport(.put, path, .object(body), dryRun: dryRun)
    }

    /// Removes field `fieldId` and its values; with `dryRun`, only says how many values would go.
    public func removeField(_ fieldId: String, ofModule moduleId: String, dryRun: Bool = false) async throws(HaloError)
        -> (module: Module?, report: FieldChangeReport)
    {
        try await designWithReport(.delete, "api/generalcontent/module/\(moduleId)/field/\(fieldId)", nil, dryRun: dryRun)
    }

    /// Puts the module's fields in the order of `fieldIds` (each field once).
    public func reorderFields(ofModule moduleId: String, as fieldIds: [String]) async throws(HaloError) -> Module {
        try await design(
            .put, "api/generalcontent/module/\(moduleId)/field-order", ["fieldIds": .array(fieldIds.map(JSONValue.string))]
        ).module
    }

    private func designWithReport(_ method: HTTPMethod, _ path: String, _ body: JSONValue?, dryRun: Bool) async throws(HaloError)
        -> (module: Module?, report: FieldChangeReport)
    {
        let query = dryRun ? [URLQueryItem(name: "dryRun", value: "true")] : []
        let answer = try await core().performJSON(APIRequest(method, path, query: query, body: body.map { .json($0) } ?? .none))
        if dryRun { return (nil, FieldChangeReport(json: answer)) }
        return (try Self.module(answer), FieldChangeReport(json: answer["report"] ?? [:]))
    }

    private func design(_ method: HTTPMethod, _ path: String, _ body: JSONValue) async throws(HaloError) -> (
        module: Module, json: JSONValue
    ) {
        let answer = try await core().performJSON(APIRequest(method, path, body: .json(body)))
        return (try Self.module(answer), answer)
    }

    private static func module(_ json: JSONValue) throws(HaloError) -> Module {
        do { return try Module(wire: json) } catch {
            throw .invalidResponse(status: 200, message: "the module in the answer is not valid: \(HTTPResponse.describe(error))")
        }
    }
}
