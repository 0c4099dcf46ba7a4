import Foundation
import GRDB
import HaloContentStore

/// Importing a module's instances (our extension, docs/protocol.md §23.11): rows are uploaded in
/// chunks into a staging area (`ImportStaging`), each checked against the module's fields as it
/// arrives (converted where a usual conversion fits, as a type change does: text from a CSV cell
/// becomes a number, a date, a list…), and committed at once in one transaction: all or nothing.
/// A row with an id updates that instance (or creates it with that id); one without creates a new
/// instance; a row equal to the stored instance changes nothing, so importing an export again is
/// a no-op. Runs inside the caller's write transaction.
struct ContentImport {
    let clock: MonotonicClock
    let principal: Principal
    let db: any SQLExecutor

    /// Problems kept per import (the count goes on).
    static let problemLimit = 200
    /// Rows per staged chunk request.
    static let chunkLimit = 2_000
    /// Imports neither committed nor cancelled are dropped after this long.
    static let lifetime: Int64 = 24 * 3600 * 1000

    /// Who may add to, commit or cancel an import: the user, else the app client, that started it.
    private var owner: String { principal.userId ?? principal.clientId ?? principal.displayName }

    func start(moduleId: String) throws -> String {
        guard try ModuleCatalog.module(id: moduleId, in: db) != nil else { throw APIError.notFound("Module \(moduleId) not found") }
        let now = clock.current()
        try ImportStaging.pruneStarted(before: now - Self.lifetime, in: db)
        let id = Identifiers.objectID()
        try ImportStaging.create(id: id, moduleId: moduleId, owner: owner, at: now, in: db)
        return id
    }

    /// Checks and stages `rows` (line number, instance object); answers how many were staged and
    /// the problems found in them (rows with problems are not staged, and the import cannot be
    /// committed while it has any).
    func stage(_ rows: [(line: Int, object: [String: JSONValue])], into importId: String) throws -> (staged: Int, problems: [JSONValue]) {
        let staging = try ownImport(importId)
        let fields = try ModuleCatalog.fields(moduleId: staging.moduleId, in: db)
        let byName = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [JSONValue] = []
        var staged = 0
        for (line, object) in rows {
            func problem(_ field: String?, _ message: String) {
                var entry: [String: JSONValue] = ["line": .number(Double(line)), "message": .string(message)]
                if let field { entry["field"] = .string(field) }
                problems.append(.object(entry))
            }
            guard line >= 1 else { throw APIError.badRequest("'line' must be a line number from 1") }
            if try ImportStaging.hasLine(line, in: importId, in: db) { throw APIError.badRequest("Line \(line) was sent already") }
            var input: InstanceInput
            do { input = try InstanceInput(object) } catch let error as APIError {
                problem(nil, error.message)
                continue
            }
            var rowProblems = problems.count
            let id = input.instance.id
            if !id.isEmpty {
                do { try ContentEditor.checkClientChosenId(id) } catch let error as APIError { problem("id", error.message) }
                if let stored = try ContentTables.moduleAndDeletion(ofInstanceId: id, in: db) {
                    if stored.module != staging.moduleId {
                        problem("id", "\(id) is an instance of another module")
                    } else if stored.isDeleted {
                        problem("id", "\(id) was deleted; leave the id out to create a new instance")
                    }
                }
                if let other = try ImportStaging.line(staging: id, in: importId, in: db) {
                    problem("id", "\(id) is also on line \(other)")
                }
            }
            input.instance.name = input.instance.name.trimmingCharacters(in: .whitespacesAndNewlines)
            if input.instance.name.isEmpty { problem("name", "'name' is required") }
            var values: [String: JSONValue] = [:]
            for key in input.instance.values.keys.sorted() {
                guard let value = input.instance.values[key] else { continue }
                guard let field = byName[key] else {
                    problem(key, "'\(key)' is not a field of this module")
                    continue
                }
                switch value.isNull ? .kept : FieldDesign.outcome(of: value, in: field) {
                case .kept: values[key] = value
                case .converted(let converted): values[key] = converted
                case .refused: problem(key, "'\(key)' (\(field.type.name)) cannot hold \(String(value.jsonString().prefix(60)))")
                }
            }
            rowProblems = problems.count - rowProblems
            guard rowProblems == 0 else { continue }
            var row = object
            row["values"] = .object(values)
            row["name"] = .string(input.instance.name)
            row["module"] = .string(staging.moduleId)
            try ImportStaging.addRow(
                line: line, instanceId: id.isEmpty ? nil : id, json: JSONValue.object(row).compactJSONText, to: importId, in: db)
            staged += 1
        }
        try ImportStaging.record(added: staged, problems: problems, keep: Self.problemLimit, in: staging, in: db)
        return (staged, problems)
    }

