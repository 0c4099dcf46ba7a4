import Foundation
import HaloContentStore

/// The fast path for reading synced instances: the store's JSON parser, then a direct mapping.
///
/// `JSONDecoder` spent most of a 100,000-instance sync in its generic machinery (and in the
/// `try?` chain of `JSONValue`'s `Decodable`); this mapping follows the rules of
/// `WireInstance.init(from:)` (missing values/tags/name → empty, fractional ms rounded, tag values
/// stringified, a `tagType` object keeps its `id`) with one exception: `"values": null` is
/// refused. What is read here replaces the cached copy, so guessing "no values" would erase the
/// instance's content from the cache; the sync fails instead, changes nothing, and is retried.
/// The sync tests compare the cache with the server item for item, which keeps the two in step.
extension WireInstance {
    /// `element`: the instance's JSON text as it came in the answer (parsed without a copy).
    init(syncElement element: [UInt8]) throws {
        guard case .object(let object) = try JSONValue(parsing: element) else {
            throw HaloError.invalidResponse(status: 200, message: "A synced instance is not a JSON object.")
        }
        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw HaloError.invalidResponse(status: 200, message: "A synced instance's \"\(key)\" is not a string.")
            }
        }
        func milliseconds(_ key: String) throws -> Int64? {
            switch object[key] {
            case nil, .null?: return nil
            case let value?:
                guard let ms = value.int64Value else {
                    throw HaloError.invalidResponse(status: 200, message: "A synced instance's \"\(key)\" is not a number of milliseconds.")
                }
                return ms
            }
        }
        let values: [String: JSONValue]
        switch object["values"] {
        case nil: values = [:]
        case .object(let fields)?: values = fields
        case .null?:
            throw HaloError.invalidResponse(
                status: 200, message: "The synced instance \(object["id"]?.stringValue ?? "?") has \"values\": null instead of an object.")
        default: throw HaloError.invalidResponse(status: 200, message: "A synced instance's \"values\" is not an object.")
        }
        self.init(
            id: try string("id") ?? "", module: try string("module") ?? "", name: try string("name") ?? "", values: values,
            tags: try (object["tags"]?.arrayValue ?? []).map(WireTag.init(syncElement:)),
            createdAt: try milliseconds("createdAt"), updatedAt: try milliseconds("updatedAt"),
            publishedAt: try milliseconds("publishedAt"), removedAt: try milliseconds("removedAt"),
            archivedAt: try milliseconds("archivedAt"), deletedAt: try milliseconds("deletedAt"),
            createdBy: try string("createdBy"), updatedBy: try string("updatedBy"), deletedBy: try string("deletedBy"),
            customerId: object["customerId"]?.int64Value.map { Int($0) }, revision: object["revision"]?.int64Value.map { Int($0) },
            pushSchedule: object["pushSchedule"], externalId: object["externalId"])
    }
}

extension WireTag {
    init(syncElement json: JSONValue) throws {
        guard case .object(let object) = json, let name = object["name"]?.stringValue else {
            throw HaloError.invalidResponse(status: 200, message: "A synced instance has a tag without a \"name\".")
        }
        let typeObject = object["tagType"]?.objectValue
        self.init(
            id: object["id"]?.stringValue, name: name, value: (object["value"] ?? .null).tagText,
            tagType: typeObject.map { $0["id"]?.stringValue } ?? object["tagType"].flatMap { $0.isNull ? nil : $0.tagText },
            tagTypeObject: typeObject)
    }
}
