import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

@testable import HaloServices

final class PocketTests: XCTestCase {
    func testHelpersAndSaveBody() throws {
        let pocket = Pocket()
        pocket.addReference(key: "favorites", value: "fav_1")
        pocket.addReference(key: "favorites", value: "fav_2")
        pocket.setReferences(key: "newsCollection", values: ["new_1", "new_2"])
        XCTAssertTrue(pocket.removeReference(key: "newsCollection", value: "new_2"))
        XCTAssertFalse(pocket.removeReference(key: "newsCollection", value: "absent"))
        XCTAssertFalse(pocket.removeReference(key: "nothing", value: "fav_1"))
        pocket.setData(["Title": "userName", "Id": "132224", "Date": 1_498_140_119_461] as [String: Any])
        // PROTOCOL §8.1's example pocket.
        XCTAssertEqual(
            pocket.wireJSON,
            try JSONValue(
                string: """
                    { "references": { "favorites": ["fav_1", "fav_2"], "newsCollection": ["new_1"] },
                      "data": { "Title": "userName", "Id": "132224", "Date": 1498140119461 } }
                    """))
        // Removed lists are sent as null so the server deletes them (§8.2).
        pocket.removeReferences(key: "favorites")
        XCTAssertEqual(pocket.wireJSON["references"]?["favorites"], .null)
        XCTAssertNil(pocket.references["favorites"])
    }

    func testTheOfflinePocketOfOneUserIsNotShownToTheNext() async throws {
        let server = try await FlowServer.start()
        try await server.server.admin.addUser(email: "ann@example.com", password: "ann-pass")
        try await server.server.admin.addUser(email: "bob@example.com", password: "bob-pass")
        var configuration = server.configuration()
        configuration.cacheDirectory = try temporaryDirectory("pocket-cache")
        // The server's folder (with the SDK's data) goes when it stops; the SDK's files must outlive it.
        configuration.dataDirectory = try temporaryDirectory("pocket-data")
        let core = CoreManager(configuration: configuration)
        core.defaultOfflinePolicy = .loadAndStoreLocalData
        do {
            try await core.startup()
            _ = try await core.auth.login(authProfile: AuthProfile(email: "ann@example.com", password: "ann-pass"), stayLoggedIn: false)
            let annPocket = Pocket()
            annPocket.setData(["secret": "Ann's"])
            _ = try await core.auth.savePocket(annPocket)
            let annRead = try await core.auth.getPocket()  // kept in the cache for offline use
            XCTAssertEqual(annRead.data, ["secret": "Ann's"])
            _ = await core.auth.logout()
            _ = try await core.auth.login(authProfile: AuthProfile(email: "bob@example.com", password: "bob-pass"), stayLoggedIn: false)
        } catch {
            await server.stop()
            throw error
        }

        await server.stop()  // offline: Bob has no pocket in the cache
        do {
            let pocket = try await core.auth.getPocket()
            XCTFail("Bob was shown a pocket offline: \(pocket)")
        } catch {
            guard case .network = error else { return XCTFail("expected a network error, got \(error)") }
        }
    }

    func testDataLimitIsCheckedBeforeSending() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        try await server.server.admin.addUser(email: "carol@example.com", password: "pocket-pass")
        let (core, recorder) = server.makeCore()
        try await core.startup()
        _ = try await core.auth.login(authProfile: AuthProfile(email: "carol@example.com", password: "pocket-pass"), stayLoggedIn: false)

        let pocket = Pocket()
        pocket.addReference(key: "favorites", value: "a")
        pocket.addReference(key: "news", value: "n1")
        pocket.setData(["note": .string("hello"), "count": 3])
        let saved = try await core.auth.savePocket(pocket)
        XCTAssertEqual(saved.references, ["favorites": ["a"], "news": ["n1"]])
        XCTAssertEqual(saved.data, ["note": "hello", "count": 3])

        let read = try await core.auth.getPocket()
        XCTAssertEqual(read.references, ["favorites": ["a"], "news": ["n1"]])
        let filtered = try await core.auth.getPocket(filterReferences: ["news"])
        XCTAssertEqual(filtered.references, ["news": ["n1"]])
        XCTAssertEqual(recorder.requests(to: "/api/segmentation/identified-pocket/self").last?.url.query, "filterReferences%5B%5D=news")

