import Foundation
import HaloIdentityProvider
import XCTest

@testable import HaloServices

/// Issue 47's mutation catalog found two rules of the local identity provider no test pinned: PKCE
/// must be S256, and a code is redeemed only with the redirect address it was issued for. Each
/// test fails with its catalog entry (`idp-s256-required`, `idp-code-bound-to-redirect`).
final class IdentityProviderGapTests: XCTestCase {
    private var provider: LocalIdentityProvider!
    private let pkce = BrowserSignIn.PKCE()

    override func setUp() async throws {
        provider = try await LocalIdentityProvider.start(.demo)
    }

    override func tearDown() async throws { await provider.stop() }

    private func authorizeURL(redirect: String, method: String?) throws -> URL {
        var authorize = try XCTUnwrap(
            URLComponents(url: provider.issuer.appendingPathComponent("authorize"), resolvingAgainstBaseURL: false))
        authorize.queryItems = [
            URLQueryItem(name: "client_id", value: LocalIdentityProvider.Settings.desktopClientId),
            URLQueryItem(name: "redirect_uri", value: redirect), URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "scope", value: "openid email profile"), URLQueryItem(name: "state", value: "state-47"),
            URLQueryItem(name: "code_challenge", value: pkce.challenge),
        ]
        if let method { authorize.queryItems?.append(URLQueryItem(name: "code_challenge_method", value: method)) }
        return try XCTUnwrap(authorize.url)
    }

    private func exchange(_ code: String, redirect: String, secret: String? = LocalIdentityProvider.Settings.desktopClientSecret) throws
        -> String
    {
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
            ("client_id", LocalIdentityProvider.Settings.desktopClientId), ("code_verifier", pkce.verifier),
        ]
        if let secret { form.append(("client_secret", secret)) }
        return try ScriptedBrowser.post(provider.issuer.appendingPathComponent("token"), form)
    }

    private func freshCode(_ redirect: String) throws -> String {
        let location = try ScriptedBrowser.authorize(try authorizeURL(redirect: redirect, method: "S256"), account: "1001")
        return try XCTUnwrap(ScriptedBrowser.query(try XCTUnwrap(URL(string: location)))["code"], location)
    }

    /// RFC 7636 §4.2: `plain` (or no method, which means plain) is refused at the authorization
    /// step, sent back to the app as `invalid_request`: no consent page, no code.
    func testOnlyS256PKCEIsAccepted() throws {
        let redirect = "http://127.0.0.1:9/callback"
        for method in ["plain", nil] as [String?] {
            // A refusal is a 302 back to the redirect address; the consent page would be a 200.
            _ = try ScriptedBrowser.get(try authorizeURL(redirect: redirect, method: method).absoluteString, expectStatus: 302)
        }
        _ = try ScriptedBrowser.get(try authorizeURL(redirect: redirect, method: "S256").absoluteString)
    }

    /// RFC 6749 §4.1.3: a code issued for one redirect address is `invalid_grant` with another,
    /// even a loopback one of the same client; with its own it is redeemed.
    func testACodeIsRedeemedOnlyWithItsOwnRedirectAddress() throws {
        let redirect = "http://127.0.0.1:9/callback"
        let refused = try exchange(try freshCode(redirect), redirect: "http://127.0.0.1:10/callback")
        XCTAssertTrue(refused.contains("invalid_grant") && !refused.contains("access_token"), refused)
        let accepted = try exchange(try freshCode(redirect), redirect: redirect)
        XCTAssertTrue(accepted.contains("access_token"), accepted)
    }

    /// A client with a secret (the desktop client of the demo settings) must send it: without it,
    /// or with a wrong one, the exchange is `invalid_client`. Entry `idp-client-secret`.
    func testAClientWithASecretMustSendIt() throws {
        let redirect = "http://127.0.0.1:9/callback"
        for secret in [nil, "wrong"] as [String?] {
            let refused = try exchange(try freshCode(redirect), redirect: redirect, secret: secret)
            XCTAssertTrue(refused.contains("invalid_client") && !refused.contains("access_token"), refused)
        }
    }
}
