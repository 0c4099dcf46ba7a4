import GRDB

/// The HALO search language (§11) over the content tables.
extension ContentTables {
    /// Runs a search and returns one page (or every match when `pagination.skip`).
    ///
    /// Restrictions combine with AND: modules (`moduleIds` ∪ `moduleName` ∪ `moduleNames`),
    /// `instanceIds`, each `relatedTo` entry, `searchValues`, `metaSearch`, segmentation.
    /// Deleted instances are left out unless `metaSearch` mentions `deletedAt`. Order is the
    /// `sort` keys (default `createdAt desc`) then `id asc`, so it is total and pages are stable.
    /// Empty `moduleIds` / `instanceIds` lists mean "no restriction".
    /// `limits` bound its size before any SQL is built (the server passes its configured ones).
    /// `memory`, when given, holds in-memory copies of what searches read, which this one uses and
    /// fills (in read-only transactions on SQLite: see `SearchMemory`).
    public static func search(
        _ request: SearchRequest, schema: SearchSchema = SearchSchema(), limits: SearchLimits = .default,
        memory: SearchMemory? = nil, in db: any SQLExecutor
    ) throws -> SearchPage {
        let found = try matchingPage(request, schema: schema, limits: limits, memory: memory, in: db)
        let stored = try ContentReader.instances(pks: found.pks, in: db)
        let items = stored.map { instance in
            var shaped = localize(instance, locale: request.requestedLocale, schema: schema)
            if let fields = request.fields, !fields.isEmpty { shaped = shaped.projected(to: fields) }
            return shaped
        }
        let included = try includedInstances(for: stored, request: request, schema: schema, in: db)
        return SearchPage(
            items: items, total: found.total, page: found.skip ? 1 : found.page, limit: found.skip ? items.count : found.limit,
            skipPagination: found.skip, included: included)
    }

    /// `search` answered as the server sends it: the page's items as one JSON array written from
    /// their stored text (`ContentReader.writeWireJSON`: values are parsed only to localize), so
    /// no instance is built and encoded again. The returned page has no `items`. Not for requests
    /// that `needsInstances`; `search` serves those.
    public static func searchAsWireJSON(
        _ request: SearchRequest, schema: SearchSchema = SearchSchema(), limits: SearchLimits = .default,
        memory: SearchMemory? = nil, in db: any SQLExecutor
    ) throws -> (page: SearchPage, items: String) {
        guard !request.needsInstances else {
            throw ContentStoreError.invalidRequest("a search with fields or include is answered by search(_:), not as stored JSON")
        }
        let found = try matchingPage(request, schema: schema, limits: limits, memory: memory, in: db)
        var items = "["
        var count = 0
        try ContentReader.forEachRow(pks: found.pks, in: db) { row in
            if count > 0 { items += "," }
            try ContentReader.writeWireJSON(
                of: row, locale: request.requestedLocale, localizedFields: schema.localizedFields(row.text(2) ?? ""), into: &items)
            count += 1
        }
        items += "]"
        let page = SearchPage(
            items: [], total: found.total, page: found.skip ? 1 : found.page, limit: found.skip ? count : found.limit,
            skipPagination: found.skip)
        return (page, items)
    }

