import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// E8–E11: register, login (halo and social), pocket (§7, §8).
final class IdentifiedUserTests: XCTestCase {
    var server: TestServer!
    var appToken: String!

    override func setUp() async throws {
        server = try await TestServer.start()
        appToken = try await server.appToken()
    }

    override func tearDown() async throws { await server.stop() }

    private func register(_ email: String, network: JSONValue? = nil) async throws -> HTTPAnswer {
        var auth: [String: JSONValue] = ["email": .string(email), "password": "password123", "deviceId": "anonymous-xyz"]
        if let network { auth["network"] = network }
        return try await server.call(
            "POST", "/api/segmentation/identified/register", token: appToken,
            body: .json([
                "auth": .object(auth),
                "profile": [
                    "email": .string(email), "name": "testName", "surname": "testSurname", "displayName": "testName testSurname",
                    "photoUrl": "", "id": nil,
                ],
            ]))
    }

    func testRegisterThenLoginWithJSONAndForm() async throws {
        // Android omits network: defaults to halo.
        let registered = try await register("account@mobgen.com")
        XCTAssertEqual(registered.status, 200, String(decoding: registered.data, as: UTF8.self))
        assertSameShape(registered.json, as: try Fixtures.load("ios/register_success.json"))
        assertSameShape(registered.json, as: try Fixtures.load("android/halo-auth/register.json"))
        XCTAssertTrue(registered.json["id"]?.stringValue?.hasPrefix("identified-") ?? false)
        let again = try await register("account@mobgen.com", network: "halo")
        assertEnvelope(again, status: 400)

        // iOS: JSON with an expired/unknown token attached; must still work.
        let ios = try await server.call(
            "POST", "/api/segmentation/identified/login", token: "stale-token",
            body: .json(["deviceId": "anonymous-xyz", "network": "halo", "email": "account@mobgen.com", "password": "password123"]))
        XCTAssertEqual(ios.status, 200, String(decoding: ios.data, as: UTF8.self))
        assertSameShape(ios.json, as: try Fixtures.load("ios/login_success.json"))
        assertSameShape(ios.json, as: try Fixtures.load("android/halo-auth/login.json"))
        XCTAssertEqual(ios.json["user"]?["id"], registered.json["id"])
        // Android: form body, no token at all.
        let android = try await server.call(
            "POST", "/api/segmentation/identified/login",
            body: .form([("network", "halo"), ("email", "account@mobgen.com"), ("password", "password123"), ("deviceId", "a")]))
        XCTAssertEqual(android.status, 200)
        // The user token works where app tokens do.
        let userToken = try XCTUnwrap(android.json["token"]?["access_token"]?.stringValue)
        let modules = try await server.call("GET", "/api/generalcontent/module?skip=true", token: userToken)
        XCTAssertEqual(modules.status, 200)

        let wrong = try await server.call(
            "POST", "/api/segmentation/identified/login",
            body: .json(["network": "halo", "email": "account@mobgen.com", "password": "nope"]))
        XCTAssertEqual(assertEnvelope(wrong, status: 400), "Credentials are not valid")
        assertSameShape(wrong.json, as: try Fixtures.load("ios/login_error.json"))
    }

    func testSocialLoginIsRejectedByDefaultAndAcceptedWhenVerified() async throws {
        for network in ["google", "facebook"] {
            let answer = try await server.call(
                "POST", "/api/segmentation/identified/login",
                body: .json(["network": .string(network), "token": "some-social-token", "deviceId": "x"]))
            XCTAssertEqual(
                assertEnvelope(answer, status: 400),
                "Sign-in with \(network == "google" ? "Google" : "Facebook") is not configured on this server (halo-server serve --social-config)"
            )
        }
        let other = try await TestServer.start(socialVerifier: AcceptingVerifier())
        let first = try await other.call(
            "POST", "/api/segmentation/identified/login", body: .form([("network", "google"), ("token", "good"), ("deviceId", "d")]))
        XCTAssertEqual(first.status, 200, String(decoding: first.data, as: UTF8.self))
        XCTAssertEqual(first.json["user"]?["email"], "social@example.com")
        let second = try await other.call(
            "POST", "/api/segmentation/identified/login", body: .form([("network", "google"), ("token", "good")]))
        XCTAssertEqual(second.json["user"]?["id"], first.json["user"]?["id"])
        let refused = try await other.call(
            "POST", "/api/segmentation/identified/login", body: .form([("network", "google"), ("token", "bad")]))
        XCTAssertEqual(assertEnvelope(refused, status: 400), "token rejected")
        await other.stop()
    }

