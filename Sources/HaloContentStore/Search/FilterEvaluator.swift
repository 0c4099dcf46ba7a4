import GRDB

/// Evaluates filter trees to sets of instances, one index range per comparison (see `RowSet`).
///
/// Semantics (identical online and offline, since server and cache both run this):
/// - `searchValues` compare `values.<property>`; list and object values match element-wise.
/// - Values compare by their JSON type; `type` is only a hint, except "date" which requires ms.
///   A number also matches the string of its canonical text ("42") and a numeric string also
///   matches the number (Android stringifies list operands); `true`/`false` match booleans and
///   the strings "true"/"false" alike.
/// - `= null` matches absent or null fields (and empty lists); `!= null` the others.
/// - `!=` and `!in` are exact complements of `=` and `in`, so they match missing fields.
/// - `>`, `<`, `>=`, `<=` order numbers (and dates) numerically and non-numeric strings by
///   their bytes; a null operand matches nothing.
/// - `like` is a case-insensitive substring match on strings; `%` and `_` are literal.
struct FilterEvaluator {
    let db: Database
    /// Every instance in the searched modules (deleted ones included): what negations complement.
    let universe: RowSet
    /// Module ids the search is restricted to; nil = all modules.
    let moduleScope: [String]?
    let capacity: Int64

    /// Metadata columns `metaSearch` may name.
    static let metadataColumns: [String: MetadataColumn] = [
        "id": .text, "module": .text, "name": .text, "createdBy": .text, "updatedBy": .text, "deletedBy": .text,
        "createdAt": .date, "updatedAt": .date, "publishedAt": .date, "removedAt": .date, "archivedAt": .date,
        "deletedAt": .date,
    ]

    enum MetadataColumn { case text, date }

    enum Target { case values, metadata }

    func evaluate(_ node: FilterNode, on target: Target) throws -> RowSet {
        switch node {
        case .condition(let condition, let operands):
            switch condition {
            case .and:
                var result = universe
                for operand in operands {
                    result.formIntersection(try evaluate(operand, on: target))
                    if result.isEmpty { break }
                }
                return result
            case .or:
                var result = RowSet(capacity: capacity)
                for operand in operands { result.formUnion(try evaluate(operand, on: target)) }
                return result
            case .unrecognized(let name):
                throw ContentStoreError.invalidFilter("unknown condition \"\(name)\" (expected \"and\" or \"or\")")
            }
        case .comparison(let comparison):
            switch target {
            case .values: return try evaluateValue(comparison)
            case .metadata: return try evaluateMetadata(comparison)
            }
        }
    }

    // MARK: - values.<property>

    private func evaluateValue(_ c: FilterComparison) throws -> RowSet {
        let fields = try fieldNumbers(named: c.property)
        switch c.operation {
        case .equal:
            return try valueEquals(c.value, fields: fields)
        case .notEqual:
            return try valueEquals(c.value, fields: fields).complement(in: universe)
        case .in:
            return try valueIn(c.value.arrayValue ?? [c.value], fields: fields)
        case .notIn:
            return try valueIn(c.value.arrayValue ?? [c.value], fields: fields).complement(in: universe)
        case .greater, .less, .greaterOrEqual, .lessOrEqual:
            return try valueRange(c.operation, c.value, fields: fields)
        case .like:
            guard let text = c.value.stringValue else { return RowSet(capacity: capacity) }
            return try rows(
                "kind = 3 AND coalesce(folded, str) LIKE ? ESCAPE '\\'", [Self.likePattern(text)], fields: fields)
        case .unrecognized(let name):
            throw ContentStoreError.invalidFilter("unknown operation \"\(name)\"")
        }
    }

    private func valueEquals(_ value: JSONValue, fields: [Int64]) throws -> RowSet {
        switch value {
        case .null:
            return try rows("kind > 0", [], fields: fields).complement(in: universe)
        case .array(let elements):
            return try valueIn(elements, fields: fields)
        default:
            return try valueIn([value], fields: fields)
        }
    }

