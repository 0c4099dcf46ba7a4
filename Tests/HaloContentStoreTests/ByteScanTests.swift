import XCTest

@testable import HaloContentStore

/// The byte tests a bulk load runs on every stored string (`String.containsUTF8Byte`): JSON
/// escaping, the lowercased copy and the trigram index's choice must answer exactly what their
/// definitions, written plainly over `utf8`, answer.
final class ByteScanTests: XCTestCase {
    /// Pieces that each test cares about: quotes, backslashes and control characters (escapes),
    /// NUL and non-ASCII (the trigram index), upper case of both kinds (lowercasing).
    static let pieces = [
        "a", "Z", "z", "@", "[", "`", "{", "\"", "\\", "\n", "\t", "\u{1}", "\u{1F}", "\u{0}", " ", "\u{7F}",
        "é", "É", "ß", "İ", "Σ", "😀", "日本", String(repeating: "x", count: 150),
    ]

    func testByteScansAgreeWithTheirDefinitions() throws {
        var rng = SplitMix64(seed: 20_261_128)
        var strings = ["", "abc", "ABC", String(repeating: "a", count: 160), String(repeating: "a", count: 161)]
        for _ in 0..<3_000 {
            strings.append((0..<Int.random(in: 0...8, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined())
        }
        for text in strings {
            let needsEscape = text.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            var written = ""
            JSONValue.writeString(text, into: &written)
            XCTAssertEqual(written != "\"" + text + "\"", needsEscape, "escaping \(text.debugDescription)")
            XCTAssertEqual(try JSONValue(string: written).stringValue, text, "round trip of \(text.debugDescription)")

            XCTAssertEqual(ContentRows.folded(text), text.lowercased(), "lowercase of \(text.debugDescription)")

            for maxBytes in [0, 3, 160, .max] {
                let plain = text.utf8.count <= maxBytes && text.utf8.allSatisfy { $0 != 0 && $0 < 0x80 }
                XCTAssertEqual(TrigramIndex.isPlainASCII(text, maxBytes: maxBytes), plain, "\(text.debugDescription), \(maxBytes)")
            }
        }
    }
}
