import Foundation
import HaloContentStore

/// An instance as a client sent it (create, update, batch item), plus which keys it carried, so
/// an update can tell "absent" (keep) from `null` (clear).
struct InstanceInput: Sendable {
    var instance: WireInstance
    var present: Set<String>

    init(_ object: [String: JSONValue]) throws {
        present = Set(object.keys)
        if let values = object["values"], !values.isNull, values.objectValue == nil {
            throw APIError.badRequest("'values' must be an object")
        }
        if let tags = object["tags"], !tags.isNull, tags.arrayValue == nil {
            throw APIError.badRequest("'tags' must be an array")
        }
        if let name = object["name"], !name.isNull, name.stringValue == nil {
            throw APIError.badRequest("'name' must be a string")
        }
        do {
            instance = try WireInstance(object: object)
        } catch {
            throw APIError.badRequest(error.description)
        }
        instance.tags = instance.tags.map(SegmentationTags.normalized)
    }

    init(_ value: JSONValue, what: String) throws {
        guard case .object(let object) = value else { throw APIError.badRequest("\(what) must be a JSON object") }
        try self.init(object)
    }
}
