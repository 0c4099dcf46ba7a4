import GRDB
import XCTest

@testable import HaloContentStore

/// `like` with 3+ characters goes through the FTS5 trigram index; it must answer exactly what
/// the plain LIKE scan answers, and both must be "the lowercased pattern's bytes occur in the
/// lowercased string" (the documented semantics), for every kind of text and pattern.
final class TrigramEquivalenceTests: XCTestCase {
    /// Pieces of random strings: ASCII of both cases, LIKE wildcards and FTS5 quote characters
    /// (literal in HALO's `like`), and non-ASCII letters whose lowercasing is tricky.
    static let pieces = [
        "a", "b", "C", "ab", "AB", "abc", "Cab", "cabin", " ", "%", "_", "\\", "\"", "'", "*", "a%b", "x_y",
        "é", "É", "ß", "ẞ", "İ", "ı", "Σ", "ς", "σ", "ǅ", "ﬀ", "Å", "A\u{30A}", "ü", "😀", "日本",
    ]

    func testTrigramPathMatchesScanAndReference() throws {
        let db = try makeContentDatabase()
        // Seeded, so a failure reproduces (and the pattern mix is the same on every run).
        var rng = SplitMix64(seed: 20_261_123)
        func randomText(_ pieceCount: Int) -> String {
            (0..<pieceCount).map { _ in Self.pieces.randomElement(using: &rng) ?? "" }.joined()
        }
        var stored: [Int: [String]] = [:]
        let instances = (1...500).map { n -> WireInstance in
            // Mostly short strings (indexed when ASCII); some longer than the index takes.
            let long = n % 10 == 0
            let title = long ? randomText(80) : randomText(Int.random(in: 0...8, using: &rng))
            let tags = (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomText(Int.random(in: 1...4, using: &rng)) }
            let localized = [randomText(3), randomText(5)]
            let note = randomText(4)
            // Fields are numbered as first met: instance 1 gives "text" of m1 the first number,
            // instance 2 gives "note" of m0 the second, so that a "note" (strings a lookup must
            // keep out) lies between the two modules' "text" fields.
            if n == 2 { return instance(n, module: "m0", values: ["note": .string(note)]) }
            stored[n] = [title] + tags + localized
            let text = JSONValue.array(
                [.string(title)] + tags.map(JSONValue.string) + [.object(["en": .string(localized[0]), "es": .string(localized[1])])])
            if n == 1 { return instance(n, module: "m1", values: ["text": text]) }
            return instance(n, module: "m\(n % 2)", values: ["text": text, "price": .number(Double(n)), "note": .string(note)])
        }
        try db.write { try ContentTables.upsert(contentsOf: instances, in: $0) }
        let indexedRows = try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM content_value WHERE trigram = 1") ?? 0 }
        let scannedRows = try db.read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM content_value WHERE kind = 3 AND trigram = 0") ?? 0
        }
        XCTAssertGreaterThan(indexedRows, 100, "the test must exercise the index")
        let textFields = try db.read { try Int64.fetchAll($0, sql: "SELECT field FROM content_field WHERE name = 'text'") }
        let noteFields = try db.read { try Int64.fetchAll($0, sql: "SELECT field FROM content_field WHERE name = 'note'") }
        XCTAssertTrue(
            noteFields.contains { $0 > textFields.min() ?? 0 && $0 < textFields.max() ?? 0 },
            "a note field must lie between the text fields (\(textFields), \(noteFields))")
        XCTAssertGreaterThan(scannedRows, 100, "the test must exercise the scanned strings")

