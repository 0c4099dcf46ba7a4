import Foundation

/// A JSON value that is `Sendable`, `Hashable` and round-trips exactly.
///
/// HALO content is schemaless (`values` of an instance, the pocket's `data`), so both the server
/// and the SDK carry it as a tree of these rather than as `Any`. Whole numbers (epoch-ms
/// timestamps such as 1475046170088) are written without a fractional part.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

public struct JSONValueError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// For a syntax error: what is wrong, and the byte offset of the first wrong byte.
    public let reason: String?
    public let byteOffset: Int?
    /// For a string refused by a request's parse (`JSONValue(parsingRequest:)`): where it is,
    /// as `$.values.title` or `$.items[2]`.
    public let keyPath: String?

    public init(_ description: String) {
        self.description = description
        reason = nil
        byteOffset = nil
        keyPath = nil
    }

    public init(reason: String, byteOffset: Int, keyPath: String? = nil) {
        self.description = "Invalid JSON at byte \(byteOffset): \(reason)."
        self.reason = reason
        self.byteOffset = byteOffset
        self.keyPath = keyPath
    }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let whole = Int64(exactly: value) { try container.encode(whole) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

// MARK: - Parsing and serializing

extension JSONValue {
    /// Parses JSON text. Fragments (a bare string or number) are accepted.
    public init(data: Data) throws {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw JSONValueError("not valid JSON: \(Self.describe(error))")
        }
    }

    public init(string: String) throws {
        try self.init(data: Data(string.utf8))
    }

    /// Compact JSON; `sortedKeys` gives a stable text (hashing, comparisons, size checks).
    public func data(sortedKeys: Bool = true) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: every case maps to a JSON token and numbers are finite
        // (non-finite doubles are not representable in JSON and never produced by the parser).
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    public func jsonString(sortedKeys: Bool = true) -> String {
        String(decoding: data(sortedKeys: sortedKeys), as: UTF8.self)
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                ?? context.debugDescription
        default:
            return String(describing: error)
        }
    }
}

// MARK: - Accessors

extension JSONValue {
    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var doubleValue: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }

    /// The number as a whole Int64 when it is one (rounding fractional milliseconds, §1.5).
    public var int64Value: Int64? {
        guard case .number(let n) = self, n.isFinite, abs(n) < 9.2e18 else { return nil }
        return Int64(n.rounded())
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] } else { return nil }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
