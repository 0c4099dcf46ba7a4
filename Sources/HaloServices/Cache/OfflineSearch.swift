import Foundation
import GRDB
import HaloContentStore

/// Search over the cache with the server's own implementation (`ContentTables.search`), so a
/// query answers item for item as the server does for the same stored instances.
extension HaloCache {
    /// Cache key of the module list answer (offline policies).
    public static let modulesKey = "modules"

    /// Runs `query` over the cached instances and returns the page the server would return.
    public func searchLocally(_ query: SearchQuery, deviceTags: [Tag] = []) throws -> PaginatedContentInstances {
        try searchLocally(body: query.body(deviceTags: deviceTags))
    }

    /// Runs a search request body (§11.1, as sent on the wire) over the cached instances.
    public func searchLocally(body: JSONValue) throws -> PaginatedContentInstances {
        let request: SearchRequest
        do {
            request = try JSONDecoder().decode(SearchRequest.self, from: body.data(sortedKeys: false))
        } catch {
            throw HaloError.invalidInput(message: "The search query cannot be run offline: \(error)")
        }
        let schema = try searchSchema()
        let page: SearchPage
        do {
            func waitingFields(_ db: Database) throws -> [Int64] {
                try ContentTables.fieldsWaitingForIndex(for: request, schema: schema.make(), in: db)
            }
            func search(_ db: Database) throws -> SearchPage { try ContentTables.search(request, schema: schema.make(), in: db) }
            // Fields compared for the first time get their value rows first (a write, once per
            // field); the search then runs in the same transaction, so it reads them as written.
            page =
                try pool.read { db in try waitingFields(db).isEmpty ? search(db) : nil }
                ?? pool.write { db in
                    try ContentTables.indexValues(ofFields: waitingFields(db), in: db)
                    return try search(db)
                }
        } catch let error as ContentStoreError {
            // A damaged copy (a stored body read back to index a field) is the cache's fault, not the query's.
            if case .corruptData = error { throw HaloError.cache(message: "\(error)") }
            throw HaloError.invalidInput(message: "\(error)")
        } catch {
            throw HaloError.cache(message: "\(error)")
        }
        // Mirrors how the SDK reads the server's answer: skip ⇒ a plain array ⇒ one page of everything.
        let info =
            page.skipPagination
            ? PaginationInfo.singlePage(count: page.items.count)
            : PaginationInfo(page: page.page, limit: page.limit, offset: page.offset, totalItems: page.total, totalPages: page.totalPages)
        return PaginatedContentInstances(paginationInfo: info, instances: try page.items.map(ContentInstance.init(stored:)))
    }

    /// What search needs to know about modules, from the cached module list and the modules seen
    /// by sync by name.
    private func searchSchema() throws -> CachedSchema {
        var schema = CachedSchema()
        if let data = try storedResponse(forKey: Self.modulesKey), let modules = try? Module.list(wire: JSONValue(data: data)) {
            for module in modules {
                guard let id = module.id else { continue }
                if let name = module.name { schema.idsByName[name, default: []].append(id) }
                for field in module.fields ?? [] {
                    let type = field.fieldType?.type
                    if type == .localizedText { schema.localized[id, default: []].insert(field.name) }
                    if type?.isRelation == true { schema.relations[id, default: []].insert(field.name) }
                }
            }
        }
        try read { db in
            for row in try Row.fetchAll(db, sql: "SELECT sync_key, module_id FROM cache_sync_module") {
                let key: String = row[0], id: String = row[1]
                if key != id, !(schema.idsByName[key]?.contains(id) ?? false) { schema.idsByName[key, default: []].append(id) }
            }
        }
        return schema
    }
}

/// A Sendable snapshot of module facts, turned into the store's `SearchSchema` inside a read.
private struct CachedSchema: Sendable {
    var idsByName: [String: [String]] = [:]
    var localized: [String: Set<String>] = [:]
    var relations: [String: Set<String>] = [:]

    func make() -> SearchSchema {
        SearchSchema(
            moduleIdsForName: { idsByName[$0] ?? [] },
            localizedFields: { localized[$0] ?? [] },
            relationFields: { relations[$0] ?? [] })
    }
}
