import HaloContentStore
import Logging
import NIOCore
import PostgresNIO

/// A PostgreSQL transaction as an `SQLExecutor`: each statement goes to the server and the calling
/// thread waits for its answer. It runs only on `PostgresStorage`'s own threads, never on an event
/// loop or the cooperative pool, so the code written for SQLite's synchronous transactions runs
/// here unchanged.
public struct PostgresTransaction: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger
    /// The connection's prepared statements, which `select` uses: set in reads only, which
    /// `PostgresStorage` can run again when a migration outdated one (nil: none).
    var statements: PostgresPreparedStatements? = nil

    public var dialect: SQLDialect { .postgres }

    @discardableResult
    public func run(_ sql: String, bindings: [SQLValue]) throws -> Int {
        try answer(sql, bindings).metadata.rows ?? 0
    }

    public func select(_ sql: String, bindings: [SQLValue]) throws -> [SQLRow] {
        let result = try answer(sql, bindings, prepared: true)
        guard let first = result.rows.first else { return [] }
        let columns = first.map(\.columnName)
        return try result.rows.map { row in SQLRow(columns: columns, values: try row.map(SQLValue.init(cell:))) }
    }

    private func answer(_ sql: String, _ bindings: [SQLValue], prepared: Bool = false) throws -> PostgresQueryResult {
        let text = SQLDialect.postgres.placeholders(in: sql)
        // A prepared statement's EXECUTE carries its values as literals.
        let execute = prepared ? try statements?.execute(text, bindings: bindings, run: runSimple) : nil
        var binds = PostgresBindings(capacity: execute == nil ? bindings.count : 0)
        for value in execute == nil ? bindings : [] {
            switch value {
            case .null: binds.appendNull()
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .text(let text): binds.append(text)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            }
        }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: execute ?? text, binds: binds), logger: logger).wait()
        } catch {
            var failure = PostgresStorageError(error)
            if execute != nil, failure.sqlState == "0A000", failure.message.contains("cached plan must not change result type") {
                // A table changed shape under a prepared statement (another process migrated):
                // the next statement prepared starts afresh, and `PostgresStorage` runs the read again.
                statements?.forgetAll()
                failure.outdatedPreparedStatement = true
            }
            throw failure
        }
    }
}

extension SQLValue {
    /// The value of a cell of PostgreSQL's answer (binary format), as the SQLite storage class the
    /// same column holds there.
    init(cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8, .oid: self = .integer(try cell.decode(Int64.self))
            case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float4, .float8: self = .real(try cell.decode(Double.self))
            case .numeric: self = .real(Double(try cell.decode(String.self)) ?? .nan)
            case .bytea: self = .blob(Array(buffer: try cell.decode(ByteBuffer.self)))
            // SQLite has no arrays: an array of integers (`KeyScan.packedKeys`, a set of keys)
            // reads as a blob of them, 8 big-endian bytes each.
            case .int8Array: self = .blob(try Self.packedIntegers(ofArray: cell.bytes!))
            default: self = .text(try cell.decode(String.self))
            }
        } catch {
            throw PostgresStorageError(
                sqlState: nil,
                message: "Column '\(cell.columnName)' has PostgreSQL type \(cell.dataType), which the storage does not read")
        }
    }
}

extension SQLValue {
    /// The elements of a one-dimensional `bigint[]` without nulls, in PostgreSQL's binary format,
    /// as 8 big-endian bytes each, copied from the wire (PostgresNIO's `[Int64]` decoding took
    /// 100 ns a key, as long as the search's whole scan).
    fileprivate static func packedIntegers(ofArray buffer: ByteBuffer) throws -> [UInt8] {
        // Header: dimensions, has-nulls flag, element type; per dimension its length and lower
        // bound; then per element its length (8) and value.
        try buffer.withUnsafeReadableBytes { raw in
            func int32(at offset: Int) -> Int32 { Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }
            guard raw.count >= 12 else { throw PostgresStorageError(sqlState: nil, message: "A bigint[] value is cut short") }
            if int32(at: 0) == 0 { return [] }
            guard int32(at: 0) == 1, int32(at: 4) == 0, raw.count >= 20 else {
                throw PostgresStorageError(sqlState: nil, message: "A bigint[] value has nulls or several dimensions")
            }
            let count = Int(int32(at: 12))
            guard count >= 0, raw.count == 20 + count * 12 else {
                throw PostgresStorageError(sqlState: nil, message: "A bigint[] value's length does not match its elements")
            }
            var bytes = [UInt8](repeating: 0, count: count * 8)
            bytes.withUnsafeMutableBytes { packed in
                for index in 0..<count {
                    // Loaded and stored as they are: the bytes stay big-endian.
                    let value = raw.loadUnaligned(fromByteOffset: 24 + index * 12, as: UInt64.self)
                    packed.storeBytes(of: value, toByteOffset: index * 8, as: UInt64.self)
                }
            }
            return bytes
        }
    }
}

/// What went wrong in PostgreSQL, with the server's own message and SQLSTATE (PostgresNIO's
/// errors hide both from `description`, so that logs never show a statement's values).
public struct PostgresStorageError: Error, CustomStringConvertible {
    /// The five-character SQLSTATE, when the server answered with an error.
    public let sqlState: String?
    public let message: String
    /// Whether a prepared statement failed because a table it reads changed shape since it was
    /// prepared ("cached plan must not change result type").
    var outdatedPreparedStatement = false

    init(sqlState: String?, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    init(_ error: any Error) {
        if let error = error as? PostgresStorageError {
            self = error
        } else if let error = error as? PSQLError, let info = error.serverInfo {
            sqlState = info[.sqlState]
            let text = info[.message] ?? "error"
            message = "PostgreSQL: \(text)" + (info[.detail].map { " (\($0))" } ?? "")
        } else if let error = error as? PSQLError {
            sqlState = nil
            message = "PostgreSQL: \(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        } else {
            sqlState = nil
            message = "PostgreSQL: \(error)"
        }
    }

    /// Whether the connection is gone (closed, refused, reset): another connection may succeed.
    public var connectionLost: Bool {
        sqlState == nil || sqlState?.hasPrefix("08") == true || sqlState == "57P01" || sqlState == "57P03"
    }

    public var description: String { message + (sqlState.map { " [SQLSTATE \($0)]" } ?? "") }
}
