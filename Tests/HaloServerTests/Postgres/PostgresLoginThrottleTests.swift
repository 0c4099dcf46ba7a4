import Foundation
import HaloContentStore
import XCTest

@testable import HaloServer

/// Every rule of `LoginThrottleTests`, on the records PostgreSQL's processes share
/// (`LoginThrottle.DatabaseRecords`), and what sharing adds: counts add up over the processes,
/// and an attempt a killed process left in flight stops counting.
final class PostgresLoginThrottleTests: LoginThrottleTests {
    private var storages: [PostgresStorage] = []

    override func tearDown() {
        for storage in storages { storage.close() }
        storages = []
        super.tearDown()
    }

    override func throttle(_ settings: LoginThrottle.Settings, _ clock: FakeClock) throws -> LoginThrottle {
        try throttles(1, settings, clock)[0]
    }

    /// `count` processes' throttles on one new database.
    private func throttles(_ count: Int, _ settings: LoginThrottle.Settings, _ clock: FakeClock) throws -> [LoginThrottle] {
        let processes = try blocking { try await serverProcesses(count, maximumConnections: 2) }
        storages += processes
        return processes.map { LoginThrottle(settings: settings, sharedIn: .postgres($0), now: { clock.now }) }
    }

    func testFailuresOnEveryProcessAddUp() throws {
        let clock = FakeClock()
        let processes = try throttles(3, .init(), clock)
        for index in 0..<5 { XCTAssertNil(attempt(processes[index % 3], alice)) }
        for process in processes { XCTAssertEqual(attempt(process, alice)?.retryAfterSeconds, 60) }
        XCTAssertNil(attempt(processes[1], bob), "another account is not locked")
    }

    func testAnAttemptLeftInFlightByAKilledProcessStopsCounting() throws {
        let clock = FakeClock()
        let processes = try throttles(2, .init(), clock)
        let (first, alice) = (processes[0], self.alice)
        // The first process starts five attempts and dies before finishing any.
        for _ in 0..<5 { _ = try blocking { try await first.begin(alice, address: "10.0.0.1") } }
        XCTAssertEqual(attempt(processes[1], alice)?.retryAfterSeconds, 1, "five attempts are in flight")
        clock.advance(LoginThrottle.inFlightExpiry + 1)
        XCTAssertNil(attempt(processes[1], alice))
    }

    /// The tables keep only what still counts (memory is PostgreSQL's here, but a guesser
    /// cycling through emails and addresses must not grow them for ever).
    override func testMemoryStaysBounded() throws {
        let clock = FakeClock()
        let processes = try throttles(2, .init(addressFailureLimit: .max, knownDeviceLifetime: 60), clock)
        for index in 0..<200 {
            attempt(
                processes[index % 2], .user(email: "u\(index)@example.com"), from: "10.0.\(index / 100).\(index % 100)",
                succeeds: index % 2 == 0)
        }
        // A process sweeps once per `sweepInterval`: the next attempt after it deletes the rows
        // of the successful logins' accounts and addresses, which no longer count.
        clock.advance(LoginThrottle.sweepInterval)
        attempt(processes[0], bob, from: "10.8.8.8")
        attempt(processes[1], bob, from: "10.8.8.8")
        XCTAssertEqual(try rows(), [101, 101, 100, 0], "accounts with a failure, addresses with one, known devices, attempts")
        clock.advance(15 * 60 + 1)
        attempt(processes[0], alice, from: "10.9.9.9")
        XCTAssertEqual(try rows(), [1, 1, 0, 0], "only Alice's new failure is left")
    }

    private func rows() throws -> [Int] {
        let storage = ServerStorage.postgres(try XCTUnwrap(storages.last))
        return try blocking {
            try await storage.read { db in
                try ["server_login_account", "server_login_address", "server_login_device", "server_login_attempt"].map { table in
                    try db.fetchValue(Int.self, "SELECT count(*) FROM \(table)") ?? -1
                }
            }
        }
    }
}
