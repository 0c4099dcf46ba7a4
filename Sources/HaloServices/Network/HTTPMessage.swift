import Foundation

/// The HTTP methods the HALO API uses.
public enum HTTPMethod: String, Sendable {
    case get = "GET", post = "POST", put = "PUT", delete = "DELETE", patch = "PATCH"
}

/// One HTTP request as the transport sends it (after the SDK resolved URL, headers and body).
/// Network add-ons see this value in `willPerformRequest` / `didPerformRequest`.
public struct HTTPRequest: Sendable, CustomStringConvertible {
    public var method: HTTPMethod
    public var url: URL
    /// Header name → value. Names are sent as given.
    public var headers: [String: String]
    public var body: Data?

    public init(method: HTTPMethod, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public var description: String { "\(method.rawValue) \(url.absoluteString)" }
}

/// One HTTP response as received.
public struct HTTPResponse: Sendable {
    public let statusCode: Int
    /// Header names lower-cased (HTTP header names are case-insensitive).
    public let headers: [String: String]
    public let body: Data

    public init(statusCode: Int, headers: [String: String], body: Data) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
}

/// Limits and trust settings for one transfer.
public struct TransferOptions: Sendable {
    /// Idle time allowed without any data (the iOS `timeoutIntervalForRequest`); also the connect timeout.
    public var timeoutIntervalForRequest: TimeInterval
    /// Total time allowed for the whole transfer (the iOS `timeoutIntervalForResource`).
    public var timeoutIntervalForResource: TimeInterval
    /// Responses larger than this fail with `HaloError.invalidResponse` instead of filling memory.
    public var maximumResponseBytes: Int
    /// How the server's TLS certificate is trusted.
    public var trust: TLSTrust
    /// Where pinned certificates live: a refused certificate's message says to pin it there.
    public var certificatesFolder: URL?
    /// Follow up to 5 redirects (image hosts redirect to their CDN). Off for the HALO API, whose
    /// answers are never redirects. A redirect may lead to https only, or anywhere from a loopback host.
    public var followsRedirects: Bool

    public init(
        timeoutIntervalForRequest: TimeInterval = 60, timeoutIntervalForResource: TimeInterval = 600,
        maximumResponseBytes: Int = 64 * 1024 * 1024, trust: TLSTrust = .systemRoots,
        followsRedirects: Bool = false, certificatesFolder: URL? = nil
    ) {
        self.certificatesFolder = certificatesFolder
        self.timeoutIntervalForRequest = timeoutIntervalForRequest
        self.timeoutIntervalForResource = timeoutIntervalForResource
        self.maximumResponseBytes = maximumResponseBytes
        self.trust = trust
        self.followsRedirects = followsRedirects
    }
}

/// TLS trust policy of a transfer.
public enum TLSTrust: Sendable, Equatable {
    /// Certificate authorities vouch for the server, with host-name verification: the system's
    /// store, or only the certificates of the PEM file `bundle` when one is given.
    case certificateAuthorities(bundle: URL?)
    /// Only servers whose leaf certificate carries one of these public keys are accepted.
    case pinned(PinnedPublicKeys)

    /// The operating system's certificate authorities, as a browser trusts them.
    public static let systemRoots = TLSTrust.certificateAuthorities(bundle: nil)
}

extension URL {
    /// True for 127.0.0.0/8, ::1 and localhost: the only hosts plain `http` is allowed for.
    var isLoopbackHost: Bool {
        guard var host = host?.lowercased() else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
