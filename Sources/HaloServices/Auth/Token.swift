import Foundation

/// An OAuth token as returned by the token endpoint and inside the identified-login response
/// (PROTOCOL §3.2). `expires_in` is a lifetime in milliseconds.
public struct Token: Sendable, Equatable, Codable {
    public let accessToken: String
    public let refreshToken: String?
    /// Lifetime in milliseconds.
    public let expiresIn: Double
    public let tokenType: String
    public let scope: String?
    /// When the token was received (local clock): with `expiresIn` it gives the expiry date.
    public var receivedAt: Date = Date()

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", expiresIn = "expires_in"
        case tokenType = "token_type", scope
    }

    public init(accessToken: String, refreshToken: String?, expiresIn: Double, tokenType: String = "Bearer", scope: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
        self.scope = scope
    }

    /// The token's expiry on the local clock.
    public var expirationDate: Date { receivedAt.addingTimeInterval(expiresIn / 1000) }

    /// The `Authorization` header value: the token type echoed verbatim (§1.4).
    var authorizationHeader: String { "\(tokenType) \(accessToken)" }
}

/// Holds the token of each authentication mode and serialises their renewal: while a token is
/// being fetched every request waits for it, and N concurrent 401s cause one token request.
actor TokenCoordinator {
    private var tokens: [AuthenticationMode: Token] = [:]
    private var renewals: [AuthenticationMode: Task<Token, any Error>] = [:]

    /// The token to attach for `mode`; waits for a renewal in flight.
    func token(for mode: AuthenticationMode) async -> Token? {
        if let renewal = renewals[mode] { return try? await renewal.value }
        return tokens[mode]
    }

    func setToken(_ token: Token?, for mode: AuthenticationMode) {
        tokens[mode] = token
    }

    func clearAll() { tokens.removeAll() }

    /// Obtains a new token for `mode` after the server rejected `rejected`. If another request
    /// already renewed it (the held token differs from the rejected one) that token is reused;
    /// if a renewal is running it is awaited. `fetch` receives the held (stale) token, if any.
    func renew(
        for mode: AuthenticationMode, rejected: Token?,
        fetch: @escaping @Sendable (Token?) async throws -> Token
    ) async throws(HaloError) -> Token {
        if let renewal = renewals[mode] { return try await Self.value(of: renewal) }
        if let current = tokens[mode], current != rejected { return current }
        let held = tokens[mode]
        let renewal = Task { try await fetch(held) }
        renewals[mode] = renewal
        defer { renewals[mode] = nil }
        do {
            let token = try await Self.value(of: renewal)
            tokens[mode] = token
            return token
        } catch {
            // The callers of this round fail (as iOS did); forgetting the stale token lets the
            // next request start over with fresh credentials instead of failing forever.
            tokens[mode] = nil
            throw error
        }
    }

    private static func value(of task: Task<Token, any Error>) async throws(HaloError) -> Token {
        do { return try await task.value } catch let error as HaloError { throw error } catch {
            throw .notAuthenticated(message: "Could not obtain a token: \(error)")
        }
    }
}
