import GRDB
import GRDBSQLite

/// Binds one row of values to a prepared statement straight through the SQLite C API.
///
/// A bulk load binds millions of values; `StatementArguments` boxes each one as an existential
/// and converts it to a `DatabaseValue` first, which was about 8% of a 100,000-instance sync.
/// The statement is still executed by GRDB (`execute()`, `fetchOne`), which resets it and keeps
/// the bindings made here.
struct RowBinding {
    private let handle: OpaquePointer
    private var index: Int32 = 1

    /// Starts a row: clears the statement's previous bindings (through GRDB, so that it treats
    /// the bindings made next as the statement's arguments).
    init(_ statement: Statement) {
        statement.setUncheckedArguments(StatementArguments())
        handle = statement.sqliteStatement
    }

    mutating func add(_ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
        index += 1
    }

    mutating func add(_ value: Int?) { add(value.map(Int64.init)) }

    mutating func add(_ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
        index += 1
    }

    mutating func add(_ value: Bool) {
        sqlite3_bind_int64(handle, index, value ? 1 : 0)
        index += 1
    }

    /// Text, copied by SQLite (the Swift string's storage does not outlive the call).
    mutating func add(_ value: String?) {
        if let value {
            _ = value.withCString { sqlite3_bind_text(handle, index, $0, Int32(value.utf8.count), Self.transient) }
        } else {
            sqlite3_bind_null(handle, index)
        }
        index += 1
    }

    /// SQLITE_TRANSIENT: SQLite makes its own copy of the bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
