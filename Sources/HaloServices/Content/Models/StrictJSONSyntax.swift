import Foundation

/// A strict RFC 8259 syntax check of JSON text.
///
/// Foundation's parsers on Linux accept trailing commas (`[1,2,]`), so malformed answers such as
/// the fixtures PROTOCOL §22 lists would pass unnoticed; the SDKs failed on them, and so do we.
/// This scanner only validates — parsing stays with `JSONValue`.
enum StrictJSONSyntax {
    /// Throws a `HaloError.invalidResponse` naming the byte offset of the first syntax error.
    static func validate(_ data: Data) throws {
        var scanner = Scanner(bytes: [UInt8](data))
        try scanner.skipWhitespace()
        try scanner.value(depth: 0)
        try scanner.skipWhitespace()
        if scanner.index != scanner.bytes.count { throw scanner.failure("unexpected text after the JSON value") }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// Deeper nesting than this is refused rather than risking the stack.
        static let maxDepth = 512

        init(bytes: [UInt8]) { self.bytes = bytes }

        func failure(_ what: String) -> HaloError {
            .invalidResponse(status: nil, message: "Invalid JSON at byte \(index): \(what).")
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() throws {
            while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard current == byte else { throw failure("expected \"\(literal)\"") }
                index += 1
            }
        }

        mutating func value(depth: Int) throws {
            guard depth < Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth)") }
            guard let c = current else { throw failure("unexpected end of text") }
            switch c {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try expect("true")
            case UInt8(ascii: "f"): try expect("false")
            case UInt8(ascii: "n"): try expect("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw failure("expected a value")
            }
        }

        mutating func object(depth: Int) throws {
            index += 1
            try skipWhitespace()
            if current == UInt8(ascii: "}") { index += 1; return }
            while true {
                guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                try string()
                try skipWhitespace()
                try expect(":")
                try skipWhitespace()
                try value(depth: depth + 1)
                try skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    try skipWhitespace()
                    continue  // a "}" here is a trailing comma: the member-name check rejects it
                }
                try expect("}")
                return
            }
        }

        mutating func array(depth: Int) throws {
            index += 1
            try skipWhitespace()
            if current == UInt8(ascii: "]") { index += 1; return }
            while true {
                try value(depth: depth + 1)
                try skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    try skipWhitespace()
                    continue  // a "]" here is a trailing comma: `value` rejects it
                }
                try expect("]")
                return
            }
        }

        mutating func string() throws {
            index += 1
            while let c = current {
                switch c {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = current else { throw failure("unterminated escape") }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            index += 1
                            guard let h = current, (h >= 0x30 && h <= 0x39) || (h | 0x20 >= 0x61 && h | 0x20 <= 0x66) else {
                                throw failure("bad \\u escape")
                            }
                        }
                    } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                        throw failure("bad escape")
                    }
                    index += 1
                case 0x00..<0x20:
                    throw failure("control character in a string")
                default:
                    index += 1
                }
            }
            throw failure("unterminated string")
        }

        mutating func number() throws {
            if current == UInt8(ascii: "-") { index += 1 }
            func digits(_ scanner: inout Scanner) -> Int {
                var count = 0
                while let c = scanner.current, c >= 0x30 && c <= 0x39 { scanner.index += 1; count += 1 }
                return count
            }
            if current == UInt8(ascii: "0") {
                index += 1
            } else if digits(&self) == 0 {
                throw failure("expected digits")
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw failure("expected digits after the decimal point") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw failure("expected exponent digits") }
            }
        }
    }
}