        // Patterns of 1–5 characters: substrings of stored strings (case changed at random) and
        // random ones.
        var patterns: [String] = []
        // In key order: a dictionary's own order changes from run to run, which made the seeded
        // patterns (and the trigram count below) differ between runs.
        let storedInOrder = stored.keys.sorted().compactMap { stored[$0] }
        for _ in 0..<400 {
            let length = Int.random(in: 1...5, using: &rng)
            if Bool.random(using: &rng), let source = storedInOrder.randomElement(using: &rng)?.randomElement(using: &rng),
                source.count >= length
            {
                let characters = Array(source)
                let start = Int.random(in: 0...(characters.count - length), using: &rng)
                let piece = String(characters[start..<(start + length)])
                patterns.append(Bool.random(using: &rng) ? piece.uppercased() : piece)
            } else {
                patterns.append(String(randomText(length).prefix(length)))
            }
        }
        var trigramLookups = 0
        try db.read { db in
            let universe = try KeyScan.rowSet("SELECT pk FROM content_instance", capacity: 501, in: db)
            var indexed = FilterEvaluator(db: db, universe: universe, moduleScope: nil, capacity: 501)
            indexed.probeRatio = 0
            var scanning = indexed
            scanning.useTrigramIndex = false
            for pattern in patterns {
                let filter = FilterNode.compare("text", .like, .string(pattern))
                let viaIndex = try indexed.evaluate(filter, on: .values).members
                let viaScan = try scanning.evaluate(filter, on: .values).members
                let needle = Array(pattern.lowercased().utf8)
                let expected = stored.filter { _, texts in
                    texts.contains { Self.bytes(Array($0.lowercased().utf8), contain: needle) }
                }.keys.map(Int64.init).sorted()
                XCTAssertEqual(viaIndex, viaScan, "pattern \(pattern.debugDescription)")
                XCTAssertEqual(viaScan, expected, "pattern \(pattern.debugDescription)")
                if pattern.lowercased().utf8.count >= 3, pattern.allSatisfy(\.isASCII) { trigramLookups += 1 }
            }
        }
        XCTAssertGreaterThan(trigramLookups, 50, "too few patterns took the trigram path")
    }

    /// `halo_contains`, which scans the strings the index leaves out, answers as the LIKE it
    /// replaces on lowercased text and patterns: at either end, repeated letters, a pattern
    /// longer than the text, empty ones, non-ASCII, and text holding a NUL (LIKE stops there).
    func testSubstringFunctionAnswersAsLike() throws {
        let db = try makeContentDatabase()
        var rng = SplitMix64(seed: 20_261_128)
        let pieces = Self.pieces + ["\u{0}", "aa", "aaa", "z", "q", " "]
        func randomText(_ pieceCount: Int) -> String {
            (0..<pieceCount).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined().lowercased()
        }
        var pairs: [(String, String)] = [
            ("", ""), ("abc", ""), ("", "a"), ("ab", "abc"), ("abc", "abc"), ("xabc", "abc"), ("abcx", "abc"), ("aaab", "aab"),
            ("a\u{0}bc", "bc"), ("a\u{0}bc", "a"), ("quiz", "qu"), ("zzzq", "zq"),
        ]
        for _ in 0..<3_000 {
            let text = randomText(Int.random(in: 0...30, using: &rng))
            let characters = Array(text)
            let length = Int.random(in: 1...4, using: &rng)
            if Bool.random(using: &rng), characters.count >= length {
                let start = Int.random(in: 0...(characters.count - length), using: &rng)
                pairs.append((text, String(characters[start..<(start + length)])))
            } else {
                pairs.append((text, randomText(length)))
            }
        }
        var served = 0
        try db.read { db in
            XCTAssertTrue(SubstringFunction.ensureRegistered(on: db))
            XCTAssertTrue(SubstringFunction.ensureRegistered(on: db), "a second call finds it registered")
            for (text, pattern) in pairs where SubstringFunction.serves(pattern) {
                served += 1
                // Bound as bytes made text: a String argument would be cut at its NUL.
                let bytes = Data(text.utf8)
                let like = try Bool.fetchOne(
                    db, sql: "SELECT CAST(? AS TEXT) LIKE ? ESCAPE '\\'", arguments: [bytes, FilterEvaluator.likePattern(pattern)])
                let contains = try Bool.fetchOne(
                    db, sql: "SELECT \(SubstringFunction.name)(CAST(? AS TEXT), ?)", arguments: [bytes, pattern])
                XCTAssertEqual(contains, like, "\(text.debugDescription) contains \(pattern.debugDescription)")
            }
            XCTAssertNil(try Bool.fetchOne(db, sql: "SELECT \(SubstringFunction.name)(NULL, 'a')"))
        }
        XCTAssertGreaterThan(served, 2_500)
        XCTAssertFalse(SubstringFunction.serves("a\u{0}b"), "LIKE ends its pattern at a NUL: the function does not stand in")
    }

    /// Replacing and deleting instances must take their strings out of the index (triggers).
    func testIndexFollowsRewritesAndDeletes() throws {
        let db = try makeContentDatabase()
        func matches(_ pattern: String) throws -> [String] {
            try db.read { try ContentTables.search(SearchRequest(searchValues: .compare("title", .like, .string(pattern))), in: $0) }
                .items.map(\.id).sorted()
        }
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: [
                    instance(1, values: ["title": "Log Cabin"]), instance(2, values: ["title": ["cabinet", "Shed"]]),
                    instance(3, module: "m2", values: ["title": "cabin"]),
                ], in: db)
        }
        XCTAssertEqual(try matches("CABIN"), [hexId(1), hexId(2), hexId(3)])
        XCTAssertEqual(try matches("shed"), [hexId(2)])
        try db.write { try ContentTables.upsert(instance(1, values: ["title": "Log house"]), in: $0) }
        XCTAssertEqual(try matches("cabin"), [hexId(2), hexId(3)])
        XCTAssertEqual(try matches("g ho"), [hexId(1)])
        try db.write { try ContentTables.hardDelete(ids: [hexId(2)], in: $0) }
        XCTAssertEqual(try matches("cabin"), [hexId(3)])
        XCTAssertEqual(try matches("shed"), [])
        // The same instance twice in one bulk write: only its last strings stay indexed.
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: [
                    instance(4, values: ["title": "cabin four"]), instance(4, values: ["title": "barn four"]),
                ], in: db)
        }
        XCTAssertEqual(try matches("cabin"), [hexId(3)])
        XCTAssertEqual(try matches("barn"), [hexId(4)])
        try db.write { try ContentTables.hardDelete(ids: [hexId(4)], in: $0) }
        XCTAssertEqual(try matches("four"), [])
        _ = try db.write { try ContentTables.removeAll(moduleId: "m2", in: $0) }
        XCTAssertEqual(try matches("cabin"), [])
        let leftovers = try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM content_trigram WHERE content_trigram MATCH 'cab'") }
        XCTAssertEqual(leftovers, 0, "deleted strings left trigram rows behind")
        let allRows = try db.read {
            try Int.fetchOne(
                $0, sql: "SELECT count(*) FROM content_trigram WHERE content_trigram MATCH 'log' OR content_trigram MATCH 'our'")
        }
        XCTAssertEqual(allRows, 1, "only instance 1 (\"log house\") is left")
        try db.write { try $0.execute(sql: "INSERT INTO content_trigram (content_trigram) VALUES ('integrity-check')") }
    }

    /// A bad instance in a bulk write stops it there: the ones before are stored and findable,
    /// none after, and the index stays consistent with the rows (rewriting them works).
    func testFailedBulkWriteLeavesIndexConsistent() throws {
        let db = try makeContentDatabase()
        func matches(_ pattern: String) throws -> [String] {
            try db.read { try ContentTables.search(SearchRequest(searchValues: .compare("title", .like, .string(pattern))), in: $0) }
                .items.map(\.id).sorted()
        }
        try db.write { try ContentTables.upsert(contentsOf: [instance(1, values: ["title": "old one"])], in: $0) }
        var broken = instance(3, values: ["title": "new three"])
        broken.createdAt = nil
        try db.write { db in
            XCTAssertThrowsError(
                try ContentTables.upsert(
                    contentsOf: [
                        instance(1, values: ["title": "new one"]), instance(2, values: ["title": "new two"]), broken,
                        instance(4, values: ["title": "new four"]),
                    ], in: db))
        }
        XCTAssertEqual(try matches("new"), [hexId(1), hexId(2)])
        XCTAssertEqual(try matches("old"), [])
        try db.write { try ContentTables.upsert(contentsOf: [instance(1, values: ["title": "again"])], in: $0) }
        XCTAssertEqual(try matches("new"), [hexId(2)])
        try db.write { try $0.execute(sql: "INSERT INTO content_trigram (content_trigram) VALUES ('integrity-check')") }
    }

    private static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
