import GRDB
import GRDBSQLite

// In-memory copies of `content_instance` that searches read (see `SearchMemory`).

/// A date column of `content_instance` (milliseconds): its values in order, for comparisons
/// that are binary searches instead of a scan of the column's index (a date most instances pass
/// read 99,500 keys: 9 ms).
final class DateColumn: MemoryCopy {
    /// The instances with a value, by value.
    let values: FieldColumn.Scalars
    /// The instances without one.
    let nulls: [Int64]
    /// False when a value is too large for a Double to hold exactly: SQLite compares those.
    let isExact: Bool
    let byteCount: Int

    /// The date columns a `DateColumn` can copy: the columns of the metadata searched as dates.
    static let columns = Set(
        FilterEvaluator.metadataColumns.filter { $0.value == .date }.keys.compactMap { ContentSchema.metadataColumns[$0] })

    init(_ column: String, in db: Database) throws {
        guard Self.columns.contains(column) else { throw ContentStoreError.invalidRequest("\(column) is not a date column") }
        var values = FieldColumn.Scalars()
        var nulls: [Int64] = []
        var isExact = true
        try KeyScan.forEach(
            db.cachedStatement(sql: "SELECT pk, \(column) FROM content_instance WHERE \(column) IS NOT NULL ORDER BY \(column)"),
            arguments: [], in: db
        ) { row in
            let value = sqlite3_column_int64(row, 1)
            if value.magnitude > 1 << 53 { isExact = false }
            values.instances.append(sqlite3_column_int64(row, 0))
            values.values.append(Double(value))
        }
        try KeyScan.forEach(
            db.cachedStatement(sql: "SELECT pk FROM content_instance WHERE \(column) IS NULL"), arguments: [], in: db
        ) { row in nulls.append(sqlite3_column_int64(row, 0)) }
        self.values = values
        self.nulls = nulls
        self.isExact = isExact
        byteCount = values.instances.count * 16 + nulls.count * 8
    }
}

/// Every instance's lowercased name (`name_folded`), which `metaSearch`'s `name like` reads:
/// 100,000 names scanned in SQLite took 12 ms.
final class NameTexts: MemoryCopy {
    let names: FieldColumn.Texts
    var byteCount: Int { names.byteCount }

    init(in db: Database) throws {
        var names = FieldColumn.Texts()
        try KeyScan.forEach(db.cachedStatement(sql: "SELECT pk, name_folded FROM content_instance"), arguments: [], in: db) { row in
            names.append(instance: sqlite3_column_int64(row, 0), row, column: 1, upToNul: true)
        }
        self.names = names
    }
}

/// Every instance in one order (an ORDER BY list of `content_instance` ending in a unique
/// column), so a page of matches in that order is a walk of this list keeping the matches,
/// instead of SQLite seeking and sorting every match (33,000 matches sorted by name: 16 ms).
final class OrderedKeys: MemoryCopy {
    let keys: [Int64]
    var byteCount: Int { keys.count * 8 }

    init(_ orderBy: String, in db: Database) throws {
        var keys: [Int64] = []
        try KeyScan.forEach(db.makeStatement(sql: "SELECT pk FROM content_instance ORDER BY \(orderBy)"), arguments: [], in: db) {
            keys.append(sqlite3_column_int64($0, 0))
        }
        self.keys = keys
    }

    /// The members of `matches` in this order, past the first `offset`, at most `limit` (all
    /// when nil).
    func page(of matches: RowSet, limit: Int?, offset: Int) -> [Int64] {
        var page: [Int64] = []
        var skipped = 0
        for key in keys where matches.contains(key) {
            if skipped < offset {
                skipped += 1
                continue
            }
            page.append(key)
            if let limit, page.count == limit { break }
        }
        return page
    }
}

extension FieldColumn.Texts {
    /// The instances of the rows whose text contains every one of `parts` (already lowercased as
    /// the texts are, without a NUL). For `like`, rows hold their text up to its first NUL, as LIKE
    /// reads it (`append(…, upToNul: true)`).
    func insertRows(containing parts: [String], into result: inout RowSet) {
        // The patterns one after the other in one buffer, each with its rarest byte found once.
        let joined = parts.flatMap(\.utf8)
        var starts: [Int] = [], counts: [Int] = [], rarest: [Int] = []
        joined.withUnsafeBytes { patterns in
            var start = 0
            for part in parts {
                let count = part.utf8.count
                starts.append(start)
                counts.append(count)
                rarest.append(count == 0 ? 0 : SubstringFunction.rarestIndex(of: patterns.baseAddress! + start, count))
                start += count
            }
        }
        joined.withUnsafeBytes { patterns in
            bytes.withUnsafeBytes { bytes in
                for row in instances.indices {
                    let start = offsets[row]
                    let count = offsets[row + 1] - start
                    let text = bytes.baseAddress.map { $0 + start }
                    var matches = true
                    for index in starts.indices where counts[index] > 0 {
                        guard
                            SubstringFunction.contains(
                                text, count, patterns.baseAddress! + starts[index], counts[index], rarest: rarest[index])
                        else {
                            matches = false
                            break
                        }
                    }
                    if matches { result.insert(instances[row]) }
                }
            }
        }
    }
}
