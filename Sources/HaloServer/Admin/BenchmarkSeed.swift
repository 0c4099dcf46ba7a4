import Foundation
import GRDB
import HaloContentStore

extension HaloServerAdmin {
    /// The fields of every benchmark module: the search benchmark filters on `price`, `inStock` and `title`.
    static let benchmarkFields: [ModuleField] = [
        ModuleField("title", .text), ModuleField("price", .number), ModuleField("inStock", .boolean),
        ModuleField("category", .text), ModuleField("sku", .text), ModuleField("rating", .number),
        ModuleField("releaseDate", .date), ModuleField("description", .longText),
    ]

    /// Deterministic benchmark data: `modules` modules named "Bench 1"… and `instances` instances
    /// spread evenly over them, ~700 bytes of values each. Returns the module ids.
    @discardableResult
    public func seedBenchmark(instances: Int, modules: Int, seed: UInt64 = 1) async throws -> [String] {
        guard modules >= 1, instances >= 0 else { throw APIError.badRequest("Need at least one module and no negative counts") }
        var random = SeedRandom(seed: seed)
        let moduleIds = (0..<modules).map { _ in random.objectID() }
        let base: Int64 = 1_700_000_000_000
        try await environment.database.write { db in
            for (index, id) in moduleIds.enumerated() {
                try ModuleCatalog.create(
                    ModuleSpec(name: "Bench \(index + 1)", fields: Self.benchmarkFields), id: id, createdBy: "Benchmark",
                    now: base, in: db)
            }
        }
        // Chunks of 20,000 per transaction keep memory flat; each chunk uses the store's bulk path.
        let chunk = 20_000
        var start = 0
        while start < instances {
            let end = min(start + chunk, instances)
            var batch: [WireInstance] = []
            batch.reserveCapacity(end - start)
            for index in start..<end {
                batch.append(Self.benchmarkInstance(index, module: moduleIds[index % modules], base: base, &random))
            }
            let items = batch
            try await environment.database.write { db in try ContentTables.upsert(contentsOf: items, in: db) }
            start = end
        }
        return moduleIds
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
