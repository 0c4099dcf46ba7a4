import Foundation
import GRDB
import HaloContentStore
import Synchronization
import XCTest

@testable import HaloServices

/// Pocket saves made while the server is away: queued with the revision they were made on,
/// replayed with `If-Match`, turned into a conflict (nothing overwritten) when the pocket moved
/// on, joined into one per user, and kept in a real SQLite file across a restart. The server is
/// stopped and started again on the same port and data, as an outage does.
final class PocketOutboxTests: XCTestCase {
    private var server: OfflineTestServer!
    private let email = "erin@example.com", password = "pocket-pass"

    override func setUp() async throws {
        server = try await OfflineTestServer.start()
        _ = try await server.admin.addUser(email: email, password: password)
    }

    override func tearDown() async throws {
        await server.stop()
    }

    /// A client of the test user keeping offline copies, as the app's session does.
    private func signedInCore(recorder: RecordingAddon? = nil) async throws -> CoreManager {
        let core = try server.core()
        core.defaultOfflinePolicy = .loadAndStoreLocalData
        if let recorder { core.registerAddon(recorder) }
        try await core.startup()
        _ = try await core.auth.login(authProfile: AuthProfile(email: email, password: password), stayLoggedIn: false)
        return core
    }

    private func setPocket(_ data: [String: JSONValue], _ references: [String: [String]], by core: CoreManager) async throws {
        let pocket = Pocket()
        pocket.setData(data)
        for (key, list) in references { pocket.setReferences(key: key, values: list) }
        _ = try await core.auth.savePocket(pocket)
    }

    private func outage() async { await server.stop() }

    private func serverBack() async throws { server = try await server.restarted() }

    func testAnOfflineSaveIsQueuedWithItsRevisionAndReplayedWithIfMatch() async throws {
        let recorder = RecordingAddon()
        let core = try await signedInCore(recorder: recorder)
        let checker = try await signedInCore()
        try await setPocket(["theme": "dark"], ["favorites": ["a"]], by: checker)
        let read = try await core.auth.getPocket()  // kept on this computer, with its revision
        XCTAssertEqual(read.revision, "\"1\"")

        await outage()
        let (shown, waiting) = try await core.auth.getPocketWithPendingSave()
        XCTAssertNil(waiting)
        XCTAssertEqual(shown.data, ["theme": "dark"], "the copy")
        XCTAssertEqual(shown.revision, "\"1\"", "the copy keeps the revision it was read at")
        let save = Pocket()
        save.setData(["theme": "light"])
        save.setReferences(key: "favorites", values: ["a", "b"])
        let outcome = try await core.auth.savePocketOrQueue(save, basedOn: shown)
        guard case .pending(let local, let entry) = outcome else { return XCTFail("sent while the server is away: \(outcome)") }
        XCTAssertEqual(entry.baseRevision, "\"1\"")
        XCTAssertEqual(entry.state, .pending)
        XCTAssertEqual(local.data, ["theme": "light"])
        let outbox = try core.content.outbox()
        XCTAssertEqual(try outbox.stateCounts().pending, 1, "counted with the pending edits")
        XCTAssertFalse(try outbox.hasPending(), "no instance edit waits behind it")
        // Read again offline: the queued save over the copy.
        let again = try await core.auth.getPocketWithPendingSave()
        XCTAssertEqual(again.pocket.data, ["theme": "light"])
        XCTAssertEqual(again.pocket.references, ["favorites": ["a", "b"]])
        XCTAssertEqual(again.pendingSave?.owner, core.auth.currentUser?.account)

        try await serverBack()
        recorder.clear()
        let report = try await outbox.flush()
        XCTAssertNil(report.networkError)
        XCTAssertEqual(report.sentPockets.map(\.owner), [entry.owner])
        XCTAssertEqual(try outbox.pocketEntries(), [])
        XCTAssertEqual(try outbox.stateCounts().pending, 0)
        XCTAssertEqual(recorder.requests(to: "/api/segmentation/identified-pocket").last?.headers["If-Match"], "\"1\"")
        let onServer = try await checker.auth.getPocket()
        XCTAssertEqual(onServer.data, ["theme": "light"])
        XCTAssertEqual(onServer.references, ["favorites": ["a", "b"]])
        XCTAssertEqual(onServer.revision, "\"2\"")
    }

