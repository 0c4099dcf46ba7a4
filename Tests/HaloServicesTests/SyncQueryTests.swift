import Foundation
import XCTest

@testable import HaloServices

/// Sync request bodies (PROTOCOL §14.1) and result bookkeeping (§14.2–§14.3).
final class SyncQueryTests: XCTestCase {
    func testFirstSyncByIdSendsLocaleAndIsCacheable() {
        let query = SyncQuery(moduleId: "571f38b9bb7f372900a14cbc")
        XCTAssertEqual(query.wireJSON, ["moduleId": "571f38b9bb7f372900a14cbc", "locale": "en-US"])
        XCTAssertTrue(query.isFirstSync)
        XCTAssertEqual(query.serverCacheSeconds, 86_400)
        XCTAssertEqual(query.moduleKey, "571f38b9bb7f372900a14cbc")
        XCTAssertNil(query.moduleName)
    }

    func testIncrementalSyncByNameWithWindow() {
        let query = SyncQuery(moduleName: "Translations")
            .locale(.spanishSpain)
            .fromSync(Date(timeIntervalSince1970: 1_475_046_170.0879997))  // fractional ms round
            .toSync(Date(timeIntervalSince1970: 1_473_686_540))
        XCTAssertEqual(
            query.wireJSON,
            [
                "moduleName": "Translations", "locale": "es-ES", "fromSync": 1_475_046_170_088, "toSync": 1_473_686_540_000,
            ])
        XCTAssertFalse(query.isFirstSync)
        XCTAssertNil(query.serverCacheSeconds)
        XCTAssertEqual(query.moduleKey, "Translations")
    }

    func testResultCarriesTheQueryAndMergesChainedAnswers() throws {
        let first = try SyncResult(
            wire: ContentFixture.json("android/halo-translations/translationsFirstSync.json"),
            query: SyncQuery(moduleName: "Texts").locale(.englishUnitedStates))
        XCTAssertEqual(first.moduleName, "Texts")
        XCTAssertEqual(first.locale, .englishUnitedStates)
        XCTAssertEqual(first.syncTimestamp, 0)
        let second = try ContentFixture.decode(SyncResult.self, "android/halo-translations/translationsRemoveSomeSync.json")
        let merged = first.merged(with: second)
        XCTAssertEqual(merged.syncTimestamp, 120)
        XCTAssertEqual(merged.created.count, 3)
        XCTAssertEqual(merged.deleted, ["3"])
        XCTAssertEqual(merged.applied(to: []).map(\.id), ["1", "2"])
        XCTAssertEqual(SyncLogEntry(result: merged).creations, 3)
        XCTAssertEqual(SyncLogEntry(result: merged).deletions, 1)
    }

    func testResultWithoutTimestampOrWithBadDeletedItemIsAnError() {
        XCTAssertThrowsError(try SyncResult(wire: ["created": [], "updated": [], "deleted": []]))
        XCTAssertThrowsError(try SyncResult(wire: ["syncTimestamp": 1, "deleted": [["noId": 1]]]))
        XCTAssertThrowsError(try SyncResult(wire: ["syncTimestamp": 1, "created": "nope"]))
        // Missing lists read as empty.
        XCTAssertEqual(try SyncResult(wire: ["syncTimestamp": 5]).created, [])
    }

    func testSeedStyleEmptyBuilder() throws {
        XCTAssertThrowsError(try SyncQuery().validate()) { error in
            XCTAssertEqual(error as? HaloError, .invalidInput(message: "The sync query names no module: set moduleId or moduleName."))
        }
        let byName = SyncQuery().moduleId("ignored").moduleName("News")
        XCTAssertNoThrow(try byName.validate())
        XCTAssertEqual(byName.wireJSON, ["moduleName": "News", "locale": "en-US"])
        XCTAssertEqual(SyncQuery().moduleId("m1").moduleId, "m1")
    }

    func testLocaleAndLogEntriesEncodeAsPlainValues() throws {
        let entry = SyncLogEntry(
            moduleId: "m", moduleName: nil, syncDate: Date(timeIntervalSince1970: 1),
            locale: .spanishSpain, creations: 1, updates: 2, deletions: 3)
        let json = try JSONValue(data: JSONEncoder().encode(entry))
        XCTAssertEqual(json["locale"], "es-ES")
        XCTAssertEqual(try JSONDecoder().decode(SyncLogEntry.self, from: JSONEncoder().encode(entry)), entry)
    }
}
