import Foundation

/// An incremental tokenizer for the sync answer (§14.2) that sees the bytes as they arrive.
///
/// It never holds more than one array element: it tracks nesting and string state byte by byte,
/// cuts out each element of `created`, `updated` and `deleted` as raw JSON, and reads the
/// top-level `syncTimestamp` number, whatever the key order. Other keys are skipped. Elements
/// are decoded one at a time by the caller, so memory stays flat for any module size.
struct SyncStreamParser {
    enum Section: Sendable, Equatable { case created, updated, deleted }

    enum Event {
        case element(Section, Data)
        case syncTimestamp(Int64)
    }

    private var depth = 0
    private var inString = false
    private var escaped = false
    private var finished = false
    private var expectingKey = false
    /// The key (at depth 1) whose value is being read.
    private var key: [UInt8] = []
    private var readingKey = false
    private var section: Section?
    /// Bytes of the array element being cut out (depth ≥ 3 inside a section array).
    private var element: [UInt8] = []
    private var capturingElement = false
    /// Bytes of the scalar value of `syncTimestamp`.
    private var scalar: [UInt8] = []
    private var readingScalar = false
    private(set) var bytesSeen = 0

    /// Feeds a block of the answer; calls `emit` for each complete element and the timestamp.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (Event) throws -> Void) throws {
        bytesSeen += bytes.count
        for byte in bytes {
            if capturingElement { element.append(byte) }
            if inString {
                if readingKey && !(byte == UInt8(ascii: "\"") && !escaped) { key.append(byte) }
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    readingKey = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 && expectingKey {
                    readingKey = true
                    key.removeAll(keepingCapacity: true)
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard !finished else { throw SyncStreamError("data after the end of the sync answer") }
                if depth == 0 && byte != UInt8(ascii: "{") { throw SyncStreamError("the sync answer is not a JSON object") }
                if depth == 1 && byte == UInt8(ascii: "[") { section = Self.section(named: key) }
                if depth == 2 && section != nil && !capturingElement {
                    capturingElement = true
                    element = [byte]
                }
                depth += 1
                expectingKey = depth == 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                try endScalar(emit)
                depth -= 1
                if depth < 0 { throw SyncStreamError("unbalanced brackets in the sync answer") }
                if depth == 2 && capturingElement {
                    capturingElement = false
                    if let section { try emit(.element(section, Data(element))) }
                    element.removeAll(keepingCapacity: true)
                }
                if depth == 1 { section = nil }
                if depth == 0 { finished = true }
            case UInt8(ascii: ":"):
                if depth == 1 {
                    expectingKey = false
                    readingScalar = key == Self.timestampKey
                    scalar.removeAll(keepingCapacity: true)
                }
            case UInt8(ascii: ","):
                try endScalar(emit)
                if depth == 1 { expectingKey = true }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                break
            default:
                if readingScalar { scalar.append(byte) }
            }
        }
    }

    /// Checks that the whole answer arrived (a cut connection leaves it unbalanced).
    func finish() throws {
        guard finished, depth == 0 else {
            throw SyncStreamError("the sync answer ended early (after \(bytesSeen) bytes)")
        }
    }

    private mutating func endScalar(_ emit: (Event) throws -> Void) throws {
        guard readingScalar else { return }
        readingScalar = false
        let text = String(decoding: scalar, as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw SyncStreamError("syncTimestamp is not a number: \(text.prefix(40))")
        }
        try emit(.syncTimestamp(Int64(value.rounded())))
    }

    private static let timestampKey = Array("syncTimestamp".utf8)

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
