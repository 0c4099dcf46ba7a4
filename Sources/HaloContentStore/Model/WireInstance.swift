/// A content instance exactly as search, sync, edition and batch carry it (§10).
///
/// Decoding is tolerant (missing `values`/`tags`/`name` become empty, fractional milliseconds are
/// rounded, §1.5); encoding always writes every date and editor key, `null` when unset, as the
/// official fixtures do.
public struct WireInstance: Sendable, Hashable, Codable {
    /// 24-hex id; "" when the client has not assigned one yet (a create request).
    public var id: String
    /// The module **id** (not its name).
    public var module: String
    public var name: String
    /// Field name → value (see §9.3 for what each field type stores).
    public var values: [String: JSONValue]
    public var tags: [WireTag]
    /// Epoch ms. Nil only in create requests; the store refuses to keep an instance without it.
    public var createdAt: Int64?
    public var updatedAt: Int64?
    /// Nil = draft.
    public var publishedAt: Int64?
    /// Scheduled un-publication ("expired").
    public var removedAt: Int64?
    public var archivedAt: Int64?
    /// Soft delete.
    public var deletedAt: Int64?
    public var createdBy: String?
    public var updatedBy: String?
    public var deletedBy: String?
    public var customerId: Int?
    public var revision: Int?
    /// Carried through untouched (no SDK reads them).
    public var pushSchedule: JSONValue?
    public var externalId: JSONValue?

    public init(
        id: String, module: String, name: String, values: [String: JSONValue] = [:], tags: [WireTag] = [],
        createdAt: Int64?, updatedAt: Int64? = nil, publishedAt: Int64? = nil, removedAt: Int64? = nil,
        archivedAt: Int64? = nil, deletedAt: Int64? = nil, createdBy: String? = nil, updatedBy: String? = nil,
        deletedBy: String? = nil, customerId: Int? = nil, revision: Int? = nil,
        pushSchedule: JSONValue? = nil, externalId: JSONValue? = nil
    ) {
        self.id = id
        self.module = module
        self.name = name
        self.values = values
        self.tags = tags
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.publishedAt = publishedAt
        self.removedAt = removedAt
        self.archivedAt = archivedAt
        self.deletedAt = deletedAt
        self.createdBy = createdBy
        self.updatedBy = updatedBy
        self.deletedBy = deletedBy
        self.customerId = customerId
        self.revision = revision
        self.pushSchedule = pushSchedule
        self.externalId = externalId
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, module, name, values, tags, createdAt, updatedAt, publishedAt, removedAt, archivedAt, deletedAt
        case createdBy, updatedBy, deletedBy, customerId, revision, pushSchedule, externalId
    }

    /// An instance from its JSON object, by the rules of `init(from:)` (which the server's
    /// writes use), without a `Decoder`: imports and batch writes map thousands of objects.
    public init(object: [String: JSONValue]) throws(ContentStoreError) {
        func string(_ key: CodingKeys) throws(ContentStoreError) -> String? {
            switch object[key.rawValue] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .invalidInstance("'\(key.rawValue)' must be a string")
            }
        }
        func milliseconds(_ key: CodingKeys) throws(ContentStoreError) -> Int64? {
            guard let raw = object[key.rawValue], !raw.isNull else { return nil }
            guard let ms = raw.int64Value else { throw .invalidInstance("'\(key.rawValue)' must be a number of milliseconds or null") }
            return ms
        }
        let values: [String: JSONValue]
        switch object["values"] {
        case nil, .null?: values = [:]  // `values: null` appears in a broken fixture; treat it as empty.
        case .object(let fields)?: values = fields
        default: throw .invalidInstance("'values' must be an object")
        }
        let tags: [WireTag]
        switch object["tags"] {
        case nil, .null?: tags = []
        case .array(let items)?: tags = try items.map { item throws(ContentStoreError) in try WireTag(json: item) }
        default: throw .invalidInstance("'tags' must be an array")
        }
        self.init(
            id: try string(.id) ?? "", module: try string(.module) ?? "", name: try string(.name) ?? "", values: values, tags: tags,
            createdAt: try milliseconds(.createdAt), updatedAt: try milliseconds(.updatedAt), publishedAt: try milliseconds(.publishedAt),
            removedAt: try milliseconds(.removedAt), archivedAt: try milliseconds(.archivedAt), deletedAt: try milliseconds(.deletedAt),
            createdBy: try string(.createdBy), updatedBy: try string(.updatedBy), deletedBy: try string(.deletedBy),
            customerId: object["customerId"]?.int64Value.map { Int($0) }, revision: object["revision"]?.int64Value.map { Int($0) },
            pushSchedule: object["pushSchedule"], externalId: object["externalId"])
    }

    /// One set of rules for both paths: decoded as a JSON object, then mapped by `init(object:)`.
    public init(from decoder: Decoder) throws {
        let object = try [String: JSONValue](from: decoder)
        do { try self.init(object: object) } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(module, forKey: .module)
        try c.encode(name, forKey: .name)
        try c.encode(values, forKey: .values)
        try c.encode(tags, forKey: .tags)
        // Explicit nulls: the SDK parsers and fixtures expect every date and editor key present.
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(publishedAt, forKey: .publishedAt)
        try c.encode(removedAt, forKey: .removedAt)
        try c.encode(archivedAt, forKey: .archivedAt)
        try c.encode(deletedAt, forKey: .deletedAt)
        try c.encode(createdBy, forKey: .createdBy)
        try c.encode(updatedBy, forKey: .updatedBy)
        try c.encode(deletedBy, forKey: .deletedBy)
        try c.encodeIfPresent(customerId, forKey: .customerId)
        try c.encodeIfPresent(revision, forKey: .revision)
        try c.encode(pushSchedule ?? .null, forKey: .pushSchedule)
        try c.encode(externalId ?? .null, forKey: .externalId)
    }
}

extension WireInstance {
    /// Replaces each localized-text field (an object keyed by locale code) with its text for
    /// `locale`, or null when that locale is missing (§11.1 `locale`). Other fields are untouched.
    public func localized(to locale: String, fields localizedFields: Set<String>) -> WireInstance {
        var copy = self
        Self.localize(&copy.values, to: locale, fields: localizedFields)
        return copy
    }

    /// `localized(to:fields:)` on a values object.
    static func localize(_ values: inout [String: JSONValue], to locale: String, fields localizedFields: Set<String>) {
        for field in localizedFields {
            guard let value = values[field], case .object(let perLocale) = value else { continue }
            values[field] = perLocale[locale] ?? .null
        }
    }

    /// Keeps only the listed `values` keys (§11.1 `fields`; "values.X" and "X" both name X).
    public func projected(to fields: [String]) -> WireInstance {
        var copy = self
        let wanted = Set(fields.map(SearchRequest.fieldName(fromProjection:)))
        copy.values = values.filter { wanted.contains($0.key) }
        return copy
    }
}
