import CSecret
import Foundation

/// Secrets in the desktop keyring (Secret Service, through libsecret), under the attributes
/// `server` + `account`. When no Secret Service is reachable every call fails with
/// `HaloError.cache`; callers then store nothing (never a plain-text fallback).
/// The async forms run the blocking libsecret calls off the cooperative pool (an unlock prompt may wait).
public struct Keyring: Sendable {
    public let server: String
    public let account: String

    public init(server: String, account: String) {
        self.server = server
        self.account = account
    }

    public func store(_ secret: String, label: String) async throws(HaloError) {
        try await BlockingWork.run(name: "halo-keyring") { () -> Result<Void, HaloError> in
            Result { () throws(HaloError) in try self.store(secret, label: label) }
        }.get()
    }

    public func lookup() async throws(HaloError) -> String? {
        try await BlockingWork.run(name: "halo-keyring") { Result { () throws(HaloError) in try self.lookup() } }.get()
    }

    public func clear() async throws(HaloError) {
        try await BlockingWork.run(name: "halo-keyring") { () -> Result<Void, HaloError> in
            Result { () throws(HaloError) in try self.clear() }
        }.get()
    }

    func store(_ secret: String, label: String) throws(HaloError) {
        var error: UnsafeMutablePointer<GError>?
        let stored = halo_secret_store(server, account, label, secret, &error)
        if let message = Self.consume(error) { throw .cache(message: "Keyring unavailable: \(message)") }
        if stored == 0 { throw .cache(message: "Keyring unavailable: the secret was not stored") }
    }

    func lookup() throws(HaloError) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let secret = halo_secret_lookup(server, account, &error)
        if let message = Self.consume(error) { throw .cache(message: "Keyring unavailable: \(message)") }
        guard let secret else { return nil }
        defer { secret_password_free(secret) }
        return String(cString: secret)
    }

    func clear() throws(HaloError) {
        var error: UnsafeMutablePointer<GError>?
        _ = halo_secret_clear(server, account, &error)
        if let message = Self.consume(error) { throw .cache(message: "Keyring unavailable: \(message)") }
    }

    private static func consume(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}
