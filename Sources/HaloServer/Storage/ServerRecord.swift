import GRDB

/// A row of a `server_*` table as a Codable GRDB record. Columns are snake_case and properties
/// their camelCase (`created_at` ⇄ `createdAt`, `devices_json` ⇄ `devicesJson`), so no record
/// spells its column names twice.
protocol ServerRecord: Codable, Sendable, FetchableRecord, PersistableRecord {}

extension ServerRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}
