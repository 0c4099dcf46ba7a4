import Foundation
import GRDB
import HaloContentStore

extension HaloServerAdmin {
    /// The fields of every benchmark module: the search benchmark filters on `price`, `inStock` and `title`.
    public static let benchmarkFields: [ModuleField] = [
        ModuleField("title", .text), ModuleField("price", .number), ModuleField("inStock", .boolean),
        ModuleField("category", .text), ModuleField("sku", .text), ModuleField("rating", .number),
        ModuleField("releaseDate", .date), ModuleField("description", .longText),
    ]

    /// The types of the fields after `benchmarkFields` (`fields` > 8), in turn: a mix the filter
    /// builder offers different comparisons and value editors for.
    static let extraFieldTypes: [FieldType] = [.text, .number, .boolean, .date, .singleChoice, .longText]
    static let extraFieldChoices = ["red", "green", "blue", "black"]

    /// `benchmarkFields`, then `count - 8` fields of mixed types (`text9`, `number10`…).
    static func benchmarkFields(count: Int) -> [ModuleField] {
        benchmarkFields
            + (benchmarkFields.count..<count).map { index in
                let type = extraFieldTypes[(index - benchmarkFields.count) % extraFieldTypes.count]
                return ModuleField(
                    "\(type)\(index + 1)", type, choices: type == .singleChoice ? extraFieldChoices : nil)
            }
    }

    /// Deterministic benchmark data: `modules` modules named "Bench 1"… and `instances` instances
    /// spread evenly over them, ~700 bytes of values each. Returns the module ids. `fields` above 8
    /// adds fields of mixed types (the filter builder's benchmark), whose values follow from the
    /// instance's index: the random draws, and so the data of 8 fields, stay the same.
    @discardableResult
    public func seedBenchmark(instances: Int, modules: Int, fields: Int = benchmarkFields.count, seed: UInt64 = 1) async throws
        -> [String]
    {
        guard modules >= 1, instances >= 0 else { throw APIError.badRequest("Need at least one module and no negative counts") }
        guard fields >= Self.benchmarkFields.count else {
            throw APIError.badRequest("Benchmark modules have at least \(Self.benchmarkFields.count) fields")
        }
        var random = SeedRandom(seed: seed)
        let moduleIds = (0..<modules).map { _ in random.objectID() }
        let base: Int64 = 1_700_000_000_000
        let moduleFields = Self.benchmarkFields(count: fields)
        try await environment.storage.write { db in
            for (index, id) in moduleIds.enumerated() {
                try ModuleCatalog.create(
                    ModuleSpec(name: "Bench \(index + 1)", fields: moduleFields), id: id, createdBy: "Benchmark", now: base, in: db)
            }
        }
        // One transaction, built in chunks of 20,000 (memory stays flat), each through the store's
        // bulk path. When the load is at least what is stored, the search indexes are built once
        // at the end (as a first sync does): faster than growing them row by row, and compact (an
        // index grown row by row has half-full pages; PostgreSQL's trigram index is the costliest
        // to grow). On PostgreSQL the dropped indexes hold the tables against searches until the
        // commit: seed before serving.
        let chunk = 20_000
        let seedRandom = random
        try await environment.storage.write { db in
            // Committed to disk whatever the server's setting: VACUUM marks rows visible to all
            // (which `refreshAfterBulkLoad` does next) only once their commit is.
            if db.dialect == .postgres { try db.execute("SET LOCAL synchronous_commit = on") }
            var random = seedRandom
            let load = {
                for start in stride(from: 0, to: instances, by: chunk) {
                    let items = Self.benchmarkInstances(
                        start..<min(start + chunk, instances), moduleIds: moduleIds, fields: moduleFields, base: base, &random)
                    try ContentTables.upsert(contentsOf: items, in: db)
                }
            }
            if try ContentTables.deferringIndexesPaysOff(forLoadOf: instances, in: db) {
                try ContentTables.withSecondaryIndexesDeferred(in: db, load)
            } else {
                try load()
            }
        }
        try await environment.storage.refreshAfterBulkLoad()
        return moduleIds
    }

    /// The benchmark instances of these indexes, spread over `moduleIds`, drawing from `random`
    /// (the draws of index n follow those of n − 1).
    static func benchmarkInstances(
        _ indexes: Range<Int>, moduleIds: [String], fields: [ModuleField], base: Int64, _ random: inout SeedRandom
    ) -> [WireInstance] {
        let extraFields = fields.dropFirst(Self.benchmarkFields.count)
        return indexes.map { index in
            var instance = Self.benchmarkInstance(index, module: moduleIds[index % moduleIds.count], base: base, &random)
            for field in extraFields { instance.values[field.name] = Self.extraValue(field, index: index, base: base) }
            return instance
        }
    }

    private static func extraValue(_ field: ModuleField, index: Int, base: Int64) -> JSONValue {
        switch field.type {
        case .number: .number(Double(index % 1_000))
        case .boolean: .bool(index % 3 == 0)
        case .date: .number(Double(base - Int64(index % 365) * 86_400_000))
        case .singleChoice: .string(extraFieldChoices[index % extraFieldChoices.count])
        default: .string("value \(index % 100)")
        }
    }

    private static func benchmarkInstance(_ index: Int, module: String, base: Int64, _ random: inout SeedRandom)
        -> WireInstance
    {
        let title = random.title(3) + " \(index)"
        let values: [String: JSONValue] = [
            "title": .string(title),
            "price": .number(Double(random.next() % 100_000) / 100),
            "inStock": .bool(random.next() % 2 == 0),
            "category": .string(random.pick(["books", "garden", "kitchen", "outdoor", "toys", "tools"])),
            "sku": .string(String(format: "SKU-%08d", index)),
            "rating": .number(Double(random.next() % 50) / 10),
            "releaseDate": .number(Double(base - Int64(random.next() % 1_000) * 86_400_000)),
            "description": .string(random.words(78)),
        ]
        let created = base + Int64(index)
        return WireInstance(
            id: random.objectID(), module: module, name: title, values: values, tags: [], createdAt: created,
            updatedAt: created, publishedAt: created, createdBy: "Benchmark", updatedBy: "Benchmark", customerId: 1,
            revision: 0)
    }
}
