import Foundation
import HaloIdentityProvider
import HaloServer
import HaloTestSupport
import Synchronization
import XCTest

@testable import HaloServices

/// Browser sign-in (RFC 8252) against the local identity provider and a real server: the SDK's
/// loopback listener, PKCE and state, the code exchange, HALO's identified login, and the refusals.
/// The "browser" here is curl following the consent form; the end-to-end tests drive Chromium.
final class BrowserSignInTests: XCTestCase {
    private var provider: LocalIdentityProvider!
    private var server: FlowServer!

    override func setUp() async throws {
        try await start(tokenLifetime: .seconds(3600), serverTokenMilliseconds: 86_400_000)
    }

    private func start(tokenLifetime: Duration, serverTokenMilliseconds: Int64) async throws {
        var settings = LocalIdentityProvider.Settings.demo
        settings.tokenLifetime = tokenLifetime
        provider = try await LocalIdentityProvider.start(settings)
        server = try await FlowServer.start(
            tokenLifetimeMilliseconds: serverTokenMilliseconds,
            socialSettings: .localProvider(
                issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
                facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
                facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret))
    }

    override func tearDown() async throws {
        await server.server.stop()
        await provider.stop()
    }

    private func makeCore() async throws -> (CoreManager, LogCapture) {
        var configuration = server.configuration()
        configuration.socialProviders = [
            .google: .openIDConnect(
                network: .google, displayName: "Google", issuer: provider.issuer, clientId: LocalIdentityProvider.Settings.desktopClientId,
                clientSecret: LocalIdentityProvider.Settings.desktopClientSecret),
            .facebook: .openIDConnect(
                network: .facebook, displayName: "Facebook", issuer: provider.issuer,
                clientId: LocalIdentityProvider.Settings.facebookAppId,
                clientSecret: LocalIdentityProvider.Settings.facebookAppSecret),
        ]
        let core = CoreManager(configuration: configuration)
        let capture = LogCapture()
        core.addLogger(capture)
        core.logLevel = .info
        try await core.startup()
        return (core, capture)
    }

    func testGoogleSignInEndToEndWithPKCEAndNothingSecretInTheLog() async throws {
        let (core, log) = try await makeCore()
        let seen = Mutex<(address: URL?, location: String?)>((nil, nil))
        let user = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
            let visit = try ScriptedBrowser.consent(address, account: "1001")
            seen.withLock { $0 = (address, visit.location) }
            XCTAssertTrue(visit.landing.contains("Signed in with Google"), visit.landing)
            XCTAssertTrue(visit.landing.contains("return to HaloDesk"))
        }
        XCTAssertEqual(user.userProfile.email, "ada@example.com")
        XCTAssertEqual(user.userProfile.name, "Ada")
        _ = try await core.auth.getPocket()  // the identified user's token works

        let (address, location) = seen.withLock { $0 }
        let query = ScriptedBrowser.query(try XCTUnwrap(address))
        XCTAssertEqual(query["code_challenge_method"], "S256")
        XCTAssertEqual(query["code_challenge"]?.count, 43)
        XCTAssertEqual(query["state"]?.count, 43, "256 random bits")
        let redirect = try XCTUnwrap(URLComponents(string: query["redirect_uri"] ?? ""))
        XCTAssertEqual(redirect.scheme, "http")
        XCTAssertEqual(redirect.host, "127.0.0.1", "an IP literal, not localhost (RFC 8252 §8.3)")

