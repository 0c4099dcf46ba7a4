import GRDB

/// The FTS5 trigram index that answers `like` (a case-insensitive substring match) without
/// running LIKE over every string of a field.
///
/// What is indexed: the folded (lowercased) text of each string value that is short and plain
/// ASCII (`isIndexable`). For those, a trigram phrase match *is* the store's `like`: the stored
/// text and the pattern are both lowercased by Swift, FTS5 runs case-sensitively on them (no
/// second folding that could disagree with Swift's Unicode lowercasing), and consecutive
/// trigrams of a ≥ 3-byte pattern match exactly where it occurs as a substring. A non-ASCII
/// pattern can never occur in an ASCII string, so it only has to look at the unindexed strings.
/// Long strings are left out because indexing every trigram of long text costs several seconds
/// per 100k instances on bulk load; they, and non-ASCII ones, stay on the scanning path
/// (`content_value.trigram = 0`, with their own small index).
///
/// Rows are keyed by `rowid = field << 40 | instance << 8 | ord`, so all rows of one field
/// form a rowid range FTS5 can seek to: a pattern is looked up field by field without
/// touching other fields' matches. `ContentWriter` (upserts) and `hardDelete` keep it in step
/// through `add` and `remove`.
enum TrigramIndex {
    /// Strings longer than this many UTF-8 bytes are scanned instead of indexed.
    static let maxIndexedBytes = 160
    /// A pattern needs this many bytes to be looked up by trigrams (HALO's `like` asks for 3).
    static let minPatternBytes = 3

    private static let fieldShift: Int64 = 40
    private static let instanceShift: Int64 = 8
    private static let maxField: Int64 = 1 << (63 - fieldShift)
    private static let maxInstance: Int64 = 1 << (fieldShift - instanceShift)
    private static let maxOrd: Int64 = 1 << instanceShift

    /// Contentless (the text is in `content_value` already), full detail (positions make a
    /// multi-trigram phrase a substring match), no column sizes (only ranking needs them; they
    /// cost a third of the insert time).
    static let schemaSQL = """
        CREATE VIRTUAL TABLE content_trigram USING fts5(
            text, content = '', detail = full, columnsize = 0, tokenize = 'trigram case_sensitive 1');
        """

    /// The FTS5 rowid of a `content_value` row, as SQL.
    private static let rowidSQL = "(field << \(fieldShift)) | (instance << \(instanceShift)) | ord"

    // Rows go in and out in rowid order: FTS5 writes its pending terms to disk whenever a rowid
    // is lower than the previous one, and row-by-row maintenance (a trigger) made a 100k bulk
    // load three times slower. A contentless table forgets the text, so `delete` must repeat it:
    // both read it from `content_value`, which is why removal runs before those rows go.

    /// Indexes the `trigram = 1` strings of these instances (not indexed yet).
    static func add(instances pks: [Int64], in db: Database) throws {
        guard !pks.isEmpty else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO content_trigram (rowid, text)
                SELECT \(rowidSQL) AS r, coalesce(folded, str) FROM content_value
                WHERE instance IN (SELECT value FROM json_each(?)) AND trigram = 1 ORDER BY r
                """
        ).execute(arguments: [ContentReader.jsonArray(pks)])
    }

    /// Indexes the `trigram = 1` strings of one field (not indexed yet): a field whose value
    /// rows were written on demand (`ValueIndexOnDemand`). Its rows form one rowid range.
    static func add(field: Int64, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO content_trigram (rowid, text)
                SELECT \(rowidSQL) AS r, coalesce(folded, str) FROM content_value
                WHERE field = ? AND trigram = 1 ORDER BY r
                """
        ).execute(arguments: [field])
    }

    /// Takes the indexed strings of these instances out of the index; run before their
    /// `content_value` rows are deleted.
    static func remove(instances pks: [Int64], in db: Database) throws {
        guard !pks.isEmpty else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO content_trigram (content_trigram, rowid, text)
                SELECT 'delete', \(rowidSQL) AS r, coalesce(folded, str) FROM content_value
                WHERE instance IN (SELECT value FROM json_each(?)) AND trigram = 1 ORDER BY r
                """
        ).execute(arguments: [ContentReader.jsonArray(pks)])
    }

    /// Whether a string value goes into the index (`folded` is its lowercased text). Keys that do
    /// not fit the rowid layout are scanned instead, which is always correct.
    static func isIndexable(folded: String, instance: Int64, field: Int64, ord: Int64) -> Bool {
        guard (0..<maxInstance).contains(instance), (0..<maxField).contains(field), (0..<maxOrd).contains(ord) else {
            return false
        }
        return isPlainASCII(folded, maxBytes: maxIndexedBytes)
    }

    /// True when every byte is in 0x01…0x7F (NUL is excluded: FTS5 would cut the text there) and
    /// there are at most `maxBytes` of them.
    static func isPlainASCII(_ text: String, maxBytes: Int) -> Bool {
        text.utf8.count <= maxBytes && !text.containsUTF8Byte(where: { $0 == 0 || $0 >= 0x80 })
    }

    /// Instances with an indexed string of `fields` containing `folded` (a lowercased, plain
    /// ASCII pattern of at least `minPatternBytes`), into `result`.
    ///
    /// One lookup over the rowid span of the fields, keeping the rows of those fields, rather
    /// than one per field: every lookup reads the phrase's trigram lists, which hold every
    /// field's strings, so a word in the titles of ten modules read them ten times (1–2 ms each
    /// on 100,000 instances), and a word in ten modules' long descriptions, none of them
    /// indexed, paid the same for nothing.
    static func addMatches(of folded: String, fields: [Int64], to result: inout RowSet, in db: Database) throws {
        let indexable = fields.filter { (0..<maxField).contains($0) }
        guard let low = indexable.min(), let high = indexable.max() else { return }
        var wanted = RowSet(capacity: high + 1)
        for field in indexable { wanted.insert(field) }
        // A quoted FTS5 string is one phrase: every character literal except `"`, written twice.
        let phrase = "\"" + folded.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let statement = try db.cachedStatement(
            sql: """
                SELECT rowid FROM content_trigram WHERE content_trigram MATCH ? AND rowid BETWEEN ? AND ?
                """)
        let first = low << fieldShift, last = (high << fieldShift) | ((1 << fieldShift) - 1)
        try KeyScan.forEach(statement, arguments: [phrase, first, last], in: db) { row in
            let rowid = KeyScan.int64(row, 0)
            guard wanted.contains(rowid >> fieldShift) else { return }
            result.insert((rowid >> instanceShift) & (maxInstance - 1))
        }
    }
}