    /// What a search matches: the keys of the requested page in order, and the page's numbers.
    private static func matchingPage(
        _ request: SearchRequest, schema: SearchSchema, limits: SearchLimits, memory: SearchMemory?, in db: any SQLExecutor
    ) throws -> (pks: [Int64], total: Int, page: Int, limit: Int, skip: Bool) {
        try request.checkLimits(limits)
        try request.searchValues?.validate(maxDepth: limits.filterDepth)
        try request.metaSearch?.validate(maxDepth: limits.filterDepth)
        if let filter = request.metaSearch { try FilterEvaluator.validateMetadata(filter) }
        let sortKeys = try request.sortKeys()
        let segmentMode = try request.resolvedSegmentMode()
        let skip = request.pagination?.skip ?? false
        let page = request.pagination?.page ?? 1
        let limit = request.pagination?.limit ?? 10
        guard skip || (page >= 1 && limit >= 1) else {
            throw ContentStoreError.invalidRequest("pagination needs page ≥ 1 and limit ≥ 1 (got page \(page), limit \(limit))")
        }

        // Client-chosen page numbers can be absurd: saturate instead of overflowing.
        let (product, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        let offset = skip ? 0 : (overflow ? Int.max : product)

        let keys = db.dialect == .postgres ? try PostgresKeys(in: db) : nil
        let scope = try narrowedScope(moduleScope(of: request, schema: schema), modulesWithInstances: keys?.modules, in: db)
        // A positive value filter only matches instances of the scoped modules (the fields it
        // compares are theirs), so their instance list, a scan of every key of those modules, is
        // not needed: all instances stand in for it (negations stay inside the filter's `and`s).
        let scopedByFilter = scope != nil && (request.searchValues?.matchesOnlyItsFields ?? false)
        let (capacity, universe, live) = try searchedInstances(scope: scopedByFilter ? nil : scope, postgresKeys: keys, in: db)
        var evaluator = FilterEvaluator(db: db, universe: universe, moduleScope: scope, capacity: capacity)
        let copies = try SearchMemory.View(memory, in: db)
        evaluator.memory = copies
        try evaluator.lookUpFields(
            named: (request.relatedTo ?? []).map(\.fieldName) + (request.searchValues?.properties ?? []))

        var matches = (request.metaSearch?.mentions(property: "deletedAt") ?? false) ? universe : live
        if let ids = request.instanceIds, !ids.isEmpty {
            matches.formIntersection(
                try instanceSet(
                    "SELECT pk FROM content_instance WHERE id IN (\(db.dialect.elements(of: .text)))",
                    [.text(ContentReader.jsonArray(ids))], capacity: capacity, in: db))
        }
        for relation in request.relatedTo ?? [] where !matches.isEmpty {
            let operation: FilterOperation = relation.instanceIds.contains("*") ? .notEqual : .in
            let value: JSONValue = operation == .in ? .array(relation.instanceIds.map(JSONValue.string)) : .null
            evaluator.candidates = matches
            matches.formIntersection(
                try evaluator.evaluate(
                    .compare(relation.fieldName, operation, value), on: .values))
        }
        if let filter = request.searchValues, !matches.isEmpty {
            evaluator.candidates = matches
            matches.formIntersection(try evaluator.evaluate(filter, on: .values))
        }
        if let filter = request.metaSearch, !matches.isEmpty {
            evaluator.candidates = matches
            matches.formIntersection(try evaluator.evaluate(filter, on: .metadata))
        }
        if let tags = request.segmentTags, !tags.isEmpty, !matches.isEmpty {
            matches.formIntersection(try segmentVisible(tags, mode: segmentMode, universe: universe, capacity: capacity, in: db))
        }

        let total = matches.count
        let pks = try orderedPage(
            of: matches, searched: universe.count, sortKeys: sortKeys, scope: scope, limit: skip ? nil : limit,
            offset: offset, memory: copies, in: db)
        return (pks, total, page, limit, skip)
    }

    /// nil = every module; otherwise the union of the named modules (possibly none).
    static func moduleScope(of request: SearchRequest, schema: SearchSchema) -> [String]? {
        var names = request.moduleNames ?? []
        if let name = request.moduleName { names.append(name) }
        let ids = request.moduleIds ?? []
        guard !ids.isEmpty || !names.isEmpty else { return nil }
        let all = ids + names.flatMap(schema.moduleIdsForName)
        return Array(Set(all)).sorted()
    }

    /// nil (no restriction) when `scope` names every module that has instances, as a client
    /// listing all its modules does: "these modules" is then everything, which needs neither a
    /// scan of their keys nor module conditions in the comparisons. `modulesWithInstances`, when
    /// already read, spares reading them.
    private static func narrowedScope(
        _ scope: [String]?, modulesWithInstances: [String]?, in db: any SQLExecutor
    ) throws -> [String]? {
        guard let scope else { return nil }
        let named = Set(scope)
        if let modulesWithInstances { return modulesWithInstances.allSatisfy(named.contains) ? nil : scope }
        var coversAll = true
        try forEachModuleWithInstances(in: db) { module in
            coversAll = named.contains(module)
            return coversAll
        }
        return coversAll ? nil : scope
    }

    /// The modules that have instances, in order, until `body` returns false: one index seek
    /// per module (a skip scan of the module index), not a scan of the instances.
    private static func forEachModuleWithInstances(in db: any SQLExecutor, _ body: (String) -> Bool) throws {
        var module = try db.fetchValue(String.self, "SELECT min(module) FROM content_instance")
        while let current = module, body(current) {
            module = try db.fetchValue(String.self, "SELECT min(module) FROM content_instance WHERE module > ?", current)
        }
    }

    /// What a search on PostgreSQL starts from, read in one statement (a round trip costs more
    /// than these reads): the modules that have instances (SQLite's seeks of
    /// `forEachModuleWithInstances` as one recursive query), the bound of every key, and the keys
    /// no instance holds and the deleted instances' keys, which give every instance and the live
    /// ones without a scan: every key up to the largest is an instance's or a listed gap
    /// (`ContentSchema.keepKeysDenseOnPostgres`).
    private struct PostgresKeys {
        var modules: [String]
        var capacity: Int64
        var universe: RowSet
        var deleted: RowSet

        init(in db: any SQLExecutor) throws {
            let row = try db.select(
                """
                WITH RECURSIVE modules(module) AS (
                    SELECT min(module) FROM content_instance
                    UNION ALL
                    SELECT (SELECT min(module) FROM content_instance WHERE module > modules.module) FROM modules
                    WHERE modules.module IS NOT NULL)
                SELECT (SELECT json_agg(module) FROM modules WHERE module IS NOT NULL)::text,
                    (SELECT coalesce(max(pk), 0) FROM content_instance),
                    \(KeyScan.packedKeys(of: "SELECT pk FROM content_key_gap")),
                    \(KeyScan.packedKeys(of: "SELECT pk FROM content_instance WHERE deleted_at IS NOT NULL"))
                """, bindings: [])
            guard let values = row.first?.values, values.count == 4 else {
                throw ContentStoreError.corruptData("the search's first query returned no row")
            }
            let moduleList = try row[0].get(at: 0, as: String?.self) ?? "[]"
            modules = try JSONValue(string: moduleList).arrayValue?.compactMap(\.stringValue) ?? []
            capacity = try row[0].get(at: 1, as: Int64.self) + 1
            var gaps = RowSet(capacity: capacity)
            KeyScan.unpack(values[2], into: &gaps)
            universe = gaps.complement(in: RowSet(filledBelow: capacity))
            deleted = RowSet(capacity: capacity)
            KeyScan.unpack(values[3], into: &deleted)
        }
    }

    private static func instanceSet(
        _ sql: String, _ arguments: [SQLValue], capacity: Int64, in db: any SQLExecutor
    ) throws -> RowSet {
        try KeyScan.rowSet(sql, arguments, capacity: capacity, in: db)
    }

    /// The instances of the searched modules (what negations complement), the live (not
    /// deleted) ones among them, and the bound of every key (`capacity`, one past the largest).
    private static func searchedInstances(scope: [String]?, postgresKeys: PostgresKeys?, in db: any SQLExecutor) throws -> (
        capacity: Int64, universe: RowSet, live: RowSet
    ) {
        if scope == nil, let keys = postgresKeys {
            return (keys.capacity, keys.universe, keys.deleted.complement(in: keys.universe))
        }
        let capacity: Int64
        if let keys = postgresKeys {
            capacity = keys.capacity
        } else {
            capacity = (try db.fetchValue(Int64.self, "SELECT max(pk) FROM content_instance") ?? 0) + 1
        }
        guard let scope else {
            // SQLite, all modules: when no key was ever freed, every key up to max(pk) exists and
            // the universe needs no scan; deleted instances come from a small partial index.
            let count = try db.fetchValue(Int64.self, "SELECT count(*) FROM content_instance") ?? 0
            var universe = RowSet(capacity: capacity)
            if count == capacity - 1 {
                universe = RowSet(filledBelow: capacity)
            } else {
                universe = try instanceSet("SELECT pk FROM content_instance", [], capacity: capacity, in: db)
            }
            let deleted = try instanceSet(
                "SELECT pk FROM content_instance WHERE deleted_at IS NOT NULL", [], capacity: capacity, in: db)
            return (capacity, universe, deleted.complement(in: universe))
        }
        var universe = RowSet(capacity: capacity)
        var live = RowSet(capacity: capacity)
        guard let db = db as? Database else {
            let sql = "SELECT pk, deleted_at IS NULL FROM content_instance WHERE module IN (\(db.dialect.elements(of: .text)))"
            for row in try db.fetchAll(sql, ContentReader.jsonArray(scope)) {
                let pk: Int64 = try row.get(at: 0)
                universe.insert(pk)
                if try row.get(at: 1, as: Bool.self) { live.insert(pk) }
            }
            return (capacity, universe, live)
        }
        try KeyScan.forEach(
            db.cachedStatement(sql: "SELECT pk, deleted_at IS NULL FROM content_instance WHERE module IN (SELECT value FROM json_each(?))"),
            arguments: [ContentReader.jsonArray(scope)], in: db
        ) { row in
            let pk = KeyScan.int64(row, 0)
            universe.insert(pk)
            if KeyScan.int64(row, 1) == 1 { live.insert(pk) }
        }
        return (capacity, universe, live)
    }

    /// Untagged instances are visible to everyone; tagged ones must share one (partial) or all
    /// (total) of the requested (name, value) pairs.
    private static func segmentVisible(
        _ tags: [WireTag], mode: SegmentMode, universe: RowSet, capacity: Int64, in db: any SQLExecutor
    ) throws -> RowSet {
        let tagged = try instanceSet("SELECT DISTINCT instance FROM content_tag", [], capacity: capacity, in: db)
        var matching: RowSet? = nil
        for tag in tags {
            let carriers = try instanceSet(
                "SELECT instance FROM content_tag WHERE name = ? AND value = ?", [.text(tag.name), .text(tag.value)], capacity: capacity,
                in: db)
            if var current = matching {
                if mode == .partial { current.formUnion(carriers) } else { current.formIntersection(carriers) }
                matching = current
            } else {
                matching = carriers
            }
        }
        var visible = tagged.complement(in: universe)
        if let matching { visible.formUnion(matching) }
        return visible
    }

    /// The pks of one page of `matches` in sort order (all of them when `limit` is nil).
    ///
    /// Two strategies: when matches are many and indexes deliver the sort order (its first key one
    /// of `sqliteIndexedOrders`), walk the modules' indexes merged into one ordered stream and
    /// keep members until the page is full: cost proportional to the page, not to the matches.
    /// Otherwise hand SQLite the matching keys and let it sort them (a top-N sort with a limit).
    private static func orderedPage(
        of matches: RowSet, searched: Int, sortKeys: [SortKey], scope: [String]?, limit: Int?, offset: Int,
        memory: SearchMemory.View?, in db: any SQLExecutor
    ) throws -> [Int64] {
        let count = matches.count
        guard count > 0, offset < count else { return [] }
        if let order = memory?.ordered(orderBy(sortKeys)) {
            return order.page(of: matches, limit: limit, offset: offset)
        }
        // Expected rows walked: (offset + limit) / density, where `searched` bounds the instances
        // the walk may pass over; worth it when far below the matches a sort would read.
        // The merged walk steps SQLite's statements; PostgreSQL walks its index of the order in chunks.
        if let limit, let db = db as? Database, sqliteIndexedOrders.contains(sortKeys[0].field),
            (Double(offset) + Double(limit)) * Double(searched) / Double(count) < Double(count) / 4,
            let walk = try mergedIndexWalk(sortKeys: sortKeys, scope: scope, in: db)
        {
            var page: [Int64] = []
            var skipped = 0
            try KeyScan.walk(
                walk.statement, arguments: walk.arguments, in: db,
                while: { row in
                    let pk = KeyScan.int64(row, 0)
                    if matches.contains(pk) {
                        if skipped < offset { skipped += 1 } else { page.append(pk) }
                    }
                    return page.count < limit
                })
            return page
        }
        if let limit, db.dialect == .postgres, scope == nil, postgresIndexedOrders.contains(sortKeys[0].field),
            (Double(offset) + Double(limit)) * Double(searched) / Double(count) < Double(count) / 4
        {
            return try walkedPage(
                of: matches, sortKeys: sortKeys, limit: limit, offset: offset,
                expectedWalk: (Double(offset) + Double(limit)) * Double(searched) / Double(count), in: db)
        }
        // PostgreSQL: `= ANY(ARRAY(…))` makes the keys one index condition, half the time of a
        // semi-join on the list.
        let member =
            db.dialect == .postgres
            ? "pk = ANY(ARRAY(\(db.dialect.elements(of: .integer))))" : "pk IN (\(db.dialect.elements(of: .integer)))"
        let sql = """
            SELECT pk FROM content_instance WHERE \(member)
            ORDER BY \(orderBy(sortKeys, db.dialect)) LIMIT ? OFFSET ?
            """
        let keys = ContentReader.jsonArray(matches.members)
        if let db = db as? Database {
            return try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: [keys, limit ?? -1, offset])
        }
        // No limit: NULL to PostgreSQL (-1 to SQLite).
        let bindings: [SQLValue] = [.text(keys), limit.map { .integer(Int64($0)) } ?? .null, .integer(Int64(offset))]
        return try db.select(sql, bindings: bindings).map { try $0.get(at: 0) }
    }