        // The callback is one-shot: replaying it finds nobody listening.
        let callback = try XCTUnwrap(location)
        XCTAssertThrowsError(try ScriptedBrowser.get(callback), "a replayed callback was answered")
        // The code is one-shot at the provider too: reusing it is refused.
        let code = try XCTUnwrap(ScriptedBrowser.query(try XCTUnwrap(URL(string: callback)))["code"])
        let reuse = try ScriptedBrowser.post(
            provider.issuer.appendingPathComponent("token"),
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", query["redirect_uri"] ?? ""),
                ("client_id", LocalIdentityProvider.Settings.desktopClientId),
                ("client_secret", LocalIdentityProvider.Settings.desktopClientSecret),
                ("code_verifier", String(repeating: "a", count: 43)),
            ])
        XCTAssertTrue(reuse.contains("invalid_grant"), reuse)

        let text = log.text
        XCTAssertTrue(text.contains("Signed in with Google"), text)
        for secret in [code, user.token.accessToken, user.token.refreshToken ?? "-", query["state"] ?? "-"] {
            XCTAssertFalse(text.contains(secret), "a secret reached the log")
        }
    }

    func testFacebookSignInSendsTheAccessTokenAndAnAccountWithoutEmailWorks() async throws {
        let (core, _) = try await makeCore()
        let user = try await core.auth.loginWithFacebook(stayLoggedIn: false) { address in
            _ = try ScriptedBrowser.consent(address, account: "1003")
        }
        XCTAssertEqual(user.userProfile.email, "")
        XCTAssertEqual(user.userProfile.surname, "Turing")
    }

    func testAWrongStateIsRefusedAndTheSignInGoesOn() async throws {
        let (core, _) = try await makeCore()
        let user = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
            let redirect = ScriptedBrowser.query(address)["redirect_uri"] ?? ""
            // A forged callback (login CSRF) and a forged error answer: both refused, neither ends the wait.
            for forged in ["?code=attacker&state=guess", "?error=access_denied&state=guess", "?code=attacker"] {
                let answer = try ScriptedBrowser.get(redirect + forged, expectStatus: 400)
                XCTAssertTrue(answer.contains("does not belong to the sign-in HaloDesk is waiting for"), answer)
            }
            _ = try ScriptedBrowser.get(redirect.replacingOccurrences(of: "/callback", with: "/other"), expectStatus: 404)
            _ = try ScriptedBrowser.consent(address, account: "1001")
        }
        XCTAssertEqual(user.userProfile.email, "ada@example.com")
    }

    func testDeclinedAndFailedAnswersAreSentencesAndTheLandingPageEscapes() async throws {
        let (core, _) = try await makeCore()
        do {
            _ = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
                let visit = try ScriptedBrowser.consent(address, account: nil)
                XCTAssertTrue(visit.landing.contains("You cancelled the sign-in at Google."), visit.landing)
            }
            XCTFail("a declined sign-in succeeded")
        } catch {
            XCTAssertEqual(error.description, "You cancelled the sign-in at Google.")
        }
        do {
            _ = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
                let query = ScriptedBrowser.query(address)
                var callback = URLComponents(string: query["redirect_uri"] ?? "")!
                callback.queryItems = [
                    URLQueryItem(name: "error", value: "server_error"),
                    URLQueryItem(name: "error_description", value: "<script>alert('x')</script> & more"),
                    URLQueryItem(name: "state", value: query["state"]),
                ]
                let page = try ScriptedBrowser.get(callback.url!.absoluteString)
                XCTAssertTrue(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more"), page)
                XCTAssertFalse(page.contains("<script>"), page)
            }
            XCTFail("a failed sign-in succeeded")
        } catch {
            XCTAssertEqual(error.description, "Google refused the sign-in: <script>alert('x')</script> & more")
        }
    }

    func testTimeoutAndCancellationCloseTheListener() async throws {
        let (core, _) = try await makeCore()
        let redirect = Mutex<String?>(nil)
        do {
            _ = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false, timeout: .seconds(1)) { address in
                redirect.withLock { $0 = ScriptedBrowser.query(address)["redirect_uri"] }
            }
            XCTFail("no timeout")
        } catch {
            XCTAssertEqual(error.description, "The browser did not come back within 1 seconds. Try signing in again.")
        }
        XCTAssertThrowsError(try ScriptedBrowser.get(try XCTUnwrap(redirect.withLock { $0 })), "the listener outlived its timeout")

        let opened = AsyncStream<String>.makeStream()
        let attempt = Task {
            try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
                opened.continuation.yield(ScriptedBrowser.query(address)["redirect_uri"] ?? "")
            }
        }
        var iterator = opened.stream.makeAsyncIterator()
        let next = await iterator.next()
        let waiting = try XCTUnwrap(next)
        // Not yet answered: the listener is there (a wrong path gets a 404 page).
        _ = try ScriptedBrowser.get(waiting.replacingOccurrences(of: "/callback", with: "/x"), expectStatus: 404)
        attempt.cancel()
        switch await attempt.result {
        case .success: XCTFail("a cancelled sign-in succeeded")
        case .failure(let error): XCTAssertEqual((error as? HaloError)?.description, "Cancelled")
        }
        XCTAssertThrowsError(try ScriptedBrowser.get(waiting), "the listener outlived its cancellation")
        XCTAssertNil(core.auth.currentUser)
    }

    /// The listener binds 127.0.0.1 only: the same port on the machine's other addresses is closed.
    func testTheListenerCannotBeReachedOnANonLoopbackAddress() async throws {
        let addresses = ScriptedBrowser.nonLoopbackIPv4Addresses()
        guard !addresses.isEmpty else { throw XCTSkip("This machine has no non-loopback IPv4 address") }
        let (core, _) = try await makeCore()
        _ = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: false) { address in
            let redirect = try XCTUnwrap(URLComponents(string: ScriptedBrowser.query(address)["redirect_uri"] ?? ""))
            for host in addresses {
                var outside = redirect
                outside.host = host
                XCTAssertThrowsError(try ScriptedBrowser.get(outside.url!.absoluteString), "reachable on \(host)")
            }
            _ = try ScriptedBrowser.consent(address, account: "1001")
        }
    }

    /// The provider's ID token lasts 2 s and the server's token 1.5 s: after both expired, the
    /// session renews itself through the provider's refresh token, without the browser.
    func testTheSessionOutlivesShortLivedProviderTokens() async throws {
        await server.server.stop()
        await provider.stop()
        try await start(tokenLifetime: .seconds(2), serverTokenMilliseconds: 1500)
        let (core, _) = try await makeCore()
        let user = try await core.auth.loginWithBrowser(network: .google, stayLoggedIn: true) { address in
            _ = try ScriptedBrowser.consent(address, account: "1001")
        }
        try await Task.sleep(for: .seconds(3))
        _ = try await core.auth.getPocket()  // 401 → refresh at the provider → login → retried
        XCTAssertNotEqual(core.auth.currentUser?.token.accessToken, user.token.accessToken, "the session was renewed")
        guard user.credentialsStored else {
            throw XCTSkip("No Secret Service reachable: the restart-from-keyring part is skipped (run under gnome-keyring)")
        }
        // A new instance (the app started again) signs in from the keyring after the ID token expired.
        try await Task.sleep(for: .seconds(3))
        let (second, _) = try await makeCore()
        XCTAssertEqual(second.auth.currentUser?.userProfile.email, "ada@example.com")
        _ = try await second.auth.getPocket()
        await second.auth.logout()
    }
}

