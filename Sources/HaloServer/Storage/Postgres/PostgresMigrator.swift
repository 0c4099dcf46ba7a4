import HaloContentStore

/// Brings a PostgreSQL database to the schema of a migration list (`ServerDatabase.migrations`),
/// recording applied steps in `halo_migrations` as GRDB records SQLite's in `grdb_migrations`.
///
/// Every missing step runs in ONE transaction, under the write lock every process takes: two
/// processes starting at once migrate once (the second finds the work done), and a step that fails
/// leaves the database exactly as it was (PostgreSQL's DDL is transactional), never half-migrated.
/// A database that a newer `halo-server` migrated further is refused, not guessed at.
enum PostgresMigrator {
    static let table = "halo_migrations"

    /// Applies the steps of `migrations` the database lacks; returns their names.
    @discardableResult
    static func migrate(_ storage: PostgresStorage, to migrations: [StorageMigration]) async throws -> [String] {
        let location = storage.location
        return try await storage.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS \(table) (identifier TEXT PRIMARY KEY, position BIGINT NOT NULL)")
            let applied = try db.fetchAll("SELECT identifier FROM \(table) ORDER BY position")
                .map { try $0.get("identifier", as: String.self) }
            let known = Set(migrations.map(\.name))
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw PostgresMigrationError(
                    "The database \(location) was migrated by a newer halo-server: it has step '\(unknown)', which this "
                        + "version does not know. Run the newer halo-server, or point this one at a database of its own version.")
            }
            let done = Set(applied)
            let pending = migrations.filter { !done.contains($0.name) }
            var order = try db.fetchValue(Int64.self, "SELECT max(position) FROM \(table)") ?? 0
            for migration in pending {
                do {
                    try migration.postgres(db)
                } catch {
                    throw PostgresMigrationError(
                        "Migrating \(location) failed at step '\(migration.name)', so no step was applied: \(error)")
                }
                order += 1
                try db.execute("INSERT INTO \(table) (identifier, position) VALUES (?, ?)", migration.name, order)
            }
            return pending.map(\.name)
        }
    }
}

struct PostgresMigrationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
