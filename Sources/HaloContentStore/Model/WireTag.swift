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

    /// A tag from its JSON object, by the rules of `init(from:)`.
    public init(json: JSONValue) throws(ContentStoreError) {
        guard case .object(let object) = json else { throw .invalidInstance("a tag must be an object") }
        switch object["id"] {
        case nil, .null?: id = nil
        case .string(let text)?: id = text
        default: throw .invalidInstance("a tag's 'id' must be a string")
        }
        guard let name = object["name"]?.stringValue else { throw .invalidInstance("a tag needs a 'name' (a string)") }
        self.name = name
        value = (object["value"] ?? .null).tagText
        switch object["tagType"] ?? .null {
        case .object(let members):
            tagType = members["id"]?.stringValue
            tagTypeObject = members
        case .null:
            tagType = nil
            tagTypeObject = nil
        case let other:
            tagType = other.tagText
            tagTypeObject = nil
        }
    }

    /// One set of rules for both paths: decoded as JSON, then mapped by `init(json:)`.
    public init(from decoder: Decoder) throws {
        let json = try JSONValue(from: decoder)
        do { try self.init(json: json) } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
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
