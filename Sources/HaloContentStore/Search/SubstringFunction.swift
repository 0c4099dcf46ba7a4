import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `halo_contains(text, part)`: 1 when the bytes of `part` occur in `text` (NULL for a NULL
/// `text`), registered on each SQLite connection that needs it.
///
/// Why: `like` on the strings the trigram index leaves out (long text) scans them, and SQLite's
/// LIKE walks each one character by character to fold case, after copying it to end it with a
/// NUL. Both sides are already lowercased by Swift (`folded`, the pattern), so a byte search
/// answers the same: this one reads the text where SQLite keeps it and looks for the pattern's
/// rarest letter with `memchr` (vectorized), comparing the whole pattern only there.
enum SubstringFunction {
    static let name = "halo_contains"

    /// Whether `halo_contains` answers as LIKE would for this (lowercased) pattern: not when it
    /// holds a NUL, where LIKE's pattern ends.
    static func serves(_ pattern: String) -> Bool { !pattern.utf8.contains(0) }

    /// Registers the function on this connection unless it has it; false if it could not be
    /// registered (callers then keep LIKE). Costs one statement preparation when already there.
    static func ensureRegistered(on db: Database) -> Bool {
        guard let connection = db.sqliteConnection else { return false }
        var probe: OpaquePointer?
        let found = sqlite3_prepare_v2(connection, "SELECT \(name)('', '')", -1, &probe, nil) == SQLITE_OK
        sqlite3_finalize(probe)
        if found { return true }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        return sqlite3_create_function_v2(connection, name, 2, flags, nil, sqlFunction, nil, nil, nil) == SQLITE_OK
    }

    private static let sqlFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, count, arguments in
        guard count == 2, let arguments, sqlite3_value_type(arguments[0]) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        // As blobs: the bytes where SQLite holds them (as text they would be copied to add a NUL).
        let text = sqlite3_value_blob(arguments[0])
        var textBytes = Int(sqlite3_value_bytes(arguments[0]))
        let part = sqlite3_value_blob(arguments[1])
        let partBytes = Int(sqlite3_value_bytes(arguments[1]))
        // LIKE reads a string up to its first NUL.
        if let text, let nul = memchr(text, 0, textBytes) { textBytes = text.distance(to: UnsafeRawPointer(nul)) }
        sqlite3_result_int(context, contains(text, textBytes, part, partBytes) ? 1 : 0)
    }

    /// Whether `part` occurs in `text` (byte counts given).
    static func contains(_ text: UnsafeRawPointer?, _ textBytes: Int, _ part: UnsafeRawPointer?, _ partBytes: Int) -> Bool {
        guard partBytes > 0 else { return true }
        guard let part else { return false }
        return contains(text, textBytes, part, partBytes, rarest: rarestIndex(of: part, partBytes))
    }

    /// The same, for a pattern whose rarest byte (`rarestIndex`) is known: a search of many texts
    /// for one pattern finds it once.
    static func contains(
        _ text: UnsafeRawPointer?, _ textBytes: Int, _ part: UnsafeRawPointer, _ partBytes: Int, rarest: Int
    ) -> Bool {
        guard partBytes > 0 else { return true }
        guard let text, partBytes <= textBytes else { return false }
        let byte = Int32(part.load(fromByteOffset: rarest, as: UInt8.self))
        // Where the rarest byte may sit: from its place in the pattern to the last start.
        var position = rarest
        let end = textBytes - partBytes + rarest + 1
        while position < end, let hit = memchr(text + position, byte, end - position) {
            let found = text.distance(to: UnsafeRawPointer(hit))
            if memcmp(text + (found - rarest), part, partBytes) == 0 { return true }
            position = found + 1
        }
        return false
    }

    /// Where in the pattern its rarest byte is (the first of them).
    static func rarestIndex(of part: UnsafeRawPointer, _ partBytes: Int) -> Int {
        let needle = part.assumingMemoryBound(to: UInt8.self)
        var rarest = 0
        for index in 1..<max(partBytes, 1) where rarity(needle[index]) > rarity(needle[rarest]) { rarest = index }
        return rarest
    }

    /// How rare a byte is in text: lowercase letters by their frequency in English prose, then
    /// space, least rare; other bytes (digits, punctuation, non-ASCII) are rare.
    private static func rarity(_ byte: UInt8) -> Int {
        switch byte {
        case 0x20: return 0
        case 0x61...0x7A: return 1 + letterRanks[Int(byte - 0x61)]
        default: return 30
        }
    }

    /// The place of each letter a…z in "etaoinshrdlcumwfgypbvkjxqz", most common first.
    private static let letterRanks: [Int] = {
        var ranks = [Int](repeating: 0, count: 26)
        for (position, letter) in "etaoinshrdlcumwfgypbvkjxqz".utf8.enumerated() { ranks[Int(letter - 0x61)] = position }
        return ranks
    }()
}
