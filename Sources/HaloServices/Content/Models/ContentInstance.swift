import Foundation

/// One item of a module (PROTOCOL §10), as returned by search, sync, edition and batch.
///
/// `values` is schemaless field data, carried as `JSONValue` so the model is `Sendable`; the
/// seed's `Any`-based accessors (`getValue(key:)`, `setValue(key:value:)`) convert at the edge.
public struct ContentInstance: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    /// Absent until the server created the instance.
    public var id: String?
    /// The id of the module (wire key `module`).
    public var moduleId: String
    /// The title of the item.
    public var name: String
    /// Field name → value. `null` on the wire reads as empty.
    public var values: [String: JSONValue]
    public var tagList: [Tag]
    public var createdAt: Date
    public var updatedAt: Date?
    /// `nil` means a draft.
    public var publishedAt: Date?
    /// Scheduled un-publication ("expired").
    public var removedAt: Date?
    public var archivedAt: Date?
    /// Soft deletion.
    public var deletedAt: Date?
    public var createdBy: String?
    public var updatedBy: String?
    public var deletedBy: String?
    public var customerId: Int?
    /// Not read by the SDKs; kept so a round trip loses nothing.
    public var revision: Int?

    /// The seed's `tags: [String: Tag]`, keyed by tag name.
    public var tags: [String: Tag] {
        get { Tag.byName(tagList) }
        set { tagList = newValue.values.sorted { $0.name < $1.name } }
    }

    /// A new instance of a module; `createdAt` is now, as the iOS SDK did.
    public init(
        id: String? = nil, moduleId: String, name: String, values: [String: JSONValue] = [:], tags: [Tag] = [],
        createdAt: Date = Date(), updatedAt: Date? = nil, publishedAt: Date? = nil, removedAt: Date? = nil,
        archivedAt: Date? = nil, deletedAt: Date? = nil, createdBy: String? = nil, updatedBy: String? = nil,
        deletedBy: String? = nil, customerId: Int? = nil, revision: Int? = nil
    ) {
        self.id = id
        self.moduleId = moduleId
        self.name = name
        self.values = values
        self.tagList = tags
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
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "content instance")
        id = object.string("id")
        moduleId = try object.requiredString("module")
        name = object.string("name") ?? ""
        switch object["values"] {
        case nil: values = [:]
        case .object(let fields)?: values = fields
        case let other?:
            throw HaloError.invalidResponse(
                status: nil, message: "\"values\" of the content instance should be an object, got \(other.wireKindName).")
        }
        tagList = try object.list("tags", Tag.init(wire:))
        guard let created = object.date("createdAt") else { throw Self.noCreatedAt(id: id) }
        createdAt = created
        updatedAt = object.date("updatedAt")
        publishedAt = object.date("publishedAt")
        removedAt = object.date("removedAt")
        archivedAt = object.date("archivedAt")
        deletedAt = object.date("deletedAt")
        createdBy = object.string("createdBy")
        updatedBy = object.string("updatedBy")
        deletedBy = object.string("deletedBy")
        customerId = object.int("customerId")
        revision = object.int("revision")
    }

    static func noCreatedAt(id: String?) -> HaloError {
        .invalidResponse(status: nil, message: "The content instance\(id.map { " \($0)" } ?? "") has no \"createdAt\" timestamp.")
    }

    /// The request body of a save (PROTOCOL §12, iOS shape): `id` when set, `module`, `name`,
    /// `values`, `tags` (always, maybe empty), `createdAt` (always), other dates when set.
    /// An update (an `id` is set) also carries `publishedAt`, `removedAt` and `archivedAt` as
    /// `null` when they are unset: clearing them (Unpublish, no expiry) is then said, not left to
    /// how a server reads an absent key (ours clears it; one keeping stored values would not).
    public var wireJSON: JSONValue {
        var builder = WireObjectBuilder()
        builder.set("id", id)
        builder.set("module", moduleId)
        builder.set("name", name)
        builder.set("values", .object(values))
        builder.set("tags", .array(tagList.map(\.wireJSON)))
        builder.set("createdAt", HaloTimestamp.json(createdAt))
        builder.set("updatedAt", updatedAt)
        builder.set("publishedAt", publishedAt)
        builder.set("removedAt", removedAt)
        builder.set("archivedAt", archivedAt)
        builder.set("deletedAt", deletedAt)
        if id != nil {
            for (key, date) in [("publishedAt", publishedAt), ("removedAt", removedAt), ("archivedAt", archivedAt)] where date == nil {
                builder.set(key, JSONValue.null)
            }
        }
        return builder.json
    }

    /// Every known field (the response shape), e.g. for a local cache; reads back equal.
    public var fullJSON: JSONValue {
        guard case .object(var fields) = wireJSON else { return wireJSON }
        for (key, value) in [("createdBy", createdBy), ("updatedBy", updatedBy), ("deletedBy", deletedBy)] {
            if let value { fields[key] = .string(value) }
        }
        if let customerId { fields["customerId"] = .number(Double(customerId)) }
        if let revision { fields["revision"] = .number(Double(revision)) }
        return .object(fields)
    }
}

