import Foundation

/// A model that can be read from HALO's wire JSON.
public protocol HaloWireDecodable: Sendable {
    /// Reads the model from parsed wire JSON; throws `HaloError.invalidResponse` on a wrong shape.
    init(wire: JSONValue) throws
}

/// A model that can be written as HALO request JSON.
public protocol HaloWireEncodable: Sendable {
    /// The model as the JSON body (or body part) the server expects.
    var wireJSON: JSONValue { get }
}

extension HaloWireDecodable {
    /// Parses JSON text (strictly: trailing commas and other syntax errors are refused) and reads
    /// the model from it; invalid JSON is a `HaloError.invalidResponse`.
    public init(wireData data: Data) throws {
        let json: JSONValue
        do { json = try JSONValue(parsing: data) } catch {
            throw HaloError.invalidResponse(status: nil, message: "\(Self.self): \(error)")
        }
        try self.init(wire: json)
    }
}

extension HaloWireEncodable {
    /// The request JSON as compact text with sorted keys.
    public func wireData() -> Data { wireJSON.data(sortedKeys: true) }
}

/// Tolerant, typed reading of one JSON object from the wire.
///
/// HALO responses mix `null`, absent keys and (from iOS clients' data) fractional numbers, so
/// every accessor treats `null` and absence alike and only fails where a caller asks for a
/// required key.
struct WireObject {
    let fields: [String: JSONValue]
    /// What is being read, for error messages ("content instance", "module", …).
    let what: String

    init(_ json: JSONValue, what: String) throws {
        guard case .object(let fields) = json else {
            throw HaloError.invalidResponse(status: nil, message: "Expected a JSON object for the \(what), got \(json.wireKindName).")
        }
        self.fields = fields
        self.what = what
    }

    subscript(key: String) -> JSONValue? {
        guard let value = fields[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) -> String? { self[key]?.stringValue }

    /// A string, or a number/bool written as text (Android stringifies tag values, §6.3).
    func text(_ key: String) -> String? {
        switch self[key] {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return JSONValue.number(n).jsonString()
        default: return nil
        }
    }

    func requiredString(_ key: String) throws -> String {
        guard let value = string(key) else {
            throw HaloError.invalidResponse(status: nil, message: "The \(what) has no string \"\(key)\".")
        }
        return value
    }

    func int(_ key: String) -> Int? {
        if let n = self[key]?.int64Value { return Int(exactly: n) }
        if let s = string(key) { return Int(s) }
        return nil
    }

    func bool(_ key: String) -> Bool? {
        switch self[key] {
        case .bool(let b): return b
        case .string(let s): return s == "true" ? true : (s == "false" ? false : nil)
        case .number(let n): return n != 0
        default: return nil
        }
    }

    func date(_ key: String) -> Date? {
        guard case .number(let ms) = self[key], ms.isFinite else { return nil }
        return HaloTimestamp.date(fromMilliseconds: ms)
    }

    func array(_ key: String) -> [JSONValue]? { self[key]?.arrayValue }

    func object(_ key: String) -> [String: JSONValue]? { self[key]?.objectValue }

    /// Reads every element of an array key with `read`; absent/null → empty.
    func list<T>(_ key: String, _ read: (JSONValue) throws -> T) throws -> [T] {
        guard let value = self[key] else { return [] }
        guard case .array(let items) = value else {
            throw HaloError.invalidResponse(
                status: nil, message: "\"\(key)\" of the \(what) should be an array, got \(value.wireKindName).")
        }
        return try items.map(read)
    }
}

/// Builds a JSON object while skipping absent optionals, so request bodies carry only what is set.
struct WireObjectBuilder {
    private(set) var fields: [String: JSONValue] = [:]

    mutating func set(_ key: String, _ value: JSONValue) { fields[key] = value }
    mutating func set(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
    mutating func set(_ key: String, _ value: Int?) { if let value { fields[key] = .number(Double(value)) } }
    mutating func set(_ key: String, _ value: Bool?) { if let value { fields[key] = .bool(value) } }
    mutating func set(_ key: String, _ value: Date?) { if let value { fields[key] = HaloTimestamp.json(value) } }
    mutating func set(_ key: String, strings: [String]?) { if let strings { fields[key] = .array(strings.map { .string($0) }) } }

    var json: JSONValue { .object(fields) }
}

extension JSONValue {
    /// The JSON kind, for error messages.
    var wireKindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
