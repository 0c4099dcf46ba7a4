/// Which SQL a connection speaks. Statements shared by both back ends are written once, in the
/// subset the two agree on (`?` placeholders, `INSERT … ON CONFLICT … DO UPDATE`, `RETURNING`,
/// partial indexes); where they differ the code asks the executor's dialect.
public enum SQLDialect: String, Sendable, CaseIterable {
    case sqlite
    case postgres
}

/// Runs SQL inside a transaction someone else opened: the seam between the code that knows what
/// to store and the database that stores it. GRDB's `Database` is one (SQLite); the server's
/// PostgreSQL transactions are the other.
///
/// Placeholders are `?`, in order; the PostgreSQL executor numbers them (`$1`, `$2`, …).
public protocol SQLExecutor {
    var dialect: SQLDialect { get }
    /// Runs one statement and returns how many rows it inserted, changed or deleted.
    @discardableResult
    func run(_ sql: String, bindings: [SQLValue]) throws -> Int
    /// Runs one query and returns every row of its answer.
    func select(_ sql: String, bindings: [SQLValue]) throws -> [SQLRow]
    /// Runs `body` in a savepoint: what it wrote is kept when it returns true, undone when it
    /// returns false or throws (the error then propagates).
    func withSavepoint(_ body: () throws -> Bool) throws
}

extension SQLExecutor {
    /// Runs one statement with `arguments` bound to its placeholders; returns the rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: any SQLValueConvertible...) throws -> Int {
        try run(sql, bindings: arguments.map(\.sqlValue))
    }

    /// Every row of the query's answer.
    public func fetchAll(_ sql: String, _ arguments: any SQLValueConvertible...) throws -> [SQLRow] {
        try select(sql, bindings: arguments.map(\.sqlValue))
    }

    /// The first row of the query's answer, if any.
    public func fetchOne(_ sql: String, _ arguments: any SQLValueConvertible...) throws -> SQLRow? {
        try select(sql, bindings: arguments.map(\.sqlValue)).first
    }

    /// SQL's SAVEPOINT statements (GRDB's connection keeps its own savepoints instead).
    public func withSavepoint(_ body: () throws -> Bool) throws {
        try run("SAVEPOINT halo_savepoint", bindings: [])
        let keep: Bool
        do {
            keep = try body()
        } catch {
            try run("ROLLBACK TO SAVEPOINT halo_savepoint", bindings: [])
            try run("RELEASE SAVEPOINT halo_savepoint", bindings: [])
            throw error
        }
        if !keep { try run("ROLLBACK TO SAVEPOINT halo_savepoint", bindings: []) }
        try run("RELEASE SAVEPOINT halo_savepoint", bindings: [])
    }

    /// The first column of every row, as `T`.
    public func fetchColumn<T: SQLValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: any SQLValueConvertible...
    ) throws -> [T] {
        try select(sql, bindings: arguments.map(\.sqlValue)).map { try $0.get(at: 0, as: T.self) }
    }

    /// The first column of the first row, as `T`; nil when there is no row or the value is null.
    public func fetchValue<T: SQLValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: any SQLValueConvertible...
    ) throws -> T? {
        guard let row = try select(sql, bindings: arguments.map(\.sqlValue)).first else { return nil }
        return try row.get(at: 0, as: T?.self)
    }
}

extension SQLDialect {
    /// The type of a list's elements in `elements(of:)`.
    public enum ListElement: Sendable {
        case integer, real, text
    }

    /// A subquery (one column, `value`) of the elements of a JSON array bound as ONE parameter:
    /// lists of any length cost one placeholder. Its position in the array is `position`
    /// (0-based) where asked for.
    public func elements(of type: ListElement, withPosition: Bool = false) -> String {
        switch self {
        case .sqlite:
            return withPosition ? "SELECT value, key AS position FROM json_each(?)" : "SELECT value FROM json_each(?)"
        case .postgres:
            let cast =
                switch type {
                case .integer: "::bigint"
                case .real: "::double precision"
                case .text: ""
                }
            return withPosition
                ? "SELECT value\(cast) AS value, position - 1 AS position FROM jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS list(value, position)"
                : "SELECT value\(cast) AS value FROM jsonb_array_elements_text(?::jsonb) AS list(value)"
        }
    }

    /// `sql` with its named parameters (`:name`) made positional (`?`, in order of appearance,
    /// one binding each time a name appears), for executors that bind by position only. Names
    /// inside string literals, quoted identifiers and `::` casts are left alone.
    public static func positional(_ sql: String, _ named: [String: SQLValue]) -> (sql: String, bindings: [SQLValue]) {
        var output = ""
        var bindings: [SQLValue] = []
        var quote: Character?
        var index = sql.startIndex
        while index < sql.endIndex {
            let character = sql[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == ":" {
                let next = sql.index(after: index)
                if next < sql.endIndex, sql[next] == ":" {  // a cast: copy both colons
                    output += "::"
                    index = sql.index(after: next)
                    continue
                }
                let end = sql[next...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? sql.endIndex
                if let value = named[String(sql[next..<end])] {
                    output += "?"
                    bindings.append(value)
                    index = end
                    continue
                }
            }
            output.append(character)
            index = sql.index(after: index)
        }
        return (output, bindings)
    }

    /// `sql` with its `?` placeholders numbered as this dialect wants them. Question marks inside
    /// string literals, quoted identifiers and comments are left alone.
    public func placeholders(in sql: String) -> String {
        guard self == .postgres, sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var output = [UInt8]()
        output.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: UInt8?  // the quote character of the literal or identifier we are in
        var lineComment = false
        var blockComment = false
        var previous: UInt8 = 0
        for byte in sql.utf8 {
            defer { previous = byte }
            if lineComment {
                if byte == UInt8(ascii: "\n") { lineComment = false }
            } else if blockComment {
                if previous == UInt8(ascii: "*") && byte == UInt8(ascii: "/") { blockComment = false }
            } else if let open = quote {
                // A doubled quote ('it''s') closes and reopens: the state comes out right either way.
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if previous == UInt8(ascii: "-") && byte == UInt8(ascii: "-") {
                lineComment = true
            } else if previous == UInt8(ascii: "/") && byte == UInt8(ascii: "*") {
                blockComment = true
            } else if byte == UInt8(ascii: "?") {
                number += 1
                output.append(contentsOf: "$\(number)".utf8)
                continue
            }
            output.append(byte)
        }
        return String(decoding: output, as: UTF8.self)
    }
}