    func testAReplayOverAPocketChangedElsewhereIsAConflictAndOverwritesNothing() async throws {
        let core = try await signedInCore()
        let checker = try await signedInCore()
        try await setPocket(["theme": "dark", "size": 1], ["favorites": ["a"]], by: checker)
        let read = try await core.auth.getPocket()

        await outage()
        let mine = Pocket()
        mine.setData(["theme": "light", "size": 1])
        _ = try await core.auth.savePocketOrQueue(mine, basedOn: read)
        try await serverBack()
        try await setPocket(["theme": "blue", "size": 1], ["favorites": ["a", "z"]], by: checker)  // another computer, meanwhile

        let outbox = try core.content.outbox()
        let report = try await outbox.flush()
        XCTAssertEqual(report.sentPockets, [])
        let conflict = try XCTUnwrap(report.pocketConflicts.first)
        XCTAssertEqual(conflict.server?.data, ["theme": "blue", "size": 1], "theirs, kept beside mine")
        XCTAssertEqual(conflict.server?.revision, "\"2\"")
        XCTAssertEqual(conflict.save.data, ["theme": "light", "size": 1])
        XCTAssertEqual(try outbox.stateCounts().conflicts, 1)
        var onServer = try await checker.auth.getPocket()
        XCTAssertEqual(onServer.data, ["theme": "blue", "size": 1], "nothing overwritten")
        XCTAssertEqual(onServer.references, ["favorites": ["a", "z"]])
        // A second flush leaves the conflict to the user.
        let idle = try await outbox.flush()
        XCTAssertEqual(idle.sentPockets, [])
        XCTAssertEqual(try outbox.pocketEntry(owner: conflict.owner)?.state, conflict.state)

        // Keep Mine: sent over theirs, based on their revision; lists it did not name stay.
        try outbox.resolve(conflict, keeping: .keepMine)
        XCTAssertEqual(try outbox.pocketEntry(owner: conflict.owner)?.baseRevision, "\"2\"")
        let resent = try await outbox.flush()
        XCTAssertEqual(resent.sentPockets.count, 1)
        onServer = try await checker.auth.getPocket()
        XCTAssertEqual(onServer.data, ["theme": "light", "size": 1])
        XCTAssertEqual(onServer.references, ["favorites": ["a", "z"]])

        // Take Theirs: my save is dropped, and their pocket becomes the copy on this computer.
        let reread = try await core.auth.getPocket()
        await outage()
        let dropped = Pocket()
        dropped.setData(["theme": "green"])
        _ = try await core.auth.savePocketOrQueue(dropped, basedOn: reread)
        try await serverBack()
        try await setPocket(["theme": "red"], [:], by: checker)
        let second = try await outbox.flush()
        let theirs = try XCTUnwrap(second.pocketConflicts.first)
        try outbox.resolve(theirs, keeping: .takeTheirs)
        XCTAssertEqual(try outbox.pocketEntries(), [])
        let copy = try await core.auth.getPocket(filterReferences: nil, offlinePolicy: .returnLocalDataDontLoad)
        XCTAssertEqual(copy.data, ["theme": "red"])
        XCTAssertEqual(copy.revision, theirs.server?.revision)
        onServer = try await checker.auth.getPocket()
        XCTAssertEqual(onServer.data, ["theme": "red"])
    }

    /// A second save while the first waits replaces it as one save: the lists either changed
    /// (the later wins), the later data, and the first one's base revision.
    func testASecondOfflineSaveJoinsTheFirstAndKeepsItsBaseRevision() async throws {
        let core = try await signedInCore()
        let checker = try await signedInCore()
        try await setPocket(["theme": "dark"], ["favorites": ["a"], "news": ["n1"], "old": ["x"]], by: checker)
        let read = try await core.auth.getPocket()
        XCTAssertEqual(read.revision, "\"1\"")

        await outage()
        let first = Pocket()
        first.setData(["theme": "dark"])
        first.setReferences(key: "news", values: [])
        first.removeReferences(key: "old")
        let queued = try await core.auth.savePocketOrQueue(first, basedOn: read)
        XCTAssertTrue(queued.isPending)
        // The second, as the favorites star makes it: on the pocket shown here (the first save included).
        let second = try await core.auth.changePocket(queueWhenUnreachable: true) { shown in
            XCTAssertEqual(shown.references, ["favorites": ["a"], "news": []], "the waiting save is shown")
            let save = Pocket()
            save.setData(shown.data.merging(["theme": "light"]) { _, new in new })
            save.setReferences(key: "favorites", values: (shown.references["favorites"] ?? []) + ["b"])
            return save
        }
        guard case .pending(let shown, let entry) = second else { return XCTFail("sent while the server is away: \(second)") }
        XCTAssertEqual(shown.references, ["favorites": ["a", "b"], "news": []])
        let outbox = try core.content.outbox()
        XCTAssertEqual(try outbox.pocketEntries().count, 1, "one save per user")
        XCTAssertEqual(entry.baseRevision, "\"1\"", "the first one's base")
        XCTAssertEqual(entry.base.references, read.references)
        XCTAssertEqual(entry.save.referencesToSave, ["favorites": ["a", "b"], "news": [], "old": nil] as [String: [String]?])
        XCTAssertEqual(entry.save.data, ["theme": "light"])

        try await serverBack()
        let report = try await outbox.flush()
        XCTAssertEqual(report.sentPockets.count, 1)
        let onServer = try await checker.auth.getPocket()
        XCTAssertEqual(onServer.data, ["theme": "light"])
        XCTAssertEqual(onServer.references, ["favorites": ["a", "b"], "news": []], "old deleted, news emptied")
        XCTAssertEqual(onServer.revision, "\"2\"", "one save")
    }

