import Foundation
import GRDB
import HaloContentStore
import HaloTestSupport

@testable import HaloServer

/// The two databases a conformance test compares: a SQLite file and a PostgreSQL database of the
/// private cluster, both migrated with `migrations`.
struct TwoBackEnds {
    let sqlite: DatabasePool
    let postgres: PostgresStorage
    let directory: URL

    static func make(migrations: [StorageMigration] = ServerDatabase.migrations) async throws -> TwoBackEnds {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try DatabasePool(path: directory.appendingPathComponent("halo.sqlite").path)
        var migrator = DatabaseMigrator()
        migrator.register(migrations)
        try migrator.migrate(sqlite)
        let cluster = try PostgresCluster.shared()
        let postgres = try cluster.storageOnNewDatabase()
        try await PostgresMigrator.migrate(postgres, to: migrations)
        return TwoBackEnds(sqlite: sqlite, postgres: postgres, directory: directory)
    }

    /// Runs `body` in a write transaction of each; returns (SQLite's answer, PostgreSQL's).
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> (T, T) {
        (try await sqlite.write { try body($0) }, try await postgres.write { try body($0) })
    }

    /// Runs `body` in a read transaction of each.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> (T, T) {
        (try await sqlite.read { try body($0) }, try await postgres.read { try body($0) })
    }

    func close() {
        postgres.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// `count` storages on one new, migrated database of the private cluster, as `count` server
/// processes sharing it have (each with its own connections). The caller closes them.
func serverProcesses(_ count: Int, maximumConnections: Int = 3) async throws -> [PostgresStorage] {
    let cluster = try PostgresCluster.shared()
    let first = try cluster.storageOnNewDatabase(maximumConnections: maximumConnections)
    try await PostgresMigrator.migrate(first, to: ServerDatabase.migrations)
    return try [first]
        + (1..<max(count, 1)).map { _ in
            try cluster.storageOnExistingDatabase(first.location.database, maximumConnections: maximumConnections)
        }
}

/// Instances with every kind of value the content tables index: text with capitals, accents and
/// question marks, numbers, booleans, nulls, lists, localized text, tags, deletions, extras.
enum ConformanceInstances {
    static func make(count: Int, modules: [String] = ["articles", "products", "banners"]) -> [WireInstance] {
        let words = ["Alpha", "beta", "GAMMA", "déjà vu", "naïve café", "?question", "50% off", "it's", "Ωmega", "zeta"]
        return (0..<count).map { n in
            var values: [String: JSONValue] = [
                "title": .string("\(words[n % words.count]) \(n)"),
                "price": .number(Double(n % 17) * 2.5),
                "inStock": .bool(n % 3 == 0),
                "rank": n % 5 == 0 ? .null : .number(Double(n)),
                "labels": .array([.string(words[(n + 1) % words.count]), .string("L\(n % 4)")]),
                "caption": .object(["en": .string("Caption \(n)"), "es": .string("Título \(n)")]),
            ]
            if n % 7 == 0 { values["description"] = .string(String(repeating: "long text \(n) ", count: 20)) }
            if n % 11 == 0 { values["empty"] = .array([]) }
            let tags = n % 4 == 0 ? [WireTag(id: "t\(n % 3)", name: "segment", value: "s\(n % 3)", tagType: nil, tagTypeObject: nil)] : []
            return WireInstance(
                id: String(format: "%024x", n + 1), module: modules[n % modules.count], name: "\(words[n % words.count]) item \(n)",
                values: values, tags: tags, createdAt: 1_000 + Int64(n), updatedAt: n % 2 == 0 ? 5_000 + Int64(n) : nil,
                publishedAt: n % 6 == 0 ? nil : 2_000 + Int64(n), deletedAt: n % 13 == 0 ? 9_000 + Int64(n) : nil,
                createdBy: "Editor \(n % 3)", customerId: 1, revision: n % 4,
                pushSchedule: n % 9 == 0 ? .number(123) : nil, externalId: n % 10 == 0 ? .string("ext-\(n)") : nil)
        }
    }
}
