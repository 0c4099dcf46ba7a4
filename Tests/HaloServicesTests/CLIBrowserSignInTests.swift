import Foundation
import HaloIdentityProvider
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

/// `halo login --google` end to end: the CLI waits on 127.0.0.1, a real Chromium (Selenium) goes
/// through the local identity provider's consent page, the CLI ends signed in, and the server holds
/// the identified user.
final class CLIBrowserSignInTests: XCTestCase {
    func testHaloLoginWithGoogleThroughChromium() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            if ProcessInfo.processInfo.environment["HALO_REQUIRE_GUI"] == "1" { XCTFail("chromium-driver is not installed (make setup)") }
            throw XCTSkip("chromium-driver is not installed (make setup)")
        }
        let provider = try await LocalIdentityProvider.start(.demo)
        let server = try await FlowServer.start(
            socialSettings: .localProvider(
                issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
                facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
                facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret))
        let home = server.directory.appendingPathComponent("home")
        defer {
            Task {
                await server.server.stop(); await provider.stop()
            }
        }

        let login = Process()
        login.executableURL = try CLITests.haloBinary
        login.arguments = [
            "login", "--google", "--no-browser", "--json", "--identity-provider", provider.issuer.absoluteString,
            "--provider-client-id", LocalIdentityProvider.Settings.desktopClientId, "--server", server.baseURL.absoluteString,
            "--client-id", server.client.clientId, "--client-secret", server.client.clientSecret,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["HALO_PROVIDER_CLIENT_SECRET"] = LocalIdentityProvider.Settings.desktopClientSecret
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        login.environment = environment
        let out = Pipe(), err = Pipe()
        login.standardOutput = out
        login.standardError = err
        try login.run()

        // The address line, read as it comes (the CLI is waiting for the browser meanwhile).
        var printed = ""
        while !printed.contains("\n"), let chunk = try err.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let address = try XCTUnwrap(
            printed.components(separatedBy: "Open this address to sign in: ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertTrue(address.hasPrefix(provider.issuer.absoluteString + "/authorize?"), printed)

        let shots = try GUIShots.directory()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser/consent.py")
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [script.path, address, "Ada Lovelace", shots.path]
        let browserOut = Pipe(), browserErr = Pipe()
        browser.standardOutput = browserOut
        browser.standardError = browserErr
        try browser.run()
        let browserText = String(decoding: browserOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let browserError = String(decoding: browserErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        XCTAssertEqual(browser.terminationStatus, 0, browserError)
        let landing = try JSONValue(data: Data((browserText.split(separator: "\n").last ?? "").utf8))
        XCTAssertEqual(landing["heading"]?.stringValue, "Signed in with Google")
        XCTAssertTrue(landing["text"]?.stringValue?.contains("return to HaloDesk") ?? false)

        let answer = out.fileHandleForReading.readDataToEndOfFile()
        let rest = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        login.waitUntilExit()
        XCTAssertEqual(login.terminationStatus, 0, rest)
        let user = try JSONValue(data: answer)
        XCTAssertEqual(user["email"]?.stringValue, "ada@example.com")
        XCTAssertEqual(user["name"]?.stringValue, "Ada Lovelace")
        for secret in ["code=", "id_token", "access_token", "code_verifier"] {
            XCTAssertFalse(rest.contains(secret), "the CLI printed \(secret): \(rest)")
        }

        // A second client: the server's own database holds the identified Google user.
        let query = "SELECT email, network FROM server_user WHERE network = 'google'"
        let data = server.directory.appendingPathComponent("server")
        let rows =
            TestBackEnd.current == .sqlite
            ? try Shell.run("/usr/bin/sqlite3", [data.appendingPathComponent("halo.sqlite").path, query])
            : try PostgresDatabases.psql(query, for: data)
        XCTAssertEqual(rows.trimmingCharacters(in: .whitespacesAndNewlines), "ada@example.com|google")
        if user["credentialsStored"]?.boolValue == true {
            // And the CLI stays signed in: the next command uses the stored sign-in (the pocket needs a user).
            let pocket = Process()
            pocket.executableURL = try CLITests.haloBinary
            pocket.arguments = [
                "pocket", "get", "--json", "--server", server.baseURL.absoluteString, "--client-id", server.client.clientId,
                "--client-secret", server.client.clientSecret,
            ]
            pocket.environment = environment
            pocket.standardOutput = FileHandle.nullDevice
            try pocket.run()
            pocket.waitUntilExit()
            XCTAssertEqual(pocket.terminationStatus, 0, "the stored Google sign-in did not carry over to the next command")
        }
    }
}

/// Where screenshots of the browser go: `test-artifacts/` of the package, beside the GUI tests' ones.
enum GUIShots {
    static func directory() throws -> URL {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("test-artifacts", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

enum Shell {
    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