    /// What a commit did.
    struct Outcome: Sendable {
        var created = 0
        var updated = 0
        var unchanged = 0
        var json: JSONValue {
            ["created": .number(Double(created)), "updated": .number(Double(updated)), "unchanged": .number(Double(unchanged))]
        }
    }

    /// Copies every staged row into the content tables, in this one transaction, and drops the staging.
    func commit(_ importId: String) throws -> Outcome {
        let staging = try ownImport(importId)
        if staging.problemCount > 0 {
            throw APIError.badRequest(
                "\(staging.problemCount) rows have problems; correct them and import again (nothing was imported)",
                extra: ["problemCount": .number(Double(staging.problemCount)), "problems": .array(staging.problems)])
        }
        let fields = try ModuleCatalog.fields(moduleId: staging.moduleId, in: db)
        var outcome = Outcome()
        // A large import into a small store (a new workspace's first content) rebuilds SQLite's
        // search indexes once at the end instead of updating them row by row. Not on PostgreSQL:
        // dropping an index there locks the table against the other processes' searches.
        if let sqlite = db as? Database, try ContentTables.deferringIndexesPaysOff(forLoadOf: staging.rows, in: sqlite) {
            try ContentTables.withSecondaryIndexesDeferred(in: sqlite) {
                try copyStagedRows(of: staging, fields: fields, into: &outcome)
            }
        } else {
            try copyStagedRows(of: staging, fields: fields, into: &outcome)
        }
        try ImportStaging.delete(importId, in: db)
        if outcome.created + outcome.updated > 0 {
            try EventLog.recordContentChange(
                .moduleChanged, module: staging.moduleId, instance: nil, by: principal.displayName, at: clock.current(), in: db)
        }
        return outcome
    }

    /// Copies the staged rows into the content tables, checked again against `fields`.
    private func copyStagedRows(of staging: ImportStaging.Record, fields: [ModuleField], into outcome: inout Outcome) throws {
        let importId = staging.id
        var last = 0
        while true {
            let rows = try ImportStaging.rows(of: importId, after: last, limit: 1_000, in: db)
            guard let final = rows.last else { break }
            last = final.line
            var changed: [WireInstance] = []
            for (line, json) in rows {
                let object = try JSONValue(parsing: json).objectValue ?? [:]
                let input = try InstanceInput(object)
                // The module's fields may have changed since the rows were checked.
                if let problem = FieldValidator.validate(input.instance.values, fields: fields) {
                    throw APIError(
                        .conflict, "Line \(line): \(problem.message); the module changed during the import: import again",
                        extra: ["line": .number(Double(line)), "field": .string(problem.field)])
                }
                if let instance = try merged(input, moduleId: staging.moduleId, outcome: &outcome) { changed.append(instance) }
            }
            try ContentTables.upsert(contentsOf: changed, in: db)
        }
    }

    func cancel(_ importId: String) throws {
        _ = try ownImport(importId)
        try ImportStaging.delete(importId, in: db)
    }

    /// The instance a staged row makes: a new one, the stored one updated, or nil when the row
    /// equals what is stored.
    private func merged(_ input: InstanceInput, moduleId: String, outcome: inout Outcome) throws -> WireInstance? {
        let row = input.instance
        // Most rows of a large import are new: a narrow lookup first, the whole instance only when it exists.
        guard !row.id.isEmpty, try ContentTables.moduleAndDeletion(ofInstanceId: row.id, in: db)?.isDeleted == false,
            var instance = try ContentTables.instance(id: row.id, in: db)
        else {
            var created = row
            created.id = row.id.isEmpty ? Identifiers.objectID() : row.id
            created.module = moduleId
            created.createdAt = clock.next()
            created.createdBy = principal.displayName
            (created.updatedAt, created.updatedBy, created.deletedAt, created.deletedBy) = (nil, nil, nil, nil)
            created.customerId = 1
            created.revision = 0
            outcome.created += 1
            return created
        }
        let before = instance
        instance.name = row.name
        instance.values = row.values
        if input.present.contains("tags") { instance.tags = row.tags }
        if input.present.contains("publishedAt") { instance.publishedAt = row.publishedAt }
        if input.present.contains("removedAt") { instance.removedAt = row.removedAt }
        if input.present.contains("archivedAt") { instance.archivedAt = row.archivedAt }
        guard instance != before else {
            outcome.unchanged += 1
            return nil
        }
        instance.updatedAt = clock.next()
        instance.updatedBy = principal.displayName
        instance.revision = (instance.revision ?? 0) + 1
        outcome.updated += 1
        return instance
    }

    private func ownImport(_ importId: String) throws -> ImportStaging.Record {
        guard let staging = try ImportStaging.find(id: importId, in: db), staging.owner == owner else {
            throw APIError.notFound("Import \(importId) not found (it was committed, cancelled, or is more than a day old)")
        }
        return staging
    }
}
