import Foundation
import GRDB
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
            return APIError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"), "The server's disk is full; free some space on it and try again")
        case let error as DecodingError:
            return APIError.badRequest("The request could not be read: \(error.clientMessage)")
        case let error as HTTPError:
            if error.status == .notFound { return .notFound("No API route matches \(path)") }
            if error.status == .contentTooLarge { return APIError(.contentTooLarge, "Request body is too large") }
            return APIError(error.status, error.body ?? error.status.reasonPhrase)
        case let error as DatabaseError:
            return apiError(for: error)
        case let error as PostgresStorageError:
            return apiError(for: error)
        case let error as CocoaError where error.code == .fileWriteOutOfSpace:
            return diskFull
        case let error as POSIXError where error.code == .ENOSPC || error.code == .EDQUOT:
            return diskFull
        default:
            return APIError(.internalServerError, "Internal server error")
        }
    }

    /// 507 with a sentence a person can act on.
    static var diskFull: APIError {
        APIError(
            APIError.insufficientStorage,
            "The server's disk is full, so nothing could be saved; free some space on the server and try again")
    }

    /// PostgreSQL failures in words: text with U+0000, which PostgreSQL cannot store (SQLite
    /// can), is the request's fault, 400. The rest are not the request's fault: a full disk is
    /// 507; a lost or refused connection (PostgreSQL restarting, failing over) and an overloaded
    /// server 503 with Retry-After, since the next attempt opens a new connection; anything else
    /// 500 with PostgreSQL's reason (never the statement's values).
    static func apiError(for error: PostgresStorageError) -> APIError {
        switch error.sqlState {
        case "22021":  // character_not_in_repertoire: a NUL in a text parameter
            return APIError.badRequest("Text in this request contains the character U+0000 (NUL), which this server cannot store")
        case "53100":  // disk_full
            return diskFull
        case "53300", "57P03":  // too_many_connections, cannot_connect_now (starting up)
            return APIError(
                .serviceUnavailable, "The server's database cannot take more work right now; try again in a moment",
                retryAfterSeconds: 2)
        case _ where error.connectionLost:
            return APIError(
                .serviceUnavailable, "The server lost its connection to its database; try again in a moment", retryAfterSeconds: 2)
        default:
            return APIError(.internalServerError, "The server's database failed: \(error.message)")
        }
    }

    /// SQLite failures that are not the request's fault, in words: a full disk is 507, a busy
    /// database 503 (retry), damaged or unwritable storage 500 with the reason.
    static func apiError(for error: DatabaseError) -> APIError {
        switch error.resultCode {
        case .SQLITE_FULL:
            return diskFull
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return APIError(
                .serviceUnavailable, "The server's database is busy with another write; try again in a moment",
                retryAfterSeconds: 1)
        case .SQLITE_ABORT where ServerDatabase.diskIsNearlyFull(), .SQLITE_IOERR where ServerDatabase.diskIsNearlyFull():
            // SQLite rolls a transaction back by itself after SQLITE_FULL; code that then runs
            // another statement of it gets GRDB's SQLITE_ABORT "Transaction was aborted" instead.
            return diskFull
        case .SQLITE_ABORT:
            return APIError(
                .serviceUnavailable,
                "The server's database rolled this write back (SQLite does so when its disk fails or fills up); try again",
                retryAfterSeconds: 1)
        case .SQLITE_IOERR:
            return APIError(
                .internalServerError,
                "The server could not read or write its database file (disk I/O error); check the server's disk")
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
            return APIError(
                .internalServerError,
                "The server cannot write its database file; check the permissions and space of its data directory")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return APIError(
                .internalServerError, "The server's database file is damaged; restore it from a backup")
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
