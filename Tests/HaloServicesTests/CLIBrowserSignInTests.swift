import Foundation
import HaloIdentityProvider
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

/// `halo login --google` end to end: the CLI waits on 127.0.0.1, a real Chromium (Selenium) goes
/// through the local identity provider's consent page, the CLI ends signed in, and the server holds
/// the identified user. The page Chromium lands on tells the truth: signed in, not signed in (an
/// injected code), or still signing in (a slow login).
final class CLIBrowserSignInTests: XCTestCase {
    private var provider: LocalIdentityProvider!
    private var server: FlowServer!

    override func setUp() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            if ProcessInfo.processInfo.environment["HALO_REQUIRE_GUI"] == "1" { XCTFail("chromium-driver is not installed (make setup)") }
            throw XCTSkip("chromium-driver is not installed (make setup)")
        }
        provider = try await LocalIdentityProvider.start(.demo)
        server = try await FlowServer.start(
            socialSettings: .localProvider(
                issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
                facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
                facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret))
    }

    override func tearDown() async throws {
        await server?.server.stop()
        await provider?.stop()
    }

    func testHaloLoginWithGoogleThroughChromium() async throws {
        let login = try HaloLogin(provider: provider, server: server)
        XCTAssertTrue(login.address.hasPrefix(provider.issuer.absoluteString + "/authorize?"), login.address)

        let shots = try GUIShots.directory()
        let landing = try Chromium.run("consent.py", [login.address, "Ada Lovelace", shots.path])
        // The page came after HALO's login: it names the person as the server knows them.
        XCTAssertEqual(landing["heading"]?.stringValue, "Signed in with Google")
        XCTAssertTrue(landing["text"]?.stringValue?.contains("You are signed in to HaloDesk as ada@example.com.") ?? false, "\(landing)")
        XCTAssertTrue(landing["text"]?.stringValue?.contains("return to HaloDesk") ?? false)

        let (status, answer, rest) = login.finish()
        XCTAssertEqual(status, 0, rest)
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
            pocket.environment = login.environment
            pocket.standardOutput = FileHandle.nullDevice
            try pocket.run()
            pocket.waitUntilExit()
            XCTAssertEqual(pocket.terminationStatus, 0, "the stored Google sign-in did not carry over to the next command")
        }
    }

    /// (Issue 45, hole 8.) Chromium opens the listener with someone else's code (another PKCE
    /// verifier) and the right `state`: the page says sign-in failed and what to do, and
    /// `halo login` exits 2 (auth).
    func testAnInjectedCodeMakesTheBrowserSayNotSignedInAndHaloLoginExit2() async throws {
        let login = try HaloLogin(provider: provider, server: server)
        let callback = try ScriptedBrowser.foreignCodeCallback(for: try XCTUnwrap(URL(string: login.address)), account: "1002")
        let shot = try GUIShots.directory().appendingPathComponent("browser-landing-failed.png")
        let landing = try Chromium.run("landing.py", [callback, shot.path])
        XCTAssertEqual(landing["heading"]?.stringValue, "Sign-in with Google did not finish")
        let text = landing["text"]?.stringValue ?? ""
        XCTAssertTrue(text.contains("Google did not confirm this sign-in, so you are not signed in."), text)
        XCTAssertTrue(text.contains("Return to HaloDesk and start the sign-in again."), text)
        XCTAssertFalse(text.contains("PKCE"), "the provider's own sentence reached the page: \(text)")

        let (status, answer, rest) = login.finish()
        XCTAssertEqual(status, 2, rest)
        XCTAssertTrue(answer.isEmpty)
        XCTAssertTrue(rest.contains("halo: auth: Google did not accept the sign-in"), rest)
    }

    /// (Issue 45, hole 8.) HALO's login held up 20 s by a proxy: Chromium gets "still signing you
    /// in" after 15 s, and `halo login` still ends signed in and says so.
    func testASlowLoginShowsStillRunningInChromiumAndHaloLoginStillSucceeds() async throws {
        let proxy = try DelayingProxy(target: server.baseURL, marker: "/api/segmentation/identified/login", delay: .seconds(20))
        defer { proxy.stop() }
        let login = try HaloLogin(provider: provider, server: server, serverURL: proxy.url)
        let shots = try GUIShots.directory()
        let landing = try Chromium.run("consent.py", [login.address, "Ada Lovelace", shots.path, "browser-landing-still-running.png"])
        XCTAssertEqual(landing["heading"]?.stringValue, "Still signing you in…")
        XCTAssertTrue(landing["text"]?.stringValue?.contains("Return to HaloDesk to see the outcome.") ?? false, "\(landing)")
        XCTAssertEqual(login.process.isRunning, true, "halo login ended before the delayed login")

        let (status, answer, rest) = login.finish()
        XCTAssertEqual(status, 0, rest)
        XCTAssertEqual(try JSONValue(data: answer)["email"]?.stringValue, "ada@example.com")
        XCTAssertEqual(proxy.delayed, 1)
    }
}

/// `halo login --google --no-browser --json` running against the local identity provider, its
/// address line already read.
private struct HaloLogin {
    let process = Process()
    let environment: [String: String]
    let address: String
    private let out = Pipe(), err = Pipe()

    init(provider: LocalIdentityProvider, server: FlowServer, serverURL: URL? = nil) throws {
        let home = server.directory.appendingPathComponent("home")
        process.executableURL = try CLITests.haloBinary
        process.arguments = [
            "login", "--google", "--no-browser", "--json", "--identity-provider", provider.issuer.absoluteString,
            "--provider-client-id", LocalIdentityProvider.Settings.desktopClientId, "--server",
            (serverURL ?? server.baseURL).absoluteString, "--client-id", server.client.clientId, "--client-secret",
            server.client.clientSecret,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["HALO_PROVIDER_CLIENT_SECRET"] = LocalIdentityProvider.Settings.desktopClientSecret
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        process.environment = environment
        self.environment = environment
        process.standardOutput = out
        process.standardError = err
        try process.run()

        // The address line, read as it comes (the CLI is waiting for the browser meanwhile).
        var printed = ""
        while !printed.contains("\n"), let chunk = try err.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
            printed += String(decoding: chunk, as: UTF8.self)
        }
        guard let address = printed.components(separatedBy: "Open this address to sign in: ").last, printed.contains("Open this") else {
            process.terminate()
            throw ScriptedBrowser.Failure("halo login printed no address: \(printed)")
        }
        self.address = address.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits for its end: (exit status, standard output, the rest of standard error).
    func finish() -> (Int32, Data, String) {
        let answer = out.fileHandleForReading.readDataToEndOfFile()
        let rest = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, answer, rest)
    }
}

/// Runs one of the Selenium scripts under `browser/`; the JSON it prints last (heading and text).
enum Chromium {
    static func run(_ script: String, _ arguments: [String]) throws -> JSONValue {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser/\(script)")
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [path.path] + arguments
        let browserOut = Pipe(), browserErr = Pipe()
        browser.standardOutput = browserOut
        browser.standardError = browserErr
        try browser.run()
        let text = String(decoding: browserOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: browserErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        guard browser.terminationStatus == 0 else { throw ScriptedBrowser.Failure("\(script) failed: \(error)") }
        return try JSONValue(data: Data((text.split(separator: "\n").last ?? "").utf8))
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
