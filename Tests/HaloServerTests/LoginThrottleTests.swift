import Foundation
import Synchronization
import XCTest

@testable import HaloServer

/// `LoginThrottle`'s rules on a hand-driven clock.
class LoginThrottleTests: XCTestCase {
    /// A clock the test moves.
    final class FakeClock: Sendable {
        private let value = Mutex(1000.0)
        var now: Double { value.withLock { $0 } }
        func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
    }

    /// A mutex tasks can share (a local `Mutex` cannot be captured by several tasks).
    final class Locked<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    let alice = LoginThrottle.Account.user(email: "alice@example.com")
    let bob = LoginThrottle.Account.user(email: "bob@example.com")

    /// The throttle under test: counts in memory here (PostgresLoginThrottleTests runs the same
    /// rules on the shared records).
    func throttle(_ settings: LoginThrottle.Settings, _ clock: FakeClock) throws -> LoginThrottle {
        LoginThrottle(settings: settings, now: { clock.now })
    }

    /// Runs the throttle's async calls to completion, so the rules read as a sequence.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }

    /// One attempt with this outcome; returns the 429 when it was refused.
    @discardableResult
    func attempt(
        _ throttle: LoginThrottle, _ account: LoginThrottle.Account, from address: String? = "10.0.0.1",
        succeeds: Bool = false
    ) -> APIError? {
        do {
            try blocking {
                let attempt = try await throttle.begin(account, address: address)
                try await throttle.finish(attempt, outcome: succeeds)
            }
            return nil
        } catch let error as APIError {
            return error
        } catch {
            XCTFail("unexpected \(error)")
            return nil
        }
    }

    func testFiveFailuresLockTheAccountWithDoublingBackoff() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(lockDuration: 60, maxLockDuration: 200), clock)
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, alice)) }
        let refusal = try XCTUnwrap(attempt(throttle, alice, succeeds: true), "the 6th attempt is refused, right or wrong")
        XCTAssertEqual(refusal.status, .tooManyRequests)
        XCTAssertEqual(refusal.retryAfterSeconds, 60)
        XCTAssertTrue(refusal.message.contains("try again in 60 seconds"), refusal.message)
        clock.advance(30)
        XCTAssertEqual(attempt(throttle, alice)?.retryAfterSeconds, 30)
        // After the lock, 5 more failures lock it for twice as long, then the cap.
        clock.advance(31)
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, alice)) }
        XCTAssertEqual(attempt(throttle, alice)?.retryAfterSeconds, 120)
        clock.advance(121)
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, alice)) }
        XCTAssertEqual(attempt(throttle, alice)?.retryAfterSeconds, 200)
        // The right password after the lock works and resets everything.
        clock.advance(201)
        XCTAssertNil(attempt(throttle, alice, succeeds: true))
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, alice, from: "10.0.0.9")) }
        XCTAssertEqual(attempt(throttle, alice, from: "10.0.0.9")?.retryAfterSeconds, 60, "the doubling was forgotten")
    }

    func testFailuresOutsideTheWindowAndSuccessesDoNotAddUp() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(accountWindow: 100), clock)
        for _ in 0..<4 { attempt(throttle, alice) }
        clock.advance(101)
        for _ in 0..<4 { XCTAssertNil(attempt(throttle, alice)) }
        XCTAssertNil(attempt(throttle, alice, succeeds: true))
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, alice)) }
        XCTAssertNotNil(attempt(throttle, alice))
    }

    func testALockNeverTouchesAnotherAccount() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(), clock)
        for _ in 0..<5 { attempt(throttle, alice) }
        XCTAssertNotNil(attempt(throttle, alice))
        XCTAssertNil(attempt(throttle, bob, succeeds: true))
        XCTAssertNil(attempt(throttle, .user(email: "ALICE@example.org")))
        // Emails are case-insensitive (the column is COLLATE NOCASE).
        XCTAssertNotNil(attempt(throttle, .user(email: "ALICE@EXAMPLE.COM")))
        // A client id is another namespace.
        XCTAssertNil(attempt(throttle, .client(id: "alice@example.com")))
    }

    func testAddressBudgetSparesKnownDevices() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(addressFailureLimit: 10, addressWindow: 50), clock)
        // Bob logged in from the attacker's address before (a shared NAT).
        XCTAssertNil(attempt(throttle, bob, from: "10.0.0.1", succeeds: true))
        for index in 0..<10 { XCTAssertNil(attempt(throttle, .user(email: "victim\(index)@example.com"))) }
        let refusal = attempt(throttle, .user(email: "victim99@example.com"))
        XCTAssertEqual(refusal?.status, .tooManyRequests)
        XCTAssertTrue(refusal?.message.contains("from this address") ?? false)
        XCTAssertEqual(refusal?.retryAfterSeconds, 50)
        XCTAssertNil(attempt(throttle, bob, from: "10.0.0.1", succeeds: true), "a known device is exempt")
        XCTAssertNil(attempt(throttle, alice, from: "10.0.0.2"), "another address is not blocked")
        XCTAssertNotNil(attempt(throttle, alice, from: "10.0.0.1"), "an account new to the address is")
        clock.advance(51)
        XCTAssertNil(attempt(throttle, alice, from: "10.0.0.1"))
    }

    func testAKnownDeviceKeepsItsOwnLock() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(), clock)
        XCTAssertNil(attempt(throttle, alice, from: "10.0.0.1", succeeds: true))
        // Guessers elsewhere lock Alice's account…
        for _ in 0..<5 { attempt(throttle, alice, from: "10.6.6.6") }
        XCTAssertNotNil(attempt(throttle, alice, from: "10.6.6.6"))
        XCTAssertNotNil(attempt(throttle, alice, from: "10.7.7.7"))
        // …but not for Alice at her usual address, which gets its own 5 tries.
        XCTAssertNil(attempt(throttle, alice, from: "10.0.0.1", succeeds: true))
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, alice, from: "10.0.0.1")) }
        XCTAssertNotNil(attempt(throttle, alice, from: "10.0.0.1"))
    }

    func testAttemptsInFlightCountSoABurstCannotSlipThrough() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(), clock)
        let (alice, bob) = (self.alice, self.bob)
        var started: [LoginThrottle.Attempt] = []
        for _ in 0..<5 { started.append(try blocking { try await throttle.begin(alice, address: "10.0.0.1") }) }
        XCTAssertThrowsError(try blocking { try await throttle.begin(alice, address: "10.0.0.1") }) { error in
            XCTAssertEqual((error as? APIError)?.retryAfterSeconds, 1)
        }
        for attempt in started { try blocking { try await throttle.finish(attempt, outcome: false) } }
        XCTAssertThrowsError(try blocking { try await throttle.begin(alice, address: "10.0.0.1") }) { error in
            XCTAssertEqual((error as? APIError)?.retryAfterSeconds, 60)
        }
        // An error (neither outcome) frees its slot without counting.
        let other = try blocking { try await throttle.begin(bob, address: "10.0.0.1") }
        try blocking { try await throttle.finish(other, outcome: nil) }
        for _ in 0..<5 { XCTAssertNil(attempt(throttle, bob)) }
    }

    func testMemoryStaysBounded() throws {
        let clock = FakeClock()
        let throttle = try throttle(.init(addressFailureLimit: .max, maxTrackedEntries: 100), clock)
        for index in 0..<5_000 {
            attempt(throttle, .user(email: "u\(index)@example.com"), from: "10.0.\(index / 250).\(index % 250)", succeeds: index % 2 == 0)
            clock.advance(0.01)
        }
        let counts = throttle.trackedCounts
        XCTAssertLessThanOrEqual(counts.accounts, 101)
        XCTAssertLessThanOrEqual(counts.addresses, 101)
        XCTAssertLessThanOrEqual(counts.knownDevices, 101)
    }

    func testDisabledThrottleRefusesNothing() throws {
        let throttle = try throttle(.disabled, FakeClock())
        for _ in 0..<50 { XCTAssertNil(attempt(throttle, alice)) }
    }
}

