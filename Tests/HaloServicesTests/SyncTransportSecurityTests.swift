import Foundation
import HaloTestSupport
import XCTest

@testable import HaloServices

/// The streamed sync goes through the SDK's one transport and `CoreManager`'s request handling:
/// SSL pinning, the http-only-for-loopback rule and token renewal on 401 apply to it.
final class SyncTransportSecurityTests: XCTestCase {
    private func core(environment: String, certificates: URL? = nil) throws -> CoreManager {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: "client", clientSecret: "secret")
        configuration.environment = .custom(environment)
        if let certificates { configuration.certificatesDirectory = certificates }
        configuration.dataDirectory = try temporaryDirectory("sdk-data")
        configuration.cacheDirectory = try temporaryDirectory("sdk-cache")
        let core = CoreManager(configuration: configuration)
        core.numberOfRetries = 0
        return core
    }

    func testStreamedSyncToAServerWithAnUnpinnedCertificateFails() async throws {
        let folder = try temporaryDirectory("tls")
        let server = try LocalTLSServer(folder: folder.appendingPathComponent("server"))
        defer { server.stop() }
        let pinnedElsewhere = folder.appendingPathComponent("pinned")
        _ = try LocalTLSServer.makeCertificate(in: pinnedElsewhere, name: "other")

        let cache = try temporaryCache()
        let engine = SyncEngine(cache: cache, core: try core(environment: server.url.absoluteString, certificates: pinnedElsewhere))
        do {
            _ = try await engine.sync(SyncQuery(moduleId: "module"))
            XCTFail("a sync to a server with an unpinned certificate went through")
        } catch let error as HaloError {
            guard case .sslPinningFailed = error else { return XCTFail("expected sslPinningFailed, got \(error)") }
        }
        XCTAssertEqual(try cache.getSyncLog(moduleId: "module"), [])
    }

    func testStreamedSyncOverPlainHTTPToARemoteHostIsRefused() async throws {
        let engine = SyncEngine(cache: try temporaryCache(), core: try core(environment: "http://halo.example.com"))
        do {
            _ = try await engine.sync(SyncQuery(moduleId: "module"))
            XCTFail("a sync over plain http to a remote host was sent")
        } catch let error as HaloError {
            guard case .configuration(let message) = error else { return XCTFail("expected a configuration error, got \(error)") }
            XCTAssertTrue(message.contains("loopback"), message)
        }
    }

    func testStreamedSyncWithARevokedTokenRenewsItAndSucceeds() async throws {
        let server = try await OfflineTestServer.start()
        do {
            let modules = try await server.admin.seedBenchmark(instances: 30, modules: 1)
            let core = try server.core()
            let engine = SyncEngine(cache: try temporaryCache(), core: core)
            let first = try await engine.sync(SyncQuery(moduleId: modules[0]))
            XCTAssertEqual(first.first?.creations, 30)

            let held = try await XCTUnwrapAsync(await core.tokens.token(for: .app))
            let revoked = try await server.admin.revokeToken(held.accessToken)
            XCTAssertTrue(revoked)
            var added = BatchOperations()
            added.create(ContentInstance(moduleId: modules[0], name: "Added after the revocation"))
            _ = try await server.call("POST", "api/generalcontent/instance/batch", added.wireJSON)

            let second = try await engine.sync(SyncQuery(moduleId: modules[0]))
            XCTAssertEqual(second.map(\.creations), [1], "the incremental sync went through with a renewed token")
            let renewed = await core.tokens.token(for: .app)
            XCTAssertNotNil(renewed)
            XCTAssertNotEqual(renewed?.accessToken, held.accessToken)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// `XCTUnwrap` for a value produced by an `await`.
private func XCTUnwrapAsync<T>(_ value: @autoclosure () async throws -> T?, file: StaticString = #filePath, line: UInt = #line) async throws
    -> T
{
    let result = try await value()
    return try XCTUnwrap(result, file: file, line: line)
}