/// Collects the SDK's log lines.
final class LogCapture: HaloServices.Logger {
    private let lines = Mutex<[String]>([])
    func logMessage(_ message: String, level: LogLevel) { lines.withLock { $0.append(message) } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// A person at the provider's consent page, played by curl: opens the page, picks an account (or
/// Cancel), and follows the redirect to HaloDesk's listener.
enum ScriptedBrowser {
    struct Visit {
        var location: String
        var landing: String
    }

    static func consent(_ address: URL, account: String?) throws -> Visit {
        let page = try get(address.absoluteString)
        guard page.contains("Choose an account") else { throw Failure("not a consent page: \(page)") }
        var form = query(address).map { ($0.key, $0.value) }
        form.append(account.map { ("account", $0) } ?? ("cancel", "1"))
        var authorize = URLComponents(url: address, resolvingAgainstBaseURL: false)!
        authorize.query = nil
        let location = try curl(
            ["-o", "/dev/null", "-w", "%{redirect_url}"] + form.flatMap { ["--data-urlencode", "\($0.0)=\($0.1)"] } + [
                authorize.url!.absoluteString
            ])
        guard !location.isEmpty else { throw Failure("the consent page did not redirect") }
        return Visit(location: location, landing: try get(location))
    }

    static func get(_ address: String, expectStatus: Int = 200) throws -> String {
        let output = try curl(["-w", "\n%{http_code}", address])
        let status = Int(output.split(separator: "\n").last ?? "") ?? 0
        guard status == expectStatus else { throw Failure("HTTP \(status) from \(address)") }
        return String(output.dropLast(String(status).count + 1))
    }

    static func post(_ url: URL, _ form: [(String, String)]) throws -> String {
        try curl(form.flatMap { ["--data-urlencode", "\($0.0)=\($0.1)"] } + [url.absoluteString])
    }

    static func query(_ url: URL) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    static func nonLoopbackIPv4Addresses() -> [String] {
        let output = (try? runTool("/usr/bin/hostname", ["-I"])).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return output.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.contains(".") && !$0.hasPrefix("127.") }
    }

    private static func curl(_ arguments: [String]) throws -> String {
        String(decoding: try runTool("/usr/bin/curl", ["-s", "-S", "--max-time", "10"] + arguments), as: UTF8.self)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
