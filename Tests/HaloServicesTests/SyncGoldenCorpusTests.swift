import Foundation
import HaloContentStore
import HaloServer
import XCTest

@testable import HaloServices

/// The golden corpus of sync (issue 18): what today's server answers to sync requests, what the
/// SDK's cache holds after a full and after an incremental sync, and what every query of the
/// committed corpus answers online and offline, over a fixed dataset, compared with the files in
/// `Tests/Fixtures/golden`. A faster sync encoding or cache ingestion must leave every file as
/// it is. `HALO_RECORD_GOLDEN=1` rewrites the files instead (review their diff before committing).
///
/// What the server makes up at run time (times, module ids) is replaced by stable names
/// (`GoldenNormalizer`); everything else is compared as written, number texts included.
final class SyncGoldenCorpusTests: XCTestCase {
    func testSyncAnswersCacheRowsAndSearchAnswersMatchTheGoldenCorpus() async throws {
        let runStart = MonotonicClock.systemMilliseconds() - 2_000
        let server = try await OfflineTestServer.start()
        defer { Task { await server.stop() } }
        let api = GoldenAPI(server: server, authorization: try await server.authorization())
        var documents: [(name: String, json: GoldenJSON)] = []

        // The dataset: three modules (one with localized text and a field of most types), ids
        // chosen by the test, drafts, scheduled, archived and expired instances, tags.
        let products = try await api.createModule("Golden Products", fields: GoldenDataset.productFields)
        let makers = try await api.createModule("Golden Makers", fields: GoldenDataset.makerFields)
        let scratch = try await api.createModule("Golden Scratch", fields: [["name": "text", "fieldType": "Text"]])
        try await api.batch(["createdOrUpdated": .array((1...30).map { GoldenDataset.maker($0, module: makers.id) })])
        for chunk in stride(from: 1, through: GoldenDataset.productCount, by: 60) {
            let items = (chunk..<min(chunk + 60, GoldenDataset.productCount + 1)).map { GoldenDataset.product($0, module: products.id) }
            try await api.batch(["createdOrUpdated": .array(items)])
        }
        try await api.batch(["createdOrUpdated": .array((1...12).map { GoldenDataset.scratch($0, module: scratch.id) })])

        // Full syncs as the server answers them: by id and by name, with and without a locale.
        var fullAnswers: [String: GoldenJSON] = [:]
        let fullRequests: [(String, JSONValue)] = [
            ("sync-full-products-by-id", ["moduleId": .string(products.id)]),
            ("sync-full-products-by-id-es-ES", ["moduleId": .string(products.id), "locale": "es-ES"]),
            ("sync-full-makers-by-name", ["moduleName": "Golden Makers"]),
            ("sync-full-makers-by-name-es-ES", ["moduleName": "Golden Makers", "locale": "es-ES"]),
            ("sync-full-scratch-by-id", ["moduleId": .string(scratch.id)]),
        ]
        for (name, body) in fullRequests {
            let answer = try await api.sync(body)
            fullAnswers[name] = answer
            documents.append((name + ".json", answer))
        }
        XCTAssertEqual(fullAnswers["sync-full-products-by-id"]?["body"]?["created"]?.arrayValue?.count, GoldenDataset.productCount)

        // The SDK's first syncs into a fresh cache (one after the other: the sync log's order is recorded).
        let cache = try temporaryCache()
        let engine = SyncEngine(cache: cache, core: try server.core())
        let firstQueries = [
            SyncQuery(moduleId: products.id).locale(.allLocales), SyncQuery(moduleName: "Golden Makers").locale(.spanishSpain),
            SyncQuery(moduleId: scratch.id),
        ]
        for query in firstQueries { _ = try await engine.sync(query) }
        let names = [products.id: "<module products>", makers.id: "<module makers>", scratch.id: "<module scratch>"]
        let sortKey: (String) -> String = { names[$0] ?? $0 }
        documents.append(("cache-after-full-sync.json", try GoldenCache.dump(cache, sortKey: sortKey)))
        documents.append(("corpus-after-full-sync.json", try await api.corpusAnswers(moduleIds: [products.id], cache: cache)))

        // The edit round: updates, soft deletions, a creation, a module renamed, a field renamed,
        // a field retyped (numbers become text) and a module deleted.
        try await GoldenDataset.edit(api, products: products, makers: makers, scratch: scratch)

        // Incremental syncs from each full sync's timestamp, and full syncs of the edited modules.
        let incremental: [(name: String, body: [String: JSONValue], from: String)] = [
            ("sync-incremental-products-by-id", ["moduleId": .string(products.id)], "sync-full-products-by-id"),
            (
                "sync-incremental-products-by-id-es-ES", ["moduleId": .string(products.id), "locale": "es-ES"],
                "sync-full-products-by-id-es-ES"
            ),
            (
                "sync-incremental-brands-by-name-es-ES", ["moduleName": "Golden Brands", "locale": "es-ES"],
                "sync-full-makers-by-name-es-ES"
            ),
            ("sync-incremental-scratch-by-id", ["moduleId": .string(scratch.id)], "sync-full-scratch-by-id"),
        ]
        var laterRequests: [(name: String, body: JSONValue)] = []
        for (name, body, from) in incremental {
            guard let stamp = fullAnswers[from]?["body"]?["syncTimestamp"]?.integerValue else {
                throw GoldenError("\(from) has no whole-number syncTimestamp")
            }
            laterRequests.append((name, .object(body.merging(["fromSync": .number(Double(stamp))]) { $1 })))
        }
        laterRequests.append(("sync-full-products-by-id-after-edits", ["moduleId": .string(products.id)]))
        laterRequests.append(("sync-full-brands-by-name-after-edits", ["moduleName": "Golden Brands"]))
        for (name, body) in laterRequests {
            documents.append((name + ".json", try await api.sync(body)))
        }

        // The SDK's syncs after the edits, into the same cache: incremental for the keys it knows,
        // a first sync for the module's new name.
        let laterQueries = [
            SyncQuery(moduleId: products.id).locale(.allLocales), SyncQuery(moduleName: "Golden Brands").locale(.spanishSpain),
            SyncQuery(moduleId: scratch.id),
        ]
        for query in laterQueries { _ = try await engine.sync(query) }
        documents.append(("cache-after-incremental-sync.json", try GoldenCache.dump(cache, sortKey: sortKey)))
        documents.append(("corpus-after-incremental-sync.json", try await api.corpusAnswers(moduleIds: [products.id], cache: cache)))

        // Stable names for what the server made up, then the comparison.
        var normalizer = GoldenNormalizer(window: runStart...(MonotonicClock.systemMilliseconds() + 2_000))
        normalizer.names = names
        normalizer.names[server.client.clientId] = "<client id>"
        for document in documents { normalizer.collectStamps(document.json) }
        normalizer.rankStamps()
        // One synced instance, table row or query answer per line.
        let files = try documents.map { name, json in (name: name, text: try normalizer.normalize(json, path: name).text(expandBelow: 3)) }
        try GoldenFiles.verify(files)
    }
}

