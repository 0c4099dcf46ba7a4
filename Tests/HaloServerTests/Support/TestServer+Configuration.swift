import Foundation
import HaloServer
import HaloTestSupport
import XCTest

extension TestServer {
    /// A server with a configuration of the test's making (throttle settings, data directory…);
    /// requests are not logged unless `configure` says so.
    static func start(
        directory: URL? = nil, configure: (inout HaloServerConfiguration) -> Void
    ) async throws -> TestServer {
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("halo-server-tests-\(UUID().uuidString)", isDirectory: true)
        var configuration = HaloServerConfiguration(dataDirectory: directory, logRequests: false)
        configure(&configuration)
        let server = try await TestDeployment.start(configuration)
        return TestServer(server: server, directory: configuration.dataDirectory)
    }

    /// An identified login (E9) with these credentials.
    func identifiedLogin(_ email: String, _ password: String) async throws -> HTTPAnswer {
        try await call(
            "POST", "/api/segmentation/identified/login",
            body: .json(["email": .string(email), "password": .string(password), "network": "halo", "deviceId": ""]))
    }

    /// A password grant (E2) with these credentials.
    func passwordGrant(_ username: String, _ password: String) async throws -> HTTPAnswer {
        try await call(
            "POST", "/api/oauth/token?_user",
            body: .form([("grant_type", "password"), ("username", username), ("password", password)]))
    }

    /// A client-credentials grant (E1).
    func clientGrant(_ clientId: String, _ secret: String) async throws -> HTTPAnswer {
        try await call(
            "POST", "/api/oauth/token?_app",
            body: .form([("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret)]))
    }
}

/// Asserts the answer's status, showing its body otherwise.
func assertStatus(_ answer: HTTPAnswer, _ status: Int, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(answer.status, status, String(decoding: answer.data, as: UTF8.self), file: file, line: line)
}

/// Skips a test of SQLite's own files or mechanisms when the suite runs on PostgreSQL
/// (`HALO_TEST_BACKEND`); the reason says what covers the same ground there.
func skipUnlessSQLite(_ reason: String) throws {
    try XCTSkipIf(TestBackEnd.current != .sqlite, "SQLite only: \(reason)")
}

/// Skips a test of limits one process keeps in memory (concurrent streams) when three processes
/// behind nginx serve the suite: each process counts its own (docs/deploy.md).
func skipInCluster(_ reason: String) throws {
    try XCTSkipIf(TestBackEnd.current.isCluster, "one process only: \(reason)")
}