    /// PostgreSQL's merged walk: every instance in sort order, along the index of the order
    /// (`postgresIndexedOrders`), a chunk of keys per query, keeping
    /// members of `matches` until the page is full. A chunk is twice the rows the page is expected
    /// to need, and doubles when that was not enough.
    private static func walkedPage(
        of matches: RowSet, sortKeys: [SortKey], limit: Int, offset: Int, expectedWalk: Double, in db: any SQLExecutor
    ) throws -> [Int64] {
        var page: [Int64] = []
        var skipped = 0
        var position: Int64 = 0
        var chunk = Int64(min(max(512, 2 * expectedWalk), Double(1 << 20)))
        // Names: first by the prefix their index holds, which orders them as the names do but for
        // ties, which the rest of the order breaks.
        let first = sortKeys[0]
        let prefix = first.field == .name ? "\(ContentSchema.postgresNameOrderPrefix) \(first.ascending ? "ASC" : "DESC"), " : ""
        let sql =
            "SELECT array_to_string(ARRAY(SELECT pk FROM content_instance ORDER BY \(prefix)\(orderBy(sortKeys, .postgres)) LIMIT ? OFFSET ?), ',')"
        while true {
            let keys: String = try db.select(sql, bindings: [.integer(chunk), .integer(position)]).first?.get(at: 0) ?? ""
            var read: Int64 = 0
            for key in keys.split(separator: ",") {
                read += 1
                guard let pk = Int64(key), matches.contains(pk) else { continue }
                if skipped < offset {
                    skipped += 1
                } else {
                    page.append(pk)
                    if page.count == limit { return page }
                }
            }
            if read < chunk { return page }
            position += chunk
            chunk *= 2
        }
    }

