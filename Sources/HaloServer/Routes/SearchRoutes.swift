import Foundation
import GRDB
import HaloContentStore
import Hummingbird

/// E14 `POST /api/generalcontent/instance/search` (§11), answered by the content store's search.
/// The `to-cache` header is accepted and ignored (§1.4).
enum SearchRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/generalcontent/instance/search") { request, _ in
            _ = try RequestInput.kind(of: request, accepting: [.json])
            let data = try await RequestInput.bodyData(request, limit: env.maxBodyBytes)
            let search = try decode(data)
            let body: Data = try await env.searches.run {
                try await env.read(request) { db, _ in
                    try answer(search, limits: env.limits.search, memory: env.searchMemory, in: db)
                }
            }
            return JSONResponse.make(data: body)
        }
    }

    private static func decode(_ data: Data) throws -> SearchRequest {
        // The body must at least be a JSON object; an empty body means "no restrictions".
        if data.isEmpty { return try JSONDecoder().decode(SearchRequest.self, from: Data("{}".utf8)) }
        _ = try RequestInput.parseObject(data)
        do {
            return try JSONDecoder().decode(SearchRequest.self, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest("Invalid search request: \(error.clientMessage)")
        }
    }

    /// The answer's body. Without a projection or included instances (the usual search), the
    /// items are written from their stored JSON (`ContentTables.searchAsWireJSON`), half the
    /// CPU of a short search; otherwise from the instances `ContentTables.search` builds.
    static func answer(
        _ search: SearchRequest, limits: SearchLimits, memory: SearchMemory? = nil, in db: any SQLExecutor
    ) throws -> Data {
        let schema = try searchSchema(for: search, in: db)
        if !search.needsInstances {
            let (page, items) = try ContentTables.searchAsWireJSON(
                search, schema: schema, limits: limits, memory: memory, in: db)
            return render(page, items: Data(items.utf8))
        }
        let page = try ContentTables.search(search, schema: schema, limits: limits, memory: memory, in: db)
        let encoder = JSONResponse.encoder()
        return render(
            page, items: try encoder.encode(page.items),
            included: page.included.isEmpty ? nil : try encoder.encode(page.included))
    }

    /// What the store needs to know about modules; unknown modules are 400.
    private static func searchSchema(for search: SearchRequest, in db: any SQLExecutor) throws -> SearchSchema {
        let modules = try ModuleCatalog.all(in: db)
        let idsByName = Dictionary(grouping: modules, by: \.name).mapValues { $0.map(\.id) }
        let known = Set(modules.map(\.id))
        for id in search.moduleIds ?? [] where !known.contains(id) { throw APIError.badRequest("Unknown module id '\(id)'") }
        for name in (search.moduleNames ?? []) + [search.moduleName].compactMap({ $0 }) where idsByName[name] == nil {
            throw APIError.badRequest("Unknown module name '\(name)'")
        }
        let (localized, relations) = try ModuleCatalog.localizedAndRelationFieldNames(in: db)
        return SearchSchema(
            moduleIdsForName: { idsByName[$0] ?? [] },
            localizedFields: { localized[$0] ?? [] },
            relationFields: { relations[$0] ?? [] })
    }

    /// skip ⇒ plain array; otherwise `{pagination, items}` (§11.4), plus `included` (the related
    /// instances `include` asked for) when there are any. `items` and `included` are JSON arrays.
    private static func render(_ page: SearchPage, items: Data, included: Data? = nil) -> Data {
        if page.skipPagination { return items }
        // Spliced by hand so the items are encoded once (no JSONValue round trip on the hot path).
        var data = Data("{\"pagination\":".utf8)
        data += Pagination(page: page.page, limit: page.limit, total: page.total).json.data(sortedKeys: false)
        data += Data(",\"items\":".utf8)
        data += items
        if let included {
            data += Data(",\"included\":".utf8)
            data += included
        }
        data += Data("}".utf8)
        return data
    }
}
