import Foundation

/// The project's one JSON scanner: small, fast, strict RFC 8259, producing `JSONValue`. The store
/// reads back the bodies it wrote with it (`JSONDecoder` costs several times more per body), and
/// the SDK reads every server answer with it (`init(wireData:)`): Foundation's parsers on Linux
/// accept trailing commas (`[1,2,]`), so malformed answers such as the fixtures PROTOCOL §22
/// lists would pass unnoticed; the SDKs failed on them, and so do we.
/// Errors name the byte offset of the first syntax error.
///
/// Strings are read leniently by default (invalid UTF-8 becomes U+FFFD, `\u0000` is kept): the
/// store and the SDK read back text they wrote themselves or that a server sent, which may hold
/// U+0000 (SQLite stores it) and must stay readable. A request's body is read with
/// `checkingStrings` (`JSONValue(parsingRequest:)`): U+0000, raw or escaped, and invalid UTF-8
/// inside a string or a member name are errors naming the byte offset and the key path, so
/// nothing reaches a database altered or unstorable (PostgreSQL refuses U+0000 in text).
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maxDepth = 512
    /// RFC 8259 lets parsers take the last of repeated member names (the wire does); an editor
    /// of JSON text must say instead that a name is repeated.
    private var rejectsDuplicateKeys = false
    /// A request's strictness: U+0000 and invalid UTF-8 in strings are errors.
    private var checksStrings = false
    /// Where the parser is (only kept with `checksStrings`), for the key path of an error.
    private var path: [PathStep] = []

    private enum PathStep {
        case member(String)
        case element(Int)
    }

    static func parse(_ text: String, rejectingDuplicateKeys: Bool = false) throws -> JSONValue {
        try parse(bytes: Array(text.utf8), rejectingDuplicateKeys: rejectingDuplicateKeys)
    }

    static func parse(bytes: [UInt8], rejectingDuplicateKeys: Bool = false, checkingStrings: Bool = false) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.rejectsDuplicateKeys = rejectingDuplicateKeys
        parser.checksStrings = checkingStrings
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String, at offset: Int? = nil) -> JSONValueError {
        JSONValueError(reason: message, byteOffset: offset ?? index)
    }

    /// `$`, then `.name` (or `["odd name"]`) per member and `[n]` per element.
    private var keyPath: String {
        var text = "$"
        for step in path {
            switch step {
            case .member(let name):
                let plain =
                    !name.isEmpty && name.utf8.first.map({ !Self.isDigit($0) }) == true
                    && name.utf8.allSatisfy { Self.isDigit($0) || (0x61...0x7A).contains($0 | 0x20) || $0 == 0x5F }
                text += plain ? ".\(name)" : "[\(JSONValue.string(name).compactJSONText)]"
            case .element(let position):
                text += "[\(position)]"
            }
        }
        return text
    }

    /// A string refused by `checksStrings`: what is wrong, where (byte and key path).
    private func stringError(_ problem: String, at offset: Int, inName: Bool) -> JSONValueError {
        let place = inName ? "a member name in \(keyPath)" : "the string at \(keyPath)"
        return JSONValueError(reason: "\(place) \(problem)", byteOffset: offset, keyPath: keyPath)
    }

    private static func nulProblem(at offset: Int) -> String {
        "contains U+0000 (NUL) at byte \(offset), which is not accepted"
    }

    /// With `checksStrings`, the raw bytes of a string (between its quotes) must be UTF-8.
    private func checkUTF8(_ range: Range<Int>, inName: Bool) throws {
        if let offset = UTF8Check.firstInvalidOffset(in: bytes, range) {
            let hex = String(bytes[offset], radix: 16, uppercase: true)
            throw stringError(
                "holds invalid UTF-8 at byte \(offset) (0x\(hex.count == 1 ? "0" : "")\(hex))", at: offset, inName: inName)
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return .number(try parseNumber())
        }
    }

    /// Matches a literal byte by byte, so an error points at the first byte that differs.
    private mutating func expect(_ word: String) throws {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw error("expected \"\(word)\"") }
            index += 1
        }
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("JSON nested too deeply") }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object([:]) }
        // Members are collected first and the dictionary made at its final size: growing it
        // member by member rehashed every key at each step (half of a sync's parsing time).
        var members: [(String, JSONValue)] = []
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let keyStart = index
            let key = try parseString(inName: true)
            if rejectsDuplicateKeys, members.contains(where: { $0.0 == key }) {
                throw error("the name \"\(key)\" is repeated", at: keyStart)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            if checksStrings { path.append(.member(key)) }
            members.append((key, try parseValue()))
            if checksStrings { path.removeLast() }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                // A repeated name keeps its last value, as RFC 8259 lets parsers do.
                return .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
            }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            if checksStrings { path.append(.element(elements.count)) }
            elements.append(try parseValue())
            if checksStrings { path.removeLast() }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func parseString(inName: Bool = false) throws -> String {
        index += 1  // opening quote
        let start = index
        var nonASCII = false
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if checksStrings && nonASCII { try checkUTF8(start..<index, inName: inName) }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw controlError(byte, inName: inName) }
            if byte >= 0x80 { nonASCII = true }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                if checksStrings && nonASCII { try checkUTF8(start..<(index - 1), inName: inName) }
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unexpected end of JSON") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    let escapeStart = index - 2
                    var code = try parseHex4()
                    if code == 0 && checksStrings { throw stringError(Self.nulProblem(at: escapeStart), at: escapeStart, inName: inName) }
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                        bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape")
                }
            default:
                guard byte >= 0x20 else {
                    index -= 1
                    throw controlError(byte, inName: inName)
                }
                if byte >= 0x80 { nonASCII = true }
                scalars.append(byte)
            }
        }
        throw error("unterminated string")
    }

    /// A raw control character inside a string (never valid JSON); U+0000 named as such.
    private func controlError(_ byte: UInt8, inName: Bool) -> JSONValueError {
        if byte == 0 && checksStrings { return stringError(Self.nulProblem(at: index), at: index, inName: inName) }
        return error("control character in string")
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of JSON") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value * 16 + UInt32(digit)
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, nothing looser (no `01`, `1.`, `+1`).
    private mutating func parseNumber() throws -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else {
            throw error(index == start ? "expected a value" : "expected digits")
        }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw error("expected digits after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw error("expected exponent digits") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range \(text)") }
        return value
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        return index - start
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

