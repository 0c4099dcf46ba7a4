import HaloContentStore

/// A row of a `server_*` table as a Codable value, on either back end (`SQLExecutor`). Columns are
/// snake_case and properties their camelCase (`created_at` ⇄ `createdAt`, `devices_json` ⇄
/// `devicesJson`), so no record spells its column names twice.
protocol ServerRecord: Codable, Sendable {
    static var databaseTableName: String { get }
    /// The primary key's columns (`id` unless the record says otherwise).
    static var primaryKey: [String] { get }
}

extension ServerRecord {
    static var primaryKey: [String] { ["id"] }

    /// The row whose (single-column) primary key is `key`.
    static func fetchOne(_ db: any SQLExecutor, key: some SQLValueConvertible) throws -> Self? {
        try fetchOne(db, where: "\(primaryKey[0]) = ?", key)
    }

    /// The first row matching `condition` (SQL after WHERE, with `?` placeholders).
    static func fetchOne(_ db: any SQLExecutor, where condition: String, _ arguments: any SQLValueConvertible...) throws -> Self? {
        try db.select("SELECT * FROM \(databaseTableName) WHERE \(condition) LIMIT 1", bindings: arguments.map(\.sqlValue))
            .first.map { try SQLRowCoding.decode(Self.self, from: $0) }
    }

    /// The rows of a whole query (it must select the record's columns).
    static func fetchAll(_ db: any SQLExecutor, sql: String, _ arguments: any SQLValueConvertible...) throws -> [Self] {
        try db.select(sql, bindings: arguments.map(\.sqlValue)).map { try SQLRowCoding.decode(Self.self, from: $0) }
    }

    func insert(_ db: any SQLExecutor) throws {
        let columns = try SQLRowCoding.columns(of: self)
        try db.run(
            "INSERT INTO \(Self.databaseTableName) (\(columns.map(\.column).joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))",
            bindings: columns.map(\.value))
    }

    /// Writes every column of the stored row with this primary key.
    func update(_ db: any SQLExecutor) throws {
        let columns = try SQLRowCoding.columns(of: self)
        let keys = columns.filter { Self.primaryKey.contains($0.column) }
        let others = columns.filter { !Self.primaryKey.contains($0.column) }
        try db.run(
            "UPDATE \(Self.databaseTableName) SET \(others.map { "\($0.column) = ?" }.joined(separator: ", ")) "
                + "WHERE \(keys.map { "\($0.column) = ?" }.joined(separator: " AND "))",
            bindings: others.map(\.value) + keys.map(\.value))
    }

    /// Deletes the stored row with this primary key.
    func delete(_ db: any SQLExecutor) throws {
        let keys = try SQLRowCoding.columns(of: self).filter { Self.primaryKey.contains($0.column) }
        try db.run(
            "DELETE FROM \(Self.databaseTableName) WHERE \(keys.map { "\($0.column) = ?" }.joined(separator: " AND "))",
            bindings: keys.map(\.value))
    }

    /// Inserts the row, or replaces every column of the one with the same primary key.
    func upsert(_ db: any SQLExecutor) throws {
        let columns = try SQLRowCoding.columns(of: self)
        let others = columns.filter { !Self.primaryKey.contains($0.column) }
        try db.run(
            "INSERT INTO \(Self.databaseTableName) (\(columns.map(\.column).joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", "))) "
                + "ON CONFLICT (\(Self.primaryKey.joined(separator: ", "))) DO UPDATE SET "
                + others.map { "\($0.column) = excluded.\($0.column)" }.joined(separator: ", "),
            bindings: columns.map(\.value))
    }
}
