import Foundation
import HTTPTypes
import HaloContentStore
import Hummingbird

/// The web origins (`scheme://host[:port]`) whose pages may call the API from a browser
/// (`halo-server serve --allowed-origin`, repeatable); none by default: no SDK sends `Origin`, so
/// a request with one comes from a web page, and a page of another site must not reach the
/// login, token or any other route with the user's network position (docs/protocol.md §23.13).
public struct AllowedOrigins: Sendable, Equatable {
    public private(set) var origins: Set<String> = []

    public static let none = AllowedOrigins()

    public init() {}

    /// Each text must be an origin as browsers send it: `http` or `https`, a host, an optional
    /// port, nothing else (no path, query or user).
    public init(_ texts: [String]) throws(OriginError) {
        for text in texts { origins.insert(try Self.normalized(text)) }
    }

    public struct OriginError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Whether a request's `Origin` value names one of these origins.
    func allows(_ origin: String) -> Bool {
        guard let normalized = try? Self.normalized(origin) else { return false }
        return origins.contains(normalized)
    }

    /// Lowercased scheme and host, the port kept only when it is not the scheme's default.
    static func normalized(_ text: String) throws(OriginError) -> String {
        let invalid = OriginError(description: "'\(text)' is not an origin like https://app.example.com or http://localhost:8080")
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else { throw invalid }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port.flatMap { $0 == defaultPort ? nil : $0 }
        let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(hostText)" + (port.map { ":\($0)" } ?? "")
    }
}

/// The rules every request meets before any route sees it (docs/protocol.md §23.13):
///
/// - **Origin**: a request carrying `Origin` is 403 unless `--allowed-origin` names that origin.
///   Exceptions: the server's own pages calling themselves (the local identity provider's
///   consent form) are served by their own listener, which has no such rule; the middleware
///   proxy of §18.2 and public media, which would pass any body and type and ignore `Origin`
///   on GET and HEAD, do not exist in this server.
/// - **Content-Type**: a request with a body (a `Content-Length` above 0 or a
///   `Transfer-Encoding`) must say `application/json` or `application/x-www-form-urlencoded`,
///   with parameters allowed and a `charset` only of UTF-8; none or any other is 415.
///   Which of the two a route takes is `RequestInput.kind`'s check.
/// - **Strings**: the path's segments and the query's names and values, percent-decoded, and
///   the headers the server reads (`RequestStrings.checkedHeaders`) hold no U+0000 and no
///   invalid UTF-8; otherwise 400 naming where. Bodies are checked where they are decoded
///   (`RequestInput`).
struct RequestRulesMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: AllowedOrigins

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let origin = request.headers[RequestStrings.origin], !allowedOrigins.allows(origin) {
            throw APIError.forbidden(
                "Requests from web pages (Origin '\(RequestStrings.printable(origin))') are refused; the server's operator can allow an origin with --allowed-origin"
            )
        }
        if RequestInput.hasBody(request) { _ = try RequestInput.mediaType(of: request) }
        try RequestStrings.checkTarget(request)
        for name in RequestStrings.checkedHeaders { _ = try RequestStrings.header(name, of: request) }
        return try await next(request, context)
    }
}

/// The one check of the strings a request carries: no U+0000, only well-formed UTF-8, and a
/// 400 naming where (the key path or byte offset, the parameter, the header) otherwise.
enum RequestStrings {
    static let origin = HTTPField.Name("Origin")!
    static let device = HTTPField.Name("X-Halo-Device")!
    static let deviceSecret = HTTPField.Name("X-Halo-Device-Secret")!
    static let lastEventId = HTTPField.Name("Last-Event-ID")!
    /// The headers whose values routes read as text (the token in `Authorization` is looked up,
    /// never stored, so a strange one is simply not found: 401).
    static let checkedHeaders: [HTTPField.Name] = [device, deviceSecret, lastEventId, .ifMatch]

