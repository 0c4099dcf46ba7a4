import ArgumentParser
import Foundation
import HaloServices

private func date(_ value: Date?) -> String {
    guard let value else { return "-" }
    return ISO8601DateFormatter().string(from: value)
}

private func printInstances(_ instances: [ContentInstance], json: Bool) {
    if json {
        printJSON(.array(instances.map(\.wireJSON)))
    } else {
        printTable(
            ["ID", "NAME", "MODULE", "PUBLISHED", "UPDATED"],
            instances.map { [$0.id ?? "-", $0.name, $0.moduleId, date($0.publishedAt), date($0.updatedAt ?? $0.createdAt)] })
    }
}

private func printInstance(_ instance: ContentInstance, json: Bool) {
    if json { printJSON(instance.wireJSON) } else { printInstances([instance], json: false) }
}

/// One line on stderr when an edit did not simply reach the server through the offline cache:
/// `halo: warning: the offline cache is unusable (…); the edit was sent directly`, or the edit
/// waits in the outbox (the server could not be reached; a later edit sends it first).
private func warn(about outcome: EditOutcome) {
    let line: String
    if let notice = outcome.notice {
        line = notice.prefix(1).lowercased() + notice.dropFirst().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    } else if outcome.isPending {
        line = "the server could not be reached; the edit waits in the offline outbox and is sent by a later edit"
    } else {
        return
    }
    FileHandle.standardError.write(Data("halo: warning: \(line)\n".utf8))
}

/// Reads an instance document (§10 JSON).
private func readInstance(_ path: String?) throws(HaloError) -> ContentInstance {
    try instance(from: try readJSONInput(path))
}

/// An instance from user input; a new one may omit `createdAt` (the client clock is used, as iOS did).
func instance(from json: JSONValue) throws(HaloError) -> ContentInstance {
    var json = json
    if case .object(var object) = json, object["createdAt"] == nil {
        object["createdAt"] = .number((Date().timeIntervalSince1970 * 1000).rounded())
        json = .object(object)
    }
    do { return try ContentInstance(wire: json) } catch {
        throw .invalidInput(message: "The input is not a content instance: \(error)")
    }
}

/// Parses a filter: JSON (`{"condition":…}` / `{"operation":…}`, on values) or an expression such
/// as `price >= 10 and (inStock = true or title like ab) and meta.updatedAt > @2024-05-01`
/// (`SearchFilters`: `meta.` properties are metadata).
private func parseFilters(_ text: String) throws(HaloError) -> SearchFilters {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    do {
        if trimmed.hasPrefix("{") { return SearchFilters(values: try SearchFilter(wire: try JSONValue(string: trimmed))) }
        return try SearchFilters.parse(expression: trimmed)
    } catch {
        throw .invalidInput(message: "Invalid filter \"\(text)\": \(error)")
    }
}

/// Parses a metadata filter: JSON or an expression whose properties are metadata names.
private func parseMetadataFilter(_ text: String) throws(HaloError) -> SearchFilter {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    do {
        if trimmed.hasPrefix("{") { return try SearchFilter(wire: try JSONValue(string: trimmed)) }
        return try SearchFilter.parse(expression: trimmed)
    } catch {
        throw .invalidInput(message: "Invalid filter \"\(text)\": \(error)")
    }
}