    /// A change read from a pocket someone else has saved over since is refused (409) and redone
    /// on the pocket the refusal carries: both changes are kept, as for a favorite starred on two
    /// computers at once.
    func testAChangeRefusedAsStaleIsRedoneOnThePocketSavedElsewhere() async throws {
        let core = try await signedInCore()
        core.cacheTimeToLive = 3600  // the next read is the kept copy, which the other computer outdates
        let checker = try await signedInCore()
        try await setPocket(["theme": "dark"], ["favorites": ["a"]], by: checker)
        _ = try await core.auth.getPocket()
        try await setPocket(["theme": "dark"], ["favorites": ["a", "theirs"]], by: checker)

        let attempts = Mutex<[[String]]>([])
        let outcome = try await core.auth.changePocket { pocket in
            attempts.withLock { $0.append(pocket.references["favorites"] ?? []) }
            let save = Pocket()
            save.setData(pocket.data)
            save.setReferences(key: "favorites", values: (pocket.references["favorites"] ?? []) + ["mine"])
            return save
        }
        XCTAssertEqual(attempts.withLock { $0 }, [["a"], ["a", "theirs"]], "read stale, refused, redone on theirs")
        XCTAssertFalse(outcome.isPending)
        let onServer = try await checker.auth.getPocket()
        XCTAssertEqual(onServer.references["favorites"], ["a", "theirs", "mine"])
        XCTAssertEqual(onServer.revision, "\"3\"")
    }

    /// The waiting save is in the pending-edits file: it outlives the app, and a new version of
    /// the file's schema adds its table without touching the instance edits.
    func testAQueuedPocketSurvivesReopeningTheFile() async throws {
        let core = try await signedInCore()
        let account = try XCTUnwrap(core.auth.currentUser?.account)
        let folder = try temporaryDirectory("pocket-outbox")
        let file = folder.appendingPathComponent("cache/cache.sqlite")
        let outboxFile = folder.appendingPathComponent("data/outbox/cache.sqlite")
        let base = try Pocket(wire: ["references": ["favorites": ["a"]], "data": ["theme": "dark"]], revision: "\"0\"")
        let save = Pocket()
        save.setData(["theme": "light"])
        do {
            let cache = try HaloCache(file: file, outboxFile: outboxFile)
            let offline = Outbox(cache: cache, core: try server.core(baseURL: unreachableURL()))
            try offline.enqueuePocket(save, basedOn: base, owner: account)
            try cache.close()
        }
        let raw = try DatabaseQueue(path: outboxFile.path)
        let rows = try raw.read { db in try Row.fetchAll(db, sql: "SELECT owner, base_revision, state FROM outbox_pocket") }
        try raw.close()
        XCTAssertEqual(rows.map { $0["owner"] as String }, [account])
        XCTAssertEqual(rows.first?["base_revision"] as String?, "\"0\"")

        let reopened = Outbox(cache: try HaloCache(file: file, outboxFile: outboxFile), core: core)
        let entry = try XCTUnwrap(try reopened.pocketEntry(owner: account))
        XCTAssertEqual(entry.save.data, ["theme": "light"])
        XCTAssertEqual(entry.baseRevision, "\"0\"")
        let report = try await reopened.flush()
        XCTAssertEqual(report.sentPockets.count, 1)
        let onServer = try await core.auth.getPocket()
        XCTAssertEqual(onServer.data, ["theme": "light"])
        XCTAssertEqual(onServer.references, [:], "the favorites of the base were never on this server: nothing invented")
    }
}