    /// The ORDER BY list of the sort keys, then the id (so the order is total). Nulls come first
    /// ascending and last descending, as SQLite orders them (PostgreSQL is told so).
    /// Columns that are never null (the name, `createdAt`, and `updatedAt`, which falls back to
    /// it) get no NULLS clause: PostgreSQL then reads their indexes in either direction.
    private static func orderBy(_ sortKeys: [SortKey], _ dialect: SQLDialect = .sqlite) -> String {
        let nulls = { (key: SortKey) in
            dialect != .postgres || [.createdAt, .updatedAt, .name].contains(key.field)
                ? "" : key.ascending ? " NULLS FIRST" : " NULLS LAST"
        }
        return (sortKeys.map { "\($0.field.orderExpression) \($0.ascending ? "ASC" : "DESC")\(nulls($0))" } + ["id ASC"])
            .joined(separator: ", ")
    }

    /// The orders PostgreSQL has an index of over every module (`content_instance_created`,
    /// `content_instance_changed`, `ContentSchema.postgresOrderIndexes`): `walkedPage` reads them.
    private static let postgresIndexedOrders: Set<SortField> = [.createdAt, .updatedAt, .name, .publishedAt]

    /// The orders SQLite has an index of within each module (`content_instance_module_created`,
    /// `ContentSchema.lastChangedIndex`, `ContentSchema.sqliteOrderIndexes`): `mergedIndexWalk`
    /// reads them.
    private static let sqliteIndexedOrders: Set<SortField> = [.createdAt, .updatedAt, .publishedAt]

