/// One answer of a search: a page of instances plus what the server needs to build the §11.4
/// pagination object.
public struct SearchPage: Sendable, Hashable {
    /// The matching instances of this page, in order (localized and projected as requested).
    public var items: [WireInstance]
    /// The number of all matches, across pages.
    public var total: Int
    /// 1-based page number used (1 when pagination was skipped).
    public var page: Int
    /// Page size used (with `skipPagination`, the number of items).
    public var limit: Int
    /// True when the request asked for every match (`pagination.skip`); the server then answers
    /// with a plain array.
    public var skipPagination: Bool
    /// The instances that the relation fields named by `include` point at, each once, sorted by
    /// id, localized like `items` but not projected. Relation values in `items` keep their ids:
    /// clients resolve them against this list.
    public var included: [WireInstance]

    public init(items: [WireInstance], total: Int, page: Int, limit: Int, skipPagination: Bool, included: [WireInstance] = []) {
        self.items = items
        self.total = total
        self.page = page
        self.limit = limit
        self.skipPagination = skipPagination
        self.included = included
    }

    /// `(page − 1) · limit`.
    public var offset: Int {
        guard !skipPagination else { return 0 }
        let (product, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        return overflow ? Int.max : product
    }
    /// `ceil(total / limit)` (0 when there is nothing).
    public var totalPages: Int { limit > 0 ? total / limit + (total % limit == 0 ? 0 : 1) : 0 }
}