// MARK: - Values

extension ContentInstance {
    /// The value of a field as Foundation types (`String`, `Int`/`Double`, `Bool`, arrays,
    /// dictionaries), `nil` when absent or null — the seed's `values[key]` reading.
    public func getValue(key: String) -> Any? {
        values[key].flatMap(AnyJSONConversion.any(from:))
    }

    /// Sets a field from any Swift value (converted with `AnyJSONConversion`); `nil` stores JSON null.
    public mutating func setValue(key: String, value: Any?) {
        values[key] = AnyJSONConversion.json(from: value)
    }

    /// Sets a field to a JSON value.
    public mutating func setValue(key: String, json: JSONValue) {
        values[key] = json
    }

    /// Removes a field from `values`.
    public mutating func removeValue(key: String) {
        values[key] = nil
    }

    /// A text field (nil when absent or not text).
    public func string(_ key: String) -> String? { values[key]?.stringValue }
    /// A number field.
    public func double(_ key: String) -> Double? { values[key]?.doubleValue }
    /// A Boolean field.
    public func bool(_ key: String) -> Bool? { values[key]?.boolValue }
    /// A List / multiple-choice field.
    public func array(_ key: String) -> [JSONValue]? { values[key]?.arrayValue }
    /// An Object field (or a Localized text field's per-locale object).
    public func object(_ key: String) -> [String: JSONValue]? { values[key]?.objectValue }

    /// A whole number (fractional values rounded).
    public func int(_ key: String) -> Int? { values[key]?.int64Value.flatMap { Int(exactly: $0) } }

    /// A Date/Time field (epoch milliseconds).
    public func date(_ key: String) -> Date? {
        guard case .number(let ms)? = values[key], ms.isFinite else { return nil }
        return HaloTimestamp.date(fromMilliseconds: ms)
    }

    /// A Localized text field's text for one locale (the field holds `{locale: text}`).
    public func localizedString(_ key: String, locale: HaloLocale) -> String? {
        if case .string(let text)? = values[key] { return text }  // already localized by the server
        return values[key]?[locale.rawValue]?.stringValue
    }
}

// MARK: - State

extension ContentInstance {
    /// Published: `publishedAt` is set and not in the future (§10).
    public func isPublished(at now: Date = Date()) -> Bool { publishedAt.map { $0 <= now } ?? false }
    /// Removed (expired): `removedAt` is set and not in the future.
    public func isRemoved(at now: Date = Date()) -> Bool { removedAt.map { $0 <= now } ?? false }
    /// Deleted: `deletedAt` is set and not in the future.
    public func isDeleted(at now: Date = Date()) -> Bool { deletedAt.map { $0 <= now } ?? false }
    /// Archived: `archivedAt` is set and not in the future.
    public func isArchived(at now: Date = Date()) -> Bool { archivedAt.map { $0 <= now } ?? false }
    /// Draft: never published, archived, removed or deleted (the SDKs' "drafts" preset, §11.2).
    public var isDraft: Bool { publishedAt == nil && archivedAt == nil && removedAt == nil && deletedAt == nil }

    /// `isPublished(at:)` now.
    public var isPublished: Bool { isPublished() }
    /// `isRemoved(at:)` now.
    public var isRemoved: Bool { isRemoved() }
    /// `isDeleted(at:)` now.
    public var isDeleted: Bool { isDeleted() }
    /// `isArchived(at:)` now.
    public var isArchived: Bool { isArchived() }
}