struct Modules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the modules.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let core = try await global.startSession()
        let modules = try await core.content.getModules().modules
        if global.json {
            printJSON(.array(modules.map(\.wireJSON)))
        } else {
            printTable(
                ["ID", "NAME", "SINGLE", "UPDATED"],
                modules.map { [$0.id ?? "-", $0.name ?? "-", $0.isSingle ? "yes" : "no", date($0.updatedAt)] })
        }
    }
}

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search content instances.",
        discussion: """
            Filters are JSON filter trees or expressions: property OP value joined with and/or and
            parentheses, OP one of = != > < >= <= in !in like, e.g.
            'price >= 10 and (inStock = true or title like ab)'. In --filter, metadata properties
            are written meta.name, meta.updatedAt…: 'price >= 10 and meta.updatedAt > @2024-05-01'.
            """)
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Module name.") var module: String?
    @Option(name: .long, help: "Module id (repeatable).") var moduleId: [String] = []
    @Option(name: .long, help: "Filter on values, and on metadata as meta.<name> (expression or JSON).") var filter: String?
    @Option(name: .long, help: "Filter on metadata (name, createdAt, publishedAt…).") var meta: String?
    @Option(name: .long, help: "Sort, e.g. 'updatedAt desc'.") var sort: String?
    @Option(name: .long, help: "Locale code, e.g. en-US.") var locale: String?
    @Option(name: .long, help: "Page number (with --limit).") var page: Int?
    @Option(name: .long, help: "Page size.") var limit: Int?
    @Flag(name: .long, help: "Print the request body (JSON) this search would send, and send nothing.") var printRequest = false

    func run() async throws {
        var query = SearchQuery()
        if let module { query = query.moduleName(module) }
        if !moduleId.isEmpty { query = query.moduleIds(moduleId) }
        if let filter { query = query.filters(try parseFilters(filter)) }
        if let meta {
            let metadata = try parseMetadataFilter(meta)
            query = query.metaFilter(query.metaFilter.map { and($0, metadata) } ?? metadata)
        }
        if let sort {
            for part in sort.split(separator: ",") {
                let words = part.split(separator: " ")
                guard let field = words.first.flatMap({ SortBy(rawValue: String($0)) }) else {
                    throw HaloError.invalidInput(
                        message: "Cannot sort by \"\(part)\"; fields: \(SortBy.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                let order: SortingOrder = words.count > 1 && words[1].lowercased().hasPrefix("desc") ? .descending : .ascending
                query = query.addSortBy(field: field, order: order)
            }
        }
        if let locale {
            guard let code = HaloLocale(knownCode: locale) else { throw HaloError.invalidInput(message: "Unknown locale \(locale)") }
            query = query.locale(code)
        }
        if page != nil || limit != nil {
            query = query.pagination(page: page ?? 1, limit: limit ?? 10)
        } else {
            query = query.skipPagination()
        }
        if printRequest { return printJSON(query.body()) }
        let core = try await global.startSession()
        let result = try await core.content.search(query: query)
        if global.json {
            printJSON(.object(["pagination": result.paginationInfo.wireJSON, "items": .array(result.instances.map(\.wireJSON))]))
        } else {
            printInstances(result.instances, json: false)
            let info = result.paginationInfo
            print("\(info.totalItems) item(s), page \(info.page) of \(info.totalPages)")
        }
    }
}

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one instance by id.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Instance id.") var id: String

    func run() async throws {
        let core = try await global.startSession()
        let result = try await core.content.search(query: SearchQuery().instanceIds([id]).skipPagination())
        guard let instance = result.instances.first(where: { $0.id == id }) else {
            throw HaloError.server(status: 404, message: "Instance \(id) not found", extra: nil)
        }
        if global.json {
            printJSON(instance.wireJSON)
        } else {
            printInstance(instance, json: false)
            printJSON(.object(instance.values))
        }
    }
}

struct Save: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create or update an instance from JSON (stdin or --file); with an id it updates.")
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "JSON file ('-' or absent: stdin).") var file: String?

    func run() async throws {
        let instance = try readInstance(file)
        let core = try await global.startSession()
        let outcome = try await core.content.saveOrQueue(instance)
        warn(about: outcome)
        printInstance(outcome.instance, json: global.json)
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an instance by id.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Instance id.") var id: String

    func run() async throws {
        let core = try await global.startSession()
        let outcome = try await core.content.deleteOrQueue(instanceId: id)
        warn(about: outcome)
        printInstance(outcome.instance, json: global.json)
    }
}

