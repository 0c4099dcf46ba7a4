import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The value rows of one field (`content_value` of one field number, null values left out) held
/// in memory, so that a comparison on the field is a binary search or a loop over arrays instead
/// of a scan of SQLite's index: SQLite steps an index entry in about 0.1 µs and copies every
/// string it reads (a two-word `like` over 100,000 descriptions: 48 ms).
///
/// - Numbers, booleans (`num`) and strings (`str`) are kept in the value index's order, so
///   equalities and ranges are binary searches and the matches one run of rows. Strings longer
///   than `TrigramIndex.maxIndexedBytes` are left out of `strings`: an operand that long is
///   compared by SQLite, and so is a string range on a field that holds one.
/// - `like` reads the strings the trigram index leaves out (`untrigrammed`: long or non-ASCII,
///   by their lowercased text) from here, and the others from the trigram index, as the SQL
///   path does (`FilterEvaluator.valueLike`).
final class FieldColumn: MemoryCopy {
    let booleans: Scalars
    let numbers: Scalars
    /// The strings of at most `TrigramIndex.maxIndexedBytes`, by their bytes.
    let strings: Texts
    /// Whether the field holds longer strings, which `strings` leaves out.
    let hasLongStrings: Bool
    /// `coalesce(folded, str)` of the strings that are not in the trigram index, up to a NUL (as
    /// LIKE reads them): `like` looks for its parts there (`Texts.insertRows(containing:)`).
    let untrigrammed: Texts
    /// Memory held by the arrays, for the cache's budget.
    let byteCount: Int

    /// Values in SQLite's order of `num` (the value index's).
    struct Scalars: Sendable {
        var instances: [Int64] = []
        var values: [Double] = []

        /// The rows whose value satisfies every bound, as one range of rows.
        func rows(within bounds: [(operation: FilterOperation, value: Double)]) -> Range<Int> {
            var low = 0, high = values.count
            for (operation, value) in bounds {
                switch operation {
                case .greater: low = max(low, firstRow { $0 > value })
                case .greaterOrEqual: low = max(low, firstRow { $0 >= value })
                case .less: high = min(high, firstRow { $0 >= value })
                case .lessOrEqual: high = min(high, firstRow { $0 > value })
                default: return 0..<0
                }
            }
            return low < high ? low..<high : 0..<0
        }

        /// Inserts the instances of the rows whose value satisfies every bound (`num >= 10 AND
        /// num <= 500`).
        func insertRows(within bounds: [(operation: FilterOperation, value: Double)], into result: inout RowSet) {
            for row in rows(within: bounds) { result.insert(instances[row]) }
        }

        /// Inserts the instances of the rows whose value equals one of `values`.
        func insertRows(equalTo values: [Double], into result: inout RowSet) {
            for value in Set(values) { insertRows(within: [(.greaterOrEqual, value), (.lessOrEqual, value)], into: &result) }
        }

