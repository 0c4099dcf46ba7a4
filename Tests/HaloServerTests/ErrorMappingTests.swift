import Foundation
import GRDB
import HaloTestSupport
import XCTest

@testable import HaloServer

/// How storage failures become envelopes: a full disk is 507, the rest say what went wrong.
final class ErrorMappingTests: XCTestCase {
    private func map(_ error: any Error) -> APIError {
        ErrorEnvelopeMiddleware<ServerContext>.apiError(for: error, path: "/x")
    }

    func testFullDiskIs507WhateverReportsIt() {
        for error: any Error in [
            DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full"),
            POSIXError(.ENOSPC), CocoaError(.fileWriteOutOfSpace),
        ] {
            let answer = map(error)
            XCTAssertEqual(answer.status.code, 507, "\(error)")
            XCTAssertTrue(answer.message.contains("disk is full"), answer.message)
        }
    }

    func testOtherStorageFailuresSayWhatWentWrong() {
        XCTAssertEqual(map(DatabaseError(resultCode: .SQLITE_BUSY)).status, .serviceUnavailable)
        XCTAssertEqual(map(DatabaseError(resultCode: .SQLITE_BUSY)).retryAfterSeconds, 1)
        XCTAssertTrue(map(DatabaseError(resultCode: .SQLITE_IOERR)).message.contains("I/O error"))
        XCTAssertTrue(map(DatabaseError(resultCode: .SQLITE_READONLY)).message.contains("permissions"))
        XCTAssertTrue(map(DatabaseError(resultCode: .SQLITE_CORRUPT)).message.contains("damaged"))
        // An aborted transaction on a disk with room is a retry, not a full disk.
        if !ServerDatabase.diskIsNearlyFull() {
            XCTAssertEqual(map(DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted")).status, .serviceUnavailable)
        }
        XCTAssertEqual(map(DatabaseError(resultCode: .SQLITE_CONSTRAINT)).message, "Internal server error")
    }

    /// PostgreSQL: a full disk is 507, an unreachable or overloaded database 503 with a retry
    /// (a real refused connection included), the rest 500 with PostgreSQL's reason.
    func testPostgreSQLFailuresSayWhatWentWrong() async throws {
        XCTAssertEqual(map(PostgresStorageError(sqlState: "53100", message: "could not extend file")).status.code, 507)
        XCTAssertEqual(map(PostgresStorageError(sqlState: "53300", message: "too many clients")).status, .serviceUnavailable)
        XCTAssertEqual(map(PostgresStorageError(sqlState: "57P01", message: "terminating connection")).retryAfterSeconds, 2)
        let nul = map(PostgresStorageError(sqlState: "22021", message: "invalid byte sequence for encoding \"UTF8\": 0x00"))
        XCTAssertEqual(nul.status, .badRequest)
        XCTAssertTrue(nul.message.contains("U+0000"), nul.message)
        let other = map(PostgresStorageError(sqlState: "42P01", message: "PostgreSQL: relation \"x\" does not exist"))
        XCTAssertEqual(other.status, .internalServerError)
        XCTAssertTrue(other.message.contains("relation \"x\" does not exist"), other.message)

        let (socket, port) = try listenOnLoopback()
        close(socket)  // nothing listens there any more
        let storage = try PostgresStorage(
            location: PostgresLocation("postgres://halo@127.0.0.1:\(port)/none?sslmode=disable", environment: [:]),
            maximumConnections: 1)
        defer { storage.close() }
        do {
            try await storage.read { db in try db.execute("SELECT 1") }
            XCTFail("a closed port answered")
        } catch {
            let answer = map(error)
            XCTAssertEqual(answer.status, .serviceUnavailable, "\(error)")
            XCTAssertTrue(answer.message.contains("lost its connection to its database"), answer.message)
        }
    }

    func testRetryAfterIsSentAsAHeader() {
        let response = APIError(.tooManyRequests, "slow down", retryAfterSeconds: 42).response
        XCTAssertEqual(response.headers[.retryAfter], "42")
        XCTAssertNil(APIError(.badRequest, "no").response.headers[.retryAfter])
    }
}
