import Foundation
import GRDB
import XCTest

@testable import HaloContentStore

/// A real SQLite file in a fresh temp directory, migrated with the content tables.
func makeContentDatabase(file: StaticString = #filePath, line: UInt = #line) throws -> DatabaseQueue {
    try migratedContentDatabase { try DatabaseQueue(path: $0) }
}

/// The same as a pool (a WAL file whose readers are read-only connections).
func makeContentPool() throws -> DatabasePool {
    try migratedContentDatabase { try DatabasePool(path: $0) }
}

private func migratedContentDatabase<Writer: DatabaseWriter>(_ open: (String) throws -> Writer) throws -> Writer {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("content-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let database = try open(directory.appendingPathComponent("content.sqlite").path)
    var migrator = DatabaseMigrator()
    ContentTables.registerMigrations(&migrator)
    try migrator.migrate(database)
    return database
}

/// The official SDK fixtures folder (Tests/Fixtures), found from this file so it works from any checkout.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // HaloContentStoreTests
    .deletingLastPathComponent()  // Tests
    .appendingPathComponent("Fixtures", isDirectory: true)

func fixture(_ relativePath: String) throws -> Data {
    try Data(contentsOf: fixturesDirectory.appendingPathComponent(relativePath))
}

/// A 24-hex id made from a small number, readable in failure messages.
func hexId(_ n: Int) -> String {
    let hex = String(n, radix: 16)
    return String(repeating: "0", count: 24 - hex.count) + hex
}

func instance(
    _ n: Int, module: String = "m1", name: String? = nil, values: [String: JSONValue] = [:], tags: [WireTag] = [],
    createdAt: Int64? = nil, updatedAt: Int64? = nil, deletedAt: Int64? = nil, publishedAt: Int64? = nil,
    createdBy: String? = nil
) -> WireInstance {
    WireInstance(
        id: hexId(n), module: module, name: name ?? "item \(n)", values: values, tags: tags,
        createdAt: createdAt ?? Int64(1_000 + n), updatedAt: updatedAt, publishedAt: publishedAt,
        deletedAt: deletedAt, createdBy: createdBy, customerId: 1, revision: 0)
}