extension JSONValue {
    /// Parses JSON text with the store's fast parser (same results as `init(string:)`).
    public init(parsing text: String) throws {
        self = try JSONParser.parse(text)
    }

    /// Parses JSON text typed by a person: as `init(parsing:)`, but a member name repeated in one
    /// object is an error (naming its byte offset) rather than the last one winning.
    public init(parsing text: String, rejectingDuplicateKeys: Bool) throws {
        self = try JSONParser.parse(text, rejectingDuplicateKeys: rejectingDuplicateKeys)
    }

    /// Parses JSON bytes strictly (RFC 8259) with the store's parser; errors name the byte offset.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(bytes: [UInt8](data))
    }

    /// As `init(parsing:)` for `Data`, without copying the bytes.
    public init(parsing bytes: [UInt8]) throws {
        self = try JSONParser.parse(bytes: bytes)
    }

    /// Parses a request's JSON body: as `init(parsing:)`, and U+0000 (raw or `\u0000`) or invalid
    /// UTF-8 in any string or member name is an error naming its byte offset and key path
    /// (`JSONValueError.keyPath`), never a string stored altered. Only the server's request
    /// decoding uses it; text read back from storage keeps the lenient `init(parsing:)`.
    public init(parsingRequest bytes: [UInt8]) throws {
        self = try JSONParser.parse(bytes: bytes, checkingStrings: true)
    }
}