/// The server's API as the test uses it, with one app token (a token request hashes the secret).
private struct GoldenAPI {
    let server: OfflineTestServer
    let authorization: String

    struct CreatedModule {
        var id: String
        /// Field name → field id.
        var fieldIds: [String: String]
    }

    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        try await OfflineTestServer.call(method, server.baseURL.appendingPathComponent(path), body, authorization: authorization)
    }

    /// A module through module design (§23.10).
    func createModule(_ name: String, fields: [JSONValue]) async throws -> CreatedModule {
        let module = try await call("POST", "api/generalcontent/module", ["name": .string(name), "fields": .array(fields)])
        guard let id = module["id"]?.stringValue, let list = module["fields"]?.arrayValue else {
            throw GoldenError("module answer without id or fields: \(module)")
        }
        var fieldIds: [String: String] = [:]
        for field in list {
            if let fieldName = field["name"]?.stringValue, let fieldId = field["id"]?.stringValue { fieldIds[fieldName] = fieldId }
        }
        return CreatedModule(id: id, fieldIds: fieldIds)
    }

    /// A batch (§13) every operation of which must succeed.
    func batch(_ body: JSONValue) async throws {
        let answer = try await call("POST", "api/generalcontent/instance/batch", body)
        if let failed = answer["operations"]?.arrayValue?.first(where: { $0["success"]?.boolValue != true }) {
            throw GoldenError("batch operation failed: \(failed)")
        }
    }

    /// One sync request (§14) as the server answers it: the request, the status, the item count
    /// header and the body exactly as sent (number texts kept).
    func sync(_ body: JSONValue) async throws -> GoldenJSON {
        let request = HTTPRequest(
            method: .post, url: server.baseURL.appendingPathComponent("api/generalcontent/instance/sync"),
            headers: ["Authorization": authorization, "Content-Type": "application/json"], body: body.data(sortedKeys: true))
        let response = try await CurlTransport().perform(request, options: TransferOptions())
        guard response.isSuccess else { throw HaloError(response: response) }
        return .object([
            "request": try GoldenJSON(body), "status": .number(String(response.statusCode)),
            SyncEngine.totalHeader: response.headers[SyncEngine.totalHeader].map(GoldenJSON.string) ?? .null,
            "body": try GoldenJSONParser.parse(response.body),
        ])
    }

    /// Every query of `Benchmarks/queries/corpus.txt` over `moduleIds`, online (the server) and
    /// offline (the cache): the ids in order and the pagination of each answer.
    func corpusAnswers(moduleIds: [String], cache: HaloCache) async throws -> GoldenJSON {
        var answers: [GoldenJSON] = []
        for query in try CorpusQuery.load() {
            let body = query.body(moduleIds: moduleIds)
            let online = try PaginatedContentInstances(wire: await call("POST", "api/generalcontent/instance/search", body))
            let offline = try cache.searchLocally(body: body)
            XCTAssertEqual(offline.instances.map(\.id), online.instances.map(\.id), "\(query.name): items or order differ")
            XCTAssertEqual(offline.paginationInfo, online.paginationInfo, "\(query.name): totals differ")
            func answer(_ page: PaginatedContentInstances) -> GoldenJSON {
                let info = page.paginationInfo
                return .object([
                    "ids": .array(page.instances.map { $0.id.map(GoldenJSON.string) ?? .null }),
                    "pagination": .object([
                        "page": .number(String(info.page)), "limit": .number(String(info.limit)), "offset": .number(String(info.offset)),
                        "totalItems": .number(String(info.totalItems)), "totalPages": .number(String(info.totalPages)),
                    ]),
                ])
            }
            answers.append(.object(["query": .string(query.name), "online": answer(online), "offline": answer(offline)]))
        }
        return .object(["moduleIds": .array(moduleIds.map(GoldenJSON.string)), "queries": .array(answers)])
    }
}

