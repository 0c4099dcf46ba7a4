import Foundation
import HaloContentStore
import Hummingbird
import NIOCore

/// Reads request bodies and queries, turning every client mistake into a 4xx `APIError`.
enum RequestInput {
    enum BodyKind { case json, form }

    /// The whole body, refusing anything above `limit` bytes with 413.
    static func bodyData(_ request: Request, limit: Int) async throws -> Data {
        var request = request
        do {
            let buffer = try await request.collectBody(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, "Request body is larger than the limit of \(limit) bytes")
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "Request body is larger than the limit of \(limit) bytes")
        } catch let error as APIError {
            throw error
        } catch {
            // A malformed chunked encoding, a connection cut mid-body: the client's doing, not ours.
            throw APIError.badRequest("The request body could not be read: \(error)")
        }
    }

    /// Which encoding the `Content-Type` announces. A missing header is read as JSON (lenient
    /// clients); any other type is refused with 415 naming what is accepted.
    static func kind(of request: Request, accepting accepted: Set<BodyKind>) throws -> BodyKind {
        let raw = request.headers[.contentType]?.lowercased() ?? ""
        let kind: BodyKind?
        if raw.isEmpty {
            kind = accepted.contains(.json) ? .json : .form
        } else if raw.contains("json") {
            kind = .json
        } else if raw.hasPrefix("application/x-www-form-urlencoded") {
            kind = .form
        } else {
            kind = nil
        }
        guard let kind, accepted.contains(kind) else {
            let names = accepted.map { $0 == .json ? "application/json" : "application/x-www-form-urlencoded" }.sorted()
            throw APIError(
                .unsupportedMediaType,
                "Unsupported Content-Type '\(raw)'; this endpoint accepts \(names.joined(separator: " or "))")
        }
        return kind
    }

    /// A JSON body that must be an object.
    static func jsonObject(_ request: Request, limit: Int) async throws -> [String: JSONValue] {
        _ = try kind(of: request, accepting: [.json])
        let data = try await bodyData(request, limit: limit)
        return try parseObject(data)
    }

    static func parseObject(_ data: Data) throws -> [String: JSONValue] {
        guard !data.isEmpty else { throw APIError.badRequest("Request body is empty; a JSON object is expected") }
        let value: JSONValue
        do {
            // The store's strict parser (RFC 8259, depth-limited, errors name the byte): several
            // times faster than JSONDecoder on large bodies (imports, batches).
            value = try JSONValue(parsing: data)
        } catch {
            throw APIError.badRequest("Malformed JSON body: \(error)")
        }
        guard case .object(let object) = value else {
            throw APIError.badRequest("Request body must be a JSON object")
        }
        return object
    }

    /// A body that may be JSON or form-encoded (login and push activity differ per SDK, §21).
    /// Form fields become string values.
    static func fields(_ request: Request, limit: Int, accepting: Set<BodyKind> = [.json, .form]) async throws
        -> [String: JSONValue]
    {
        let kind = try kind(of: request, accepting: accepting)
        let data = try await bodyData(request, limit: limit)
        switch kind {
        case .json: return try parseObject(data)
        case .form:
            var result: [String: JSONValue] = [:]
            for (key, value) in formPairs(String(decoding: data, as: UTF8.self)) { result[key] = .string(value) }
            return result
        }
    }

    /// Decodes `a=b&c=d` (form bodies and query strings): `+` is a space, `%XX` escapes decoded.
    /// Empty segments (a trailing `&`) are skipped.
    static func formPairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { segment in
            let parts = segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decodeComponent(parts[0])
            let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            return (key, value)
        }
    }

    private static func decodeComponent(_ raw: Substring) -> String {
        let spaced = raw.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Query parameters of the request, decoded (raw and %-encoded brackets alike).
    static func query(_ request: Request) -> QueryParameters {
        QueryParameters(pairs: formPairs(request.uri.query ?? ""))
    }
}

/// A request's query parameters, read only through checked accessors: a number out of range or
/// not a number at all is a 400 naming the parameter, never a trap or a silent default.
struct QueryParameters: Sendable {
    let pairs: [(String, String)]

    /// The last value given for `key`.
    func string(_ key: String) -> String? { pairs.last { $0.0 == key }?.1 }

    /// Every value given for any of `keys`, in order.
    func all(_ keys: String...) -> [String] { pairs.filter { keys.contains($0.0) }.map(\.1) }

    /// `true` only for the literal `true`.
    func flag(_ key: String) -> Bool { string(key) == "true" }

    /// A whole number within `range`; `defaultValue` when absent or empty.
    func integer(_ key: String, in range: ClosedRange<Int>, default defaultValue: Int) throws -> Int {
        guard let text = string(key), !text.isEmpty else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest(
                "Query parameter '\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound) (got '\(text.prefix(40))')"
            )
        }
        return value
    }
}

/// Typed reads of a decoded JSON object: the one way routes turn request JSON into Swift values.
/// Every number is range-checked where it is converted and every string has a length limit, so a
/// wrong type or an absurd value is a 400 naming the key, whatever route it reaches.
extension Dictionary where Key == String, Value == JSONValue {
    /// A string; numbers and booleans are accepted as their JSON text (lenient SDKs send ids as
    /// numbers). At most `maxLength` Unicode scalars.
    func optionalString(_ key: String, maxLength: Int = RequestLimits.fieldLength) throws -> String? {
        let text: String
        switch self[key] {
        case nil, .null?: return nil
        case .string(let s)?: text = s
        case .number(let n)?: text = JSONValue.canonicalText(of: n)
        case .bool(let b)?: text = String(b)
        default: throw APIError.badRequest("'\(key)' must be a string")
        }
        guard text.unicodeScalars.count <= maxLength else {
            throw APIError.badRequest("'\(key)' is longer than \(maxLength) characters")
        }
        return text
    }

    func requiredString(_ key: String, maxLength: Int = RequestLimits.fieldLength) throws -> String {
        guard let value = try optionalString(key, maxLength: maxLength), !value.isEmpty else {
            throw APIError.badRequest("'\(key)' is required")
        }
        return value
    }

    /// A whole number within `range`, from a JSON number or a numeric string.
    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        let value: Int64?
        switch self[key] {
        case nil, .null?: return nil
        case .number(let n)?: value = Int64(exactly: n)
        case .string(let s)?: value = Int64(s)
        default: value = nil
        }
        guard let value, range.contains(value) else {
            throw APIError.badRequest("'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `true` or `false` (JSON booleans only).
    func optionalBool(_ key: String) throws -> Bool? {
        switch self[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw APIError.badRequest("'\(key)' must be true or false")
        }
    }

    /// Milliseconds since 1970, accepting fractional numbers (rounded, §1.5) and numeric strings,
    /// within ±`RequestLimits.milliseconds`.
    func optionalMilliseconds(_ key: String) throws -> Int64? {
        let number: Double?
        switch self[key] {
        case nil, .null?: return nil
        case .number(let n)?: number = n
        case .string(let s)?: number = Double(s)
        default: number = nil
        }
        guard let number, number.isFinite, abs(number) <= Double(RequestLimits.milliseconds),
            let milliseconds = Int64(exactly: number.rounded())
        else { throw APIError.badRequest("'\(key)' must be a timestamp in milliseconds") }
        return milliseconds
    }
}
