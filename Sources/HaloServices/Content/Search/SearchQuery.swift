import Crypto
import Foundation

/// Segmentation mode of a search: `partial` = an item shares at least one tag; `total` = all tags.
public enum SegmentMode: String, Hashable, Sendable, CaseIterable {
    case total, partial
}

/// Metadata fields a search can sort by (§11.1; the last three are Android extras).
public enum SortBy: String, Hashable, Sendable, CaseIterable {
    case name, createdAt, updatedAt, publishedAt, removedAt, archivedAt, deletedAt
    case createdBy, updatedBy, deletedBy
}

/// Sort direction.
public enum SortingOrder: String, Hashable, Sendable, CaseIterable {
    case ascending = "asc"
    case descending = "desc"
}

/// The parameters of a content search (PROTOCOL §11), built by chaining as in the seed:
/// `SearchQuery().moduleIds([id]).searchFilter(filter).skipPagination()`.
///
/// `body(deviceTags:)` is the exact iOS request body; `serverCacheSeconds` goes in the `to-cache`
/// header, never in the body; `cacheKey(deviceTags:)` names the query in a local cache.
public struct SearchQuery: Hashable, Sendable {
    /// How results are paged: absent (server default, paginated), skipped, or explicit.
    public enum Pagination: Hashable, Sendable {
        case skip
        case page(Int, limit: Int)
    }

    /// One `sort` criterion.
    public struct SortCriterion: Hashable, Sendable {
        public var field: SortBy
        public var order: SortingOrder
    }

    /// A `relatedTo` entry: instances whose relation field points at one of the ids (`*` = any).
    public struct RelatedInstances: Hashable, Sendable {
        public var fieldName: String
        public var instanceIds: [String]
    }

    public private(set) var moduleIds: [String]?
    public private(set) var moduleName: String?
    public private(set) var moduleNames: [String]?
    public private(set) var instanceIds: [String]?
    public private(set) var relatedTo: [RelatedInstances] = []
    public private(set) var searchFilter: SearchFilter?
    public private(set) var metaFilter: SearchFilter?
    public private(set) var fields: [String]?
    public private(set) var populateFields: [String]?
    public private(set) var tags: [Tag]?
    public private(set) var segmentWithDevice = false
    public private(set) var segmentMode: SegmentMode = .partial
    public private(set) var sort: [SortCriterion] = []
    public private(set) var locale: HaloLocale?
    public private(set) var pagination: Pagination?
    /// Seconds the server may cache the answer (`to-cache` header); 0 = do not cache.
    public private(set) var serverCacheSeconds = 0
    /// How old a kept answer of this search may be and still be used without asking the server
    /// (nil: `CoreManager.cacheTimeToLive`). Not part of the request.
    public private(set) var cacheTimeToLive: TimeInterval?

    /// An empty query: every instance the credentials may see, paginated by the server.
    public init() {}

    // MARK: Builders (each returns a modified copy)

    /// Only instances of these modules.
    public func moduleIds(_ ids: [String]) -> SearchQuery { with { $0.moduleIds = ids } }
    /// One module by name.
    public func moduleName(_ name: String) -> SearchQuery { with { $0.moduleName = name } }
    /// Several modules by name (iOS `moduleNames`).
    public func moduleNames(_ names: [String]) -> SearchQuery { with { $0.moduleNames = names } }
    /// Only these instances.
    public func instanceIds(_ ids: [String]) -> SearchQuery { with { $0.instanceIds = ids } }
    /// Adds instances related through `fieldName` to any of `instanceIds`.
    public func addRelatedInstances(fieldName: String, instanceIds: [String]) -> SearchQuery {
        with { $0.relatedTo.append(RelatedInstances(fieldName: fieldName, instanceIds: instanceIds)) }
    }
    /// Adds every instance related through `fieldName` (`instanceIds: ["*"]`).
    public func addAllRelatedInstances(fieldName: String) -> SearchQuery {
        addRelatedInstances(fieldName: fieldName, instanceIds: ["*"])
    }
    /// Condition on `values.*` fields (`searchValues`).
    public func searchFilter(_ filter: SearchFilter) -> SearchQuery { with { $0.searchFilter = filter } }
    /// Condition on metadata such as `publishedAt` (`metaSearch`).
    public func metaFilter(_ filter: SearchFilter) -> SearchQuery { with { $0.metaFilter = filter } }
    /// Both filters at once, e.g. from `SearchFilters.parse(expression:)`; an empty part clears it.
    public func filters(_ filters: SearchFilters) -> SearchQuery {
        with {
            $0.searchFilter = filters.values
            $0.metaFilter = filters.metadata
        }
    }
    /// The value and metadata filters together.
    public var filters: SearchFilters { SearchFilters(values: searchFilter, metadata: metaFilter) }
    /// Only these value fields in the results (names sent as given).
    public func fields(_ fields: [String]) -> SearchQuery { with { $0.fields = fields } }
    /// Populate these relation fields (`include`).
    public func populateFields(_ fields: [String]) -> SearchQuery { with { $0.populateFields = fields } }
    /// Populate every relation field (`include: ["all"]`).
    public func populateAll() -> SearchQuery { populateFields(["all"]) }
    /// Explicit segmentation tags (`segmentTags`).
    public func tags(_ tags: [Tag]) -> SearchQuery { with { $0.tags = tags } }
    /// Also segment by the current device's tags, appended when the body is built.
    public func segmentWithDevice(_ segment: Bool) -> SearchQuery { with { $0.segmentWithDevice = segment } }
    /// Whether items must share one (`partial`, default) or all (`total`) segmentation tags.
    public func segmentMode(_ mode: SegmentMode) -> SearchQuery { with { $0.segmentMode = mode } }
    /// Adds a sort criterion; several chain as `"createdAt asc,updatedAt desc"`.
    public func addSortBy(field: SortBy, order: SortingOrder) -> SearchQuery {
        with { $0.sort.append(SortCriterion(field: field, order: order)) }
    }
    /// Localized text fields come back as the text for this locale.
    public func locale(_ locale: HaloLocale) -> SearchQuery { with { $0.locale = locale } }
    /// Refuses a page below 1 or a limit below 1 before anything is sent (the server would answer
    /// 400, and offline the cache would answer something else than the server).
    func checkPagination() throws(HaloError) {
        guard case .page(let page, let limit) = pagination else { return }
        if page < 1 { throw .invalidInput(message: "The page of a search starts at 1; \(page) was asked for.") }
        if limit < 1 { throw .invalidInput(message: "A search page holds at least 1 instance; a limit of \(limit) was asked for.") }
    }

