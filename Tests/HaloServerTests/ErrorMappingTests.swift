import Foundation
import GRDB
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

    func testRetryAfterIsSentAsAHeader() {
        let response = APIError(.tooManyRequests, "slow down", retryAfterSeconds: 42).response
        XCTAssertEqual(response.headers[.retryAfter], "42")
        XCTAssertNil(APIError(.badRequest, "no").response.headers[.retryAfter])
    }
}