struct Batch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a batch from JSON (stdin or --file).",
        discussion:
            "Input: {\"created\":[…], \"updated\":[…], \"createdOrUpdated\":[…], \"deleted\":[{\"id\":…}], \"truncated\":[{\"module\":…}]}."
    )
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "JSON file ('-' or absent: stdin).") var file: String?

    func run() async throws {
        let operations = try Self.operations(from: try readJSONInput(file))
        let core = try await global.startSession()
        let result = try await core.content.batch(operations: operations)
        if global.json {
            printJSON(
                .array(
                    result.operations.map { operation in
                        var object: [String: JSONValue] = [
                            "operation": .string(operation.operation.rawValue), "position": .number(Double(operation.position)),
                            "success": .bool(operation.success),
                        ]
                        object["data"] = operation.data
                        return .object(object)
                    }))
        } else {
            printTable(
                ["OPERATION", "POSITION", "RESULT", "DETAIL"],
                result.operations.map { operation in
                    [
                        operation.operation.rawValue, String(operation.position), operation.success ? "ok" : "failed",
                        operation.error.map { "\($0.status) \($0.message)" } ?? operation.instance?.id ?? operation.deletedInstances.map {
                            "\($0) deleted"
                        } ?? "",
                    ]
                })
        }
        if !result.failed.isEmpty {
            throw HaloError.server(
                status: 400, message: "\(result.failed.count) of \(result.operations.count) batch operation(s) failed", extra: nil)
        }
    }

    /// Builds the operations from the §13.1 request shape (iOS or Android keys).
    static func operations(from json: JSONValue) throws(HaloError) -> BatchOperations {
        guard case .object(let object) = json else { throw .invalidInput(message: "The batch must be a JSON object") }
        var operations = BatchOperations()
        func instances(_ key: String) throws(HaloError) -> [ContentInstance] {
            guard let items = object[key] else { return [] }
            guard let array = items.arrayValue else { throw .invalidInput(message: "\(key) must be an array") }
            var result: [ContentInstance] = []
            for item in array { result.append(try instance(from: item)) }
            return result
        }
        try instances("created").forEach { operations.create($0) }
        try instances("updated").forEach { operations.update($0) }
        try instances("createdOrUpdated").forEach { operations.createOrUpdate($0) }
        for item in object["deleted"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue else { throw .invalidInput(message: "deleted items need an id") }
            operations.delete(instanceId: id)
        }
        for item in (object["truncated"]?.arrayValue ?? []) + (object["truncate"]?.arrayValue ?? []) {
            guard let module = item["module"]?.stringValue else { throw .invalidInput(message: "truncated items need a module id") }
            operations.truncate(moduleId: module)
        }
        guard !operations.isEmpty else { throw .invalidInput(message: "The batch has no operations") }
        return operations
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sync a module (one request) and print the changes.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Module name (or id with --by-id).") var module: String
    @Flag(name: .long, help: "The argument is a module id.") var byId = false
    @Option(name: .long, help: "Only changes after this time (epoch milliseconds).") var from: Double?
    @Option(name: .long, help: "Locale code (default en-US).") var locale: String?

    func run() async throws {
        var query = byId ? SyncQuery(moduleId: module) : SyncQuery(moduleName: module)
        if let from { query = query.fromSync(Date(timeIntervalSince1970: from / 1000)) }
        if let locale {
            guard let code = HaloLocale(knownCode: locale) else { throw HaloError.invalidInput(message: "Unknown locale \(locale)") }
            query = query.locale(code)
        }
        let core = try await global.startSession()
        let result = try await core.content.sync(query: query)
        if global.json {
            printJSON(
                .object([
                    "syncTimestamp": .number(Double(result.syncTimestamp)), "created": .array(result.created.map(\.wireJSON)),
                    "updated": .array(result.updated.map(\.wireJSON)),
                    "deleted": .array(result.deleted.map { .object(["id": .string($0)]) }),
                ]))
        } else {
            print(
                "created \(result.created.count), updated \(result.updated.count), deleted \(result.deleted.count); syncTimestamp \(result.syncTimestamp)"
            )
        }
    }
}
