import Foundation

/// The body of `POST /api/generalcontent/instance/search` (§11.1), tolerant of what both SDKs
/// send (§21): `skip` as bool or string, `fields` with or without the `values.` prefix, unknown
/// keys ignored, `null` treated as absent.
public struct SearchRequest: Sendable, Hashable, Codable {
    public var moduleIds: [String]?
    public var moduleName: String?
    public var moduleNames: [String]?
    public var instanceIds: [String]?
    public var relatedTo: [RelatedTo]?
    /// Conditions on `values.<property>`.
    public var searchValues: FilterNode?
    /// Conditions on metadata columns (name, id, module, dates, editors).
    public var metaSearch: FilterNode?
    /// Projection of `values`; "X" and "values.X" both mean field X.
    public var fields: [String]?
    /// Relation fields to populate; ["all"] = every relation field of the module.
    public var include: [String]?
    public var pagination: Pagination?
    public var segmentTags: [WireTag]?
    /// "partial" (default) or "total"; anything else is rejected by search.
    public var segmentMode: String?
    /// e.g. "name asc,createdAt desc"; parsed by `sortKeys()`.
    public var sort: String?
    public var locale: String?

    /// One `relatedTo` entry: instances whose relation field `fieldName` points at one of
    /// `instanceIds` (["*"] = at any instance).
    public struct RelatedTo: Sendable, Hashable, Codable {
        public var fieldName: String
        public var instanceIds: [String]
        public init(fieldName: String, instanceIds: [String]) {
            self.fieldName = fieldName
            self.instanceIds = instanceIds
        }
    }

    /// §11.4. Defaults: page 1, limit 10, no skip.
    public struct Pagination: Sendable, Hashable, Codable {
        public var page: Int?
        public var limit: Int?
        /// true ⇒ return every match (the server then answers with a plain array).
        public var skip: Bool

        public init(page: Int? = nil, limit: Int? = nil, skip: Bool = false) {
            self.page = page
            self.limit = limit
            self.skip = skip
        }

        private enum CodingKeys: String, CodingKey { case page, limit, skip }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            page = try Self.integer(c, .page)
            limit = try Self.integer(c, .limit)
            switch try c.decodeIfPresent(JSONValue.self, forKey: .skip) ?? .null {
            case .null: skip = false
            case .bool(let value): skip = value
            case .string("true"): skip = true
            case .string("false"), .string(""): skip = false
            case let other:
                throw ContentStoreError.invalidRequest("pagination.skip must be true or false, not \(other.jsonString())")
            }
        }

        /// iOS sends ints; be lenient with numeric strings too.
        private static func integer(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int? {
            switch try c.decodeIfPresent(JSONValue.self, forKey: key) ?? .null {
            case .null: return nil
            case .number(let n) where n.isFinite && n.rounded() == n && abs(n) < 1e12: return Int(n)
            case .string(let s) where Int(s) != nil: return Int(s)
            case let other:
                throw ContentStoreError.invalidRequest("pagination.\(key.rawValue) must be a whole number, not \(other.jsonString())")
            }
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(page, forKey: .page)
            try c.encodeIfPresent(limit, forKey: .limit)
            try c.encode(skip, forKey: .skip)
        }
    }

    public init(
        moduleIds: [String]? = nil, moduleName: String? = nil, moduleNames: [String]? = nil,
        instanceIds: [String]? = nil, relatedTo: [RelatedTo]? = nil, searchValues: FilterNode? = nil,
        metaSearch: FilterNode? = nil, fields: [String]? = nil, include: [String]? = nil,
        pagination: Pagination? = nil, segmentTags: [WireTag]? = nil, segmentMode: String? = nil,
        sort: String? = nil, locale: String? = nil
    ) {
        self.moduleIds = moduleIds
        self.moduleName = moduleName
        self.moduleNames = moduleNames
        self.instanceIds = instanceIds
        self.relatedTo = relatedTo
        self.searchValues = searchValues
        self.metaSearch = metaSearch
        self.fields = fields
        self.include = include
        self.pagination = pagination
        self.segmentTags = segmentTags
        self.segmentMode = segmentMode
        self.sort = sort
        self.locale = locale
    }

