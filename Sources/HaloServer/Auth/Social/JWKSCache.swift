import Foundation
import JWTKit

/// One provider's signing keys, fetched from its JWKS address and kept for an hour. A token signed
/// with a key id the cache does not know triggers one refetch (providers rotate keys), at most once
/// every 30 seconds so forged key ids cannot make the server hammer the provider.
actor JWKSCache {
    private let source: Source
    private var keys: JWTKeyCollection?
    private var keyIds: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?

    enum Source: Sendable {
        case jwks(URL)
        /// Read `jwks_uri` from `<issuer>/.well-known/openid-configuration` first.
        case discovery(issuer: String)
    }

    init(_ source: Source) { self.source = source }

    static let lifetime: Duration = .seconds(3600)
    static let refetchInterval: Duration = .seconds(30)

    /// The keys to verify a token signed with `keyId`.
    func keys(for keyId: String?) async throws -> JWTKeyCollection {
        let age = fetchedAt.map { $0.duration(to: .now) }
        if let keys, let age, age < Self.lifetime, keyId.map(keyIds.contains) ?? true { return keys }
        if let keys, let age, age < Self.refetchInterval { return keys }
        return try await fetch()
    }

    private func fetch() async throws -> JWTKeyCollection {
        let url: URL
        switch source {
        case .jwks(let address): url = address
        case .discovery(let issuer):
            guard let base = URL(string: issuer) else { throw SocialTokenRejection("The issuer \(issuer) is not a URL") }
            let (_, document) = try await ProviderHTTP.json(base.appendingPathComponent(".well-known/openid-configuration"))
            guard let jwks = (document["jwks_uri"] as? String).flatMap(URL.init(string:)) else {
                throw SocialTokenRejection("The discovery document of \(issuer) names no jwks_uri")
            }
            url = jwks
        }
        let (status, object) = try await ProviderHTTP.json(url)
        guard status == 200, let list = object["keys"] as? [[String: Any]] else {
            throw SocialTokenRejection("The identity provider's signing keys at \(url.host ?? "") could not be read (HTTP \(status))")
        }
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        for key in list {
            // Keys of types or algorithms jwt-kit does not handle are skipped, not fatal.
            guard let data = try? JSONSerialization.data(withJSONObject: key), let jwk = try? JSONDecoder().decode(JWK.self, from: data)
            else { continue }
            if (try? await collection.add(jwk: jwk)) != nil, let id = key["kid"] as? String { ids.insert(id) }
        }
        keys = collection
        keyIds = ids
        fetchedAt = .now
        return collection
    }
}
