import Foundation
import HaloContentStore
import Synchronization

/// The statements one connection has prepared (`PREPARE`), by their text and parameter types.
///
/// Why: PostgresNIO sends every query as an unnamed statement, which PostgreSQL parses and plans
/// anew each time; for a search's dozen short statements that was several milliseconds of a
/// request, more than some of the statements took to run. A statement seen a second time on a
/// connection (a query: see `isQuery`) is prepared there, and is from then on run as
/// `EXECUTE name(values…)`: parsed once,
/// and planned once PostgreSQL finds its generic plan as good as the custom ones (its
/// `plan_cache_mode = auto`).
///
/// A connection is used by one transaction at a time, so the lock is never contended; it is what
/// makes the cache `Sendable`. Prepared statements outlive transactions (a ROLLBACK keeps them)
/// and end with their connection, which drops the cache with it.
final class PostgresPreparedStatements: Sendable {
    /// Prepared statements kept per connection; the least recently used beyond it is deallocated.
    static let capacity = 256
    /// Statements remembered as seen once, before the list starts over.
    static let seenCapacity = 1024

    private struct State {
        var names: [String: Prepared] = [:]
        var seen: Set<String> = []
        var nextNumber = 0
        var clock = 0
        /// Set when PostgreSQL refused a prepared plan (a table it reads changed shape): every
        /// statement is deallocated before the next one is prepared.
        var stale = false
    }

    private struct Prepared {
        let name: String
        var lastUse: Int
    }

    private let state = Mutex(State())

    /// The `EXECUTE` to send for `sql` (with `$n` placeholders) and `bindings` when the statement
    /// is prepared on this connection (preparing it now through `run` when seen before), or nil:
    /// send `sql` itself. Statements with a NULL binding are never prepared: a NULL has no type
    /// to declare.
    func execute(_ sql: String, bindings: [SQLValue], run: (String) throws -> Void) throws -> String? {
        guard Self.isQuery(sql), let types = Self.parameterTypes(bindings) else { return nil }
        let key = types + "\u{0}" + sql
        enum Step { case use(String), prepare(String, evicted: String?, reset: Bool), plain }
        let step = state.withLock { state -> Step in
            state.clock += 1
            if !state.stale, let prepared = state.names[key] {
                state.names[key]?.lastUse = state.clock
                return .use(prepared.name)
            }
            guard state.seen.contains(key) else {
                if state.seen.count >= Self.seenCapacity { state.seen.removeAll(keepingCapacity: true) }
                state.seen.insert(key)
                return .plain
            }
            let reset = state.stale
            if reset {
                state.names.removeAll()
                state.stale = false
            }
            var evicted: String? = nil
            if state.names.count >= Self.capacity, let oldest = state.names.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                evicted = oldest.value.name
                state.names[oldest.key] = nil
            }
            state.nextNumber += 1
            return .prepare("halo_\(state.nextNumber)", evicted: evicted, reset: reset)
        }
        switch step {
        case .plain:
            return nil
        case .use(let name):
            return Self.executeStatement(name, bindings)
        case .prepare(let name, let evicted, let reset):
            if reset { try run("DEALLOCATE ALL") }
            if let evicted { try run("DEALLOCATE \(evicted)") }
            try run("PREPARE \(name)\(types.isEmpty ? "" : "(\(types))") AS \(sql)")
            state.withLock { state in state.names[key] = Prepared(name: name, lastUse: state.clock) }
            return Self.executeStatement(name, bindings)
        }
    }

    /// Called when PostgreSQL answered a prepared statement with "cached plan must not change
    /// result type" (a migration changed a table it reads): the next statement to be prepared
    /// deallocates them all first; until then none is used.
    func forgetAll() {
        state.withLock { $0.stale = true }
    }

    /// Whether `sql` is a query (SELECT, or WITH … SELECT): what `select` runs most, and always a
    /// statement PREPARE accepts.
    private static func isQuery(_ sql: String) -> Bool {
        let start = sql.drop(while: \.isWhitespace).prefix(6).uppercased()
        return start == "SELECT" || start.hasPrefix("WITH")
    }

    /// The statement's parameter types as PostgreSQL names them (the types PostgresNIO sends
    /// the bindings as), or nil when one is NULL.
    private static func parameterTypes(_ bindings: [SQLValue]) -> String? {
        var types: [String] = []
        types.reserveCapacity(bindings.count)
        for binding in bindings {
            switch binding {
            case .null: return nil
            case .integer: types.append("bigint")
            case .real: types.append("double precision")
            case .text: types.append("text")
            case .blob: types.append("bytea")
            }
        }
        return types.joined(separator: ",")
    }

    /// `EXECUTE name(values…)` with the bindings written as literals of the declared types:
    /// PostgreSQL does not take parameters ($1) in an EXECUTE sent as a parameterized statement.
    static func executeStatement(_ name: String, _ bindings: [SQLValue]) -> String {
        guard !bindings.isEmpty else { return "EXECUTE \(name)" }
        var text = "EXECUTE \(name)("
        for (index, binding) in bindings.enumerated() {
            if index > 0 { text += ", " }
            switch binding {
            case .null: text += "NULL"  // never prepared (see `execute`), written for completeness
            case .integer(let integer): text += String(integer)
            // Swift writes the shortest text that reads back as the same double, and "nan",
            // "inf" and "-inf", which PostgreSQL's float8 input accepts.
            case .real(let real): text += "'\(real)'"
            case .text(let string): appendLiteral(string, to: &text)
            case .blob(let bytes):
                text += "'\\x"
                for byte in bytes { text += Self.hexDigits[Int(byte)] }
                text += "'"
            }
        }
        return text + ")"
    }

    /// A string constant: only quotes are doubled, as standard_conforming_strings reads it (on
    /// for every connection: `PostgresStorage`). The common case, no quote, is copied as it is.
    private static func appendLiteral(_ string: String, to text: inout String) {
        text += "'"
        if string.utf8.contains(UInt8(ascii: "'")) {
            text += string.replacingOccurrences(of: "'", with: "''")
        } else {
            text += string
        }
        text += "'"
    }

    private static let hexDigits: [String] = (0..<256).map { String(format: "%02x", $0) }
}