    func testPocketSemanticsFiltersAndLimit() async throws {
        let user = try await server.userToken()
        let empty = try await server.call("GET", "/api/segmentation/identified-pocket/self", token: user)
        XCTAssertEqual(empty.json, ["references": [:], "data": [:]])

        let saved = try await server.call(
            "PUT", "/api/segmentation/identified-pocket/", token: user,
            body: .json(try Fixtures.load("android/halo-auth/pocket.json")))
        XCTAssertEqual(saved.status, 200)
        XCTAssertEqual(saved.json, try Fixtures.load("android/halo-auth/pocket.json"))

        // Android sends only the part it changes: data stays; [] empties; null deletes; others kept.
        let changed = try await server.call(
            "PUT", "/api/segmentation/identified-pocket", token: user,
            body: .json(["references": ["favorites": ["fav_3"], "newsCollection": [], "eventsCollection": nil]]))
        XCTAssertEqual(changed.json["references"], ["favorites": ["fav_3"], "newsCollection": []])
        XCTAssertEqual(changed.json["data"], try Fixtures.load("android/halo-auth/pocket.json")["data"])
        let dataOnly = try await server.call(
            "PUT", "/api/segmentation/identified-pocket", token: user, body: .json(["data": ["Title": "new"]]))
        XCTAssertEqual(dataOnly.json["data"], ["Title": "new"])
        XCTAssertEqual(dataOnly.json["references"]?["favorites"], ["fav_3"])

        let iosFilter = try await server.call(
            "GET", "/api/segmentation/identified-pocket/self?filterReferences%5B%5D=favorites", token: user)
        XCTAssertEqual(iosFilter.json["references"], ["favorites": ["fav_3"]])
        let androidFilter = try await server.call(
            "GET", "/api/segmentation/identified-pocket/self?filterReferences[]=favorites&filterReferences[]=newsCollection&",
            token: user)
        XCTAssertEqual(androidFilter.json["references"], ["favorites": ["fav_3"], "newsCollection": []])
        assertSameShape(androidFilter.json, as: try Fixtures.load("android/halo-auth/pocket_filter.json"))
        let noReferences = try await server.call(
            "GET", "/api/segmentation/identified-pocket/self?filterReferences[]=", token: user)
        XCTAssertEqual(noReferences.json, ["references": [:], "data": ["Title": "new"]])

        let big = String(repeating: "x", count: 1990)
        let tooBig = try await server.call(
            "PUT", "/api/segmentation/identified-pocket", token: user, body: .json(["data": ["text": .string(big)]]))
        XCTAssertTrue(assertEnvelope(tooBig, status: 400).contains("2000 characters"))
        let fits = try await server.call(
            "PUT", "/api/segmentation/identified-pocket", token: user,
            body: .json(["data": ["t": .string(String(repeating: "x", count: 1990))]]))
        XCTAssertEqual(fits.status, 200)

        // An app token has no user: 401, not 403 (§8.4).
        let withApp = try await server.call("GET", "/api/segmentation/identified-pocket/self", token: appToken)
        assertEnvelope(withApp, status: 401)
    }

    /// Our revision extension (§23.9): the ETag grows with each save; a save with a stale
    /// `If-Match` is refused with the current pocket and changes nothing; without `If-Match` a
    /// HALO client still saves.
    func testPocketRevisionsRefuseAStaleSaveAndKeepHALOClientsWorking() async throws {
        let path = "/api/segmentation/identified-pocket"
        let user = try await server.userToken()
        let fresh = try await server.call("GET", path + "/self", token: user)
        XCTAssertEqual(fresh.headers["etag"], "\"0\"")

        let first = try await server.call(
            "PUT", path, token: user, body: .json(["data": ["views": ["a"]]]), headers: ["If-Match": "\"0\""])
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.headers["etag"], "\"1\"")
        // Another device saved meanwhile, as a HALO client would (no If-Match).
        let other = try await server.call("PUT", path, token: user, body: .json(["data": ["views": ["b"]]]))
        XCTAssertEqual(other.headers["etag"], "\"2\"")

        let stale = try await server.call(
            "PUT", path, token: user, body: .json(["data": ["views": ["a", "c"]]]), headers: ["If-Match": "\"1\""])
        XCTAssertTrue(assertEnvelope(stale, status: 409).contains("changed since it was read"))
        XCTAssertEqual(stale.json["error"]?["extra"]?["pocket"]?["data"], ["views": ["b"]])
        XCTAssertEqual(stale.json["error"]?["extra"]?["revision"], "\"2\"")
        let unchanged = try await server.call("GET", path + "/self", token: user)
        XCTAssertEqual(unchanged.json["data"], ["views": ["b"]], "a refused save changes nothing")
        XCTAssertEqual(unchanged.headers["etag"], "\"2\"")

        let redone = try await server.call(
            "PUT", path, token: user, body: .json(["data": ["views": ["b", "c"]]]), headers: ["If-Match": "W/\"9\", \"2\""])
        XCTAssertEqual(redone.status, 200, "any tag of the list may match")
        let any = try await server.call("PUT", path, token: user, body: .json(["data": [:]]), headers: ["If-Match": "*"])
        XCTAssertEqual(any.headers["etag"], "\"4\"")
        // Each user has a pocket and a revision of their own.
        let someoneElse = try await server.userToken(email: "other@halo.local")
        let theirs = try await server.call("GET", path + "/self", token: someoneElse)
        XCTAssertEqual(theirs.headers["etag"], "\"0\"")
    }
}

/// Accepts the token "good" as one fixed Google account.
private struct AcceptingVerifier: SocialTokenVerifier {
    func verify(token: String, network: SocialNetwork) async throws -> SocialIdentity {
        guard token == "good" else { throw SocialTokenRejection("token rejected") }
        return SocialIdentity(subject: "g-1", email: "social@example.com", emailVerified: true, name: "Soc", surname: "Ial")
    }
}