/// `HashingExecutor`'s bounds and lanes.
final class HashingExecutorTests: XCTestCase {

    func testHashingRunsAtMostWidthJobsOffTheCooperativePool() async throws {
        let executor = HashingExecutor(width: 2)
        let counters = LoginThrottleTests.Locked((running: 0, peak: 0))
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await executor.run {
                        counters.withLock {
                            $0.running += 1; $0.peak = max($0.peak, $0.running)
                        }
                        Thread.sleep(forTimeInterval: 0.1)
                        counters.withLock { $0.running -= 1 }
                    }
                }
            }
            // While 8 blocking jobs are queued or running, async work still runs at once.
            let probe = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(10))
            for _ in 0..<100 { await Task.yield() }
            XCTAssertLessThan(ContinuousClock.now - probe, .milliseconds(90))
            try await group.waitForAll()
        }
        XCTAssertEqual(counters.withLock { $0.peak }, 2)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(390))
        XCTAssertEqual(executor.queuedCount, 0)
    }

    func testTrustedJobsOvertakeQueuedUntrustedOnes() async throws {
        let executor = HashingExecutor(width: 1)
        let order = LoginThrottleTests.Locked<[String]>([])
        let gate = LoginThrottleTests.Locked(false)
        // Occupy the only thread until every job is queued. The jobs are made only once the blocker
        // runs: a task started first may still be scheduled later, and a guess that ran before the
        // blocker would leave fewer than four queued forever.
        let blockerRuns = LoginThrottleTests.Locked(false)
        let blocker = Task {
            await executor.run {
                blockerRuns.withLock { $0 = true }
                while !gate.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
            }
        }
        while !blockerRuns.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        var tasks: [Task<Void, Never>] = []
        for index in 0..<4 {
            tasks.append(Task { await executor.run(.untrusted) { order.withLock { $0.append("guess\(index)") } } })
        }
        while executor.queuedCount < 4 { try await Task.sleep(for: .milliseconds(5)) }
        tasks.append(Task { await executor.run(.trusted) { order.withLock { $0.append("owner") } } })
        while executor.queuedCount < 5 { try await Task.sleep(for: .milliseconds(5)) }
        gate.withLock { $0 = true }
        await blocker.value
        for task in tasks { await task.value }
        XCTAssertEqual(order.withLock { $0.first }, "owner")
        XCTAssertEqual(order.withLock { $0.count }, 5)
    }

    func testHashingPropagatesErrors() async {
        struct Boom: Error {}
        let executor = HashingExecutor(width: 1)
        do {
            _ = try await executor.run { () throws -> Int in throw Boom() }
            XCTFail("expected an error")
        } catch {
            XCTAssertTrue(error is Boom)
        }
    }
}
