import HaloContentStore
import Hummingbird

/// E15–E17: create, update, delete one instance (§12). Needs a token with edit rights (else 403).
enum EditionRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/generalcontent/instance") { request, _ in
            let input = try InstanceInput(try await RequestInput.jsonObject(request, limit: env.maxBodyBytes))
            let created = try await env.write(request, requiresEditRights: true) { db, principal in
                try ContentEditor(clock: env.clock, principal: principal, db: db).create(input)
            }
            return try JSONResponse.make(encoding: created)
        }

        router.put("/api/generalcontent/instance/:instanceId") { request, context in
            let id = try context.parameters.require("instanceId")
            let input = try InstanceInput(try await RequestInput.jsonObject(request, limit: env.maxBodyBytes))
            if !input.instance.id.isEmpty && input.instance.id != id {
                throw APIError.badRequest("The body's id \(input.instance.id) differs from the path's id \(id)")
            }
            let updated = try await env.write(request, requiresEditRights: true) { db, principal in
                try ContentEditor(clock: env.clock, principal: principal, db: db).update(id: id, input)
            }
            return try JSONResponse.make(encoding: updated)
        }

        router.delete("/api/generalcontent/instance/:instanceId") { request, context in
            let id = try context.parameters.require("instanceId")
            let deleted = try await env.write(request, requiresEditRights: true) { db, principal in
                try ContentEditor(clock: env.clock, principal: principal, db: db).delete(id: id)
            }
            return try JSONResponse.make(encoding: deleted)
        }
    }
}
