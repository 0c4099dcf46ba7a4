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
            throw APIError(.unsupportedMediaType,
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
            value = try JSONValue(data: data)
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
    static func query(_ request: Request) -> [(String, String)] {
        formPairs(request.uri.query ?? "")
    }
}

/// Typed reads of a decoded JSON object, with messages naming the offending key.
extension Dictionary where Key == String, Value == JSONValue {
    func optionalString(_ key: String) throws -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case .number(let n)?: return n.rounded() == n ? String(Int64(n)) : String(n)
        case .bool(let b)?: return String(b)
        default: throw APIError.badRequest("'\(key)' must be a string")
        }
    }

    func requiredString(_ key: String) throws -> String {
        guard let value = try optionalString(key), !value.isEmpty else {
            throw APIError.badRequest("'\(key)' is required")
        }
        return value
    }

    /// Milliseconds, accepting fractional numbers (rounded, §1.5) and numeric strings.
    func optionalMilliseconds(_ key: String) throws -> Int64? {
        switch self[key] {
        case nil, .null?: return nil
        case .number?: if let ms = self[key]?.int64Value { return ms }
        case .string(let s)?: if let n = Double(s), n.isFinite, abs(n) < 9.2e18 { return Int64(n.rounded()) }
        default: break
        }
        throw APIError.badRequest("'\(key)' must be a timestamp in milliseconds")
    }
}
