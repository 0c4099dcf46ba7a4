import Foundation

/// Identifiers and secrets in the shapes HALO used.
enum Identifiers {
    /// 24 hexadecimal characters, MongoDB-style (§1.5): 4 bytes of seconds, then 8 random bytes,
    /// so ids sort roughly by creation time and never collide in practice.
    static func objectID(now: Date = Date()) -> String {
        var bytes = [UInt8](repeating: 0, count: 12)
        let seconds = UInt32(truncatingIfNeeded: Int64(now.timeIntervalSince1970))
        bytes[0] = UInt8(seconds >> 24)
        bytes[1] = UInt8((seconds >> 16) & 0xff)
        bytes[2] = UInt8((seconds >> 8) & 0xff)
        bytes[3] = UInt8(seconds & 0xff)
        var generator = SystemRandomNumberGenerator()
        for index in 4..<12 { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Random lowercase alphanumerics, e.g. for `anonymous-…` aliases and `identified-…` user ids.
    static func randomLowercase(_ count: Int) -> String {
        random(count, alphabet: Array("abcdefghijklmnopqrstuvwxyz0123456789"))
    }

    /// An opaque secret (access/refresh tokens, client secrets): 40 characters from a 62-letter
    /// alphabet, ≈238 bits from the system CSPRNG.
    static func secret(_ count: Int = 40) -> String {
        random(count, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"))
    }

    private static func random(_ count: Int, alphabet: [Character]) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
