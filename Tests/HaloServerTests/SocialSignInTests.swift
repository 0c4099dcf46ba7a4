import Foundation
import HaloContentStore
import HaloIdentityProvider
import XCTest

@testable import HaloServer

/// The server's verification of social tokens against a real identity provider on loopback (the
/// local one: RS256 ID tokens with a JWKS, Facebook-style inspection), and how sign-ins map to accounts.
final class SocialSignInTests: XCTestCase {
    private var provider: LocalIdentityProvider!
    private var server: TestServer!

    override func setUp() async throws {
        provider = try await LocalIdentityProvider.start(.demo)
        server = try await TestServer.start(socialSettings: Self.trusting(provider))
    }

    override func tearDown() async throws {
        await server.stop()
        await provider.stop()
    }

    static func trusting(_ provider: LocalIdentityProvider, unverified: SocialSignInSettings.UnverifiedEmailPolicy = .separateAccount)
        -> SocialSignInSettings
    {
        var settings = SocialSignInSettings.localProvider(
            issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
            facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
            facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret)
        settings.unverifiedEmail = unverified
        return settings
    }

    private func login(_ network: String, _ token: String, on server: TestServer? = nil) async throws -> HTTPAnswer {
        try await (server ?? self.server).call(
            "POST", "/api/segmentation/identified/login", body: .json(["network": .string(network), "token": .string(token)]))
    }

    func testGoogleIDTokenSignsInAndLinksToTheVerifiedEmailsAccount() async throws {
        try await server.admin.addUser(email: "ada@example.com", password: "analytical")
        let existing = try await server.call(
            "POST", "/api/segmentation/identified/login", body: .json(["email": "ada@example.com", "password": "analytical"]))
        let first = try await login("google", try await provider.idToken(subject: "1001"))
        XCTAssertEqual(first.status, 200, String(decoding: first.data, as: UTF8.self))
        XCTAssertEqual(first.json["user"]?["id"], existing.json["user"]?["id"], "a verified email links to the existing account")
        XCTAssertEqual(first.json["user"]?["email"], "ada@example.com")
        XCTAssertNotNil(first.json["token"]?["access_token"]?.stringValue)
        // The link is remembered by subject: a later token signs in to the same account.
        let again = try await login("google", try await provider.idToken(subject: "1001"))
        XCTAssertEqual(again.json["user"]?["id"], existing.json["user"]?["id"])
    }

    func testRefusedIDTokens() async throws {
        // Forged: a second provider's key signs a token claiming the trusted issuer and key id.
        let forger = try await LocalIdentityProvider.start(.demo)
        let forged = try await forger.idToken(subject: "1001", issuer: provider.issuer.absoluteString)
        await forger.stop()
        let cases: [(String, String, String)] = [
            ("forged", forged, "The Google ID token's signature is not valid"),
            ("expired", try await provider.idToken(subject: "1001", expiresIn: -300), "The Google ID token has expired"),
            (
                "wrong audience", try await provider.idToken(subject: "1001", audience: "someone-else"),
                "The Google ID token was issued to another application (audience)"
            ),
            (
                "wrong issuer", try await provider.idToken(subject: "1001", issuer: "https://evil.example"),
                "ID tokens from https://evil.example are not trusted by this server"
            ),
            ("not a JWT", "ya29.an-access-token", "The Google token is not an ID token (a signed JWT)"),
            (
                "tampered", Self.tamper(try await provider.idToken(subject: "1002"), issuer: provider.issuer.absoluteString),
                "The Google ID token's signature is not valid"
            ),
        ]
        for (label, token, message) in cases {
            let answer = try await login("google", token)
            XCTAssertEqual(assertEnvelope(answer, status: 400), message, label)
        }
        // Within the 60 s clock skew an only just expired token still passes.
        let justExpired = try await login("google", try await provider.idToken(subject: "1001", expiresIn: -20))
        XCTAssertEqual(justExpired.status, 200)
    }

    /// Swaps the payload for one naming another user, keeping the signature.
    private static func tamper(_ token: String, issuer: String) -> String {
        var parts = token.split(separator: ".").map(String.init)
        let payload = Data(
            #"{"iss":"\#(issuer)","sub":"1001","aud":"halodesk-desktop","exp":9999999999,"email":"ada@example.com","email_verified":true}"#
                .utf8)
        parts[1] = payload.base64EncodedString().replacingOccurrences(of: "=", with: "")
        return parts.joined(separator: ".")
    }

