import HaloContentStore
import Hummingbird

/// Module design (our extension, docs/protocol.md §23.10), for editor tokens: modules are
/// created, renamed and deleted, and fields added, edited, removed and reordered. Answers carry
/// the module as `GET /api/generalcontent/module/{id}` shows it; changes that touch stored values
/// add a `report` (how many values were kept, converted or cleared). `?dryRun=true` on a field edit
/// or removal answers the report alone and changes nothing.
enum ModuleDesignRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/generalcontent/module") { request, _ in
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let name = try body.requiredString("name", maxLength: 200)
            let isSingle = try body.optionalBool("isSingle") ?? false
            let fields = try fieldObjects(body["fields"]).map { try FieldDesign.field(from: $0) }
            return try await design(request, env) { designer in
                (try designer.createModule(ModuleSpec(name: name, isSingle: isSingle, fields: fields)), nil)
            }
        }

        router.put("/api/generalcontent/module/:moduleId") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let name = try body.requiredString("name", maxLength: 200)
            return try await design(request, env) { designer in
                try designer.renameModule(moduleId, to: name)
                return (moduleId, nil)
            }
        }

        router.delete("/api/generalcontent/module/:moduleId") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let deleted = try await env.write(request, requiresEditRights: true) { db, principal in
                try ModuleDesigner(clock: env.clock, principal: principal, db: db).deleteModule(moduleId)
            }
            return JSONResponse.make(["id": .string(moduleId), "deletedInstances": .number(Double(deleted))])
        }

        router.post("/api/generalcontent/module/:moduleId/field") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let field = try FieldDesign.field(from: body)
            let position = try body.optionalInteger("position", in: 0...10_000).map { Int($0) }
            return try await design(request, env) { designer in
                _ = try designer.addField(field, to: moduleId, at: position)
                return (moduleId, nil)
            }
        }

        router.put("/api/generalcontent/module/:moduleId/field/:fieldId") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let fieldId = try context.parameters.require("fieldId")
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let clearRefused = try refusedValuesChoice(body)
            let dryRun = RequestInput.query(request).flag("dryRun")
            return try await design(request, env, dryRun: dryRun) { designer in
                let current = try ModuleField(try designer.storedField(fieldId, of: moduleId))
                let field = try FieldDesign.field(from: body, base: current)
                if dryRun { return (moduleId, try designer.preview(fieldId, of: moduleId, becoming: field)) }
                return (moduleId, try designer.editField(fieldId, of: moduleId, becoming: field, clearRefused: clearRefused))
            }
        }

        router.delete("/api/generalcontent/module/:moduleId/field/:fieldId") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let fieldId = try context.parameters.require("fieldId")
            let dryRun = RequestInput.query(request).flag("dryRun")
            return try await design(request, env, dryRun: dryRun) { designer in
                if dryRun { return (moduleId, try designer.previewRemoval(fieldId, of: moduleId)) }
                return (moduleId, try designer.removeField(fieldId, of: moduleId))
            }
        }

        router.put("/api/generalcontent/module/:moduleId/field-order") { request, context in
            let moduleId = try context.parameters.require("moduleId")
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            guard case .array(let items)? = body["fieldIds"], items.allSatisfy({ $0.stringValue != nil }) else {
                throw APIError.badRequest("'fieldIds' must be the list of the module's field ids in their new order")
            }
            return try await design(request, env) { designer in
                try designer.reorderFields(of: moduleId, as: items.compactMap(\.stringValue))
                return (moduleId, nil)
            }
        }
    }

    /// Runs `change` in one write transaction with edit rights; answers the module (with the
    /// report, if any), or the report alone for a dry run.
    private static func design(
        _ request: Request, _ env: ServerEnvironment, dryRun: Bool = false,
        _ change: @escaping @Sendable (ModuleDesigner) throws -> (String, FieldChangeReport?)
    ) async throws -> Response {
        let answer: JSONValue = try await env.write(request, requiresEditRights: true) { db, principal in
            let (moduleId, report) = try change(ModuleDesigner(clock: env.clock, principal: principal, db: db))
            if dryRun, let report { return report.json }
            guard let module = try ModuleCatalog.module(id: moduleId, in: db) else {
                throw APIError.notFound("Module \(moduleId) not found")
            }
            var json = try ModuleCatalog.json(module, fields: try ModuleCatalog.fieldRecords(moduleId: moduleId, in: db))
            if let report, case .object(var members) = json {
                members["report"] = report.json
                json = .object(members)
            }
            return json
        }
        return JSONResponse.make(answer)
    }

    private static func fieldObjects(_ value: JSONValue?) throws -> [[String: JSONValue]] {
        switch value {
        case nil, .null?: return []
        case .array(let items)? where items.count <= 500:
            return try items.map { item in
                guard let object = item.objectValue else { throw APIError.badRequest("'fields' must be a list of field objects") }
                return object
            }
        case .array?: throw APIError.badRequest("A module has at most 500 fields")
        default: throw APIError.badRequest("'fields' must be a list of field objects")
        }
    }

    /// `refusedValues`: "clear" (values the new definition refuses are cleared) or "cancel" (the
    /// default: the change is refused while any value would be lost).
    private static func refusedValuesChoice(_ body: [String: JSONValue]) throws -> Bool {
        switch try body.optionalString("refusedValues") {
        case nil, "cancel"?: return false
        case "clear"?: return true
        case let other?: throw APIError.badRequest("'refusedValues' must be \"clear\" or \"cancel\", not '\(other.prefix(40))'")
        }
    }
}
