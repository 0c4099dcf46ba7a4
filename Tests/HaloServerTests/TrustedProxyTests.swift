import Foundation
import HaloServer
import XCTest

@testable import HaloServer

/// Behind a reverse proxy the per-address login limit keys on the client that the proxy saw, and
/// only when the proxy is trusted (`--trusted-proxy`); a client's own `X-Forwarded-For` never counts.
final class TrustedProxyTests: XCTestCase {
    // MARK: Reading the header

    func testEntriesAreAddressesOrRanges() throws {
        XCTAssertNoThrow(try TrustedProxies(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", " 192.168.1.0/24 ", "0.0.0.0/0"]))
        for bad in ["localhost", "10.0.0.0/33", "::1/129", "1.2.3", "10.0.0.0/", "/8", ""] {
            XCTAssertThrowsError(try TrustedProxies([bad]), bad) { error in
                XCTAssertTrue("\(error)".contains("is not an IP address or a CIDR range"), "\(error)")
            }
        }
    }

    func testTheClientIsTheNearestUntrustedHop() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
        // The header of an untrusted peer is anybody's to write: ignored.
        XCTAssertEqual(proxies.clientAddress(peer: "203.0.113.5", forwardedFor: ["198.51.100.1"]), "203.0.113.5")
        // From a trusted proxy: the address it appended.
        XCTAssertEqual(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["198.51.100.1"]), "198.51.100.1")
        // A client's forged entry sits left of what the proxy appended: not believed.
        XCTAssertEqual(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["127.0.0.77, 198.51.100.1"]), "198.51.100.1")
        // Two trusted proxies in a row (and the header on two lines), IPv6 peer.
        XCTAssertEqual(proxies.clientAddress(peer: "::1", forwardedFor: ["198.51.100.1", "10.9.9.9"]), "198.51.100.1")
        // Every hop trusted: the farthest one.
        XCTAssertEqual(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["10.0.0.1,10.0.0.2"]), "10.0.0.1")
        // No header: the proxy itself.
        XCTAssertEqual(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: []), "10.1.2.3")
        // Something that is no address stops the walk at the last hop that was one.
        XCTAssertEqual(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["198.51.100.1, unknown, 10.0.0.2"]), "10.0.0.2")
        XCTAssertEqual(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["garbage"]), "10.1.2.3")
        // A range covers exactly its prefix.
        XCTAssertEqual(proxies.clientAddress(peer: "11.0.0.1", forwardedFor: ["198.51.100.1"]), "11.0.0.1")
        XCTAssertEqual(TrustedProxies.none.clientAddress(peer: "10.1.2.3", forwardedFor: ["198.51.100.1"]), "10.1.2.3")
    }

    // MARK: Through a real nginx

    /// The guesser (127.0.0.3) and the owner (127.0.0.4) both reach the server through nginx
    /// (127.0.0.2, which connects from 127.0.0.1). With the proxy trusted, only the guesser is
    /// blocked, also when it forges the header; without, the proxy is one client and everyone is.
    func testBehindNginxOnlyTheGuesserIsBlocked() async throws {
        let trusted = try await guessThenLogIn(trustedProxies: ["127.0.0.1"])
        XCTAssertEqual(trusted.guesserAfterLimit, 429)
        XCTAssertEqual(trusted.guesserForging, 429, "a forged X-Forwarded-For got the guesser a fresh address")
        XCTAssertEqual(trusted.ownerRightPassword, 200)
        XCTAssertEqual(trusted.ownerWrongPassword, 401, "the owner's address was blocked for the guesser's failures")

        let untrusted = try await guessThenLogIn(trustedProxies: [])
        XCTAssertEqual(untrusted.guesserAfterLimit, 429)
        XCTAssertEqual(untrusted.ownerRightPassword, 429, "without trust, everybody behind the proxy is one address")
    }

    private struct Outcome {
        var guesserAfterLimit = 0, guesserForging = 0, ownerRightPassword = 0, ownerWrongPassword = 0
    }

    private func guessThenLogIn(trustedProxies: [String]) async throws -> Outcome {
        let server = try await TestServer.start {
            $0.loginThrottle = .init(addressFailureLimit: 4, addressWindow: 60)
            $0.trustedProxies = try! TrustedProxies(trustedProxies)
        }
        let proxy: ReverseProxy
        do { proxy = try ReverseProxy(upstream: server.server.baseURL) } catch {
            await server.stop()
            throw error
        }
        defer { proxy.stop() }
        try await server.admin.addUser(email: "owner@example.com", password: "owner-password")
        var outcome = Outcome()
        // One guess at each of four accounts: no account locks, the address does.
        for index in 0..<4 {
            let status = try await proxy.passwordGrant(from: "127.0.0.3", "target\(index)@example.com", "guess")
            XCTAssertEqual(status, 401)
        }
        outcome.guesserAfterLimit = try await proxy.passwordGrant(from: "127.0.0.3", "target9@example.com", "guess")
        outcome.guesserForging = try await proxy.passwordGrant(
            from: "127.0.0.3", "target9@example.com", "guess", forwardedFor: "127.0.0.77")
        outcome.ownerRightPassword = try await proxy.passwordGrant(from: "127.0.0.4", "owner@example.com", "owner-password")
        outcome.ownerWrongPassword = try await proxy.passwordGrant(from: "127.0.0.4", "other@example.com", "typo")
        await server.stop()
        return outcome
    }
}
