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
    public static func search(_ request: SearchRequest, schema: SearchSchema = SearchSchema(), in db: Database) throws -> SearchPage {
        try request.searchValues?.validate()
        try request.metaSearch?.validate()
        let sortKeys = try request.sortKeys()
        let segmentMode = try request.resolvedSegmentMode()
        let skip = request.pagination?.skip ?? false
        let page = request.pagination?.page ?? 1
        let limit = request.pagination?.limit ?? 10
        guard skip || (page >= 1 && limit >= 1) else {
            throw ContentStoreError.invalidRequest("pagination needs page ≥ 1 and limit ≥ 1 (got page \(page), limit \(limit))")
        }

        let scope = moduleScope(of: request, schema: schema)
        let capacity = (try Int64.fetchOne(db, sql: "SELECT max(pk) FROM content_instance") ?? 0) + 1
        let universe = try instanceSet(
            "SELECT pk FROM content_instance" + (scope == nil ? "" : " WHERE module IN (SELECT value FROM json_each(?))"),
            scope.map { [ContentReader.jsonArray($0)] } ?? [], capacity: capacity, in: db)
        let evaluator = FilterEvaluator(db: db, universe: universe, moduleScope: scope, capacity: capacity)

        var matches = universe
        if !(request.metaSearch?.mentions(property: "deletedAt") ?? false) {
            matches = try instanceSet(
                "SELECT pk FROM content_instance WHERE deletedAt IS NOT NULL", [], capacity: capacity, in: db
            ).complement(in: matches)
        }
        if let ids = request.instanceIds, !ids.isEmpty {
            matches.formIntersection(try instanceSet(
                "SELECT pk FROM content_instance WHERE id IN (SELECT value FROM json_each(?))",
                [ContentReader.jsonArray(ids)], capacity: capacity, in: db))
        }
        for relation in request.relatedTo ?? [] where !matches.isEmpty {
            let operation: FilterOperation = relation.instanceIds.contains("*") ? .notEqual : .in
            let value: JSONValue = operation == .in ? .array(relation.instanceIds.map(JSONValue.string)) : .null
            matches.formIntersection(try evaluator.evaluate(
                .compare(relation.fieldName, operation, value), on: .values))
        }
        if let filter = request.searchValues, !matches.isEmpty {
            matches.formIntersection(try evaluator.evaluate(filter, on: .values))
        }
        if let filter = request.metaSearch, !matches.isEmpty {
            matches.formIntersection(try evaluator.evaluate(filter, on: .metadata))
        }
        if let tags = request.segmentTags, !tags.isEmpty, !matches.isEmpty {
            matches.formIntersection(try segmentVisible(tags, mode: segmentMode, universe: universe, capacity: capacity, in: db))
        }

        let total = matches.count
        let pks = try orderedPage(
            of: matches, sortKeys: sortKeys, limit: skip ? nil : limit, offset: skip ? 0 : (page - 1) * limit, in: db)
        let stored = try ContentReader.instances(pks: pks, in: db)
        let items = stored.map { instance in
            var shaped = localize(instance, locale: request.locale, schema: schema)
            if let fields = request.fields, !fields.isEmpty { shaped = shaped.projected(to: fields) }
            return shaped
        }
        let included = try includedInstances(for: stored, request: request, schema: schema, in: db)
        return SearchPage(
            items: items, total: total, page: skip ? 1 : page, limit: skip ? items.count : limit,
            skipPagination: skip, included: included)
    }

    /// nil = every module; otherwise the union of the named modules (possibly none).
    private static func moduleScope(of request: SearchRequest, schema: SearchSchema) -> [String]? {
        var names = request.moduleNames ?? []
        if let name = request.moduleName { names.append(name) }
        let ids = request.moduleIds ?? []
        guard !ids.isEmpty || !names.isEmpty else { return nil }
        let all = ids + names.flatMap(schema.moduleIdsForName)
        return Array(Set(all)).sorted()
    }

    private static func instanceSet(
        _ sql: String, _ arguments: StatementArguments, capacity: Int64, in db: Database
    ) throws -> RowSet {
        var result = RowSet(capacity: capacity)
        let cursor = try Int64.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let pk = try cursor.next() { result.insert(pk) }
        return result
    }

    /// Untagged instances are visible to everyone; tagged ones must share one (partial) or all
    /// (total) of the requested (name, value) pairs.
    private static func segmentVisible(
        _ tags: [WireTag], mode: SegmentMode, universe: RowSet, capacity: Int64, in db: Database
    ) throws -> RowSet {
        let tagged = try instanceSet("SELECT DISTINCT instance FROM content_tag", [], capacity: capacity, in: db)
        var matching: RowSet? = nil
        for tag in tags {
            let carriers = try instanceSet(
                "SELECT instance FROM content_tag WHERE name = ? AND value = ?", [tag.name, tag.value], capacity: capacity, in: db)
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
    private static func orderedPage(
        of matches: RowSet, sortKeys: [SortKey], limit: Int?, offset: Int, in db: Database
    ) throws -> [Int64] {
        let members = matches.members
        guard !members.isEmpty, offset < members.count else { return [] }
        let order = (sortKeys.map { "i.\($0.field.rawValue) \($0.ascending ? "ASC" : "DESC")" } + ["i.id ASC"])
            .joined(separator: ", ")
        let sql = "SELECT i.pk FROM content_instance i WHERE i.pk IN (SELECT value FROM json_each(?)) ORDER BY \(order) LIMIT ? OFFSET ?"
        return try Int64.fetchAll(
            db.cachedStatement(sql: sql), arguments: [ContentReader.jsonArray(members), limit ?? -1, offset])
    }

    private static func localize(_ instance: WireInstance, locale: String?, schema: SearchSchema) -> WireInstance {
        guard let locale, !locale.isEmpty else { return instance }
        return instance.localized(to: locale, fields: schema.localizedFields(instance.module))
    }

    /// The not-deleted instances the page's relation fields point at (see `SearchPage.included`).
    private static func includedInstances(
        for items: [WireInstance], request: SearchRequest, schema: SearchSchema, in db: Database
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
            .map { localize($0, locale: request.locale, schema: schema) }
    }
}

extension FilterNode {
    /// True when any comparison in the tree names `property`.
    func mentions(property: String) -> Bool {
        switch self {
        case .condition(_, let operands): return operands.contains { $0.mentions(property: property) }
        case .comparison(let comparison): return comparison.property == property
        }
    }
}