/// The dataset, built from fixed rules: the same instances, values and edits in every run. Values
/// follow from the instance's number alone (its own SplitMix64), so an edit can rebuild them.
private enum GoldenDataset {
    static let productCount = 160

    static let productFields: [JSONValue] = [
        ["name": "title", "fieldType": "Text"], ["name": "price", "fieldType": "Number"],
        ["name": "inStock", "fieldType": "Boolean"], ["name": "category", "fieldType": "Text"],
        ["name": "sku", "fieldType": "Text"], ["name": "rating", "fieldType": "Number"],
        ["name": "releaseDate", "fieldType": "Date"], ["name": "description", "fieldType": "Long text"],
        ["name": "headline", "fieldType": "Localized text"],
        ["name": "color", "fieldType": "Single choice", "choices": ["red", "green", "blue", "black"]],
        ["name": "labels", "fieldType": "Multiple choice", "choices": ["new", "sale", "eco", "limited"]],
        ["name": "specs", "fieldType": "Object"], ["name": "sizes", "fieldType": "List"],
        ["name": "maker", "fieldType": "Single relation"], ["name": "related", "fieldType": "Multiple relation"],
        ["name": "launchDay", "fieldType": "Date", "dateOnly": true], ["name": "website", "fieldType": "Website"],
        ["name": "openAt", "fieldType": "Time"], ["name": "swatch", "fieldType": "Color"], ["name": "note", "fieldType": "Text"],
    ]

