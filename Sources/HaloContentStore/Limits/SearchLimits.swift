/// How big a search may be, checked before any SQL is built, so an absurd request is a clear
/// client error instead of a trap, a huge allocation or an SQLite failure (docs/limits.md).
/// The server takes its values from its configuration; the offline cache uses the defaults.
public struct SearchLimits: Sendable, Hashable {
    /// Largest `pagination.limit` (items per page; `skip: true` pages are not limited).
    public var pageSize = 1000
    /// Largest `pagination.page`.
    public var page = 1_000_000
    /// Deepest nesting of `searchValues` / `metaSearch`.
    public var filterDepth = FilterNode.defaultMaxDepth
    /// Most nodes (conditions and comparisons) in one filter tree.
    public var filterNodes = 1000
    /// Most values in one `in` / `!in` list, and most entries in `instanceIds`, `moduleIds`,
    /// `moduleNames`, `fields`, `include`, `segmentTags` and a `relatedTo` list.
    public var listEntries = 10_000
    /// Longest `like` pattern in Unicode scalars (SQLite refuses patterns past 50,000 bytes; a
    /// human search is a few words). HALO's minimum of 3 characters is a separate rule.
    public var likePattern = 1000
    /// Longest string anywhere else in a search (a property name, a compared value, an id).
    public var string = 10_000

    public init() {}

    public static let `default` = SearchLimits()

    static let nulProblem = "contains U+0000 (NUL), which no search accepts"
}

extension SearchRequest {
    /// Throws `ContentStoreError` naming the first limit this request exceeds.
    public func checkLimits(_ limits: SearchLimits) throws {
        if let pagination, !pagination.skip {
            if let limit = pagination.limit, limit > limits.pageSize {
                throw ContentStoreError.invalidRequest(
                    "pagination.limit is \(limit); the largest page is \(limits.pageSize) items")
            }
            if let page = pagination.page, page > limits.page {
                throw ContentStoreError.invalidRequest("pagination.page is \(page); the last page allowed is \(limits.page)")
            }
        }
        let lists: [(String, Int)] =
            [
                ("moduleIds", moduleIds?.count ?? 0), ("moduleNames", moduleNames?.count ?? 0),
                ("instanceIds", instanceIds?.count ?? 0), ("fields", fields?.count ?? 0),
                ("include", include?.count ?? 0), ("segmentTags", segmentTags?.count ?? 0),
                ("relatedTo", relatedTo?.count ?? 0),
            ] + (relatedTo ?? []).map { ("relatedTo.instanceIds", $0.instanceIds.count) }
        for (name, count) in lists where count > limits.listEntries {
            throw ContentStoreError.invalidRequest("'\(name)' has \(count) entries; the limit is \(limits.listEntries)")
        }
        let strings: [(String, String?)] =
            [("moduleName", moduleName), ("locale", locale), ("segmentMode", segmentMode)]
            + (moduleIds ?? []).map { ("moduleIds", $0) } + (moduleNames ?? []).map { ("moduleNames", $0) }
            + (instanceIds ?? []).map { ("instanceIds", $0) } + (fields ?? []).map { ("fields", $0) }
            + (include ?? []).map { ("include", $0) } + (relatedTo ?? []).map { ("relatedTo.fieldName", $0.fieldName) }
            + (segmentTags ?? []).flatMap { [("segmentTags.name", $0.name), ("segmentTags.value", $0.value)] }
        for case let (name, value?) in strings where value.unicodeScalars.count > limits.string {
            throw ContentStoreError.invalidRequest("a value of '\(name)' is longer than \(limits.string) characters")
        }
        // U+0000 is refused by the server's request decoding already; checked here too, so both
        // databases (and the offline copy) answer the same whoever builds the request: SQLite
        // would compare it, PostgreSQL cannot hold it in text.
        let ids = (relatedTo ?? []).flatMap { $0.instanceIds.map { ("relatedTo.instanceIds", Optional($0)) } }
        for case let (name, value?) in strings + ids where value.utf8.contains(0) {
            throw ContentStoreError.invalidRequest("a value of '\(name)' \(SearchLimits.nulProblem)")
        }
        if let sort, sort.unicodeScalars.count > limits.string {
            throw ContentStoreError.invalidSort("the sort text is longer than \(limits.string) characters")
        }
        if let sort, sort.utf8.contains(0) { throw ContentStoreError.invalidSort("the sort text \(SearchLimits.nulProblem)") }
        try searchValues?.checkLimits(limits)
        try metaSearch?.checkLimits(limits)
    }
}

extension FilterNode {
    /// Depth, size, list and string limits of one filter tree (shape is `validate()`'s job).
    public func checkLimits(_ limits: SearchLimits) throws {
        var nodes = 0
        try checkLimits(limits, depth: 1, nodes: &nodes)
    }

    private func checkLimits(_ limits: SearchLimits, depth: Int, nodes: inout Int) throws {
        nodes += 1
        guard nodes <= limits.filterNodes else {
            throw ContentStoreError.invalidFilter("the filter has more than \(limits.filterNodes) conditions and comparisons")
        }
        guard depth <= limits.filterDepth else {
            throw ContentStoreError.invalidFilter("the filter is nested deeper than \(limits.filterDepth) levels")
        }
        switch self {
        case .condition(_, let operands):
            for operand in operands { try operand.checkLimits(limits, depth: depth + 1, nodes: &nodes) }
        case .comparison(let comparison):
            try comparison.checkLimits(limits)
        }
    }
}

extension FilterComparison {
    func checkLimits(_ limits: SearchLimits) throws {
        guard property.unicodeScalars.count <= limits.string else {
            throw ContentStoreError.invalidFilter("a property name is longer than \(limits.string) characters")
        }
        guard !property.utf8.contains(0) else {
            throw ContentStoreError.invalidFilter("a property name \(SearchLimits.nulProblem)")
        }
        let values = value.arrayValue ?? [value]
        guard values.count <= limits.listEntries else {
            throw ContentStoreError.invalidFilter(
                "\"\(operation.wireName)\" on \"\(property)\" has \(values.count) values; the limit is \(limits.listEntries)")
        }
        for case .string(let text) in values where text.utf8.contains(0) {
            throw ContentStoreError.invalidFilter("a value on \"\(property)\" \(SearchLimits.nulProblem)")
        }
        let longest = operation == .like ? limits.likePattern : limits.string
        for case .string(let text) in values where text.unicodeScalars.count > longest {
            let what = operation == .like ? "the \"like\" pattern" : "a value"
            throw ContentStoreError.invalidFilter(
                "\(what) on \"\(property)\" is \(text.unicodeScalars.count) characters long; the limit is \(longest)")
        }
    }
}
