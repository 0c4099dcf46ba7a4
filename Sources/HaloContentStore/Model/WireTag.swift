/// A segmentation tag as it travels on the wire (§6.3): on devices, instances, modules and in
/// search `segmentTags`.
public struct WireTag: Sendable, Hashable, Codable {
    /// Server-assigned id; optional in requests.
    public var id: String?
    public var name: String
    /// Always a string on output (iOS force-casts it). On input, numbers and booleans are
    /// stringified ("1984", "true") and an absent or null value becomes "".
    public var value: String
    /// The wire key is `tagType` (e.g. "000000000000000000000002" for a user tag).
    public var tagType: String?
    /// Older servers sent `tagType` as an object (`{"id", "name", "description"}`, seen in
    /// `full_sync.json`); its `id` goes to `tagType` and the object is kept here and written back
    /// as it came.
    public var tagTypeObject: [String: JSONValue]?

    public init(
        id: String? = nil, name: String, value: String, tagType: String? = nil,
        tagTypeObject: [String: JSONValue]? = nil
    ) {
        self.id = id
        self.name = name
        self.value = value
        self.tagType = tagType
        self.tagTypeObject = tagTypeObject
    }

    private enum CodingKeys: String, CodingKey { case id, name, value, tagType }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        let raw = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
        value = raw.tagText
        switch try container.decodeIfPresent(JSONValue.self, forKey: .tagType) ?? .null {
        case .object(let object):
            tagType = object["id"]?.stringValue
            tagTypeObject = object
        case .null:
            tagType = nil
        case let other:
            tagType = other.tagText
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(value, forKey: .value)
        if let tagTypeObject {
            try container.encode(tagTypeObject, forKey: .tagType)
        } else {
            try container.encodeIfPresent(tagType, forKey: .tagType)
        }
    }
}

extension JSONValue {
    /// The text of a scalar the way Android stringifies tag values and filter operands:
    /// `true` → "true", `1984` → "1984", `4.5` → "4.5", null → "". Containers become their JSON.
    public var tagText: String {
        switch self {
        case .null: return ""
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return JSONValue.canonicalText(of: value)
        case .string(let value): return value
        case .array, .object: return jsonString()
        }
    }

    /// A number as JSON writes it: whole numbers without ".0".
    public static func canonicalText(of number: Double) -> String {
        if let whole = Int64(exactly: number) { return String(whole) }
        return String(number)
    }
}
