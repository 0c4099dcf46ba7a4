import Foundation
import HaloContentStore

/// The JSON value type HALO content is carried in (instance values, pocket data).
public typealias JSONValue = HaloContentStore.JSONValue
/// Why JSON text was refused (and, for a syntax error, at which byte).
public typealias JSONValueError = HaloContentStore.JSONValueError

/// The 21 HALO field types (§9.3), shared with the server and the offline search.
public typealias FieldType = HaloContentStore.FieldType
public typealias FieldSpecText = HaloContentStore.FieldSpecText
public typealias FieldChangeReport = HaloContentStore.FieldChangeReport
public typealias LocaleCode = HaloContentStore.LocaleCode
public typealias HexColor = HaloContentStore.HexColor
public typealias WebAddress = HaloContentStore.WebAddress

/// Every failure the SDK reports. Each case carries a sentence fit to show a user, and server
/// failures keep the HTTP status and the server's own message (PROTOCOL §2.1).
public enum HaloError: Error, Sendable, Hashable {
    /// The server answered with an error status; `message` is the envelope's `error.message`.
    case server(status: Int, message: String, extra: JSONValue?)
    /// The server's answer could not be understood (not JSON, or not the expected shape).
    case invalidResponse(status: Int?, message: String)
    /// No connection: unreachable host, refused connection, timeout, dropped transfer.
    case network(message: String)
    /// The server's certificate was refused: it matched none of the pinned ones, or no trusted
    /// certificate authority vouches for it. The message says what was presented and where to act.
    case sslPinningFailed(message: String)
    /// The request needs credentials the SDK does not have (no user logged in, no client id).
    case notAuthenticated(message: String)
    /// The caller's input was rejected before anything was sent (e.g. pocket data too large).
    case invalidInput(message: String)
    /// Missing or inconsistent configuration (Halo.plist keys, environment URL).
    case configuration(message: String)
    /// The local cache could not be read or written.
    case cache(message: String)
    /// The operation was cancelled by the caller.
    case cancelled
}

extension HaloError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .server(let status, let message, _): return "\(message) (HTTP \(status))"
        case .invalidResponse(let status, let message):
            return status.map { "Unexpected server response (HTTP \($0)): \(message)" } ?? "Unexpected server response: \(message)"
        case .network(let message): return message
        case .sslPinningFailed(let message): return message
        case .notAuthenticated(let message): return message
        case .invalidInput(let message): return message
        case .configuration(let message): return "Configuration error: \(message)"
        case .cache(let message): return "Local cache error: \(message)"
        case .cancelled: return "Cancelled"
        }
    }

    public var errorDescription: String? { description }

    /// The HTTP status behind the error, when a server answered.
    public var httpStatus: Int? {
        switch self {
        case .server(let status, _, _): return status
        case .invalidResponse(let status, _): return status
        default: return nil
        }
    }
}