    static let makerFields: [JSONValue] = [
        ["name": "country", "fieldType": "Single choice", "choices": ["ES", "US", "DE", "JP"]],
        ["name": "founded", "fieldType": "Number"], ["name": "bio", "fieldType": "Localized text"],
        ["name": "site", "fieldType": "Website"],
    ]

    /// The benchmark seed's words (`SeedRandom`), so the corpus's `like` searches find titles.
    static let words = [
        "amber", "abbey", "falcon", "harbor", "cobalt", "meadow", "summit", "lantern", "cabin", "river", "granite",
        "willow", "ember", "fabric", "glacier", "orchid", "pebble", "quartz", "saffron", "timber", "velvet", "zephyr",
        "aurora", "basalt", "canyon", "dune", "estuary", "fjord", "grove", "heath", "island", "jasper", "kelp",
        "lagoon", "marble", "nectar", "oasis", "prairie", "reef", "sable", "tundra", "umber", "valley", "wharf",
    ]

    static let base: Double = 1_700_000_000_000
    static let day: Double = 86_400_000
    static let iosTag: JSONValue = ["name": "Platform Name", "value": "ios", "tagType": "000000000000000000000001"]
    static let spainTag: JSONValue = ["name": "Spain", "value": "ES", "tagType": "000000000000000000000003"]
    /// No tag type and no id: the server gives the custom type and derives the id.
    static let tierTag: JSONValue = ["name": "tier", "value": "gold"]

    /// Texts whose JSON and folding are easy to get wrong, as the `note` of the first products.
    static let notes: [String] = [
        "Line\nbreak \"quoted\" back\\slash\ttab", "12", "", "null", "</script>&amp; <b>bold</b>", "\u{1}control\u{1F}",
        "  padded  ", "12.0", "ÉCOLE Straße İstanbul", "🚲🚲", "日本語のテキスト", "a/b\\u0041",
    ]

    static func productId(_ n: Int) -> String { String(format: "gp-%04d", n) }
    static func makerId(_ n: Int) -> String { String(format: "gm-%02d", n) }

    static func pick(_ items: [String], _ random: inout SplitMix64) -> String { items[Int(random.next() % UInt64(items.count))] }
    static func words(_ count: Int, _ random: inout SplitMix64) -> String {
        (0..<count).map { _ in pick(words, &random) }.joined(separator: " ")
    }