    /// Most modules a merged walk reads at once; beyond, the matches are sorted instead.
    private static let maxMergedModules = 64

    /// Every instance of the modules (all when `scope` is nil) in sort order, as one statement:
    /// one arm per module reads that module's (module, date) index in order, and SQLite merges
    /// the arms (a compound SELECT ordered by its columns is a merge, not a sort). Ties on the
    /// date are ordered by the later keys within each arm, so the stream is the full order.
    private static func mergedIndexWalk(
        sortKeys: [SortKey], scope: [String]?, in db: Database
    ) throws -> (statement: Statement, arguments: StatementArguments)? {
        var modules: [String] = []
        if let scope {
            modules = scope
        } else {
            try forEachModuleWithInstances(in: db) { module in
                modules.append(module)
                return modules.count <= maxMergedModules
            }
        }
        guard !modules.isEmpty else { return nil }
        if modules.count > maxMergedModules {
            // Too many arms: every module at once has an index of its own for these dates only.
            guard scope == nil, [SortField.createdAt, .publishedAt].contains(sortKeys[0].field) else { return nil }
            return (try db.cachedStatement(sql: "SELECT pk FROM content_instance ORDER BY \(orderBy(sortKeys))"), [])
        }
        let columns = (["pk"] + sortKeys.map(\.field.orderExpression) + ["id"]).joined(separator: ", ")
        let arm = "SELECT \(columns) FROM content_instance WHERE module = ?"
        let order =
            (sortKeys.enumerated().map { "\($0.offset + 2) \($0.element.ascending ? "ASC" : "DESC")" }
            + ["\(sortKeys.count + 2) ASC"]).joined(separator: ", ")
        let sql = Array(repeating: arm, count: modules.count).joined(separator: " UNION ALL ") + " ORDER BY \(order)"
        return (try db.cachedStatement(sql: sql), StatementArguments(modules))
    }

