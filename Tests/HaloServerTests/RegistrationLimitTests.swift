import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

/// Issue 45, hole 2 (its second half): registration needs only the app token every app ships,
/// so each new account could add another full pocket. `POST /api/segmentation/identified/register`
/// is limited per client address: 10 an hour by default (`registrations-per-address`,
/// `registration-window`), `X-Forwarded-For` believed only from a `--trusted-proxy`, and on
/// PostgreSQL counted once for every process. Against real `halo-server` processes.
final class RegistrationLimitTests: XCTestCase {
    func testTheEleventhRegistrationFromOneAddressWithinAnHourIsRefused() async throws {
        let child = try await LimitChild.start(options: ["--trusted-proxy", "127.0.0.1"])
        defer { child.stop() }
        let app = try await child.appToken()
        let client = ["X-Forwarded-For": "198.51.100.7"]
        // Refused registrations make no account and take no slot.
        for _ in 0..<3 { assertStatus(try await child.register(app, password: "short", headers: client), 400) }
        for _ in 0..<10 { assertStatus(try await child.register(app, headers: client), 200) }
        let eleventh = try await child.register(app, headers: client)
        let message = assertEnvelope(eleventh, status: 429)
        XCTAssertTrue(message.contains("at most 10 an hour"), message)
        let retryAfter = try XCTUnwrap(eleventh.headers["retry-after"].flatMap(Int.init))
        XCTAssertTrue((3500...3600).contains(retryAfter), "Retry-After \(retryAfter)")
        // Another address (as the trusted proxy says), and the proxy itself, have their own budgets.
        assertStatus(try await child.register(app, headers: ["X-Forwarded-For": "198.51.100.8"]), 200)
        assertStatus(try await child.register(app), 200)
        // A client's own entry left of what the proxy appended is not believed.
        assertEnvelope(try await child.register(app, headers: ["X-Forwarded-For": "203.0.113.1, 198.51.100.7"]), status: 429)
    }

    /// Without `--trusted-proxy` the header is anybody's to write: every registration here comes
    /// from 127.0.0.1, whatever it claims.
    func testForwardedForIsIgnoredWithoutATrustedProxy() async throws {
        let child = try await LimitChild.start()
        defer { child.stop() }
        let app = try await child.appToken()
        for index in 0..<10 {
            assertStatus(try await child.register(app, headers: ["X-Forwarded-For": "198.51.100.\(index)"]), 200)
        }
        assertEnvelope(try await child.register(app, headers: ["X-Forwarded-For": "198.51.100.99"]), status: 429)
    }

    func testTheLimitIsASetting() async throws {
        let child = try await LimitChild.start(options: ["--limit", "registrations-per-address=2"])
        defer { child.stop() }
        let app = try await child.appToken()
        assertStatus(try await child.register(app), 200)
        assertStatus(try await child.register(app), 200)
        let third = try await child.register(app)
        XCTAssertTrue(assertEnvelope(third, status: 429).contains("at most 2 an hour"))
    }

    /// A slot is taken before the account is made: 20 registrations at once make exactly 10.
    func testConcurrentRegistrationsCannotSlipPast() async throws {
        let child = try await LimitChild.start()
        defer { child.stop() }
        let app = try await child.appToken()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await child.register(app).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 10, "\(statuses)")
        XCTAssertEqual(statuses.filter { $0 == 429 }.count, 10, "\(statuses)")
    }

    /// Two processes on one PostgreSQL database share the budget, as the login throttle's.
    func testProcessesOnOneDatabaseShareTheBudget() async throws {
        try XCTSkipIf(TestBackEnd.current == .sqlite, "one SQLite database is served by one process")
        let first = try await LimitChild.start()
        defer { first.stop() }
        let second = try await LimitChild.start(directory: first.directory)
        defer { second.stop(removeData: false) }
        let app = try await first.appToken()
        for index in 0..<10 { assertStatus(try await (index.isMultiple(of: 2) ? first : second).register(app), 200) }
        assertEnvelope(try await first.register(app), status: 429)
        assertEnvelope(try await second.register(app), status: 429)
    }
}

extension LimitChild {
    /// `POST /api/segmentation/identified/register` of a new HALO account, as the SDKs send it.
    func register(_ token: String, password: String = "secret-password", headers: [String: String] = [:]) async throws
        -> HTTPAnswer
    {
        let email = "new\(UUID().uuidString.prefix(8))@example.com"
        return try await call(
            "POST", "/api/segmentation/identified/register", token: token,
            body: [
                "auth": ["email": .string(email), "password": .string(password), "network": "halo"],
                "profile": ["email": .string(email), "name": "New", "surname": "User"],
            ], headers: headers)
    }
}
