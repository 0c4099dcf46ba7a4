import Foundation
import HaloContentStore
import Hummingbird
import Logging

/// Turns every error thrown below it into HALO's error envelope, so clients always get
/// `{"error":{…}}` with a meaningful status, including for unknown routes (404).
struct ErrorEnvelopeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error, path: request.uri.path)
            if apiError.status.code >= 500 {
                context.logger.error("\(request.method) \(request.uri.path) failed: \(String(reflecting: error))")
            }
            return apiError.response
        }
    }

    static func apiError(for error: any Error, path: String) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as ContentStoreError:
            return APIError(for: error)
        case let error as SpoolError where error.isDiskFull:
            return APIError(.init(code: 507, reasonPhrase: "Insufficient Storage"), "The server's disk is full; free some space on it and try again")
        case let error as DecodingError:
            return APIError.badRequest("The request could not be read: \(error.clientMessage)")
        case let error as HTTPError:
            if error.status == .notFound { return .notFound("No API route matches \(path)") }
            if error.status == .contentTooLarge { return APIError(.contentTooLarge, "Request body is too large") }
            return APIError(error.status, error.body ?? error.status.reasonPhrase)
        default:
            return APIError(.internalServerError, "Internal server error")
        }
    }
}

/// Logs one line per request: method, path, status and duration.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", ms)) ms")
        return response
    }
}