    /// A header's value, checked: `X-Halo-Device`, `X-Halo-Device-Secret`, `Last-Event-ID` and
    /// `If-Match` are ASCII (ids, secrets, numbers, ETags); any other byte, U+0000 or a control
    /// character is 400 naming the header. (The HTTP layer has already turned invalid UTF-8 in
    /// a header into U+FFFD, so only "ASCII" tells the two apart.)
    static func header(_ name: HTTPField.Name, of request: Request) throws -> String? {
        guard let value = request.headers[name] else { return nil }
        if let offset = value.utf8.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 >= 0x7F }) {
            let position = value.utf8.distance(from: value.utf8.startIndex, to: offset)
            throw APIError.badRequest(
                "The \(name.rawName) header may hold only printable ASCII; byte \(position) of its value is not",
                extra: ["header": .string(name.rawName), "byteOffset": .number(Double(position))])
        }
        return value
    }

    /// The path's segments and the query's parameters, percent-decoded, checked.
    static func checkTarget(_ request: Request) throws {
        for segment in request.uri.path.split(separator: "/") where segment.utf8.contains(where: { $0 == 0x25 || $0 >= 0x80 }) {
            _ = try text(decodeComponent(segment, plusIsSpace: false), what: "The path segment '\(printable(segment))'")
        }
        if let query = request.uri.query { _ = try pairs(Array(query.utf8), what: "query parameter") }
    }

    /// `a=b&c=d` decoded (`+` is a space, `%XX` a byte; a malformed escape stays as written),
    /// every name and value checked. `what` names them in errors ("form field").
    static func pairs(_ bytes: [UInt8], what: String) throws -> [(String, String)] {
        var result: [(String, String)] = []
        for segment in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = segment.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(decoding: parts[0], as: UTF8.self)
            let name = try text(decodeComponent(parts[0], plusIsSpace: true), what: "The name of a \(what) ('\(printable(rawName))')")
            let value =
                parts.count > 1 ? try text(decodeComponent(parts[1], plusIsSpace: true), what: "The \(what) '\(printable(name))'") : ""
            result.append((name, value))
        }
        return result
    }

    /// As `pairs(_:what:)` without the checks, for strings already checked (the query, by
    /// `RequestRulesMiddleware`): invalid bytes become U+FFFD.
    static func lenientPairs(_ text: String) -> [(String, String)] {
        Array(text.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { segment in
            let parts = segment.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(decoding: decodeComponent(parts[0], plusIsSpace: true), as: UTF8.self)
            let value = parts.count > 1 ? String(decoding: decodeComponent(parts[1], plusIsSpace: true), as: UTF8.self) : ""
            return (name, value)
        }
    }

    /// Bytes that must be text: no U+0000, well-formed UTF-8. `what` starts the error's sentence.
    static func text(_ bytes: [UInt8], what: String) throws -> String {
        if let offset = bytes.firstIndex(of: 0) {
            throw APIError.badRequest(
                "\(what) contains U+0000 (NUL) at byte \(offset), which is not accepted",
                extra: ["byteOffset": .number(Double(offset))])
        }
        if let offset = UTF8Check.firstInvalidOffset(in: bytes) {
            throw APIError.badRequest(
                "\(what) holds invalid UTF-8 at byte \(offset) (after percent-decoding)", extra: ["byteOffset": .number(Double(offset))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-decoding to bytes; `%` not followed by two hex digits is kept as written.
    static func decodeComponent(_ raw: some Collection<UInt8>, plusIsSpace: Bool) -> [UInt8] {
        let raw = Array(raw)
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            if byte == UInt8(ascii: "%"), index + 2 < raw.count, let high = hexValue(raw[index + 1]),
                let low = hexValue(raw[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
            index += 1
        }
        return out
    }

    static func decodeComponent(_ raw: Substring, plusIsSpace: Bool) -> [UInt8] {
        decodeComponent(Array(raw.utf8), plusIsSpace: plusIsSpace)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Text fit for an error message: control characters as `\u{…}`, at most 60 characters.
    static func printable(_ text: some StringProtocol) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(60) {
            out += scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return text.unicodeScalars.count > 60 ? out + "…" : out
    }
}
