/// One value bound to or read from a SQL statement, whichever database runs it: the five storage
/// classes of SQLite, which PostgreSQL's types map onto (`bigint`/`integer`/`smallint` and
/// `boolean` to `integer`, `double precision`/`real`/`numeric` to `real`, text types to `text`,
/// `bytea` to `blob`). Code that runs on both back ends speaks only these.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type stored as one `SQLValue`.
public protocol SQLValueConvertible: Sendable {
    var sqlValue: SQLValue { get }
    /// Nil when `value` does not hold this type (a text for an integer, a null for a non-optional).
    init?(sqlValue value: SQLValue)
}

extension SQLValue: SQLValueConvertible {
    public var sqlValue: SQLValue { self }
    public init?(sqlValue value: SQLValue) { self = value }
}

extension Int64: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .integer(let integer): self = integer
        // SQLite hands back a whole REAL for an integer column's value stored as 1.0.
        case .real(let real) where real.rounded() == real && abs(real) < 9.2e18: self = Int64(real)
        default: return nil
        }
    }
}

extension Int: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue value: SQLValue) {
        guard let integer = Int64(sqlValue: value) else { return nil }
        self = Int(integer)
    }
}

extension Double: SQLValueConvertible {
    public var sqlValue: SQLValue { .real(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        default: return nil
        }
    }
}

/// Booleans are stored as 0 and 1 on both back ends (SQLite has no boolean type; our PostgreSQL
/// schema uses `smallint` so that the same comparisons work unchanged).
extension Bool: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public init?(sqlValue value: SQLValue) {
        guard let integer = Int64(sqlValue: value) else { return nil }
        self = integer != 0
    }
}

extension String: SQLValueConvertible {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue value: SQLValue) {
        guard case .text(let text) = value else { return nil }
        self = text
    }
}

extension [UInt8]: SQLValueConvertible {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue value: SQLValue) {
        guard case .blob(let bytes) = value else { return nil }
        self = bytes
    }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    public var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
    public init?(sqlValue value: SQLValue) {
        if case .null = value {
            self = .none
        } else if let wrapped = Wrapped(sqlValue: value) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