    /// One explicit page (`{"page":p,"limit":l,"skip":"false"}`).
    public func pagination(page: Int, limit: Int) -> SearchQuery { with { $0.pagination = .page(page, limit: limit) } }
    /// Every result in one unpaged list (`{"skip":"true"}`).
    public func skipPagination() -> SearchQuery { with { $0.pagination = .skip } }
    /// Lets the server cache the answer for `seconds` (the `to-cache` header).
    public func serverCache(seconds: Int) -> SearchQuery { with { $0.serverCacheSeconds = seconds } }
    /// Ours: the offline cache's time-to-live for this search (see `CoreManager.cacheTimeToLive`).
    public func cacheTimeToLive(_ seconds: TimeInterval) -> SearchQuery { with { $0.cacheTimeToLive = max(0, seconds) } }

    private func with(_ change: (inout SearchQuery) -> Void) -> SearchQuery {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: Wire

    /// The sort string, e.g. `"createdAt asc,updatedAt desc"`; nil when no criterion was added.
    public var sortString: String? {
        sort.isEmpty ? nil : sort.map { "\($0.field.rawValue) \($0.order.rawValue)" }.joined(separator: ",")
    }

    /// Whether results come as one plain list (no pagination object).
    public var isPaginationSkipped: Bool { pagination == .skip }

    /// The request body (§11.1, iOS shapes). `deviceTags` are appended to `segmentTags` when
    /// `segmentWithDevice(true)` was set; `segmentMode` is always present.
    public func body(deviceTags: [Tag] = []) -> JSONValue {
        var builder = WireObjectBuilder()
        builder.set("moduleIds", strings: moduleIds)
        builder.set("moduleName", moduleName)
        builder.set("moduleNames", strings: moduleNames)
        builder.set("instanceIds", strings: instanceIds)
        if !relatedTo.isEmpty {
            builder.set(
                "relatedTo",
                .array(
                    relatedTo.map {
                        ["fieldName": .string($0.fieldName), "instanceIds": .array($0.instanceIds.map { .string($0) })]
                    }))
        }
        if let searchFilter { builder.set("searchValues", searchFilter.wireJSON) }
        if let metaFilter { builder.set("metaSearch", metaFilter.wireJSON) }
        builder.set("fields", strings: fields)
        builder.set("include", strings: populateFields)
        let segmentTags = (tags ?? []) + (segmentWithDevice ? deviceTags : [])
        if !segmentTags.isEmpty { builder.set("segmentTags", .array(segmentTags.map(\.wireJSON))) }
        builder.set("segmentMode", segmentMode.rawValue)
        builder.set("sort", sortString)
        builder.set("locale", locale?.rawValue)
        switch pagination {
        case nil: break
        case .skip: builder.set("pagination", ["skip": "true"])
        case .page(let page, let limit):
            builder.set("pagination", ["page": .number(Double(page)), "limit": .number(Double(limit)), "skip": "false"])
        }
        return builder.json
    }

    /// A stable name for this query's answer in a local cache: the SHA-256 (hex) of the body with
    /// sorted keys, so equal queries share a key whatever order they were built in.
    public func cacheKey(deviceTags: [Tag] = []) -> String {
        let digest = SHA256.hash(data: body(deviceTags: deviceTags).data(sortedKeys: true))
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
