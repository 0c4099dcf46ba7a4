import GRDB

/// Evaluates filter trees to sets of instances, one index range per comparison (see `RowSet`).
/// `like` looks patterns up in a trigram index (`TrigramIndex`). Inside an `and`, operands run
/// cheapest first; once the running result is a small share of the searched instances, later
/// comparisons look those up one by one instead of scanning.
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
    let db: any SQLExecutor
    /// Every instance in the searched modules (deleted ones included): what negations complement.
    let universe: RowSet
    /// Module ids the search is restricted to; nil = all modules.
    let moduleScope: [String]?
    let capacity: Int64
    /// When set, only these instances matter (the `and` being evaluated has narrowed to them),
    /// and comparisons may look up just these instead of scanning a whole index range. Results
    /// are then exact only within `candidates`, which is all an `and` uses.
    var candidates: RowSet? = nil
    /// Below this share of the universe, candidates are probed one by one (about 2 µs each: a
    /// random page per instance) rather than scanned (about 0.1 µs per key, but the whole range).
    /// Measured with bench-content-store: probing 5% of 100k costs as much as scanning.
    var probeRatio = 0.02
    /// Whether `like` may use the trigram index (tests turn it off to compare with the scan).
    var useTrigramIndex = true
    /// In-memory copies of fields and metadata, read instead of SQLite when they are there
    /// (`SearchMemory`); nil: always SQLite.
    var memory: SearchMemory.View? = nil
    /// The field numbers of properties looked up ahead (`lookUpFields`), by name.
    private var fieldsByName: [String: [Int64]] = [:]

    init(db: any SQLExecutor, universe: RowSet, moduleScope: [String]?, capacity: Int64) {
        self.db = db
        self.universe = universe
        self.moduleScope = moduleScope
        self.capacity = capacity
    }

    /// Metadata properties `metaSearch` may name (protocol names; `ContentSchema.metadataColumns`
    /// gives their columns).
    static let metadataColumns: [String: MetadataColumn] = [
        "id": .text, "module": .text, "name": .text, "createdBy": .text, "updatedBy": .text, "deletedBy": .text,
        "createdAt": .date, "updatedAt": .date, "publishedAt": .date, "removedAt": .date, "archivedAt": .date,
        "deletedAt": .date,
    ]

    enum MetadataColumn { case text, date }

    /// A metadata property of a comparison: its protocol name, its SQL column and its kind.
    struct MetadataProperty {
        let name: String
        let sql: String
        let kind: MetadataColumn

        init(_ name: String) throws {
            guard let kind = FilterEvaluator.metadataColumns[name], let sql = ContentSchema.metadataColumns[name] else {
                let known = FilterEvaluator.metadataColumns.keys.sorted().joined(separator: ", ")
                throw ContentStoreError.invalidFilter("unknown metadata property \"\(name)\" (searchable: \(known))")
            }
            (self.name, self.sql, self.kind) = (name, sql, kind)
        }

        /// The SQL operand for a comparison: ms for dates, text for the others.
        func operand(_ value: JSONValue) throws -> SQLValue {
            switch kind {
            case .date:
                if let n = value.doubleValue { return .real(n) }
                if let s = value.stringValue, let n = FilterEvaluator.number(fromText: s) { return .real(n) }
                throw ContentStoreError.invalidFilter("\"\(name)\" compares with a number of milliseconds, not \(value.jsonString())")
            case .text:
                return .text(value.tagText)
            }
        }

        /// The text a `like` looks for; dates cannot be `like`d.
        func likeText(_ value: JSONValue) throws -> String {
            guard kind == .text, let text = value.stringValue else {
                throw ContentStoreError.invalidFilter("\"like\" cannot be used on the date \"\(name)\"")
            }
            return text
        }

        /// What `like` matches its pattern against. name has a lowercased copy (full Unicode
        /// folding); the editors' names use SQLite's ASCII folding (its LIKE ignores the case of
        /// ASCII letters; lower() of the "C" collation folds exactly those on PostgreSQL, whose
        /// LIKE does not).
        func likeSubject(_ dialect: SQLDialect) -> String {
            name == "name" ? "name_folded" : dialect == .postgres ? "lower(\(sql))" : sql
        }
    }

    /// Throws the error a metadata filter would meet when evaluated (unknown property, `like` on a
    /// date, a date compared with text), so that it is reported whatever the data: evaluation
    /// stops early once nothing matches.
    static func validateMetadata(_ node: FilterNode) throws {
        switch node {
        case .condition(_, let operands):
            for operand in operands { try validateMetadata(operand) }
        case .comparison(let c):
            let column = try MetadataProperty(c.property)
            if c.operation == .like {
                _ = try column.likeText(c.value)
            } else {
                for operand in c.value.arrayValue ?? [c.value] where !operand.isNull { _ = try column.operand(operand) }
            }
        }
    }

    enum Target { case values, metadata }

    func evaluate(_ node: FilterNode, on target: Target) throws -> RowSet {
        switch node {
        case .condition(let condition, let operands):
            switch condition {
            case .and:
                var result = candidates ?? universe
                // The field numbers each grouping looked up, for the grouped comparisons.
                var fieldsOf: [String: [Int64]] = [:]
                let groups =
                    try target == .values
                    ? AndOperands(
                        operands,
                        holdsOneValue: { property in
                            let fields = try fieldNumbers(named: property)
                            fieldsOf[property] = fields
                            return try holdOneValue(fields)
                        }) : AndOperands(operands)
                for range in groups.ranges where !result.isEmpty {
                    let fields = fieldsOf[range.property] ?? []
                    if let columns = memory?.columns(of: fields) {
                        result.formIntersection(
                            matches(in: columns) { $0.numbers.insertRows(within: range.bounds, into: &$1) })
                        continue
                    }
                    let condition = (["kind = 2"] + range.bounds.map { "num \($0.operation.wireName) ?" }).joined(separator: " AND ")
                    result.formIntersection(try rows(condition, range.bounds.map { .real($0.value) }, fields: fields))
                }
                // Likely-selective operands first, so later ones can probe a small candidate set.
                for operand in groups.rest.sorted(by: { Self.costRank($0) < Self.costRank($1) }) where !result.isEmpty {
                    var narrowed = self
                    narrowed.candidates = result
                    result.formIntersection(try narrowed.evaluate(operand, on: target))
                }
                for like in groups.likes where !result.isEmpty {
                    var narrowed = self
                    narrowed.candidates = result
                    result.formIntersection(try narrowed.valueLike(like.texts, fields: fieldsOf[like.property] ?? []))
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
            return try valueLike([text], fields: fields)
        case .unrecognized(let name):
            throw ContentStoreError.invalidFilter("unknown operation \"\(name)\"")
        }
    }

    /// `like`: strings of the fields containing every one of `texts`, ignoring case (several
    /// texts only for fields holding one string per instance: see `AndOperands`). Patterns of 3
    /// or more ASCII characters are looked up in the trigram index and only the strings it leaves
    /// out (long or non-ASCII) are scanned; a non-ASCII pattern can only occur in those. Shorter
    /// patterns, and a small candidate set (probed), keep the plain LIKE over every string.
    private func valueLike(_ texts: [String], fields: [Int64]) throws -> RowSet {
        let patterns = texts.map { SQLValue.text(Self.likePattern($0)) }
        let likes = Array(repeating: "coalesce(folded, str) LIKE ? ESCAPE '\\'", count: texts.count).joined(separator: " AND ")
        if db.dialect == .postgres {
            // Two pg_trgm indexes (`ContentSchema.postgresTrigramIndexes`): the short strings'
            // text, looked up once whatever the fields; the other strings behind their field
            // number ("7:text"), so a pattern anchored on the field ("7:%text%") finds that
            // field's matches only: one pattern per field, ORed.
            let subject = ContentSchema.postgresTrigramSubject
            let perField = fields.map { _ in
                "(" + Array(repeating: "\(subject) LIKE ? ESCAPE '\\'", count: texts.count).joined(separator: " AND ") + ")"
            }
            let anchored = fields.flatMap { field in texts.map { SQLValue.text("\(field):" + Self.likePattern($0)) } }
            return try rows(
                "kind = 3 AND ((trigram = 1 AND \(likes)) OR (trigram = 0 AND (\(perField.joined(separator: " OR ")))))",
                patterns + anchored, fields: fields)
        }
        let folded = texts.map { $0.lowercased() }
        let ascii = folded.allSatisfy { TrigramIndex.isPlainASCII($0, maxBytes: .max) }
        let lookedUp = folded.allSatisfy {
            !TrigramIndex.isPlainASCII($0, maxBytes: .max) || $0.utf8.count >= TrigramIndex.minPatternBytes
        }
        guard useTrigramIndex, lookedUp, let db = db as? Database else {
            return try rows("kind = 3 AND \(likes)", patterns, fields: fields)
        }
        if folded.allSatisfy(SubstringFunction.serves), let columns = memory?.columns(of: fields) {
            // The strings the trigram index leaves out, from memory; the others from the index, below.
            var result = matches(in: columns) { $0.untrigrammed.insertRows(containing: folded, into: &$1) }
            if ascii { result.formUnion(try trigramMatches(of: folded, fields: fields, in: db)) }
            return result
        }
        guard probeList() == nil else { return try rows("kind = 3 AND \(likes)", patterns, fields: fields) }
        // The scanned strings are compared by bytes (`SubstringFunction`): the same answer as
        // LIKE on these lowercased strings and patterns, with no escapes.
        let scanned: (condition: String, arguments: [SQLValue]) =
            folded.allSatisfy(SubstringFunction.serves) && SubstringFunction.ensureRegistered(on: db)
            ? (
                folded.map { _ in "\(SubstringFunction.name)(coalesce(folded, str), ?)" }.joined(separator: " AND "),
                folded.map(SQLValue.text)
            )
            : (likes, patterns)
        var result = try rows(
            "kind = 3 AND trigram = 0 AND \(scanned.condition)", scanned.arguments, fields: fields, index: "content_value_untrigrammed")
        if ascii { result.formUnion(try trigramMatches(of: folded, fields: fields, in: db)) }
        return result
    }

    /// The instances whose indexed strings (`TrigramIndex`) of `fields` contain every one of `texts`.
    private func trigramMatches(of texts: [String], fields: [Int64], in db: Database) throws -> RowSet {
        var indexed: RowSet? = nil
        for text in texts {
            var matches = RowSet(capacity: capacity)
            try TrigramIndex.addMatches(of: text, fields: fields, to: &matches, in: db)
            indexed?.formIntersection(matches)
            if indexed == nil { indexed = matches }
        }
        return indexed ?? RowSet(capacity: capacity)
    }

    /// True when no instance ever stored several scalars (a list or an object) in these fields.
    private func holdOneValue(_ fields: [Int64]) throws -> Bool {
        guard !fields.isEmpty else { return true }
        let list = fields.map(String.init).joined(separator: ",")
        return try db.fetchValue(Int.self, "SELECT count(*) FROM content_field WHERE multi = 1 AND field IN (\(list))") == 0
    }

    private func valueEquals(_ value: JSONValue, fields: [Int64]) throws -> RowSet {
        switch value {
        case .null:
            if let columns = memory?.columns(of: fields) {
                return matches(in: columns) { $0.insertPresent(into: &$1) }.complement(in: universe)
            }
            return try rows("kind > 0", [], fields: fields).complement(in: universe)
        case .array(let elements):
            return try valueIn(elements, fields: fields)
        default:
            return try valueIn([value], fields: fields)
        }
    }

    /// What `=` compares the stored scalars with, by kind: a number also matches its canonical
    /// text, a numeric string also matches the number, and "true"/"false" match booleans too.
    private static func equalityOperands(
        _ operands: [JSONValue]
    ) -> (numbers: [JSONValue], strings: [String], booleans: [JSONValue], includesNull: Bool) {
        var numbers: [JSONValue] = []
        var strings = Set<String>()
        var booleans: [JSONValue] = []
        var includesNull = false
        for operand in operands {
            switch operand {
            case .null: includesNull = true
            case .bool(let b):
                booleans.append(.number(b ? 1 : 0))
                strings.insert(b ? "true" : "false")
            case .number(let n):
                numbers.append(.number(n))
                strings.insert(JSONValue.canonicalText(of: n))
            case .string(let s):
                strings.insert(s)
                if let n = number(fromText: s) { numbers.append(.number(n)) }
                if s == "true" || s == "false" { booleans.append(.number(s == "true" ? 1 : 0)) }
            case .array, .object:
                continue  // rejected by validation
            }
        }
        return (numbers, strings.sorted(), booleans, includesNull)
    }

    /// `column IN (?, ?, …)` over `texts`.
    private static func placeholders(_ column: String, _ texts: [String]) -> (String, [SQLValue]) {
        ("\(column) IN (\(Array(repeating: "?", count: texts.count).joined(separator: ",")))", texts.map(SQLValue.text))
    }

    /// `str` equal to one of `texts` on PostgreSQL, whose value index holds a prefix of each
    /// string (`ContentSchema.indexedStringPrefix` code points): a text shorter than that equals
    /// a string exactly when it equals its prefix, so the index alone answers; a longer one is
    /// compared in full after the index found the strings with its prefix.
    private static func postgresStringEquality(_ texts: [String]) -> (String, [SQLValue]) {
        let length = ContentSchema.indexedStringPrefix
        let short = texts.filter { $0.unicodeScalars.count < length }
        let long = texts.filter { $0.unicodeScalars.count >= length }
        var parts: [(String, [SQLValue])] = []
        if !short.isEmpty { parts.append(placeholders(ContentSchema.indexedStringPrefixSQL, short)) }
        if !long.isEmpty {
            let prefixes = long.map { String(String.UnicodeScalarView($0.unicodeScalars.prefix(length))) }
            let (prefixCondition, prefixArguments) = placeholders(ContentSchema.indexedStringPrefixSQL, prefixes)
            let (fullCondition, fullArguments) = placeholders("str", long)
            parts.append(("(\(prefixCondition) AND \(fullCondition))", prefixArguments + fullArguments))
        }
        return ("(" + parts.map(\.0).joined(separator: " OR ") + ")", parts.flatMap(\.1))
    }

    /// Union of `=` over the operands, as at most three index lookups (numbers, strings, booleans).
    private func valueIn(_ operands: [JSONValue], fields: [Int64]) throws -> RowSet {
        let (numbers, strings, booleans, includesNull) = Self.equalityOperands(operands)
        var result =
            includesNull
            ? try valueEquals(.null, fields: fields) : RowSet(capacity: capacity)
        if FieldColumn.comparesInMemory(strings), let columns = memory?.columns(of: fields) {
            let numberValues = numbers.compactMap(\.doubleValue), booleanValues = booleans.compactMap(\.doubleValue)
            result.formUnion(
                matches(in: columns) { column, set in
                    column.numbers.insertRows(equalTo: numberValues, into: &set)
                    column.booleans.insertRows(equalTo: booleanValues, into: &set)
                    column.insertStrings(equalTo: strings, into: &set)
                })
            return result
        }
        if !numbers.isEmpty {
            result.formUnion(
                try rows(
                    "kind = 2 AND num IN (\(db.dialect.elements(of: .real)))",
                    [.text(JSONValue.array(numbers).compactJSONText)], fields: fields))
        }
        if !strings.isEmpty {
            // Placeholders, not json_each: SQLite seeks the index per listed string only for a
            // literal list after `num IS NULL` (checked with EXPLAIN QUERY PLAN).
            for texts in strings.chunked(into: 500) {
                let (condition, arguments) =
                    db.dialect == .postgres ? Self.postgresStringEquality(Array(texts)) : Self.placeholders("str", Array(texts))
                result.formUnion(try rows("kind = 3 AND num IS NULL AND \(condition)", arguments, fields: fields))
            }
        }
        if !booleans.isEmpty {
            result.formUnion(
                try rows(
                    "kind = 1 AND num IN (\(db.dialect.elements(of: .real)))",
                    [.text(JSONValue.array(booleans).compactJSONText)], fields: fields))
        }
        return result
    }

    private func valueRange(_ op: FilterOperation, _ value: JSONValue, fields: [Int64]) throws -> RowSet {
        if let columns = memory?.columns(of: fields) {
            switch value {
            case .number(let n):
                return matches(in: columns) { $0.numbers.insertRows(within: [(op, n)], into: &$1) }
            case .string(let s):
                if let n = Self.number(fromText: s) {
                    return matches(in: columns) { $0.numbers.insertRows(within: [(op, n)], into: &$1) }
                }
                if !columns.contains(where: \.hasLongStrings) {
                    return matches(in: columns) { $0.insertStrings(op, s, into: &$1) }
                }
            case .bool(let b):
                return matches(in: columns) { $0.booleans.insertRows(within: [(op, b ? 1 : 0)], into: &$1) }
            case .null, .array, .object:
                return RowSet(capacity: capacity)
            }
        }
        let sqlOperator = op.wireName
        switch value {
        case .number(let n):
            return try rows("kind = 2 AND num \(sqlOperator) ?", [.real(n)], fields: fields)
        case .string(let s):
            if let n = Self.number(fromText: s) {
                return try rows("kind = 2 AND num \(sqlOperator) ?", [.real(n)], fields: fields)
            }
            return try rows("kind = 3 AND num IS NULL AND str \(sqlOperator) ?", [.text(s)], fields: fields)
        case .bool(let b):
            return try rows("kind = 1 AND num \(sqlOperator) ?", [.real(b ? 1 : 0)], fields: fields)
        case .null, .array, .object:
            return RowSet(capacity: capacity)
        }
    }

    /// Instances having a value row of one of `fields` that satisfies `condition`.
    /// `index` pins the index a scan uses (a partial index SQLite might otherwise pass over).
    private func rows(
        _ condition: String, _ arguments: [SQLValue], fields: [Int64], index: String? = nil
    ) throws -> RowSet {
        guard !fields.isEmpty else { return RowSet(capacity: capacity) }
        // Field numbers are our own integers, so inlining them is safe; it lets SQLite seek the
        // (field, kind, num, str) index once per field.
        let list = fields.map(String.init).joined(separator: ",")
        if let probe = probeList() {
            // CROSS JOIN keeps the candidates outermost; `+field` makes each probe one seek on the
            // instance's rows (which sit together) instead of one per module's field number.
            let sql =
                db.dialect == .sqlite
                ? """
                SELECT v.instance FROM json_each(?) c CROSS JOIN content_value v ON v.instance = c.value
                WHERE +v.field IN (\(list)) AND \(condition)
                """
                : """
                SELECT v.instance FROM (\(db.dialect.elements(of: .integer))) c JOIN content_value v ON v.instance = c.value
                WHERE v.field IN (\(list)) AND \(condition)
                """
            return try KeyScan.rowSet(sql, [.text(probe)] + arguments, capacity: capacity, in: db)
        }
        // Index hints are SQLite's; PostgreSQL plans the partial indexes by itself.
        let source = index.flatMap { db.dialect == .sqlite ? "content_value INDEXED BY \($0)" : nil } ?? "content_value"
        let sql = "SELECT instance FROM \(source) WHERE field IN (\(list)) AND \(condition)"
        return try KeyScan.rowSet(sql, arguments, capacity: capacity, in: db)
    }

    /// Looks up the field numbers of these properties (in the searched modules) in one query, for
    /// `fieldNumbers(named:)`: a filter naming several properties, or one twice, then costs one
    /// round trip to PostgreSQL instead of one per comparison.
    mutating func lookUpFields<S: Sequence>(named names: S) throws where S.Element == String {
        let wanted = Set(names).subtracting(fieldsByName.keys)
        guard !wanted.isEmpty else { return }
        fieldsByName.merge(try fieldNumbers(of: wanted)) { known, _ in known }
    }

    /// A property's field numbers: looked up ahead by `lookUpFields`, else now.
    private func fieldNumbers(named name: String) throws -> [Int64] {
        if let known = fieldsByName[name] { return known }
        return try fieldNumbers(of: [name])[name] ?? []
    }

    /// The field numbers of these properties in the searched modules, by name (every name
    /// present, with none when no module has it).
    private func fieldNumbers(of names: Set<String>) throws -> [String: [Int64]] {
        var result = Dictionary(uniqueKeysWithValues: names.map { ($0, [Int64]()) })
        let list = ContentReader.jsonArray(names.sorted())
        let rows =
            if let moduleScope {
                try db.fetchAll(
                    """
                    SELECT name, field FROM content_field WHERE name IN (\(db.dialect.elements(of: .text)))
                    AND module IN (\(db.dialect.elements(of: .text))) ORDER BY field
                    """, list, ContentReader.jsonArray(moduleScope))
            } else {
                try db.fetchAll(
                    "SELECT name, field FROM content_field WHERE name IN (\(db.dialect.elements(of: .text))) ORDER BY field", list)
            }
        for row in rows { result[try row.get(at: 0, as: String.self), default: []].append(try row.get(at: 1, as: Int64.self)) }
        return result
    }

    // MARK: - metadata

    private func evaluateMetadata(_ c: FilterComparison) throws -> RowSet {
        let column = try MetadataProperty(c.property)
        if let memory, moduleScope == nil, let answer = try metadataFromMemory(c, column, memory) { return answer }
        let sql = column.sql
        switch c.operation {
        case .equal:
            return try metadataEquals(column, c.value)
        case .notEqual:
            return try metadataEquals(column, c.value).complement(in: universe)
        case .in:
            return try metadataIn(column, c.value.arrayValue ?? [c.value])
        case .notIn:
            return try metadataIn(column, c.value.arrayValue ?? [c.value]).complement(in: universe)
        case .greater, .less, .greaterOrEqual, .lessOrEqual:
            guard !c.value.isNull else { return RowSet(capacity: capacity) }
            let operand = try column.operand(c.value)
            return try instances(where: "\(sql) \(c.operation.wireName) ?", [operand])
        case .like:
            let text = try column.likeText(c.value)
            return try instances(where: "\(column.likeSubject(db.dialect)) LIKE ? ESCAPE '\\'", [.text(Self.likePattern(text))])
        case .unrecognized(let op):
            throw ContentStoreError.invalidFilter("unknown operation \"\(op)\"")
        }
    }

    /// The comparison answered from in-memory copies (a date, or `name like`), or nil to ask
    /// SQLite. Every instance is copied, so only searches of every module come here.
    private func metadataFromMemory(_ c: FilterComparison, _ column: MetadataProperty, _ memory: SearchMemory.View) throws -> RowSet? {
        if column.name == "name", c.operation == .like {
            let part = try column.likeText(c.value).lowercased()
            guard SubstringFunction.serves(part), let names = memory.names() else { return nil }
            var result = RowSet(capacity: capacity)
            names.names.insertRows(containing: [part], into: &result)
            return result
        }
        guard column.kind == .date, c.operation != .like, let dates = memory.dates(column.sql), dates.isExact else { return nil }
        /// The instances with a value equal to one of `operands`, or without one for null (every
        /// instance is searched here, so those are all of `universe` that has none).
        func equal(_ operands: [JSONValue]) throws -> RowSet {
            var result = RowSet(capacity: capacity)
            for operand in operands {
                if operand.isNull {
                    for key in dates.nulls { result.insert(key) }
                } else if case .real(let n) = try column.operand(operand) {
                    dates.values.insertRows(equalTo: [n], into: &result)
                }
            }
            return result
        }
        switch c.operation {
        case .equal: return try equal(c.value.arrayValue ?? [c.value])
        case .in: return try equal(c.value.arrayValue ?? [c.value])
        case .notEqual, .notIn: return try equal(c.value.arrayValue ?? [c.value]).complement(in: universe)
        case .greater, .less, .greaterOrEqual, .lessOrEqual:
            var result = RowSet(capacity: capacity)
            guard !c.value.isNull, case .real(let n) = try column.operand(c.value) else { return result }
            dates.values.insertRows(within: [(c.operation, n)], into: &result)
            return result
        case .like, .unrecognized: return nil
        }
    }

    private func metadataEquals(_ column: MetadataProperty, _ value: JSONValue) throws -> RowSet {
        switch value {
        case .null: return try instancesWithoutValue(in: column)
        case .array(let elements): return try metadataIn(column, elements)
        default: return try instances(where: "\(column.sql) = ?", [try column.operand(value)])
        }
    }

    private func metadataIn(_ column: MetadataProperty, _ operands: [JSONValue]) throws -> RowSet {
        let nonNull = operands.filter { !$0.isNull }
        var result =
            nonNull.count < operands.count ? try instancesWithoutValue(in: column) : RowSet(capacity: capacity)
        if !nonNull.isEmpty {
            let list = try nonNull.map { try column.operand($0) }
            let json = JSONValue.array(
                list.compactMap { value in
                    switch value {
                    case .real(let n): .number(n)
                    case .text(let s): .string(s)
                    default: nil
                    }
                }
            ).compactJSONText
            let elements = db.dialect.elements(of: column.kind == .date ? .real : .text)
            result.formUnion(try instances(where: "\(column.sql) IN (\(elements))", [.text(json)]))
        }
        return result
    }

    /// Instances whose `column` is null. `deleted_at` has an index of its non-null values only
    /// (few instances are deleted), so there the nulls are the rest of the universe rather than
    /// a scan of every instance.
    private func instancesWithoutValue(in column: MetadataProperty) throws -> RowSet {
        guard column.sql == "deleted_at" else { return try instances(where: "\(column.sql) IS NULL", []) }
        return try instances(where: "deleted_at IS NOT NULL", []).complement(in: universe)
    }

    private func instances(where condition: String, _ arguments: [SQLValue]) throws -> RowSet {
        if let probe = probeList() {
            let sql = "SELECT pk FROM content_instance WHERE pk IN (\(db.dialect.elements(of: .integer))) AND \(condition)"
            return try KeyScan.rowSet(sql, [.text(probe)] + arguments, capacity: capacity, in: db)
        }
        var sql = "SELECT pk FROM content_instance WHERE \(condition)"
        var allArguments = arguments
        if let moduleScope {
            sql += " AND module IN (\(db.dialect.elements(of: .text)))"
            allArguments += [.text(ContentReader.jsonArray(moduleScope))]
        }
        return try KeyScan.rowSet(sql, allArguments, capacity: capacity, in: db)
    }

    // MARK: - helpers

    /// The instances the rows of `columns` that `insert` picks belong to.
    private func matches(in columns: [FieldColumn], _ insert: (FieldColumn, inout RowSet) -> Void) -> RowSet {
        var result = RowSet(capacity: capacity)
        for column in columns { insert(column, &result) }
        return result
    }

    /// The candidates as a JSON array when they are few enough to probe one by one.
    private func probeList() -> String? {
        guard let candidates else { return nil }
        let count = candidates.count
        guard Double(count) <= Double(universe.count) * probeRatio else { return nil }
        return ContentReader.jsonArray(candidates.members)
    }

    /// Evaluation order inside an `and`: equality first (usually selective), then ranges,
    /// negations, `like` (a scan of every string of the field) and nested conditions last.
    static func costRank(_ node: FilterNode) -> Int {
        guard case .comparison(let c) = node else { return 4 }
        switch c.operation {
        case .equal, .in: return c.value.isNull ? 2 : 0
        case .greater, .less, .greaterOrEqual, .lessOrEqual: return 1
        case .notEqual, .notIn: return 2
        case .like:
            // An index lookup with 3+ characters (see `valueLike`); a scan of every string below.
            let text = c.value.stringValue ?? ""
            return text.utf8.count >= TrigramIndex.minPatternBytes ? 1 : 3
        case .unrecognized: return 3
        }
    }

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
