import GRDB
import GRDBSQLite

/// Steps a prepared SELECT with the SQLite C API and hands each row's integer columns to `body`.
///
/// Search turns every comparison into a scan of up to 100,000 keys; going through GRDB's
/// cursors costs several times SQLite's own work per row (retain/release per step), so the hot
/// loop talks to SQLite directly. The statement is still prepared, bound and validated by GRDB,
/// and the access is registered so `ValueObservation` keeps tracking these tables.
enum KeyScan {
    static func forEach(
        _ statement: Statement, arguments: StatementArguments, in db: Database, _ body: (_ row: OpaquePointer) -> Void
    ) throws {
        try walk(
            statement, arguments: arguments, in: db,
            while: { row in
                body(row)
                return true
            })
    }

    /// Steps rows until `body` returns false (the rest of the statement is never run).
    static func walk(
        _ statement: Statement, arguments: StatementArguments, in db: Database,
        while body: (_ row: OpaquePointer) -> Bool
    ) throws {
        try statement.setArguments(arguments)
        try db.registerAccess(to: statement.databaseRegion)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW {
                guard body(handle) else { return }
            } else if code == SQLITE_DONE {
                return
            } else {
                let message = sqlite3_errmsg(sqlite3_db_handle(handle)).map { String(cString: $0) }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
        }
    }

    /// The set of the first column's integers, on SQLite through its C API, on PostgreSQL packed.
    static func rowSet(_ sql: String, _ arguments: [SQLValue] = [], capacity: Int64, in db: any SQLExecutor) throws -> RowSet {
        var result = RowSet(capacity: capacity)
        guard let db = db as? Database else {
            // PostgreSQL: one value instead of a row per key (an array, read as packed keys);
            // decoding one value costs a fraction of decoding tens of thousands of rows.
            let packed = "SELECT \(packedKeys(of: sql))"
            unpack(try db.select(packed, bindings: arguments).first?.values.first, into: &result)
            return result
        }
        try forEach(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments.map(\.databaseValue)), in: db) { row in
            result.insert(sqlite3_column_int64(row, 0))
        }
        return result
    }

    /// PostgreSQL's array of the integers `query` selects (one column), which `PostgresTransaction`
    /// reads as a blob of them, 8 big-endian bytes each. For 49,000 keys an ARRAY subquery cost
    /// PostgreSQL 14 ms against 16 for the aggregate `array_agg`; in an earlier run, `array_agg`
    /// cost 7 ms against 12 for packing the bytes in SQL (`string_agg(int8send(…))`).
    static func packedKeys(of query: String) -> String { "ARRAY(\(query))" }

    /// Inserts the keys read from `packedKeys` (nothing for NULL or an empty array).
    static func unpack(_ packed: SQLValue?, into set: inout RowSet) {
        guard case .blob(let bytes)? = packed else { return }
        bytes.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count - 7, by: 8) {
                set.insert(Int64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
            }
        }
    }

    /// Column `index` of the current row as an integer.
    static func int64(_ row: OpaquePointer, _ index: Int32) -> Int64 { sqlite3_column_int64(row, index) }
}