        let dataOnly = try await core.auth.getPocket(filterReferences: [])
        XCTAssertEqual(dataOnly.references, [:])
        XCTAssertEqual(dataOnly.data, ["note": "hello", "count": 3])
        XCTAssertEqual(recorder.requests(to: "/api/segmentation/identified-pocket/self").last?.url.query, "filterReferences%5B%5D=")

        // Deleting a list (null) and replacing data round-trip.
        read.removeReferences(key: "favorites")
        read.setData(["note": "bye"])
        let afterRemoval = try await core.auth.savePocket(read)
        XCTAssertEqual(afterRemoval.references, ["news": ["n1"]])
        XCTAssertEqual(afterRemoval.data, ["note": "bye"])

        // 2,000 characters of serialized data is the limit: one more is refused locally.
        let overhead = JSONValue.object(["d": ""]).jsonString().count
        let atLimit = Pocket()
        atLimit.setData(["d": .string(String(repeating: "x", count: Pocket.dataCharacterLimit - overhead))])
        _ = try await core.auth.savePocket(atLimit)
        let tooBig = Pocket()
        tooBig.setData(["d": .string(String(repeating: "x", count: Pocket.dataCharacterLimit - overhead + 1))])
        recorder.clear()
        do {
            _ = try await core.auth.savePocket(tooBig)
            XCTFail("oversized pocket data was sent")
        } catch {
            guard case .invalidInput(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("2000"), message)
        }
        XCTAssertTrue(recorder.exchanges.isEmpty, "nothing may be sent")