    /// Product `n` as a create (or full update) body.
    static func product(_ n: Int, module: String) -> JSONValue {
        var random = SplitMix64(seed: 0x18_0000 + UInt64(n))
        let title = (0..<3).map { _ in pick(words, &random).capitalized }.joined(separator: " ") + " \(n)"
        var values: [String: JSONValue] = ["title": .string(title), "sku": .string(String(format: "SKU-%08d", n))]
        let drawnPrice = Double(random.next() % 100_000) / 100
        switch n {
        case 7: values["price"] = 0
        case 8: values["price"] = .number(0.1 + 0.2)
        case 9: values["price"] = 999.99
        case 13: values["price"] = .number(1e-7)
        case 14: values["price"] = 12_345_678.9
        case 16: values["price"] = -5.5
        case 17: values["price"] = .number(1e21)
        case _ where n % 10 == 0: values["price"] = .number(Double(n))
        default: values["price"] = .number(drawnPrice)
        }
        let inStock = random.next() % 2 == 0
        if n % 13 != 0 { values["inStock"] = .bool(inStock) }
        let category = pick(["books", "garden", "kitchen", "outdoor", "toys", "tools"], &random)
        if n % 17 == 0 {
            values["category"] = .null
        } else if n % 19 != 0 {
            values["category"] = .string(category)
        }
        let rating = Double(random.next() % 50) / 10
        values["rating"] = n % 9 == 0 ? 4 : n % 11 == 0 ? 0 : .number(rating)
        values["releaseDate"] = .number(base - Double(random.next() % 400) * day)
        let description = words(n % 20 == 0 ? 34 : 8, &random)
        values["description"] = .string(n % 25 == 0 ? "Café crème — ünïcödé 日本語 🚲 " + description : description)
        if n % 31 != 0 {
            var headline: [String: JSONValue] = ["en-US": .string(n == 2 ? "" : "News: \(title)")]
            if n % 6 != 0 { headline["es-ES"] = .string("Noticia: \(title)") }
            if n % 9 == 0 { headline["fr-FR"] = .string("Nouvelles : \(title)") }
            values["headline"] = .object(headline)
        }
        let color = pick(["red", "green", "blue", "black"], &random)
        if n % 5 != 0 { values["color"] = .string(color) }
        switch n % 7 {
        case 0: values["labels"] = []
        case 1, 4: values["labels"] = ["new", "eco"]
        case 2: values["labels"] = ["sale"]
        default: break
        }
        if n % 3 == 0 {
            values["specs"] = [
                "weight": .number(Double(n % 7) + 0.5), "dims": ["w": .number(Double(n % 40)), "h": 20.25],
                "fragile": .bool(n % 2 == 0), "notes": .null, "code": .string("\(n % 100)"),
            ]
        } else if n % 6 == 4 {
            values["specs"] = [:]
        }
        switch n % 4 {
        case 0: values["sizes"] = [38, 39.5, "XL", true, .null, ["eu": 40], [1, 2]]
        case 1: values["sizes"] = ["S"]
        case 2: values["sizes"] = []
        default: break
        }
        if n % 10 != 9 { values["maker"] = .string(makerId(n % 30 + 1)) }
        if n % 5 == 0 {
            values["related"] = .array([productId(n % productCount + 1), productId((n + 1) % productCount + 1)].map(JSONValue.string))
        } else if n % 5 == 1 {
            values["related"] = []
        }
        if n % 2 == 0 { values["launchDay"] = .number(Double(19_000 + n) * day) }
        if n % 7 == 0 { values["website"] = .string("https://example.com/p/\(n)?q=a&b=c") }
        if n % 6 == 0 { values["openAt"] = .number(Double((8 * 60 + n % 60) * 60_000)) }
        if n % 8 == 0 { values["swatch"] = .string(String(format: "#%06x", UInt32((n * 2_654_435_761) & 0xFF_FFFF))) }
        if n <= notes.count { values["note"] = .string(notes[n - 1]) }

        var instance: [String: JSONValue] = [
            "id": .string(productId(n)), "module": .string(module), "name": .string(title), "values": .object(values),
        ]
        if n % 4 == 0 {
            instance["tags"] = [iosTag]
        } else if n % 6 == 1 {
            instance["tags"] = [spainTag, tierTag]
        }
        // Drafts have no publishedAt; one in 29 is scheduled far ahead.
        if n % 8 != 3 { instance["publishedAt"] = .number(n % 29 == 0 ? 1_900_000_000_000 : base + Double(n) * 60_000) }
        if n % 19 == 0 { instance["archivedAt"] = 1_700_500_000_000 }
        if n % 23 == 0 { instance["removedAt"] = 1_701_000_000_000 }
        switch n {
        case _ where n % 11 == 0: instance["externalId"] = .string("ext-\(n)")
        case 27: instance["externalId"] = 27
        case 34: instance["externalId"] = ["system": "erp", "ref": 34.5]
        case 12: instance["pushSchedule"] = ["at": 1_700_000_000_000, "note": "carried as it is"]
        default: break
        }
        return .object(instance)
    }

    static func maker(_ n: Int, module: String) -> JSONValue {
        var random = SplitMix64(seed: 0x18_1000 + UInt64(n))
        let name = "Maker \(n) " + pick(words, &random).capitalized
        var values: [String: JSONValue] = [
            "country": .string(pick(["ES", "US", "DE", "JP"], &random)),
            "bio": ["en-US": .string("\(name) makes things"), "es-ES": .string("\(name) fabrica cosas")],
        ]
        if n % 10 != 0 { values["founded"] = .number(n % 7 == 0 ? 1_965.5 : Double(1_900 + n * 3)) }
        if n % 3 == 0 { values["site"] = .string("https://maker\(n).example") }
        var instance: [String: JSONValue] = [
            "id": .string(makerId(n)), "module": .string(module), "name": .string(name), "values": .object(values),
        ]
        if n % 5 == 0 { instance["tags"] = [spainTag] }
        if n % 9 != 4 { instance["publishedAt"] = .number(base + Double(n) * 1_000) }
        return .object(instance)
    }

