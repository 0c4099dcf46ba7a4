/// One row of a query's answer: its columns in the order of the SELECT, by name.
public struct SQLRow: Sendable, Hashable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        precondition(columns.count == values.count, "a row has one value per column")
        self.columns = columns
        self.values = values
    }

    /// The value of the first column named `name` (SQL column names are not case-sensitive).
    public func value(_ name: String) -> SQLValue? {
        if let index = columns.firstIndex(of: name) { return values[index] }
        let lowered = name.lowercased()
        return columns.firstIndex { $0.lowercased() == lowered }.map { values[$0] }
    }

    /// The value of column `name` as `T`; throws when the column is missing or holds another type.
    public func get<T: SQLValueConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let value = value(name) else { throw SQLError.noSuchColumn(name, in: columns) }
        guard let typed = T(sqlValue: value) else { throw SQLError.unexpectedValue(value, column: name, expected: "\(T.self)") }
        return typed
    }

    /// The value of the column at `index` as `T`.
    public func get<T: SQLValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index) else { throw SQLError.noSuchColumn("#\(index)", in: columns) }
        guard let typed = T(sqlValue: values[index]) else {
            throw SQLError.unexpectedValue(values[index], column: columns[index], expected: "\(T.self)")
        }
        return typed
    }
}

/// A mistake in the code's use of a query's answer (never the user's).
public enum SQLError: Error, CustomStringConvertible {
    case noSuchColumn(String, in: [String])
    case unexpectedValue(SQLValue, column: String, expected: String)

    public var description: String {
        switch self {
        case .noSuchColumn(let name, let columns): "No column '\(name)' in the row (columns: \(columns.joined(separator: ", ")))"
        case .unexpectedValue(let value, let column, let expected): "Column '\(column)' holds \(value), not a \(expected)"
        }
    }
}
