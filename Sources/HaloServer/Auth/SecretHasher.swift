import Crypto
import Foundation
import _CryptoExtras

/// Hashing of stored secrets.
///
/// Passwords and client secrets are low-entropy or long-lived, so they get a salted slow hash
/// (PBKDF2-HMAC-SHA256, 210,000 rounds unless `HALO_PASSWORD_HASH_ROUNDS` says otherwise, 16-byte
/// random salt). Tokens are 238-bit random strings:
/// a plain SHA-256 is enough there and keeps the per-request check cheap.
///
/// The slow functions are synchronous and take tens of milliseconds: call them through a
/// `HashingExecutor`, never directly from a request handler.
enum SecretHasher {
    /// The PBKDF2 cost of new hashes. Every stored hash names its own rounds, so changing this never
    /// locks anyone out: old hashes are checked with the rounds they were made with.
    static let rounds = configuredRounds(ProcessInfo.processInfo.environment)

    /// OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
    static let defaultRounds = 210_000
    /// The lowest cost `HALO_PASSWORD_HASH_ROUNDS` may ask for.
    static let minimumRounds = 1_000
    static let roundsVariable = "HALO_PASSWORD_HASH_ROUNDS"

    /// `HALO_PASSWORD_HASH_ROUNDS` lowers the cost for test runs (`make check`: half of its CPU
    /// was hashing test accounts); the server warns at start when it is below the default.
    /// Unset or unreadable gives the default; a value is kept within `minimumRounds…defaultRounds * 10`.
    static func configuredRounds(_ environment: [String: String]) -> Int {
        guard let text = environment[roundsVariable], let value = Int(text) else { return defaultRounds }
        return min(max(value, minimumRounds), defaultRounds * 10)
    }
    private static let scheme = "pbkdf2-sha256"

    /// A well-formed hash that no password matches (its digest is not one PBKDF2 gives for its salt
    /// in practice), checked against when an account does not exist so that costs the same as a
    /// real check. A constant: computing one would cost a hash at first use.
    static let dummyHash = [
        scheme, String(rounds), Data(repeating: 0x5A, count: 16).base64EncodedString(),
        Data(repeating: 0, count: 32).base64EncodedString(),
    ].joined(separator: "$")

    /// `pbkdf2-sha256$<rounds>$<salt b64>$<hash b64>`.
    static func hashPassword(_ password: String) throws -> String {
        try hashPassword(password, rounds: rounds)
    }

    static func hashPassword(_ password: String, rounds: Int) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let derived = try derive(password, salt: salt, rounds: rounds)
        return [scheme, String(rounds), Data(salt).base64EncodedString(), Data(derived).base64EncodedString()]
            .joined(separator: "$")
    }

    /// Constant-time check of `password` against a stored `hashPassword` result.
    static func verifyPassword(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == scheme, let rounds = Int(parts[1]), rounds > 0,
            let salt = Data(base64Encoded: parts[2]), let expected = Data(base64Encoded: parts[3]),
            let derived = try? derive(password, salt: Array(salt), rounds: rounds)
        else { return false }
        return constantTimeEqual(derived, Array(expected))
    }

    /// Hex SHA-256, for looking tokens up by hash.
    static func tokenDigest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Array($0) }
    }

    private static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
