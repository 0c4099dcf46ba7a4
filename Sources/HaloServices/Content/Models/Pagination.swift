/// Where a page of results sits in the whole result (PROTOCOL §11.4).
public struct PaginationInfo: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    public var page: Int
    public var limit: Int
    public var offset: Int
    public var totalItems: Int
    public var totalPages: Int

    public init(page: Int, limit: Int, offset: Int, totalItems: Int, totalPages: Int) {
        self.page = page
        self.limit = limit
        self.offset = offset
        self.totalItems = totalItems
        self.totalPages = totalPages
    }

    /// The single page iOS fabricated for an unpaginated answer of `count` items.
    public static func singlePage(count: Int) -> PaginationInfo {
        PaginationInfo(page: 1, limit: count, offset: 0, totalItems: count, totalPages: 1)
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "pagination")
        // Defaults as the server documents them (§11.4): page 1, limit 10.
        page = object.int("page") ?? 1
        limit = object.int("limit") ?? 10
        offset = object.int("offset") ?? max(0, (page - 1) * limit)
        totalItems = object.int("totalItems") ?? 0
        totalPages = object.int("totalPages") ?? (limit > 0 ? (totalItems + limit - 1) / limit : 0)
    }

    public var wireJSON: JSONValue {
        [
            "page": .number(Double(page)), "limit": .number(Double(limit)), "offset": .number(Double(offset)),
            "totalItems": .number(Double(totalItems)), "totalPages": .number(Double(totalPages)),
        ]
    }
}

/// A page of modules; reads the plain array and the paginated object alike (§9.1).
public struct PaginatedModules: Hashable, Sendable, HaloWireDecodable, SourcedAnswer {
    public var paginationInfo: PaginationInfo
    public var modules: [Module]
    /// Where this answer came from (not part of equality).
    public var source: AnswerSource = .server

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.paginationInfo == rhs.paginationInfo && lhs.modules == rhs.modules }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(paginationInfo)
        hasher.combine(modules)
    }

    public init(paginationInfo: PaginationInfo, modules: [Module]) {
        self.paginationInfo = paginationInfo
        self.modules = modules
    }

    public init(wire: JSONValue) throws {
        let page = try PaginatedItems(wire: wire, what: "module list", item: Module.init(wire:))
        self.init(paginationInfo: page.pagination, modules: page.items)
    }
}

/// A page of content instances; reads the plain array (skip pagination) and the paginated
/// object alike, as iOS did (§11.4).
public struct PaginatedContentInstances: Hashable, Sendable, HaloWireDecodable, SourcedAnswer {
    public var paginationInfo: PaginationInfo
    public var instances: [ContentInstance]
    /// Where this answer came from (not part of equality).
    public var source: AnswerSource = .server

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.paginationInfo == rhs.paginationInfo && lhs.instances == rhs.instances
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(paginationInfo)
        hasher.combine(instances)
    }

    public init(paginationInfo: PaginationInfo, instances: [ContentInstance]) {
        self.paginationInfo = paginationInfo
        self.instances = instances
    }

    public init(wire: JSONValue) throws {
        let page = try PaginatedItems(wire: wire, what: "search result", item: ContentInstance.init(wire:))
        self.init(paginationInfo: page.pagination, instances: page.items)
    }
}

/// The two list shapes HALO answers with: `[item]` or `{pagination, items}`.
private struct PaginatedItems<Item> {
    let pagination: PaginationInfo
    let items: [Item]

    init(wire: JSONValue, what: String, item: (JSONValue) throws -> Item) throws {
        switch wire {
        case .array(let elements):
            items = try elements.map(item)
            pagination = .singlePage(count: items.count)
        case .object:
            let object = try WireObject(wire, what: what)
            items = try object.list("items", item)
            pagination = try object["pagination"].map(PaginationInfo.init(wire:)) ?? .singlePage(count: items.count)
        default:
            throw HaloError.invalidResponse(
                status: nil, message: "Expected the \(what) as an array or a paginated object, got \(wire.wireKindName).")
        }
    }
}
