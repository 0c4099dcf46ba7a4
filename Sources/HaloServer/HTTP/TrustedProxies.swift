import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#endif

/// The reverse proxies (nginx, a load balancer) whose `X-Forwarded-For` the server believes.
///
/// Behind a proxy every connection comes from the proxy's address, so the per-address limits
/// (`LoginThrottle`, sync streams) would lump all clients together: one guesser would lock
/// everybody out. Only a header added by a proxy we trust can say who the client is; anybody can
/// send one, so from any other peer it is ignored. Like nginx's `real_ip_recursive on`: the
/// entries are read right to left (each proxy appends the address it saw), trusted ones are
/// skipped, and the first other one is the client. An entry that is not an IP address stops the
/// walk at the last address that was: nothing unreadable becomes a throttling key.
public struct TrustedProxies: Sendable, Equatable {
    /// An address with a prefix length: `10.0.0.0/8`, `::1/128`; a bare address is the whole length.
    struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = TrustedProxies.addressBytes(String(parts[0])) else { return nil }
            let bits = bytes.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
                prefixLength = length
            } else {
                prefixLength = bits
            }
            self.bytes = bytes
        }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                if mine & mask != theirs & mask { return false }
                remaining -= 8
            }
            return true
        }
    }

    let ranges: [Range]

    /// Nobody is trusted: the peer's address is the client's (the default).
    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) { self.ranges = ranges }

    /// `entries`: addresses or CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`).
    public init(_ entries: [String]) throws {
        ranges = try entries.map { entry in
            guard let range = Range(entry.trimmingCharacters(in: .whitespaces)) else {
                throw TrustedProxyError(entry: entry)
            }
            return range
        }
    }

    /// The client's address: the peer's, or, when the peer is a trusted proxy, the nearest address
    /// in `forwardedFor` (the `X-Forwarded-For` header values, in order) not of a trusted proxy.
    func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard !ranges.isEmpty, let peer, isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard Self.addressBytes(hop) != nil else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    private func isTrusted(_ address: String) -> Bool {
        guard let bytes = Self.addressBytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// A `--trusted-proxy` entry that is neither an IP address nor a CIDR range.
public struct TrustedProxyError: Error, CustomStringConvertible {
    let entry: String
    public var description: String {
        "\"\(entry)\" is not an IP address or a CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1, fd00::/8)"
    }
}

/// Puts the client's address, as `TrustedProxies` reads it, into the request context.
struct ForwardedClientMiddleware: RouterMiddleware {
    let proxies: TrustedProxies

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response)
        async throws -> Response
    {
        var context = context
        context.clientAddress = proxies.clientAddress(
            peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
