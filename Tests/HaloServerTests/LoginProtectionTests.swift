import Foundation
import HaloContentStore
import HaloServer
import Synchronization
import XCTest

/// Brute-force protection over real HTTP: locked accounts get 429 with `Retry-After` and HALO's
/// envelope, without hurting anyone else (see `LoginThrottle`).
final class LoginProtectionTests: XCTestCase {
    var server: TestServer!

    override func tearDown() async throws { await server?.stop() }

    /// Small windows so the test can wait them out.
    private func start(_ settings: LoginThrottle.Settings) async throws {
        server = try await TestServer.start { $0.loginThrottle = settings }
    }

    private func assertThrottled(_ answer: HTTPAnswer, file: StaticString = #filePath, line: UInt = #line) {
        let message = assertEnvelope(answer, status: 429, file: file, line: line)
        XCTAssertTrue(message.contains("try again in"), message, file: file, line: line)
        let retryAfter = Int(answer.headers["retry-after"] ?? "")
        XCTAssertNotNil(retryAfter, "Retry-After: \(answer.headers)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(retryAfter ?? 0, 1, file: file, line: line)
    }

    func testIdentifiedLoginLocksAfterFailuresThenTheRightPasswordWorks() async throws {
        try await start(.init(accountFailureLimit: 3, lockDuration: 1))
        try await server.admin.addUser(email: "ann@example.com", password: "right-password")
        for _ in 0..<3 {
            assertEnvelope(try await server.identifiedLogin("ann@example.com", "wrong-password"), status: 400)
        }
        // Locked: even the right password is refused, at once.
        assertThrottled(try await server.identifiedLogin("ann@example.com", "right-password"))
        assertThrottled(try await server.passwordGrant("ann@example.com", "wrong-password"))
        // Another account is untouched.
        try await server.admin.addUser(email: "ben@example.com", password: "ben-password")
        assertStatus(try await server.identifiedLogin("ben@example.com", "ben-password"), 200)
        try await Task.sleep(for: .milliseconds(1100))
        assertStatus(try await server.identifiedLogin("ann@example.com", "right-password"), 200)
    }

    func testPasswordGrantAndClientGrantsAreThrottled() async throws {
        try await start(.init(accountFailureLimit: 2, lockDuration: 30))
        try await server.admin.addUser(email: "eve@example.com", password: "eve-password")
        for _ in 0..<2 { assertEnvelope(try await server.passwordGrant("eve@example.com", "nope"), status: 401) }
        assertThrottled(try await server.passwordGrant("eve@example.com", "eve-password"))
        // Unknown emails lock the same way (a lock reveals nothing about which accounts exist).
        for _ in 0..<2 { assertEnvelope(try await server.passwordGrant("nobody@example.com", "nope"), status: 401) }
        assertThrottled(try await server.passwordGrant("nobody@example.com", "nope"))

        let client = try await server.admin.addClient()
        for _ in 0..<2 { assertEnvelope(try await server.clientGrant(client.clientId, "nope"), status: 401) }
        assertThrottled(try await server.clientGrant(client.clientId, client.clientSecret))
        let refresh = try await server.call(
            "POST", "/api/oauth/token?_app",
            body: .form([
                ("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", client.clientId),
                ("client_secret", client.clientSecret),
            ]))
        assertThrottled(refresh)
        // Another client still gets its tokens.
        let other = try await server.admin.addClient()
        assertStatus(try await server.clientGrant(other.clientId, other.clientSecret), 200)
    }

    func testAddressLimitSparesKnownDevices() async throws {
        try await start(.init(addressFailureLimit: 6, addressWindow: 60))
        try await server.admin.addUser(email: "owner@example.com", password: "owner-password")
        assertStatus(try await server.identifiedLogin("owner@example.com", "owner-password"), 200)
        // Loopback guesses at many accounts: two each, so no account locks, but the address does.
        for index in 0..<3 {
            for _ in 0..<2 {
                assertEnvelope(try await server.identifiedLogin("target\(index)@example.com", "guess"), status: 400)
            }
        }
        let blocked = try await server.identifiedLogin("target9@example.com", "guess")
        assertThrottled(blocked)
        XCTAssertTrue(assertEnvelope(blocked, status: 429).contains("from this address"))
        // The owner logged in from this address before: not blocked.
        assertStatus(try await server.identifiedLogin("owner@example.com", "owner-password"), 200)
    }

    /// 8 concurrent guessers on 8 other accounts: they get 429 with `Retry-After`, the real user's
    /// own login keeps working throughout, and once the locks end the right passwords work.
    func testConcurrentGuessersDoNotLockOutTheRealUser() async throws {
        try await start(.init(accountFailureLimit: 5, lockDuration: 3, maxLockDuration: 3))
        let password = "real-password"
        try await server.admin.addUser(email: "real@example.com", password: password)
        for index in 0..<8 { try await server.admin.addUser(email: "victim\(index)@example.com", password: "victim-\(index)") }
        assertStatus(try await server.identifiedLogin("real@example.com", password), 200)

        let server = self.server!
        let guessersDone = Mutex(false)
        // The real user logs in again and again until every guesser has been refused a few times.
        async let realLogins: [Int] = {
            var statuses: [Int] = []
            while statuses.count < 3 || !guessersDone.withLock({ $0 }) {
                statuses.append(try await server.identifiedLogin("real@example.com", password).status)
            }
            return statuses
        }()
        let guesses = try await withThrowingTaskGroup(of: [HTTPAnswer].self) { group in
            for index in 0..<8 {
                group.addTask {
                    var answers: [HTTPAnswer] = []
                    while answers.filter({ $0.status == 429 }).count < 3 && answers.count < 50 {
                        answers.append(try await server.identifiedLogin("victim\(index)@example.com", "guess-\(answers.count)"))
                    }
                    return answers
                }
            }
            var all: [[HTTPAnswer]] = []
            for try await answers in group { all.append(answers) }
            guessersDone.withLock { $0 = true }
            return all
        }
        let statuses = try await realLogins
        XCTAssertFalse(statuses.isEmpty)
        XCTAssertEqual(Set(statuses), [200], "the real user's logins: \(statuses)")
        XCTAssertEqual(guesses.count, 8)
        for answers in guesses {
            XCTAssertTrue(answers.allSatisfy { $0.status == 400 || $0.status == 429 })
            XCTAssertLessThanOrEqual(answers.filter { $0.status == 400 }.count, 5, "at most 5 guesses were checked")
            let throttled = try XCTUnwrap(answers.first { $0.status == 429 }, "each guesser was throttled")
            assertThrottled(throttled)
        }
        try await Task.sleep(for: .milliseconds(3100))
        for index in 0..<8 {
            assertStatus(try await server.identifiedLogin("victim\(index)@example.com", "victim-\(index)"), 200)
        }
    }

    func testLoginsStillWorkWithTheDefaults() async throws {
        try await start(.default)
        try await server.admin.addUser(email: "d@example.com", password: "default-password")
        assertStatus(try await server.identifiedLogin("d@example.com", "default-password"), 200)
        assertStatus(try await server.passwordGrant("d@example.com", "default-password"), 200)
    }
}
