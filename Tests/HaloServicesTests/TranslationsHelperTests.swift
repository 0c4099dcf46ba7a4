import Foundation
import XCTest

@testable import HaloServices

/// Serves the Android translations fixtures in order, the way the SDK's sync does: a first sync
/// (no stored timestamp for the locale) takes two answers (§14.3), later ones one; results are
/// applied to the instances stored for that locale.
private actor FixtureSyncSource {
    private var queue: [String]
    private var stored: [HaloLocale: [ContentInstance]] = [:]
    private var timestamps: [HaloLocale: Date] = [:]
    private(set) var requests: [SyncQuery] = []

    init(_ files: [String]) { queue = files }

    func sync(_ query: SyncQuery) throws -> [ContentInstance] {
        requests.append(query)
        let isFirst = timestamps[query.locale] == nil
        var instances = isFirst ? [] : stored[query.locale] ?? []
        for _ in 0..<(isFirst ? 2 : 1) {
            guard !queue.isEmpty else { throw HaloError.network(message: "no more fixture answers") }
            let file = queue.removeFirst()
            let result = try SyncResult(wireData: ContentFixture.data("android/halo-translations/\(file)"))
            instances = result.applied(to: instances)
            timestamps[query.locale] = result.syncDate
        }
        stored[query.locale] = instances
        return instances
    }
}

/// Lets a test hold a sync open to observe the loading state.
private actor Gate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters = []
    }
}

final class TranslationsHelperTests: XCTestCase {
    private func helper(
        _ source: FixtureSyncSource, rule: TranslationsHelper.MappingRule = .optionalStrings
    ) -> TranslationsHelper {
        TranslationsHelper(
            moduleName: "myModuleName", locale: .englishUnitedStates, keyField: "key", valueField: "value",
            mappingRule: rule, sync: { try await source.sync($0) })
    }

    /// Android's `thatTheTranslationsSyncWorksCorrectly`: 3 entries incl. `"" → ""`.
    func testFirstSyncBuildsTheAndroidMap() async throws {
        let source = FixtureSyncSource(["translationsFirstSync.json", "translationsSync.json"])
        let texts = helper(source)
        try await texts.load()
        XCTAssertEqual(texts.getAllTexts(), ["first_screen": "First", "third_screen": "Third", "": ""])
        XCTAssertEqual(texts.getText(key: "first_screen"), "First")
        XCTAssertNil(texts.getText(key: "second_screen"))
        XCTAssertNil(texts.getText(key: "fake_key"))
        XCTAssertEqual(
            texts.getTexts(keys: "first_screen", "second_screen", "third_screen", "fake"),
            ["first_screen": "First", "second_screen": nil, "third_screen": "Third", "fake": nil])
        let requests = await source.requests
        XCTAssertEqual(requests, [SyncQuery(moduleName: "myModuleName").locale(.englishUnitedStates)])
    }

    func testIOSRuleKeepsOnlyStringPairs() async throws {
        let texts = helper(FixtureSyncSource(["translationsFirstSync.json", "translationsSync.json"]), rule: .stringsOnly)
        try await texts.load()
        XCTAssertEqual(texts.getAllTexts(), ["first_screen": "First", "third_screen": "Third"])
    }

    /// Android's `thatResyncedWithMissingTranslationRemovesCurrent`.
    func testResyncDropsDeletedTranslations() async throws {
        let texts = helper(FixtureSyncSource(["translationsFirstSync.json", "translationsSync.json", "translationsRemoveSomeSync.json"]))
        try await texts.load()
        XCTAssertEqual(texts.getText(key: "third_screen"), "Third")
        try await texts.load()
        XCTAssertEqual(texts.getText(key: "first_screen"), "First")
        XCTAssertNil(texts.getText(key: "third_screen"))
    }

    /// Android's `thatChangingLocaleSwapsToOtherLocale` and `thatChangingToSameLocaleDoesNotLoad`.
    func testChangingLocaleClearsAndLoadsTheNewLocale() async throws {
        let source = FixtureSyncSource([
            "translationsFirstSync.json", "translationsSync.json",
            "translationsFirstSyncSpanish.json", "translationsSyncSpanish.json",
        ])
        let texts = helper(source).defaultText("default")
        try await texts.load()
        XCTAssertEqual(texts.getText(key: "first_screen"), "First")
        try await texts.changeLocale(.englishUnitedStates)
        let countAfterSameLocale = await source.requests.count
        XCTAssertEqual(countAfterSameLocale, 1, "changing to the same locale does not load")
        try await texts.changeLocale(.spanishSpain)
        XCTAssertEqual(texts.currentLocale, .spanishSpain)
        XCTAssertEqual(texts.getText(key: "first_screen"), "Primero")
        XCTAssertEqual(texts.getText(key: "second_screen"), "Segundo")
        XCTAssertEqual(texts.getText(key: "missing"), "default")
        let requests = await source.requests
        XCTAssertEqual(requests.map(\.locale), [.englishUnitedStates, .spanishSpain])
        texts.clearTranslations()
        XCTAssertEqual(texts.getText(key: "first_screen"), "default")
    }

    /// Android's `thatIncorrectKeyValueProducesError`: the malformed null-values answer fails the load.
    func testNullValuesFixtureFailsTheLoad() async throws {
        let texts = helper(FixtureSyncSource(["translationsSyncNullValues.json", "translationsSync.json"])).defaultText("d")
        do {
            try await texts.load()
            XCTFail("the load should fail")
        } catch let error as HaloError {
            guard case .invalidResponse(_, let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("Invalid JSON"), message)
        }
        XCTAssertFalse(texts.isLoading)
        XCTAssertEqual(texts.getAllTexts(), [:])
        XCTAssertEqual(texts.getText(key: "first_screen"), "d")
    }

    func testLoadingAndDefaultTexts() async throws {
        let gate = Gate()
        let instance = ContentInstance(moduleId: "m", name: "a", values: ["key": "hello", "value": "Hello"])
        let texts = TranslationsHelper(
            moduleId: "m", locale: .englishUnitedStates, keyField: "key", valueField: "value",
            sync: { _ in
                await gate.wait(); return [instance]
            })
        XCTAssertNil(texts.getText(key: "hello"), "no default text set")
        texts.defaultText("default")
        XCTAssertEqual(texts.getText(key: "hello"), "default")
        let load = Task { try await texts.load() }
        while !texts.isLoading { await Task.yield() }
        XCTAssertEqual(texts.getText(key: "hello"), "default", "without a loading text, the default is given while loading")
        texts.loadingText("loading…")
        XCTAssertEqual(texts.getText(key: "hello"), "loading…")
        await gate.open()
        try await load.value
        XCTAssertFalse(texts.isLoading)
        XCTAssertEqual(texts.getText(key: "hello"), "Hello")
        XCTAssertEqual(texts.getText(key: "other"), "default")
    }

    func testCompletionHandlerFormReportsTheModuleAndError() async {
        let texts = TranslationsHelper(
            moduleId: "mod", locale: .englishUnitedStates, keyField: "key", valueField: "value",
            sync: { _ in throw HaloError.network(message: "offline") })
        let outcome: (String, HaloError?) = await withCheckedContinuation { continuation in
            texts.load { module, error in continuation.resume(returning: (module, error)) }
        }
        XCTAssertEqual(outcome.0, "mod")
        XCTAssertEqual(outcome.1, .network(message: "offline"))
    }
}
