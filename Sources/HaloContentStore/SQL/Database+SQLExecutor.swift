import Foundation
import GRDB

/// GRDB's connection is the SQLite executor: code written against `SQLExecutor` runs inside
/// GRDB's own transactions (`DatabasePool.read`/`write`), next to code that uses GRDB directly.
extension Database: SQLExecutor {
    public var dialect: SQLDialect { .sqlite }

    public func run(_ sql: String, bindings: [SQLValue]) throws -> Int {
        try execute(sql: sql, arguments: StatementArguments(bindings.map(\.databaseValue)))
        return changesCount
    }

    /// GRDB's savepoints, which its transaction tracking knows about.
    public func withSavepoint(_ body: () throws -> Bool) throws {
        try inSavepoint { try body() ? .commit : .rollback }
    }

    public func select(_ sql: String, bindings: [SQLValue]) throws -> [SQLRow] {
        let statement = try makeStatement(sql: sql)
        statement.arguments = StatementArguments(bindings.map(\.databaseValue))
        let columns = statement.columnNames
        return try Row.fetchAll(statement).map { row in
            SQLRow(columns: columns, values: row.databaseValues.map(SQLValue.init(databaseValue:)))
        }
    }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }

    init(databaseValue: DatabaseValue) {
        switch databaseValue.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }
}
