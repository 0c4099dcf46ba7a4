import Foundation
import HaloContentStore

/// An incremental, validating reader of the sync answer (§14.2) that sees the bytes as they arrive.
///
/// It never holds more than one array element: the top level (`{`, keys, `:`, `,`, the section
/// arrays around their elements) is checked byte by byte as strict JSON — a trailing comma, a
/// missing one, a section that is not an array or an element that is not an object is an error
/// at once — and each element of `created`, `updated` and `deleted` is cut out as raw JSON for
/// the caller to parse strictly, one at a time, so memory stays flat for any module size. Other
/// top-level values (small) are captured and parsed strictly too; `syncTimestamp` must be there,
/// and a number. An answer refused part-way leaves the cache as it was: the caller writes nothing
/// it has not seen end well.
struct SyncStreamParser {
    enum Section: Sendable, Equatable { case created, updated, deleted }

    enum Event {
        /// One element's JSON text, as it came.
        case element(Section, [UInt8])
        case syncTimestamp(Int64)
    }

    /// Where the reader is in the top-level object.
    private enum State {
        case start, objectOpen, key, afterKey, beforeValue, value, arrayOpen, element, afterElement, beforeElement
        case afterValue, beforeKey, end
    }

    private var state = State.start
    private var key: [UInt8] = []
    private var section: Section?
    /// The element or top-level value being cut out, with its nesting and string state.
    private var captured: [UInt8] = []
    private var nesting = 0
    private var inString = false
    private var escaped = false
    private var sawTimestamp = false
    private(set) var bytesSeen = 0