    /// Union of `=` over the operands, as at most three index lookups (numbers, strings, booleans).
    private func valueIn(_ operands: [JSONValue], fields: [Int64]) throws -> RowSet {
        var numbers: [JSONValue] = []
        var strings: [JSONValue] = []
        var booleans: [JSONValue] = []
        var includesNull = false
        for operand in operands {
            switch operand {
            case .null: includesNull = true
            case .bool(let b):
                booleans.append(.number(b ? 1 : 0))
                strings.append(.string(b ? "true" : "false"))
            case .number(let n):
                numbers.append(.number(n))
                strings.append(.string(JSONValue.canonicalText(of: n)))
            case .string(let s):
                strings.append(.string(s))
                if let n = Self.number(fromText: s) { numbers.append(.number(n)) }
                if s == "true" || s == "false" { booleans.append(.number(s == "true" ? 1 : 0)) }
            case .array, .object:
                continue  // rejected by validation
            }
        }
        var result = includesNull
            ? try valueEquals(.null, fields: fields) : RowSet(capacity: capacity)
        if !numbers.isEmpty {
            result.formUnion(try rows("kind = 2 AND num IN (SELECT value FROM json_each(?))",
                                      [JSONValue.array(numbers).compactJSONText], fields: fields))
        }
        if !strings.isEmpty {
            result.formUnion(try rows("kind = 3 AND num IS NULL AND str IN (SELECT value FROM json_each(?))",
                                      [JSONValue.array(strings).compactJSONText], fields: fields))
        }
        if !booleans.isEmpty {
            result.formUnion(try rows("kind = 1 AND num IN (SELECT value FROM json_each(?))",
                                      [JSONValue.array(booleans).compactJSONText], fields: fields))
        }
        return result
    }

    private func valueRange(_ op: FilterOperation, _ value: JSONValue, fields: [Int64]) throws -> RowSet {
        let sqlOperator = op.wireName
        switch value {
        case .number(let n):
            return try rows("kind = 2 AND num \(sqlOperator) ?", [n], fields: fields)
        case .string(let s):
            if let n = Self.number(fromText: s) {
                return try rows("kind = 2 AND num \(sqlOperator) ?", [n], fields: fields)
            }
            return try rows("kind = 3 AND num IS NULL AND str \(sqlOperator) ?", [s], fields: fields)
        case .bool(let b):
            return try rows("kind = 1 AND num \(sqlOperator) ?", [b ? 1 : 0], fields: fields)
        case .null, .array, .object:
            return RowSet(capacity: capacity)
        }
    }

    /// Instances having a value row of one of `fields` that satisfies `condition`.
    private func rows(_ condition: String, _ arguments: StatementArguments, fields: [Int64]) throws -> RowSet {
        var result = RowSet(capacity: capacity)
        guard !fields.isEmpty else { return result }
        // Field numbers are our own integers, so inlining them is safe; it lets SQLite seek the
        // (field, kind, num, str) index once per field.
        let list = fields.map(String.init).joined(separator: ",")
        let sql = "SELECT instance FROM content_value WHERE field IN (\(list)) AND \(condition)"
        let cursor = try Int64.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let pk = try cursor.next() { result.insert(pk) }
        return result
    }

    private func fieldNumbers(named name: String) throws -> [Int64] {
        if let moduleScope {
            return try Int64.fetchAll(
                db.cachedStatement(sql: """
                    SELECT field FROM content_field WHERE name = ? AND module IN (SELECT value FROM json_each(?))
                    """),
                arguments: [name, ContentReader.jsonArray(moduleScope)])
        }
        return try Int64.fetchAll(db.cachedStatement(sql: "SELECT field FROM content_field WHERE name = ?"),
                                  arguments: [name])
    }

    // MARK: - metadata