    static func scratch(_ n: Int, module: String) -> JSONValue {
        [
            "id": .string(String(format: "gs-%02d", n)), "module": .string(module), "name": .string("Scratch \(n)"),
            "values": ["text": .string("scratch \(n)")], "publishedAt": .number(base),
        ]
    }

    /// `instance` with `change` applied to its members.
    static func changed(_ instance: JSONValue, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
        guard case .object(var members) = instance else { return instance }
        change(&members)
        return .object(members)
    }

    static func changedValues(_ instance: JSONValue, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
        changed(instance) { members in
            guard case .object(var values)? = members["values"] else { return }
            change(&values)
            members["values"] = .object(values)
        }
    }

    /// The second round: every kind of change an incremental sync must carry.
    static func edit(
        _ api: GoldenAPI, products: GoldenAPI.CreatedModule, makers: GoldenAPI.CreatedModule, scratch: GoldenAPI.CreatedModule
    ) async throws {
        let module = products.id
        // One batch: updates (price made whole, made fractional, names, tags dropped, unpublished,
        // archived, a value cleared), two deletions, six creations.
        let updates: [JSONValue] = stride(from: 10, through: 100, by: 10).map { n in
            changed(product(n, module: module)) { members in
                members["name"] = .string((members["name"]?.stringValue ?? "") + " (edited)")
                guard case .object(var values)? = members["values"] else { return }
                switch n {
                case 10: values["price"] = 12
                case 20: values["price"] = 12.5
                default: values["price"] = .number((values["price"]?.doubleValue ?? 0) + 1)
                }
                values["inStock"] = .bool(values["inStock"]?.boolValue != true)
                if n == 50 { values["color"] = .null }
                if n == 70 { values["note"] = "12" }
                members["values"] = .object(values)
                if n == 30 { members["tags"] = [] }
                if n == 40 { members.removeValue(forKey: "publishedAt") }
                if n == 60 { members["archivedAt"] = 1_700_600_000_000 }
            }
        }
        try await api.batch([
            "updated": .array(updates),
            "deleted": [["id": .string(productId(2))], ["id": .string(productId(4))]],
            "createdOrUpdated": .array((productCount + 1...productCount + 6).map { product($0, module: module) }),
        ])
        // Single-instance routes: a draft published, one archived, one taken out of the archive.
        let published = changed(product(3, module: module)) { $0["publishedAt"] = 1_700_700_000_000 }
        _ = try await api.call("PUT", "api/generalcontent/instance/\(productId(3))", published)
        let archived = changed(product(11, module: module)) { $0["archivedAt"] = 1_700_800_000_000 }
        _ = try await api.call("PUT", "api/generalcontent/instance/\(productId(11))", archived)
        let unarchived = changed(product(19, module: module)) { $0.removeValue(forKey: "archivedAt") }
        _ = try await api.call("PUT", "api/generalcontent/instance/\(productId(19))", unarchived)
        // Soft deletions: some untouched, one just updated, one just created.
        for n in Array(stride(from: 7, through: productCount, by: 16)) + [100, productCount + 6] {
            _ = try await api.call("DELETE", "api/generalcontent/instance/\(productId(n))")
        }
        let rewritten = changedValues(maker(3, module: makers.id)) { $0["bio"] = ["en-US": "Rewritten", "es-ES": "Reescrito"] }
        _ = try await api.call("PUT", "api/generalcontent/instance/\(makerId(3))", rewritten)
        _ = try await api.call("DELETE", "api/generalcontent/instance/\(makerId(30))")

        // Module design: every live instance of the module is rewritten (§23.10).
        _ = try await api.call("PUT", "api/generalcontent/module/\(makers.id)", ["name": "Golden Brands"])
        guard let headline = products.fieldIds["headline"], let founded = makers.fieldIds["founded"] else {
            throw GoldenError("module answers without the field ids")
        }
        _ = try await api.call("PUT", "api/generalcontent/module/\(products.id)/field/\(headline)", ["name": "tagline"])
        _ = try await api.call("PUT", "api/generalcontent/module/\(makers.id)/field/\(founded)", ["fieldType": "Text"])
        _ = try await api.call("DELETE", "api/generalcontent/module/\(scratch.id)")
    }
}
