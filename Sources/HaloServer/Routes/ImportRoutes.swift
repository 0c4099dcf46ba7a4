import HaloContentStore
import Hummingbird

/// Imports (our extension, docs/protocol.md §23.11), for editor tokens: start one for a module,
/// send its rows in chunks (each checked as it arrives), then commit (all at once) or cancel.
enum ImportRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/generalcontent/module/:moduleId/import") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let id = try await importing(request, env) { try $0.start(moduleId: moduleId) }
            return JSONResponse.make(["importId": .string(id)])
        }

        router.post("/api/generalcontent/import/:importId/rows") { request, context in
            let importId = try context.parameters.require("importId")
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            guard case .array(let items)? = body["rows"] else {
                throw APIError.badRequest("'rows' must be a list of {\"line\", \"instance\"}")
            }
            guard items.count <= ContentImport.chunkLimit else {
                throw APIError.badRequest("Send at most \(ContentImport.chunkLimit) rows per request")
            }
            let rows = try items.map { item -> (line: Int, object: [String: JSONValue]) in
                guard let line = item["line"]?.int64Value, let object = item["instance"]?.objectValue else {
                    throw APIError.badRequest("Each row is {\"line\": number, \"instance\": {…}}")
                }
                return (Int(line), object)
            }
            let (staged, problems) = try await importing(request, env) { try $0.stage(rows, into: importId) }
            return JSONResponse.make(["staged": .number(Double(staged)), "problems": .array(problems)])
        }

        router.post("/api/generalcontent/import/:importId/commit") { request, context in
            let importId = try context.parameters.require("importId")
            return JSONResponse.make(try await importing(request, env) { try $0.commit(importId) }.json)
        }

        router.delete("/api/generalcontent/import/:importId") { request, context in
            let importId = try context.parameters.require("importId")
            try await importing(request, env) { try $0.cancel(importId) }
            return JSONResponse.make(["importId": .string(importId), "cancelled": true])
        }
    }

    private static func importing<T: Sendable>(
        _ request: Request, _ env: ServerEnvironment, _ body: @escaping @Sendable (ContentImport) throws -> T
    ) async throws -> T {
        try await env.write(request, requiresEditRights: true) { db, principal in
            try body(ContentImport(clock: env.clock, principal: principal, db: db))
        }
    }
}