    func testAnUnverifiedEmailNeverTakesOverAnAccount() async throws {
        try await server.admin.addUser(email: "grace@example.com", password: "compiler")
        // Grace's email is not verified at the provider: a separate account, without that email.
        let separate = try await login("google", try await provider.idToken(subject: "1002"))
        XCTAssertEqual(separate.status, 200, String(decoding: separate.data, as: UTF8.self))
        XCTAssertEqual(separate.json["user"]?["email"], "")
        XCTAssertEqual(separate.json["user"]?["name"], "Grace")
        let password = try await server.call(
            "POST", "/api/segmentation/identified/login", body: .json(["email": "grace@example.com", "password": "compiler"]))
        XCTAssertNotEqual(password.json["user"]?["id"], separate.json["user"]?["id"])

        // Configured to refuse: a sentence instead.
        let strict = try await TestServer.start(socialSettings: Self.trusting(provider, unverified: .refuse))
        try await strict.admin.addUser(email: "grace@example.com", password: "compiler")
        let refused = try await login("google", try await provider.idToken(subject: "1002"), on: strict)
        XCTAssertTrue(assertEnvelope(refused, status: 400).contains("has not verified that this email is yours"))
        await strict.stop()
    }

    func testFacebookAccessTokenIsInspectedAndAnAccountWithoutEmailIsKeyedByUserId() async throws {
        let turing = try await login("facebook", provider.accessToken(subject: "1003"))
        XCTAssertEqual(turing.status, 200, String(decoding: turing.data, as: UTF8.self))
        XCTAssertEqual(turing.json["user"]?["email"], "")
        XCTAssertEqual(turing.json["user"]?["surname"], "Turing")
        let again = try await login("facebook", provider.accessToken(subject: "1003"))
        XCTAssertEqual(again.json["user"]?["id"], turing.json["user"]?["id"])

        let otherApp = try await login("facebook", provider.accessToken(subject: "1003", clientId: "halodesk-desktop"))
        XCTAssertEqual(assertEnvelope(otherApp, status: 400), "The Facebook token was issued to another application")
        let expired = try await login("facebook", provider.accessToken(subject: "1003", expiresIn: -10))
        XCTAssertEqual(assertEnvelope(expired, status: 400), "The Facebook token is not valid or has expired")
        let unknown = try await login("facebook", "EAAB-not-issued")
        XCTAssertEqual(assertEnvelope(unknown, status: 400), "The Facebook token is not valid or has expired")
        // An ID token of the trusted issuer is not a Facebook token, nor the reverse.
        let crossed = try await login("google", provider.accessToken(subject: "1001"))
        XCTAssertEqual(assertEnvelope(crossed, status: 400), "The Google token is not an ID token (a signed JWT)")
    }

    func testWrongFacebookAppSecretIsASentence() async throws {
        var settings = Self.trusting(provider)
        settings.facebook?.appSecret = "wrong"
        let misconfigured = try await TestServer.start(socialSettings: settings)
        let answer = try await login("facebook", provider.accessToken(subject: "1001"), on: misconfigured)
        XCTAssertEqual(
            assertEnvelope(answer, status: 400), "Facebook could not inspect the token (the server's Facebook app credentials may be wrong)"
        )
        await misconfigured.stop()
    }

    /// The local provider is trusted only when configured: a server without the settings refuses its tokens.
    func testAServerWithoutTheSettingsRefusesTheLocalProvidersTokens() async throws {
        let plain = try await TestServer.start()
        let answer = try await login("google", try await provider.idToken(subject: "1001"), on: plain)
        XCTAssertEqual(
            assertEnvelope(answer, status: 400), "Sign-in with Google is not configured on this server (halo-server serve --social-config)")
        await plain.stop()
    }

    func testSettingsFileRoundTripsAndReportsMistakes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("social-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("social.json")
        try Data(
            #"{"openIDProviders":[{"network":"google","issuer":"https://accounts.google.com","clientIds":["a.apps.googleusercontent.com"]}],"facebook":{"appId":"1","appSecret":"s"}}"#
                .utf8
        ).write(to: file)
        let settings = try SocialSignInSettings.load(file)
        XCTAssertNil(settings.openIDProviders[0].jwksURL, "read from the discovery document")
        XCTAssertEqual(settings.facebook?.inspectURL.absoluteString, "https://graph.facebook.com/debug_token")
        XCTAssertEqual(settings.unverifiedEmail, .separateAccount)
        try Data(#"{"openIDProviders":[{"issuer":"x"}]}"#.utf8).write(to: file)
        XCTAssertThrowsError(try SocialSignInSettings.load(file)) { error in
            XCTAssertTrue("\(error)".contains("are not valid"), "\(error)")
        }
    }
}
