import GRDB
import HaloContentStore
import Hummingbird

/// E18 `POST /api/generalcontent/instance/batch` (§13).
///
/// The whole batch is ONE transaction; each operation runs in its own savepoint, so a failing
/// operation is rolled back alone and reported, while the successful ones commit together. A
/// crash mid-batch leaves all of it or none of it.
enum BatchRoutes {
    /// Wire names of the operation kinds, in the order they run and are reported (§13.2).
    enum Kind: String, CaseIterable {
        case truncate, create, update, createOrUpdate, delete

        /// Request keys naming this kind; iOS says `truncated`, Android `truncate` (§21).
        var requestKeys: [String] {
            switch self {
            case .truncate: return ["truncate", "truncated"]
            case .create: return ["created"]
            case .update: return ["updated"]
            case .createOrUpdate: return ["createdOrUpdated"]
            case .delete: return ["deleted"]
            }
        }
    }

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/generalcontent/instance/batch") { request, _ in
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            var work: [(Kind, [JSONValue])] = []
            for kind in Kind.allCases {
                var items: [JSONValue] = []
                for key in kind.requestKeys {
                    switch body[key] {
                    case nil, .null?: continue
                    case .array(let list)?: items += list
                    default: throw APIError.badRequest("'\(key)' must be an array")
                    }
                }
                work.append((kind, items))
            }
            let operations = work
            let answer = try await env.write(request, requiresEditRights: true) { db, principal in
                try run(operations, editor: ContentEditor(clock: env.clock, principal: principal, db: db), db)
            }
            return JSONResponse.make(answer)
        }
    }

    private static func run(_ work: [(Kind, [JSONValue])], editor: ContentEditor, _ db: any SQLExecutor) throws -> JSONValue {
        var operations: [JSONValue] = []
        var counts: [Kind: (success: Int, failure: Int)] = [:]
        for (kind, items) in work {
            for (position, item) in items.enumerated() {
                var entry: [String: JSONValue] = ["operation": .string(kind.rawValue), "position": .number(Double(position))]
                var outcome: Result<JSONValue, any Error> = .failure(APIError.badRequest("not run"))
                try db.withSavepoint {
                    do {
                        outcome = .success(try apply(kind, item, editor: editor, entry: &entry))
                        return true
                    } catch {
                        outcome = .failure(error)
                        return false
                    }
                }
                switch outcome {
                case .success(let data):
                    entry["success"] = true
                    entry["data"] = data
                    counts[kind, default: (0, 0)].success += 1
                case .failure(let error):
                    // Database failures (disk full, I/O) abort the whole batch; client mistakes are per operation.
                    if error is DatabaseError || error is PostgresStorageError { throw error }
                    entry["success"] = false
                    entry["data"] = ["error": ErrorEnvelopeMiddleware<ServerContext>.apiError(for: error, path: "").errorObject]
                    counts[kind, default: (0, 0)].failure += 1
                }
                operations.append(.object(entry))
            }
        }
        let success = counts.values.reduce(0) { $0 + $1.success }
        let failure = counts.values.reduce(0) { $0 + $1.failure }
        var results: [String: JSONValue] = [
            "total": [
                "total": .number(Double(success + failure)), "success": .number(Double(success)), "failure": .number(Double(failure)),
            ]
        ]
        for kind in Kind.allCases {
            let count = counts[kind] ?? (0, 0)
            results[kind.rawValue] = ["success": .number(Double(count.success)), "failure": .number(Double(count.failure))]
        }
        return ["operations": .array(operations), "results": .object(results)]
    }

    private static func apply(_ kind: Kind, _ item: JSONValue, editor: ContentEditor, entry: inout [String: JSONValue])
        throws -> JSONValue
    {
        switch kind {
        case .truncate:
            let moduleId = item["module"]?.stringValue ?? ""
            entry["module"] = .string(moduleId)
            return ["deletedInstances": .number(Double(try editor.truncate(moduleId: moduleId)))]
        case .create:
            return try encode(editor.create(InstanceInput(item, what: "A created item")))
        case .update:
            let input = try InstanceInput(item, what: "An updated item")
            guard !input.instance.id.isEmpty else { throw APIError.badRequest("An updated item needs its 'id'") }
            return try encode(editor.update(id: input.instance.id, input))
        case .createOrUpdate:
            return try encode(editor.createOrUpdate(InstanceInput(item, what: "A createdOrUpdated item")))
        case .delete:
            guard let id = item["id"]?.stringValue, !id.isEmpty else {
                throw APIError.badRequest("A deleted item needs its 'id'")
            }
            return try encode(editor.delete(id: id))
        }
    }

    private static func encode(_ instance: WireInstance) throws -> JSONValue {
        try JSONValue(data: JSONResponse.encoder().encode(instance))
    }
}
