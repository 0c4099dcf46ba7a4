import Foundation
import HTTPTypes
import HaloContentStore
import Hummingbird

/// An error answered with HALO's envelope:
/// `{"error":{"status":…,"message":…,"extra":{},"type":"HaloError"}}` (§2.1).
struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var message: String
    var extra: JSONValue
    /// Sent as `Retry-After` (seconds): when a 429 or 503 may be retried.
    var retryAfterSeconds: Int?

    init(
        _ status: HTTPResponse.Status, _ message: String, extra: JSONValue = .object([:]), retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.message = message
        self.extra = extra
        self.retryAfterSeconds = retryAfterSeconds
    }

    var description: String { "\(status.code) \(message)" }

    /// The `error` object, also used inside batch results (§13.2).
    var errorObject: JSONValue {
        ["status": .number(Double(status.code)), "message": .string(message), "extra": extra, "type": "HaloError"]
    }

    var envelope: JSONValue { ["error": errorObject] }

    /// The envelope as a response, with `Retry-After` when set.
    var response: Response {
        var response = JSONResponse.make(envelope, status: status)
        if let retryAfterSeconds { response.headers[.retryAfter] = String(retryAfterSeconds) }
        return response
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    // MARK: Common cases

    static func unauthorized(_ message: String) -> APIError { APIError(.unauthorized, message) }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, message) }
    static func badRequest(_ message: String, extra: JSONValue = .object([:])) -> APIError {
        APIError(.badRequest, message, extra: extra)
    }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }

    /// 507: the server's disk is full.
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}

extension APIError {
    /// Content-store errors are client mistakes (400) except a missing instance (404) and
    /// unreadable stored data (500).
    init(for error: ContentStoreError) {
        switch error {
        case .instanceNotFound: self.init(.notFound, error.description)
        case .corruptData: self.init(.internalServerError, error.description)
        default: self.init(.badRequest, error.description)
        }
    }
}
