import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// The provider's RS256 key (as Google signs its ID tokens), made at start-up, and its JWKS.
struct SigningKeys: Sendable {
    static let keyId = "local-rs256-1"
    let collection: JWTKeyCollection
    /// `{"keys":[…]}` with the public half.
    let jwksJSON: Data

    static func generate() async throws -> SigningKeys {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try Insecure.RSA.PrivateKey(backing: backing)
        let collection = JWTKeyCollection()
        await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: keyId))
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let jwks: [String: Any] = [
            "keys": [
                [
                    "kty": "RSA", "alg": "RS256", "use": "sig", "kid": keyId,
                    "n": modulus.base64URLEncoded(), "e": exponent.base64URLEncoded(),
                ]
            ]
        ]
        return SigningKeys(collection: collection, jwksJSON: try JSONSerialization.data(withJSONObject: jwks))
    }
}

/// The claims of the provider's ID tokens (OpenID Connect Core §2 and §5.1).
struct IDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var email: String?
    var email_verified: Bool?
    var name: String
    var given_name: String
    var family_name: String
    var picture: String?

    /// Issuing only: the server that receives these tokens does its own verification.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension Data {
    func base64URLEncoded() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
