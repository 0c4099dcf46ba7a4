import HaloContentStore
import Hummingbird

/// E12 module list and E13 one module (§9).
enum ModuleRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.get("/api/generalcontent/module") { request, _ in
            let query = RequestInput.query(request)
            let skip = query.flag("skip")
            let withFields = query.flag("withFields")
            let page = try query.integer("page", in: 1...env.limits.search.page, default: 1)
            let limit = try query.integer("limit", in: 1...env.limits.search.pageSize, default: 10)
            let answer: JSONValue = try await env.read(request) { db, _ in
                let modules = try ModuleCatalog.all(in: db)
                let chosen = skip ? modules : Array(modules.dropFirst((page - 1) * limit).prefix(limit))
                let items = try chosen.map { module in
                    try ModuleCatalog.json(module, fields: withFields ? try ModuleCatalog.fieldRecords(moduleId: module.id, in: db) : nil)
                }
                // Android needs the plain array with skip=true; iOS accepts either (§9.1).
                if skip { return .array(items) }
                return [
                    "pagination": Pagination(page: page, limit: limit, total: modules.count).json,
                    "items": .array(items), "search": ["facets": [:]], "sort": ["query": "updatedAt desc"],
                ]
            }
            return JSONResponse.make(answer)
        }

        router.get("/api/generalcontent/module/:moduleId") { request, context in
            let id = try context.parameters.require("moduleId")
            let answer: JSONValue = try await env.read(request) { db, _ in
                guard let module = try ModuleCatalog.module(id: id, in: db) else {
                    throw APIError.notFound("Module \(id) not found")
                }
                return try ModuleCatalog.json(module, fields: try ModuleCatalog.fieldRecords(moduleId: id, in: db))
            }
            return JSONResponse.make(answer)
        }
    }
}

/// `{page, limit, offset, totalItems, totalPages}` (§11.4, `pagination_info.json`).
struct Pagination {
    var page: Int
    var limit: Int
    var total: Int

    var json: JSONValue {
        let pages = limit > 0 ? (total + limit - 1) / limit : 0
        return [
            "page": .number(Double(page)), "limit": .number(Double(limit)), "offset": .number(Double((page - 1) * limit)),
            "totalItems": .number(Double(total)), "totalPages": .number(Double(pages)),
        ]
    }
}