    private func evaluateMetadata(_ c: FilterComparison) throws -> RowSet {
        guard let column = Self.metadataColumns[c.property] else {
            let known = Self.metadataColumns.keys.sorted().joined(separator: ", ")
            throw ContentStoreError.invalidFilter("unknown metadata property \"\(c.property)\" (searchable: \(known))")
        }
        let name = c.property
        switch c.operation {
        case .equal:
            return try metadataEquals(name, column, c.value)
        case .notEqual:
            return try metadataEquals(name, column, c.value).complement(in: universe)
        case .in:
            return try metadataIn(name, column, c.value.arrayValue ?? [c.value])
        case .notIn:
            return try metadataIn(name, column, c.value.arrayValue ?? [c.value]).complement(in: universe)
        case .greater, .less, .greaterOrEqual, .lessOrEqual:
            guard !c.value.isNull else { return RowSet(capacity: capacity) }
            let operand = try metadataOperand(name, column, c.value)
            return try instances(where: "\(name) \(c.operation.wireName) ?", [operand])
        case .like:
            guard column == .text, let text = c.value.stringValue else {
                throw ContentStoreError.invalidFilter("\"like\" cannot be used on the date \"\(name)\"")
            }
            // name has a lowercased copy (full Unicode folding); the editors' names use SQLite's ASCII folding.
            let subject = name == "name" ? "name_folded" : name
            return try instances(where: "\(subject) LIKE ? ESCAPE '\\'", [Self.likePattern(text)])
        case .unrecognized(let op):
            throw ContentStoreError.invalidFilter("unknown operation \"\(op)\"")
        }
    }

    private func metadataEquals(_ name: String, _ column: MetadataColumn, _ value: JSONValue) throws -> RowSet {
        switch value {
        case .null: return try instances(where: "\(name) IS NULL", [])
        case .array(let elements): return try metadataIn(name, column, elements)
        default: return try instances(where: "\(name) = ?", [metadataOperand(name, column, value)])
        }
    }

    private func metadataIn(_ name: String, _ column: MetadataColumn, _ operands: [JSONValue]) throws -> RowSet {
        let nonNull = operands.filter { !$0.isNull }
        var result = nonNull.count < operands.count ? try instances(where: "\(name) IS NULL", []) : RowSet(capacity: capacity)
        if !nonNull.isEmpty {
            let list = try nonNull.map { try metadataOperand(name, column, $0) }
            let json = column == .date
                ? JSONValue.array(list.compactMap { $0 as? Double }.map(JSONValue.number)).compactJSONText
                : JSONValue.array(list.compactMap { $0 as? String }.map(JSONValue.string)).compactJSONText
            result.formUnion(try instances(where: "\(name) IN (SELECT value FROM json_each(?))", [json]))
        }
        return result
    }

    /// The SQL operand for a metadata comparison: ms for dates, text for the others.
    private func metadataOperand(_ name: String, _ column: MetadataColumn, _ value: JSONValue) throws -> any DatabaseValueConvertible & Sendable {
        switch column {
        case .date:
            if let n = value.doubleValue { return n }
            if let s = value.stringValue, let n = Self.number(fromText: s) { return n }
            throw ContentStoreError.invalidFilter("\"\(name)\" compares with a number of milliseconds, not \(value.jsonString())")
        case .text:
            return value.tagText
        }
    }

    private func instances(where condition: String, _ arguments: StatementArguments) throws -> RowSet {
        var result = RowSet(capacity: capacity)
        var sql = "SELECT pk FROM content_instance WHERE \(condition)"
        var allArguments = arguments
        if let moduleScope {
            sql += " AND module IN (SELECT value FROM json_each(?))"
            allArguments += [ContentReader.jsonArray(moduleScope)]
        }
        let cursor = try Int64.fetchCursor(db.cachedStatement(sql: sql), arguments: allArguments)
        while let pk = try cursor.next() { result.insert(pk) }
        return result
    }

    // MARK: - helpers

    /// "%text%" with the user's `%`, `_` and `\` escaped, lowercased (stored strings are compared
    /// through their lowercased copy).
    static func likePattern(_ text: String) -> String {
        var pattern = "%"
        for character in text.lowercased() {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// A string that spells a finite number ("42", "-1.5"), as Android sends list operands.
    static func number(fromText text: String) -> Double? {
        guard let first = text.first, first.isNumber || first == "-" || first == "." else { return nil }
        guard let n = Double(text), n.isFinite else { return nil }
        return n
    }
}
