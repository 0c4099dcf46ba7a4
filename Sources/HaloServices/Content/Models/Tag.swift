/// A segmentation tag of a device, instance, module or search (PROTOCOL §6.3).
public struct Tag: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    /// Server-assigned id; absent on tags the app creates.
    public var id: String?
    public var name: String
    /// Always text on the wire; Android sent numbers and booleans already stringified.
    public var value: String?
    /// The tag type id (wire key `tagType`; iOS fixtures also used `type`).
    public var tagType: String?

    /// Tag type of tags collected by the SDK about the device.
    public static let systemType = "000000000000000000000001"
    /// Tag type of tags the app adds (the default).
    public static let customType = "000000000000000000000002"
    /// Tag type of market (country) tags.
    public static let marketType = "000000000000000000000003"
    /// Tag type of language tags.
    public static let languageType = "000000000000000000000004"

    /// A tag as the seed builds them: `Tag(name: "brand", value: "Lamborghini")` (custom type).
    public init(id: String? = nil, name: String, value: String?, tagType: String? = Tag.customType) {
        self.id = id
        self.name = name
        self.value = value
        self.tagType = tagType
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "tag")
        id = object.string("id")
        name = try object.requiredString("name")
        value = object.text("value")
        tagType = object.string("tagType") ?? object.string("type")
    }

    /// `{id?, name, value?, tagType?}`: keys with no value are omitted.
    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("id", id)
        builder.set("name", name)
        builder.set("value", value)
        builder.set("tagType", tagType)
        return builder.json
    }

    /// The seed's `[String: Tag]` view of a tag list: keyed by name, the last tag of a name wins.
    public static func byName(_ tags: [Tag]) -> [String: Tag] {
        Dictionary(tags.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }
}