    private static func localize(_ instance: WireInstance, locale: String?, schema: SearchSchema) -> WireInstance {
        guard let locale else { return instance }
        return instance.localized(to: locale, fields: schema.localizedFields(instance.module))
    }

    /// The not-deleted instances the page's relation fields point at (see `SearchPage.included`).
    private static func includedInstances(
        for items: [WireInstance], request: SearchRequest, schema: SearchSchema, in db: any SQLExecutor
    ) throws -> [WireInstance] {
        guard let include = request.include, !include.isEmpty else { return [] }
        let includeAll = include.contains("all")
        let named = Set(include.map(SearchRequest.fieldName(fromProjection:)))
        var ids = Set<String>()
        for item in items {
            let fields = includeAll ? schema.relationFields(item.module) : named
            for field in fields {
                switch item.values[field] {
                case .string(let id)?: ids.insert(id)
                case .array(let elements)?: ids.formUnion(elements.compactMap(\.stringValue))
                default: break
                }
            }
        }
        return try instances(ids: ids.sorted(), in: db)
            .filter { $0.deletedAt == nil }
            .map { localize($0, locale: request.requestedLocale, schema: schema) }
    }
}

extension FilterNode {
    /// True when every instance the filter matches has a value in one of the compared fields,
    /// i.e. nothing comes from a complement: `=`, `in` (without null), ranges and `like`; an
    /// `and` with one such operand; an `or` of only such operands.
    var matchesOnlyItsFields: Bool {
        switch self {
        case .condition(.and, let operands): return operands.contains { $0.matchesOnlyItsFields }
        case .condition(.or, let operands): return operands.allSatisfy { $0.matchesOnlyItsFields }
        case .condition: return false
        case .comparison(let c):
            switch c.operation {
            case .equal, .in: return !(c.value.arrayValue ?? [c.value]).contains { $0.isNull }
            case .greater, .less, .greaterOrEqual, .lessOrEqual, .like: return true
            case .notEqual, .notIn, .unrecognized: return false
            }
        }
    }

    /// The properties the tree's comparisons name.
    var properties: Set<String> {
        switch self {
        case .condition(_, let operands): return operands.reduce(into: []) { $0.formUnion($1.properties) }
        case .comparison(let comparison): return [comparison.property]
        }
    }

    /// True when any comparison in the tree names `property`.
    func mentions(property: String) -> Bool {
        switch self {
        case .condition(_, let operands): return operands.contains { $0.mentions(property: property) }
        case .comparison(let comparison): return comparison.property == property
        }
    }
}