        /// The first row whose value satisfies `predicate`, which holds from some row on.
        private func firstRow(where predicate: (Double) -> Bool) -> Int {
            var low = 0, high = values.count
            while low < high {
                let middle = (low + high) / 2
                if predicate(values[middle]) { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    /// Strings, row i being `bytes[offsets[i] ..< offsets[i + 1]]`.
    struct Texts: Sendable {
        var instances: [Int64] = []
        var bytes: [UInt8] = []
        var offsets: [Int] = [0]

        /// Adds a row: the text of `column` of the current row of a statement, up to its first
        /// NUL when `upToNul` (as LIKE reads it).
        mutating func append(instance: Int64, _ row: OpaquePointer, column: Int32, upToNul: Bool = false) {
            instances.append(instance)
            var count = Int(sqlite3_column_bytes(row, column))
            if count > 0, let start = sqlite3_column_blob(row, column) {
                if upToNul, let nul = memchr(start, 0, count) { count = start.distance(to: UnsafeRawPointer(nul)) }
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: start, count: count))
            }
            offsets.append(bytes.count)
        }

        var byteCount: Int { bytes.count + instances.count * 16 }

        /// How row `row` orders against `operand` by bytes, as SQLite's BINARY collation does
        /// (`memcmp` of the common length, then the shorter first): negative, 0 or positive.
        func compare(_ row: Int, _ operand: [UInt8]) -> Int {
            let start = offsets[row], count = offsets[row + 1] - start
            let common = min(count, operand.count)
            let order =
                common == 0
                ? 0
                : bytes.withUnsafeBytes { text in
                    operand.withUnsafeBytes { Int(memcmp(text.baseAddress! + start, $0.baseAddress!, common)) }
                }
            return order != 0 ? order : count - operand.count
        }

        /// The first row ordered after `operand` (`orEqual`: at or after it).
        func firstRow(after operand: [UInt8], orEqual: Bool) -> Int {
            var low = 0, high = instances.count
            while low < high {
                let middle = (low + high) / 2
                let order = compare(middle, operand)
                if order > 0 || (orEqual && order == 0) { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    /// Reads the field's rows: scalars along `content_value_lookup` (which covers them, in its
    /// order), the untrigrammed strings along `content_value_untrigrammed`.
    init(field: Int64, in db: Database) throws {
        var booleans = Scalars(), numbers = Scalars(), strings = Texts(), untrigrammed = Texts()
        var hasLongStrings = false
        let scalars = try db.cachedStatement(
            sql: "SELECT instance, kind, num, str FROM content_value WHERE field = ? AND kind > 0 ORDER BY kind, num, str")
        try KeyScan.forEach(scalars, arguments: [field], in: db) { row in
            let instance = sqlite3_column_int64(row, 0)
            switch sqlite3_column_int64(row, 1) {
            case ValueKind.bool.rawValue:
                booleans.instances.append(instance)
                booleans.values.append(sqlite3_column_double(row, 2))
            case ValueKind.number.rawValue:
                numbers.instances.append(instance)
                numbers.values.append(sqlite3_column_double(row, 2))
            default:
                if sqlite3_column_bytes(row, 3) > TrigramIndex.maxIndexedBytes {
                    hasLongStrings = true
                } else {
                    strings.append(instance: instance, row, column: 3)
                }
            }
        }
        let texts = try db.cachedStatement(
            sql: """
                SELECT instance, coalesce(folded, str) FROM content_value INDEXED BY content_value_untrigrammed
                WHERE field = ? AND kind = 3 AND trigram = 0
                """)
        try KeyScan.forEach(texts, arguments: [field], in: db) { row in
            untrigrammed.append(instance: sqlite3_column_int64(row, 0), row, column: 1, upToNul: true)
        }
        self.booleans = booleans
        self.numbers = numbers
        self.strings = strings
        self.hasLongStrings = hasLongStrings
        self.untrigrammed = untrigrammed
        byteCount = (booleans.instances.count + numbers.instances.count) * 16 + strings.byteCount + untrigrammed.byteCount
    }

    // MARK: Comparisons: each inserts the instances of the rows that satisfy it into `result`.

    /// Whether `insertStrings(equalTo:)` answers for these operands: none longer than the strings
    /// `strings` holds.
    static func comparesInMemory(_ texts: [String]) -> Bool {
        texts.allSatisfy { $0.utf8.count <= TrigramIndex.maxIndexedBytes }
    }

    /// Strings whose bytes equal one of `texts` (SQLite's BINARY collation: bytes, not Unicode
    /// equivalence); see `comparesInMemory`.
    func insertStrings(equalTo texts: [String], into result: inout RowSet) {
        for text in Set(texts) {
            let operand = Array(text.utf8)
            let rows = strings.firstRow(after: operand, orEqual: true)..<strings.firstRow(after: operand, orEqual: false)
            for row in rows { result.insert(strings.instances[row]) }
        }
    }

    /// Strings ordered against `text` as SQLite's BINARY collation orders them; only for a field
    /// without long strings (`hasLongStrings`), which `strings` leaves out.
    func insertStrings(_ operation: FilterOperation, _ text: String, into result: inout RowSet) {
        let operand = Array(text.utf8)
        let rows: Range<Int>
        switch operation {
        case .greater: rows = strings.firstRow(after: operand, orEqual: false)..<strings.instances.count
        case .greaterOrEqual: rows = strings.firstRow(after: operand, orEqual: true)..<strings.instances.count
        case .less: rows = 0..<strings.firstRow(after: operand, orEqual: true)
        case .lessOrEqual: rows = 0..<strings.firstRow(after: operand, orEqual: false)
        default: return
        }
        for row in rows { result.insert(strings.instances[row]) }
    }

    /// Every instance with a value (not null) in the field: long strings are all untrigrammed.
    func insertPresent(into result: inout RowSet) {
        for list in [booleans.instances, numbers.instances, strings.instances, untrigrammed.instances] {
            for instance in list { result.insert(instance) }
        }
    }
}
