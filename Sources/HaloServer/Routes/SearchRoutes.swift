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
            let page = try await env.searches.run {
                try await env.read(request) { db, _ in try run(search, limits: env.limits.search, in: db) }
            }
            return JSONResponse.make(data: try render(page))
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

    /// Runs the search with what the store needs to know about modules; unknown modules are 400.
    static func run(_ search: SearchRequest, limits: SearchLimits, in db: Database) throws -> SearchPage {
        let modules = try ModuleCatalog.all(in: db)
        let idsByName = Dictionary(grouping: modules, by: \.name).mapValues { $0.map(\.id) }
        let known = Set(modules.map(\.id))
        for id in search.moduleIds ?? [] where !known.contains(id) { throw APIError.badRequest("Unknown module id '\(id)'") }
        for name in (search.moduleNames ?? []) + [search.moduleName].compactMap({ $0 }) where idsByName[name] == nil {
            throw APIError.badRequest("Unknown module name '\(name)'")
        }
        let localized = try ModuleCatalog.localizedFieldNames(in: db)
        let relations = try ModuleCatalog.relationFieldNames(in: db)
        let schema = SearchSchema(
            moduleIdsForName: { idsByName[$0] ?? [] },
            localizedFields: { localized[$0] ?? [] },
            relationFields: { relations[$0] ?? [] })
        return try ContentTables.search(search, schema: schema, limits: limits, in: db)
    }

    /// skip ⇒ plain array; otherwise `{pagination, items}` (§11.4), plus `included` (the related
    /// instances `include` asked for) when there are any.
    static func render(_ page: SearchPage) throws -> Data {
        let encoder = JSONResponse.encoder()
        if page.skipPagination { return try encoder.encode(page.items) }
        // Spliced by hand so the items are encoded once (no JSONValue round trip on the hot path).
        var data = Data("{\"pagination\":".utf8)
        data += Pagination(page: page.page, limit: page.limit, total: page.total).json.data(sortedKeys: false)
        data += Data(",\"items\":".utf8)
        data += try encoder.encode(page.items)
        if !page.included.isEmpty {
            data += Data(",\"included\":".utf8)
            data += try encoder.encode(page.included)
        }
        data += Data("}".utf8)
        return data
    }
}