    /// True when the answer needs the instances themselves, not only their stored JSON: a
    /// projection (`fields`) or related instances (`include`).
    public var needsInstances: Bool { !(fields ?? []).isEmpty || !(include ?? []).isEmpty }

    /// The locale to localize to: nil when none is given, and an empty one asks for none.
    var requestedLocale: String? { locale.flatMap { $0.isEmpty ? nil : $0 } }

    /// "values.Title" → "Title"; "Title" → "Title" (Android prefixes, iOS does not).
    public static func fieldName(fromProjection projection: String) -> String {
        projection.hasPrefix("values.") ? String(projection.dropFirst("values.".count)) : projection
    }
}

// MARK: - Segment mode and sort

/// How `segmentTags` restrict results (untagged instances are visible to everyone either way).
public enum SegmentMode: String, Sendable, Hashable {
    /// The instance shares at least one (name, value) tag with the request.
    case partial
    /// The instance carries every requested (name, value) tag.
    case total
}

/// A metadata column results can be ordered by.
public enum SortField: String, Sendable, Hashable, CaseIterable {
    case name, createdAt, updatedAt, publishedAt, removedAt, archivedAt, deletedAt, createdBy, updatedBy, deletedBy

    /// Its `content_instance` column (the raw value is the protocol's name).
    var column: String { ContentSchema.metadataColumns[rawValue] ?? rawValue }

    /// What results are ordered by: the column, except that "updatedAt" dates a never-updated
    /// instance by its creation (`ContentSchema.lastChangedExpression`).
    var orderExpression: String { self == .updatedAt ? ContentSchema.lastChangedExpression : column }
}

/// One "<field> asc|desc" item of the `sort` string.
public struct SortKey: Sendable, Hashable {
    public var field: SortField
    public var ascending: Bool
    public init(_ field: SortField, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }
}

extension SearchRequest {
    /// The order of results; default `createdAt desc`. (Search always appends `id asc` after these.)
    public func sortKeys() throws -> [SortKey] {
        guard let sort, !sort.trimmingCharacters(in: .whitespaces).isEmpty else {
            return [SortKey(.createdAt, ascending: false)]
        }
        let items = sort.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= SortField.allCases.count else {
            throw ContentStoreError.invalidSort(
                "\(items.count) sort keys; at most \(SortField.allCases.count), one per sortable field")
        }
        return try items.map { item in
            let words = item.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first, words.count <= 2 else {
                let text = item.trimmingCharacters(in: .whitespaces)
                throw ContentStoreError.invalidSort(
                    text.isEmpty
                        ? "an empty sort key (sort keys are separated by single commas)"
                        : "\"\(text.prefix(80))\" is not \"<field> asc|desc\"")
            }
            guard let field = SortField(rawValue: String(first)) else {
                let known = SortField.allCases.map(\.rawValue).joined(separator: ", ")
                throw ContentStoreError.invalidSort("cannot sort by \"\(first)\" (sortable fields: \(known))")
            }
            switch words.count == 2 ? words[1].lowercased() : "asc" {
            case "asc": return SortKey(field, ascending: true)
            case "desc": return SortKey(field, ascending: false)
            case let direction:
                throw ContentStoreError.invalidSort("unknown direction \"\(direction)\" for \(field.rawValue) (expected asc or desc)")
            }
        }
    }

    /// `segmentMode`, defaulting to partial.
    public func resolvedSegmentMode() throws -> SegmentMode {
        guard let segmentMode else { return .partial }
        guard let mode = SegmentMode(rawValue: segmentMode) else {
            throw ContentStoreError.invalidRequest("segmentMode must be \"partial\" or \"total\", not \"\(segmentMode)\"")
        }
        return mode
    }
}