    /// Feeds a block of the answer; calls `emit` for each complete element and the timestamp.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (Event) throws -> Void) throws {
        var offset = 0
        while offset < bytes.count {
            if state == .element {
                offset = try captureElement(bytes, from: offset, emit)
            } else {
                bytesSeen += 1
                try step(bytes[offset], emit)
                offset += 1
            }
        }
    }

    /// The inside of an element, where almost every byte of the answer is: scanned in one loop
    /// and copied in one append, to its end or the end of the block (byte by byte through
    /// `step` and `capture` this was the most expensive part of reading a sync). Returns where
    /// the scan stopped.
    private mutating func captureElement(_ bytes: UnsafeRawBufferPointer, from start: Int, _ emit: (Event) throws -> Void)
        throws -> Int
    {
        var offset = start
        var ended = false
        while offset < bytes.count, !ended {
            if inString && !escaped {
                // Inside a string (most of an answer's bytes: long texts) only a quote or a
                // backslash changes anything: skip to the next one without following each byte.
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "\""), bytes[offset] != UInt8(ascii: "\\") {
                    offset += 1
                }
                if offset == bytes.count { break }
            }
            ended = follow(bytes[offset])
            offset += 1
        }
        captured.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
        bytesSeen += offset - start
        if ended {
            state = .afterElement
            if let section { try emit(.element(section, captured)) }
        }
        return offset
    }

    /// Checks that the whole answer arrived (a cut connection leaves it open) and said when it
    /// was taken.
    func finish() throws {
        guard state == .end else { throw SyncStreamError("the sync answer ended early (after \(bytesSeen) bytes)") }
        guard sawTimestamp else { throw SyncStreamError("the sync answer has no \"syncTimestamp\"") }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    private func unexpected(_ byte: UInt8, _ expected: String) -> SyncStreamError {
        let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(UnicodeScalar(byte)))'" : String(format: "byte 0x%02X", byte)
        return SyncStreamError("\(shown) at byte \(bytesSeen) of the sync answer where \(expected) was expected")
    }

    private mutating func step(_ byte: UInt8, _ emit: (Event) throws -> Void) throws {
        switch state {
        case .value:  // (.element never comes here: `feed` scans elements with `captureElement`)
            try capture(byte, emit)
            return
        case .key:
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                state = .afterKey
                return
            }
            key.append(byte)
            return
        default:
            break
        }
        if Self.isSpace(byte) { return }
        switch (state, byte) {
        case (.start, UInt8(ascii: "{")): state = .objectOpen
        case (.start, _): throw SyncStreamError("the sync answer is not a JSON object")
        case (.objectOpen, UInt8(ascii: "}")): state = .end
        case (.objectOpen, UInt8(ascii: "\"")), (.beforeKey, UInt8(ascii: "\"")):
            key.removeAll(keepingCapacity: true)
            state = .key
        case (.objectOpen, _), (.beforeKey, _): throw unexpected(byte, "a key")
        case (.afterKey, UInt8(ascii: ":")):
            section = Self.section(named: key)
            state = .beforeValue
        case (.afterKey, _): throw unexpected(byte, "':'")
        case (.beforeValue, _) where section != nil:
            guard byte == UInt8(ascii: "[") else {
                throw SyncStreamError("\"\(String(decoding: key, as: UTF8.self))\" in the sync answer is not a list")
            }
            state = .arrayOpen
        case (.beforeValue, _):
            startCapture(byte, as: .value)
        case (.beforeElement, UInt8(ascii: "]")), (.beforeKey, UInt8(ascii: "}")):
            throw SyncStreamError("a trailing comma before byte \(bytesSeen) of the sync answer (not valid JSON)")
        case (.arrayOpen, UInt8(ascii: "]")), (.afterElement, UInt8(ascii: "]")): state = .afterValue
        case (.arrayOpen, UInt8(ascii: "{")), (.beforeElement, UInt8(ascii: "{")): startCapture(byte, as: .element)
        case (.arrayOpen, _), (.beforeElement, _):
            throw unexpected(byte, "an object in \"\(String(decoding: key, as: UTF8.self))\"")
        case (.afterElement, UInt8(ascii: ",")): state = .beforeElement
        case (.afterElement, _): throw unexpected(byte, "',' or ']'")
        case (.afterValue, UInt8(ascii: ",")): state = .beforeKey
        case (.afterValue, UInt8(ascii: "}")): state = .end
        case (.afterValue, _): throw unexpected(byte, "',' or '}'")
        case (.end, _): throw SyncStreamError("data after the end of the sync answer")
        default: throw unexpected(byte, "JSON")
        }
    }

    private mutating func startCapture(_ byte: UInt8, as state: State) {
        let previousSize = captured.count
        captured = []  // the last element's bytes went out with it
        captured.reserveCapacity(max(256, previousSize + previousSize / 4))  // elements are alike in size
        captured.append(byte)
        nesting = byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") ? 1 : 0
        inString = byte == UInt8(ascii: "\"")
        escaped = false
        self.state = state
    }

    /// One byte of a top-level value: ends it when its nesting closes (or, for a scalar value, at
    /// the `,` or `}` after it, which is then read as the object's).
    private mutating func capture(_ byte: UInt8, _ emit: (Event) throws -> Void) throws {
        if !inString && nesting == 0 && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || Self.isSpace(byte)) {
            try endValue(emit)
            try step(byte, emit)
            return
        }
        captured.append(byte)
        if follow(byte) { try endValue(emit) }
    }

    /// Follows one byte of a captured element or value through strings, escapes and nesting;
    /// true when it closes the value: the quote ending a top-level string, or the bracket closing
    /// the outermost level.
    private mutating func follow(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                return nesting == 0
            }
            return false
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): nesting += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            nesting -= 1
            return nesting == 0
        default: break
        }
        return false
    }

    /// A complete top-level value other than a section: strict JSON, and a number for `syncTimestamp`.
    private mutating func endValue(_ emit: (Event) throws -> Void) throws {
        state = .afterValue
        let name = String(decoding: key, as: UTF8.self)
        let value: JSONValue
        do {
            value = try JSONValue(data: Data(captured))
        } catch {
            throw SyncStreamError("\"\(name)\" in the sync answer is not valid JSON: \(error)")
        }
        guard name == "syncTimestamp" else { return }
        guard case .number(let number) = value, number.isFinite, abs(number) < 9e15 else {
            throw SyncStreamError("syncTimestamp is not a number: \(value.jsonString().prefix(40))")
        }
        sawTimestamp = true
        try emit(.syncTimestamp(Int64(number.rounded())))
    }

    private static func section(named key: [UInt8]) -> Section? {
        switch String(decoding: key, as: UTF8.self) {
        case "created": return .created
        case "updated": return .updated
        case "deleted": return .deleted
        default: return nil
        }
    }
}

/// The sync answer is not the JSON §14.2 describes (or it was cut off).
struct SyncStreamError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
