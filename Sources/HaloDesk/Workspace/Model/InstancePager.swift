import HaloServices

/// The instances of one module (or of chosen ids across modules: the favorites) as the list
/// shows them: a total from the server and pages of `pageSize` fetched on demand when a row asks
/// for data it does not have yet.
///
/// At most `maxPages` pages stay in memory (the least recently read go first), so scrolling
/// through a 100,000-instance module keeps memory flat; a page dropped and needed again is
/// simply fetched again.
///
/// Changing the module, the name filter, the filters or the sort starts a new *generation*; answers to
/// requests of an older generation are dropped, so a slow page never lands in the wrong list.
@MainActor
final class InstancePager {
    /// Sort the server applies (PROTOCOL §11.1).
    struct Sort: Equatable {
        var field: SortBy
        var order: SortingOrder
        static let recentFirst = Sort(field: .updatedAt, order: .descending)
    }

    /// What the list shows: a module, or instances by id in any module (ids that are no instance
    /// are simply not found).
    enum Scope: Equatable {
        case module(String)
        case instances([String])
    }

    let pageSize: Int
    /// Pages kept in memory; well above the 2–3 pages a screenful of rows touches.
    let maxPages: Int
    private let content: ContentManager
    private let connection: ConnectionState
    private(set) var scope: Scope?
    /// The module shown (nil for none, or for instances across modules).
    var moduleId: String? {
        if case .module(let id) = scope { id } else { nil }
    }
    /// Whether the list shows chosen instances across modules.
    var showsInstances: Bool {
        if case .instances = scope { true } else { false }
    }
    private(set) var nameFilter = ""
    /// The filter builder's filters (values and metadata); the name box adds to the metadata.
    private(set) var filters = SearchFilters()
    /// Segmentation tags the list is narrowed to (`segmentTags` / `segmentMode`).
    private(set) var segment = Segment()
    private(set) var sort = Sort.recentFirst
    /// Number of rows the server reported for the current query (nil until the first page came).
    private(set) var totalItems: Int?
    /// Where the last page came from: the server, or the copy on this computer.
    private(set) var source = AnswerSource.server
    private var pages: [Int: [ContentInstance]] = [:]
    /// When each held page was last read (a running counter): the oldest is evicted first.
    private var lastRead: [Int: Int] = [:]
    private var reads = 0
    private var loading: Set<Int> = []
    private var generation = 0

    /// Called when the total changed (the list must be rebuilt with that many rows).
    var onReset: (@MainActor (Int) -> Void)?
    /// Called when a page arrived: rows in the range can now be bound with real data.
    var onRowsLoaded: (@MainActor (Range<Int>) -> Void)?
    /// Called with a sentence when loading fails.
    var onError: (@MainActor (String) -> Void)?

    init(content: ContentManager, connection: ConnectionState, pageSize: Int = 100, maxPages: Int = 20) {
        self.content = content
        self.connection = connection
        self.pageSize = pageSize
        self.maxPages = max(maxPages, 3)
    }

    /// Shows another module, filter or sort: forgets every page and loads the first one.
    /// Nothing happens when the query stays the same (GTK re-emits search and sort signals).
    func show(
        moduleId: String?, nameFilter: String? = nil, filters: SearchFilters? = nil, segment: Segment? = nil, sort: Sort? = nil
    ) {
        show(scope: moduleId.map(Scope.module), nameFilter: nameFilter, filters: filters, segment: segment, sort: sort)
    }

    /// `show(moduleId:…)` for any scope (nil: nothing).
    func show(scope: Scope?, nameFilter: String? = nil, filters: SearchFilters? = nil, segment: Segment? = nil, sort: Sort? = nil) {
        let unchanged =
            scope == self.scope && (nameFilter ?? self.nameFilter) == self.nameFilter
            && (filters ?? self.filters) == self.filters && (segment ?? self.segment) == self.segment && (sort ?? self.sort) == self.sort
        if unchanged, scope == nil || totalItems != nil || !loading.isEmpty { return }
        self.scope = scope
        if let nameFilter { self.nameFilter = nameFilter }
        if let filters { self.filters = filters }
        if let segment { self.segment = segment }
        if let sort { self.sort = sort }
        reload()
    }

    /// Whether the rows are a subset of the module (the name box or the filters are in use).
    var isFiltered: Bool { !nameFilter.trimmingCharacters(in: .whitespaces).isEmpty || !filters.isEmpty || !segment.tags.isEmpty }

    /// Segmentation tags: an instance shows when it has one of them (all of them when
    /// `matchesAll`); untagged instances show to everyone.
    struct Segment: Equatable, Sendable {
        var tags: [Tag] = []
        var matchesAll = false
    }

    /// Forgets cached pages and asks for the first page again (after edits, F5).
    func reload() {
        generation += 1
        forgetPages()
        totalItems = nil
        guard hasRows else {
            if scope != nil { totalItems = 0 }  // no ids to look for: nothing to ask
            onReset?(0)
            return
        }
        load(page: 0)
    }

