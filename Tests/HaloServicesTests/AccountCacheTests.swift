import Foundation
import HaloContentStore
import XCTest

@testable import HaloServices

/// One offline copy per server and account: what one user's copy holds (content, pending edits)
/// is never shown to the next user of the same computer, and removing a copy keeps the edits.
final class AccountCacheTests: XCTestCase {
    func testEachAccountHasItsOwnCopyAndRemovingOneKeepsItsPendingEdits() async throws {
        let server = try await OfflineTestServer.start()
        do {
            try await checkAccounts(on: server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func checkAccounts(on server: OfflineTestServer) async throws {
        let module = try await server.admin.seedBenchmark(instances: 20, modules: 1)[0]
        try await server.admin.addUser(email: "ann@example.com", password: "ann-pass-1", editor: true)
        try await server.admin.addUser(email: "bob@example.com", password: "bob-pass-1", editor: true)
        let core = try server.core()
        let folder = core.configuration.cacheDirectory
        try await core.startup()
        let ann = AuthProfile(email: "ann@example.com", password: "ann-pass-1")
        let bob = AuthProfile(email: "bob@example.com", password: "bob-pass-1")

        // The app's own token has the server's file; a signed-in user has one of their own.
        let appCopy = try core.offlineCache().file
        XCTAssertEqual(appCopy, CacheLocation.file(for: server.baseURL, in: folder))
        _ = try await core.auth.login(authProfile: ann, stayLoggedIn: false)
        let annCopy = try core.offlineCache()
        XCTAssertNotEqual(annCopy.file, appCopy)
        XCTAssertFalse(annCopy.file.lastPathComponent.contains("ann"), "no email in file names")
        _ = try await core.content.syncToCache(query: SyncQuery(moduleId: module))
        XCTAssertEqual(core.content.getSyncedInstances(moduleId: module).count, 20)
        try core.content.outbox().enqueueCreate(ContentInstance(moduleId: module, name: "Ann's draft"))

        // Bob, on the same computer: nothing of Ann's copy, nor her waiting edit.
        _ = await core.auth.logout()
        _ = try await core.auth.login(authProfile: bob, stayLoggedIn: false)
        XCTAssertNotEqual(try core.offlineCache().file, annCopy.file)
        XCTAssertEqual(core.content.getSyncedInstances(moduleId: module), [])
        XCTAssertNil(core.content.lastSyncDate(moduleId: module))
        XCTAssertEqual(try core.content.outbox().entries(), [])

        // Ann again: her copy and her edit are where she left them.
        _ = await core.auth.logout()
        _ = try await core.auth.login(authProfile: ann, stayLoggedIn: false)
        XCTAssertEqual(try core.offlineCache().file, annCopy.file)
        XCTAssertNotNil(core.content.lastSyncDate(moduleId: module))
        XCTAssertEqual(try core.content.outbox().pending().map(\.instance.name), ["Ann's draft"])

        // Removing her copy (signing out of a shared computer) deletes the cache file only.
        try core.removeOfflineCopy(ofAccount: core.offlineAccount)
        XCTAssertFalse(FileManager.default.fileExists(atPath: annCopy.file.path))
        XCTAssertNil(core.content.lastSyncDate(moduleId: module), "a new, empty copy")
        XCTAssertEqual(try core.content.outbox().pending().map(\.instance.name), ["Ann's draft"], "the edit stays")
        let report = try await core.content.outbox().flush()
        XCTAssertEqual(report.sent.count, 1)
        let names = try await server.instances(moduleIds: [module]).compactMap { $0["name"]?.stringValue }
        XCTAssertEqual(names.filter { $0 == "Ann's draft" }.count, 1)
    }
}
