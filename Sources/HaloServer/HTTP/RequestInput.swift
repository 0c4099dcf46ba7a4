import Foundation
import HTTPTypes
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

    /// Whether the request carries a body: a `Content-Length` above 0, or a `Transfer-Encoding`.
    static func hasBody(_ request: Request) -> Bool {
        if request.headers[.transferEncoding] != nil { return true }
        guard let length = request.headers[.contentLength] else { return false }
        return Int(length.trimmingCharacters(in: .whitespaces)).map { $0 > 0 } ?? true
    }

    /// The media type of a request with a body (docs/protocol.md §1.3, §23.13): exactly
    /// `application/json` or `application/x-www-form-urlencoded`, parameters allowed, a
    /// `charset` only of UTF-8. None, or any other (`text/plain;a=json`, `text/json`,
    /// `application/jsonp`), is 415 with the envelope.
    static func mediaType(of request: Request) throws -> BodyKind {
        let raw = request.headers[.contentType] ?? ""
        let parts = raw.split(separator: ";", omittingEmptySubsequences: false)
        let base = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let kind: BodyKind
        switch base {
        case "application/json": kind = .json
        case "application/x-www-form-urlencoded": kind = .form
        default:
            throw APIError(
                .unsupportedMediaType,
                raw.isEmpty
                    ? "A request with a body must say its Content-Type: application/json (or application/x-www-form-urlencoded where a route takes a form)"
                    : "Unsupported Content-Type '\(RequestStrings.printable(raw))'; the server reads application/json and, on the token, login and push activity routes, application/x-www-form-urlencoded"
            )
        }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            let charset = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
            guard charset == "utf-8" || charset == "utf8" else {
                throw APIError(
                    .unsupportedMediaType,
                    "Unsupported charset '\(RequestStrings.printable(charset))' in the Content-Type; bodies are read as UTF-8")
            }
        }
        return kind
    }

    /// Which encoding the `Content-Type` announces, among those the route takes; refused with
    /// 415 naming what is accepted. A request without a body needs no `Content-Type` (and its
    /// type is not read): it is the first accepted kind.
    static func kind(of request: Request, accepting accepted: Set<BodyKind>) throws -> BodyKind {
        guard hasBody(request) else { return accepted.contains(.json) ? .json : .form }
        let kind = try mediaType(of: request)
        guard accepted.contains(kind) else {
            let names = accepted.map { $0 == .json ? "application/json" : "application/x-www-form-urlencoded" }.sorted()
            throw APIError(
                .unsupportedMediaType,
                "Unsupported Content-Type '\(RequestStrings.printable(request.headers[.contentType] ?? ""))'; this endpoint accepts \(names.joined(separator: " or "))"
            )
        }
        return kind
    }

    /// A JSON body that must be an object.
    static func jsonObject(_ request: Request, limit: Int) async throws -> [String: JSONValue] {
        _ = try kind(of: request, accepting: [.json])
        let data = try await bodyData(request, limit: limit)
        return try parseObject(data)
    }

    /// A request's JSON object, read strictly: U+0000 and invalid UTF-8 in any string or name
    /// are a 400 naming the key path and byte offset (`JSONValue(parsingRequest:)`), so nothing
    /// reaches a database it cannot hold or that would store it altered.
    static func parseObject(_ data: Data) throws -> [String: JSONValue] {
        guard !data.isEmpty else { throw APIError.badRequest("Request body is empty; a JSON object is expected") }
        let value: JSONValue
        do {
            // The store's strict parser (RFC 8259, depth-limited, errors name the byte): several
            // times faster than JSONDecoder on large bodies (imports, batches).
            value = try JSONValue(parsingRequest: [UInt8](data))
        } catch let error as JSONValueError where error.keyPath != nil {
            throw APIError.badRequest(
                "The request body is refused: \(error.reason ?? error.description)",
                extra: ["keyPath": .string(error.keyPath ?? "$"), "byteOffset": .number(Double(error.byteOffset ?? 0))])
        } catch {
            throw APIError.badRequest("Malformed JSON body: \(error)")
        }
        guard case .object(let object) = value else {
            throw APIError.badRequest("Request body must be a JSON object")
        }
        return object
    }

    /// A body that may be JSON or form-encoded (login and push activity differ per SDK, §21).
    /// Form fields become string values, checked as JSON strings are (no U+0000, UTF-8).
    static func fields(_ request: Request, limit: Int, accepting: Set<BodyKind> = [.json, .form]) async throws
        -> [String: JSONValue]
    {
        let kind = try kind(of: request, accepting: accepting)
        let data = try await bodyData(request, limit: limit)
        switch kind {
        case .json: return try parseObject(data)
        case .form:
            var result: [String: JSONValue] = [:]
            for (key, value) in try RequestStrings.pairs([UInt8](data), what: "form field") { result[key] = .string(value) }
            return result
        }
    }

    /// Decodes `a=b&c=d` (query strings): `+` is a space, `%XX` escapes decoded. Empty segments
    /// (a trailing `&`) are skipped. Unchecked: `RequestRulesMiddleware` refused the request
    /// already if its query held U+0000 or invalid UTF-8.
    static func formPairs(_ text: String) -> [(String, String)] {
        RequestStrings.lenientPairs(text)
    }

    /// Query parameters of the request, decoded (raw and %-encoded brackets alike).
    static func query(_ request: Request) -> QueryParameters {
        QueryParameters(pairs: formPairs(request.uri.query ?? ""))
    }

    /// A header the server reads, checked (`RequestStrings.header`): printable ASCII or 400.
    static func header(_ name: HTTPField.Name, _ request: Request) throws -> String? {
        try RequestStrings.header(name, of: request)
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