    /// Whether the scope can have rows (an empty list of ids has none: asking would list all).
    private var hasRows: Bool {
        switch scope {
        case .module: true
        case .instances(let ids): !ids.isEmpty
        case nil: false
        }
    }

    /// Fetches the same query again after an edit, keeping the row count (and so the list's
    /// selection) unless the server reports a different total. Rows shown so far are rebound, which
    /// asks for their pages again.
    func refetch() {
        let stale = pages.keys.map { $0 * pageSize..<($0 + 1) * pageSize }
        generation += 1
        forgetPages()
        guard hasRows else { return }
        load(page: 0)
        stale.forEach { onRowsLoaded?($0) }
    }

    /// The instance at `row`, or nil while its page is on its way (that page is requested).
    func instance(at row: Int) -> ContentInstance? {
        guard row >= 0 else { return nil }
        let page = row / pageSize
        if let items = pages[page] {
            reads += 1
            lastRead[page] = reads
            let index = row - page * pageSize
            return index < items.count ? items[index] : nil
        }
        load(page: page)
        return nil
    }

    /// Pages (0-based) held in memory: the list fetches only those its visible rows need.
    var loadedPages: Set<Int> { Set(pages.keys) }

    /// True when the row's data is here (does not request anything).
    func isLoaded(row: Int) -> Bool { pages[row / pageSize].map { row % pageSize < $0.count } ?? false }

    /// The loaded instances, for finding one by id (selection after save, relation links).
    func loadedRow(ofInstanceId id: String) -> Int? {
        for (page, items) in pages {
            if let index = items.firstIndex(where: { $0.id == id }) { return page * pageSize + index }
        }
        return nil
    }

    /// Replaces a loaded instance after it was saved, so its row shows the new values at once.
    func replace(_ instance: ContentInstance) -> Int? {
        guard let id = instance.id, let row = loadedRow(ofInstanceId: id) else { return nil }
        pages[row / pageSize]?[row % pageSize] = instance
        return row
    }

    /// The query for page `page` (0-based here, 1-based on the wire).
    func query(page: Int) -> SearchQuery {
        var query = SearchQuery().pagination(page: page + 1, limit: pageSize).addSortBy(field: sort.field, order: sort.order)
        switch scope {
        case .module(let id): query = query.moduleIds([id])
        case .instances(let ids): query = query.instanceIds(ids)
        case nil: break
        }
        var filters = self.filters
        let name = nameFilter.trimmingCharacters(in: .whitespaces)
        if !name.isEmpty {
            filters.metadata = filters.metadata.map { and($0, like(property: "name", value: name)) } ?? like(property: "name", value: name)
        }
        query = query.filters(filters)
        return query.segment(segment)
    }

    private func load(page: Int) {
        guard hasRows, !loading.contains(page) else { return }
        if let totalItems, page * pageSize >= totalItems, page > 0 { return }
        loading.insert(page)
        let query = query(page: page), requested = generation, content = content
        let policy = connection.readPolicy
        Task { @MainActor in
            do throws(HaloError) {
                let result = try await content.search(query: query, offlinePolicy: policy)
                guard requested == self.generation else { return }
                if policy == nil { self.connection.record(answerFrom: result.source) }
                self.source = result.source
                self.receive(result, page: page)
            } catch {
                guard requested == self.generation else { return }
                self.loading.remove(page)
                self.connection.record(error: error)
                if case .cache = error, !self.connection.isOnline {
                    self.onError?("This module has no copy on this computer yet: open it while the server answers to keep one.")
                } else {
                    self.onError?("Could not load instances: \(error.sentence)")
                }
            }
        }
    }

    private func receive(_ result: PaginatedContentInstances, page: Int) {
        loading.remove(page)
        pages[page] = result.instances
        reads += 1
        lastRead[page] = reads
        evictOldPages()
        let total = result.paginationInfo.totalItems
        if total != totalItems {
            totalItems = total
            onReset?(total)
        }
        let start = page * pageSize
        onRowsLoaded?(start..<(start + result.instances.count))
    }

    private func forgetPages() {
        pages = [:]
        lastRead = [:]
        loading = []
    }

    /// Drops the least recently read pages beyond `maxPages`.
    private func evictOldPages() {
        guard pages.count > maxPages else { return }
        let oldest = pages.keys.sorted { lastRead[$0, default: 0] < lastRead[$1, default: 0] }
        for page in oldest.prefix(pages.count - maxPages) {
            pages[page] = nil
            lastRead[page] = nil
        }
    }
}

extension SearchQuery {
    /// Narrowed to the segment's tags (unchanged without tags).
    func segment(_ segment: InstancePager.Segment) -> SearchQuery {
        segment.tags.isEmpty ? self : tags(segment.tags).segmentMode(segment.matchesAll ? .total : .partial)
    }
}