        // Measured in Unicode scalars (PocketLimits.dataLength), not graphemes: a letter and 3,000
        // combining acute accents is 1 grapheme but 3,001 scalars, far over the limit.
        let accents = "e" + String(repeating: "\u{301}", count: 3000)
        XCTAssertEqual(accents.count, 1)
        XCTAssertEqual(accents.unicodeScalars.count, 3001)
        let combining = Pocket()
        combining.setData(["d": .string(accents)])
        do {
            _ = try await core.auth.savePocket(combining)
            XCTFail("3,001 scalars of pocket data were sent")
        } catch {
            guard case .invalidInput(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("limit is 2000"), message)
        }
        XCTAssertTrue(recorder.exchanges.isEmpty, "nothing may be sent")
    }

    /// Two devices of one user: a save with the revision read earlier is refused once the other
    /// saved, the error carries the pocket as it is now, and redoing the change on it keeps both.
    func testASaveWithAStaleRevisionIsRefusedWithTheCurrentPocket() async throws {
        let server = try await FlowServer.start()
        defer { Task { await server.stop() } }
        try await server.server.admin.addUser(email: "dana@example.com", password: "pocket-pass")
        let (laptop, _) = server.makeCore()
        let (desktop, recorder) = server.makeCore()
        for core in [laptop, desktop] {
            try await core.startup()
            _ = try await core.auth.login(authProfile: AuthProfile(email: "dana@example.com", password: "pocket-pass"), stayLoggedIn: false)
        }
        let read = try await laptop.auth.getPocket()
        XCTAssertEqual(read.revision, "\"0\"")
        let elsewhere = Pocket()
        elsewhere.setData(["views": ["desktop"]])
        let savedElsewhere = try await desktop.auth.savePocket(elsewhere, ifRevision: read.revision)
        XCTAssertEqual(savedElsewhere.revision, "\"1\"")

        let mine = Pocket()
        mine.setData(["views": ["laptop"]])
        do {
            _ = try await laptop.auth.savePocket(mine, ifRevision: read.revision)
            XCTFail("a save over another device's change went through")
        } catch {
            let current = try XCTUnwrap(error.conflictingPocket, "\(error)")
            XCTAssertEqual(current.data, ["views": ["desktop"]])
            XCTAssertEqual(current.revision, "\"1\"")
            mine.setData(["views": ["desktop", "laptop"]])
            let saved = try await laptop.auth.savePocket(mine, ifRevision: current.revision)
            XCTAssertEqual(saved.data, ["views": ["desktop", "laptop"]])
            XCTAssertEqual(saved.revision, "\"2\"")
        }
        XCTAssertEqual(
            recorder.requests(to: "/api/segmentation/identified-pocket").last?.headers["If-Match"], "\"0\"",
            "the revision is sent as If-Match")
        XCTAssertNil(HaloError.server(status: 409, message: "other", extra: nil).conflictingPocket)
    }

    func testTheSharedLimitsAreTheOnesChecked() throws {
        XCTAssertEqual(Pocket.dataCharacterLimit, PocketLimits.dataCharacters)
        let data: [String: JSONValue] = ["d": .string("e" + String(repeating: "\u{301}", count: 3000))]
        XCTAssertGreaterThan(PocketLimits.dataLength(data), PocketLimits.dataCharacters)
    }

    /// The reference caps of `PocketLimits` are checked before sending, each with a message that
    /// names the list and the limit; at each limit the pocket passes.
    func testReferenceCapsAreCheckedBeforeSending() throws {
        func refusal(_ pocket: Pocket) -> String? {
            do { try pocket.validate(); return nil } catch {
                guard case .invalidInput(let message) = error else { return "unexpected \(error)" }
                return message
            }
        }

        let manyLists = Pocket()
        for n in 0..<PocketLimits.referenceLists { manyLists.setReferences(key: "list\(n)", values: ["x"]) }
        XCTAssertNil(refusal(manyLists))
        manyLists.removeReferences(key: "gone")  // a removal (null) adds no list
        XCTAssertNil(refusal(manyLists))
        manyLists.setReferences(key: "one-too-many", values: [])
        let tooManyLists = try XCTUnwrap(refusal(manyLists))
        XCTAssertTrue(tooManyLists.contains("\(PocketLimits.referenceLists + 1) reference lists"), tooManyLists)
        XCTAssertTrue(tooManyLists.contains("limit is \(PocketLimits.referenceLists)"), tooManyLists)

        let longList = Pocket()
        longList.setReferences(key: "favorites", values: (0..<PocketLimits.entriesPerList).map { "fav_\($0)" })
        XCTAssertNil(refusal(longList))
        longList.addReference(key: "favorites", value: "one more")
        let tooLong = try XCTUnwrap(refusal(longList))
        XCTAssertTrue(tooLong.contains("\"favorites\""), tooLong)
        XCTAssertTrue(tooLong.contains("limit is \(PocketLimits.entriesPerList)"), tooLong)

        let entry = Pocket()
        entry.setReferences(key: "news", values: ["ok", String(repeating: "n", count: PocketLimits.referenceLength)])
        XCTAssertNil(refusal(entry))
        // Scalars again: 1 grapheme, referenceLength + 1 scalars.
        entry.addReference(key: "news", value: "e" + String(repeating: "\u{301}", count: PocketLimits.referenceLength))
        let longEntry = try XCTUnwrap(refusal(entry))
        XCTAssertTrue(longEntry.contains("Entry 3") && longEntry.contains("\"news\""), longEntry)
        XCTAssertTrue(longEntry.contains("limit is \(PocketLimits.referenceLength)"), longEntry)

        let name = Pocket()
        name.setReferences(key: String(repeating: "k", count: PocketLimits.referenceLength), values: ["a"])
        XCTAssertNil(refusal(name))
        name.setReferences(key: String(repeating: "k", count: PocketLimits.referenceLength + 1), values: ["a"])
        let longName = try XCTUnwrap(refusal(name))
        XCTAssertTrue(longName.contains("list name") && longName.contains("limit is \(PocketLimits.referenceLength)"), longName)
    }
    /// The whole pocket is checked before sending against the limits the server announced on its
    /// pocket answers (`X-Halo-Pocket-Limits`), counted in UTF-8 bytes as the server counts them;
    /// before any answer, the defaults. Edges: exactly the limit is sent and stored, one byte more
    /// is refused without a request.
    func testTheWholePocketIsCheckedAgainstTheAnnouncedLimits() async throws {
        var settings = HaloServerConfiguration(
            dataDirectory: try temporaryDirectory("pocket-limits-server"), logRequests: false)
        settings.limits.pocketBytes = 10_000
        settings.limits.pocketDataCharacters = 500
        let server = try await TestDeployment.start(settings)
        let client = try await server.admin.addClient()
        try await server.admin.addUser(email: "ann@example.com", password: "ann-pass")
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: client.clientId, clientSecret: client.clientSecret)
        configuration.environment = .custom(server.baseURL.absoluteString)
        configuration.dataDirectory = try temporaryDirectory("pocket-limits-sdk")
        configuration.applicationName = "PocketTests"
        let core = CoreManager(configuration: configuration)
        let recorder = RecordingAddon()
        core.registerAddon(recorder)
        do {
            try await core.startup()
            _ = try await core.auth.login(authProfile: AuthProfile(email: "ann@example.com", password: "ann-pass"), stayLoggedIn: false)
            XCTAssertEqual(core.auth.pocketLimits, .defaults, "nothing announced yet")
            _ = try await core.auth.getPocket()
            XCTAssertEqual(core.auth.pocketLimits.wholePocketBytes, 10_000)
            XCTAssertEqual(core.auth.pocketLimits.dataCharacters, 500)

            // A list of four-byte characters topped up to exactly 10,000 bytes (counted here by
            // hand: quotes and a comma each, then the last entry): sent and stored.
            var entries = Array(repeating: String(repeating: "😀", count: 200), count: 12)
            let used = #"{"data":{},"references":{"l":[]}}"#.utf8.count + entries.reduce(0) { $0 + $1.utf8.count + 3 }
            let room = 10_000 - used - 2
            entries.append(String(repeating: "😀", count: room / 4) + String(repeating: "a", count: room % 4))
            let exact = Pocket()
            exact.setReferences(key: "l", values: entries)
            XCTAssertEqual(exact.wholeBytes, 10_000)
            let saved = try await core.auth.savePocket(exact)
            XCTAssertEqual(saved.references["l"], entries)
            XCTAssertEqual(saved.wholeBytes, 10_000, "the server stored what the SDK counted")

            // One byte more: refused before anything is sent.
            let puts = recorder.requests(to: "/api/segmentation/identified-pocket").count
            let over = Pocket()
            over.setReferences(key: "l", values: entries.dropLast() + [entries[12] + "a"])
            do {
                _ = try await core.auth.savePocket(over)
                XCTFail("a pocket of 10,001 bytes was sent")
            } catch {
                guard case .invalidInput(let message) = error else { throw error }
                XCTAssertTrue(message.contains("10001 bytes") && message.contains("limit is 10000"), message)
            }
            XCTAssertEqual(recorder.requests(to: "/api/segmentation/identified-pocket").count, puts, "nothing was sent")
            // HALO's data limit, as announced (500, not 2,000).
            let data = Pocket()
            data.setData(["d": .string(String(repeating: "x", count: 600))])
            do {
                _ = try await core.auth.savePocket(data)
                XCTFail("data over the announced 500 characters was sent")
            } catch {
                guard case .invalidInput(let message) = error else { throw error }
                XCTAssertTrue(message.contains("limit is 500"), message)
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A pocket already over the limit (stored when the server allowed more) may be saved smaller,
    /// still over; it may not grow. Without the pocket it is made on, the save alone is measured.
    func testAPocketOverTheLimitMayShrink() throws {
        var limits = PocketLimitValues()
        limits.wholePocketBytes = 500
        let big = Pocket(
            references: ["a": [String(repeating: "é", count: 400)], "b": [String(repeating: "é", count: 400)]], data: [:], revision: "\"3\""
        )
        XCTAssertGreaterThan(big.wholeBytes, 1_600)
        let shrink = Pocket()
        shrink.setReferences(key: "a", values: nil)
        XCTAssertGreaterThan(big.applying(shrink).wholeBytes, 500)
        XCTAssertNoThrow(try shrink.validate(limits, basedOn: big))
        let grow = Pocket()
        grow.setData(["more": true])
        XCTAssertThrowsError(try grow.validate(limits, basedOn: big))
        let alone = Pocket()
        alone.setReferences(key: "b", values: [String(repeating: "é", count: 600)])
        XCTAssertThrowsError(try alone.validate(limits), "1,200 bytes of a save alone are over 500")
    }

    /// The header's value: every limit named, unknown names skipped, a garbled number unread.
    func testTheAnnouncementIsRead() {
        var values = PocketLimitValues()
        values.wholePocketBytes = 5
        values.referenceLists = 7
        XCTAssertEqual(PocketLimitValues(headerValue: values.headerValue), values)
        XCTAssertEqual(PocketLimitValues(headerValue: "bytes=5, reference-lists=7, future=9"), values)
        XCTAssertNil(PocketLimitValues(headerValue: "bytes=lots"))
        XCTAssertNil(PocketLimitValues(headerValue: "bytes=0"))
    }
}
