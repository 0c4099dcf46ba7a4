import Foundation
import Synchronization

/// What the provider has issued: pending authorization codes, access and refresh tokens.
/// One-time codes are removed when redeemed; a second redemption is refused and revokes what the
/// first one issued (RFC 6749 §4.1.2).
final class ProviderLedger: Sendable {
    struct PendingCode: Sendable {
        var clientId: String
        var redirectURI: String
        var codeChallenge: String
        var subject: String
        var nonce: String?
        var scope: String
        var expires: ContinuousClock.Instant
    }

    struct Grant: Sendable {
        var clientId: String
        var subject: String
        var scope: String
        /// Seconds since 1970, as Facebook's `expires_at`.
        var expiresAt: Int
        /// The code (or refresh token) this came from, to revoke it when that code is replayed.
        var origin: String
    }

    private struct State {
        var codes: [String: PendingCode] = [:]
        /// Redeemed codes → the access and refresh tokens they produced.
        var redeemed: [String: [String]] = [:]
        var accessTokens: [String: Grant] = [:]
        var refreshTokens: [String: Grant] = [:]
    }
    private let state = Mutex(State())

    func addCode(_ code: String, _ pending: PendingCode) {
        state.withLock { $0.codes[code] = pending }
    }

    enum Redemption {
        case valid(PendingCode)
        case unknown
        case replayed
    }

    /// Takes a code out of the ledger. A code seen before revokes every token it produced.
    func redeem(_ code: String) -> Redemption {
        state.withLock { state in
            if let pending = state.codes.removeValue(forKey: code) {
                state.redeemed[code] = []
                return pending.expires < .now ? .unknown : .valid(pending)
            }
            guard let issued = state.redeemed[code] else { return .unknown }
            for token in issued {
                state.accessTokens[token] = nil
                state.refreshTokens[token] = nil
            }
            return .replayed
        }
    }

    func addTokens(access: String, refresh: String, grant: Grant) {
        state.withLock { state in
            state.accessTokens[access] = grant
            state.refreshTokens[refresh] = grant
            state.redeemed[grant.origin]?.append(contentsOf: [access, refresh])
        }
    }

    func accessGrant(_ token: String) -> Grant? { state.withLock { $0.accessTokens[token] } }

    /// Refresh tokens rotate: the old one is gone once used.
    func takeRefreshGrant(_ token: String) -> Grant? { state.withLock { $0.refreshTokens.removeValue(forKey: token) } }
}
