import Foundation
import XCTest

@testable import HaloServices

/// Loads the official SDKs' JSON fixtures from Tests/Fixtures, found relative to this source
/// file so it works from any checkout.
enum ContentFixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }

    static func json(_ path: String) throws -> JSONValue {
        try JSONValue(data: data(path))
    }

    static func decode<T: HaloWireDecodable>(_ type: T.Type, _ path: String) throws -> T {
        try T(wireData: data(path))
    }

    /// Every fixture file, relative to `directory` (`ios/x.json`, `android/m/y.json`).
    static func allPaths() throws -> [String] {
        let manager = FileManager.default
        var paths: [String] = []
        for top in ["ios", "android"] {
            let base = directory.appendingPathComponent(top)
            guard let walker = manager.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "json" {
                paths.append(top + "/" + url.path.dropFirst(base.path.count + 1))
            }
        }
        return paths.sorted()
    }

    static func ms(_ date: Date?) -> Int64? { date.map(HaloTimestamp.milliseconds(from:)) }
}

/// Every fixture of the official SDKs parses to the values it holds; the four invalid ones
/// (PROTOCOL §22) fail with a parse error instead of crashing.
final class FixtureFilesTests: XCTestCase {
    /// Fixtures checked by a test below (content models) or by `testNonContentFixturesHoldTheirValues`.
    static let covered: Set<String> = [
        "ios/content_instance.json", "ios/from_sync.json", "ios/full_sync.json", "ios/to_sync.json",
        "ios/module_list_success_not_paginated.json", "ios/module_list_success_paginated.json",
        "ios/module_with_tags_without_isSingle.json", "ios/module_without_tags_with_isSingle.json",
        "ios/pagination_info.json", "ios/search_success_not_paginated.json", "ios/search_success_paginated.json",
        "ios/simple_search_success.json", "ios/segmentation_appuser_success.json",
        "ios/login_error.json", "ios/login_success.json", "ios/login_success_nil_user.json", "ios/oauth_failure.json",
        "ios/oauth_success.json", "ios/register_error.json", "ios/register_success.json",
        "ios/segmentation_appuser_failure.json", "ios/token.json",
        "android/halo-auth/login.json", "android/halo-auth/pocket.json", "android/halo-auth/pocket_filter.json",
        "android/halo-auth/register.json",
        "android/halo-content/batchManipulation.json", "android/halo-content/contentManipulation.json",
        "android/halo-content/searchNotPaginatedItems.json", "android/halo-content/searchPaginatedItems.json",
        "android/halo-content/syncCreateModule.json", "android/halo-content/syncUpToDate.json",
        "android/halo-content/syncUpdateModule.json",
        "android/halo-framework/testItem.json",
        "android/halo-notifications/actionNotificationDismiss.json",
        "android/halo-notifications/actionNotificationOpen.json",
        "android/halo-notifications/actionNotificationReceipt.json",
        "android/halo-notifications/backgroundNotification.json", "android/halo-notifications/bottomNotification.json",
        "android/halo-notifications/defaultNotification.json", "android/halo-notifications/expandedNotification.json",
        "android/halo-notifications/leftNotification.json", "android/halo-notifications/rightNotification.json",
        "android/halo-notifications/testNotification.json", "android/halo-notifications/topNotification.json",
        "android/halo-sdk/addSegmentationTag.json", "android/halo-sdk/removeSegmentationTag.json",
        "android/halo-sdk/addTrackEvent.json", "android/halo-sdk/authenticateToken.json",
        "android/halo-sdk/currentVersionServer.json", "android/halo-sdk/deviceResponse.json",
        "android/halo-sdk/getModules.json", "android/halo-sdk/getModulesWithMetaData.json",
        "android/halo-sdk/getOutdatedServerVersion.json", "android/halo-sdk/getToken.json",
        "android/halo-sdk/getValidServerVersion.json", "android/halo-sdk/middlewareRequest.json",
        "android/halo-translations/translationsFirstSync.json",
        "android/halo-translations/translationsFirstSyncSpanish.json",
        "android/halo-translations/translationsRemoveSomeSync.json", "android/halo-translations/translationsSync.json",
        "android/halo-translations/translationsSyncNullValues.json",
        "android/halo-translations/translationsSyncSpanish.json",
    ]

    func testEveryFixtureFileIsCovered() throws {
        let all = try ContentFixture.allPaths()
        XCTAssertEqual(all.count, 63, "fixture count changed: \(all.count)")
        XCTAssertEqual(Set(all).subtracting(Self.covered), [], "fixtures without a test")
        XCTAssertEqual(Self.covered.subtracting(all), [], "tests naming missing fixtures")
    }

    // MARK: Invalid fixtures (§22)

    func testTheFourInvalidFixturesGiveParseErrors() throws {
        XCTAssertThrowsError(try ContentFixture.decode(PaginatedContentInstances.self, "ios/search_success_not_paginated.json")) {
            XCTAssertNotNil($0 as? HaloError)
        }
        XCTAssertThrowsError(try ContentFixture.decode(Module.self, "ios/module_with_tags_without_isSingle.json")) {
            guard case .invalidResponse(_, let message)? = $0 as? HaloError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("Module"), message)
        }
        XCTAssertThrowsError(try ContentFixture.decode(SyncResult.self, "android/halo-translations/translationsSyncNullValues.json"))
        XCTAssertThrowsError(try ContentFixture.json("android/halo-framework/testItem.json"))
        XCTAssertEqual(
            String(decoding: try ContentFixture.data("android/halo-framework/testItem.json"), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines), "ExampleResponseTestFromNetWork")
    }

    /// The module fixture's defects are the trailing comma only: with it removed, iOS's
    /// tolerance applies (tags with `type`, missing isSingle = false) and it reads with 2 tags.
    func testModuleWithTagsWithoutIsSingleReadsOnceTheTrailingCommaIsRemoved() throws {
        let text = String(decoding: try ContentFixture.data("ios/module_with_tags_without_isSingle.json"), as: UTF8.self)
        let repaired = text.replacingOccurrences(of: "},\n    ],", with: "}\n    ],")
        XCTAssertNotEqual(repaired, text)
        let module = try Module(wireData: Data(repaired.utf8))
        XCTAssertFalse(module.isSingle)
        XCTAssertEqual(module.tagList.count, 2)
        XCTAssertEqual(module.tagList.map(\.tagType), ["testTypeTag1", "testTypeTag2"])
        XCTAssertEqual(module.tags["testNameTag2"]?.value, "testValueTag2")
    }

    /// The null-values translations fixture without its trailing comma: `values: null` reads as empty.
    func testNullValuesReadAsEmptyOnceTheTrailingCommaIsRemoved() throws {
        let text = String(decoding: try ContentFixture.data("android/halo-translations/translationsSyncNullValues.json"), as: UTF8.self)
        let repaired = text.replacingOccurrences(of: "},\n  ],", with: "}\n  ],")
        let result = try SyncResult(wireData: Data(repaired.utf8))
        XCTAssertEqual(result.created.count, 1)
        XCTAssertEqual(result.created[0].values, [:])
        XCTAssertEqual(result.syncTimestamp, 100)
    }

    // MARK: Content instances

    func testContentInstanceFixture() throws {
        let instance = try ContentFixture.decode(ContentInstance.self, "ios/content_instance.json")
        XCTAssertEqual(instance.id, "5744205c83bf055c00b8a779")
        XCTAssertEqual(instance.moduleId, "565590c3e7428616003d590e")
        XCTAssertEqual(instance.name, "pOwztyP")
        XCTAssertEqual(instance.values, ["CXJP2HJ Boolean": true])
        XCTAssertEqual(instance.getValue(key: "CXJP2HJ Boolean") as? Bool, true)
        XCTAssertEqual(ContentFixture.ms(instance.createdAt), 1_464_082_524_018)
        XCTAssertEqual(ContentFixture.ms(instance.archivedAt), 1_464_082_524_018)
        XCTAssertNil(instance.publishedAt)
        XCTAssertNil(instance.updatedAt)
        XCTAssertEqual(instance.createdBy, "Editor Editor")
        XCTAssertEqual(instance.customerId, 1)
        XCTAssertEqual(instance.revision, 0)
        XCTAssertTrue(instance.tagList.isEmpty)
        XCTAssertTrue(instance.isArchived)
        XCTAssertFalse(instance.isPublished)
        XCTAssertFalse(instance.isDraft)
    }

    func testAndroidContentManipulationFixture() throws {
        let instance = try ContentFixture.decode(ContentInstance.self, "android/halo-content/contentManipulation.json")
        XCTAssertEqual(instance.id, "5874c5f06a3a0d1e00c8039d")
        XCTAssertEqual(instance.moduleId, "000000000000000000000004")
        XCTAssertEqual(instance.string("Title"), "The title of the test")
        XCTAssertEqual(ContentFixture.ms(instance.publishedAt), 1_483_953_114_080)
        XCTAssertEqual(ContentFixture.ms(instance.createdAt), 1_484_047_856_141)
        XCTAssertEqual(instance.createdBy, "Halo SDK Test App")
        XCTAssertTrue(instance.isPublished)
        XCTAssertFalse(instance.isDeleted)
    }

    // MARK: Search results

    func testPaginatedSearchFixtures() throws {
        let ios = try ContentFixture.decode(PaginatedContentInstances.self, "ios/search_success_paginated.json")
        XCTAssertEqual(ios.paginationInfo, PaginationInfo(page: 1, limit: 10, offset: 0, totalItems: 23, totalPages: 3))
        XCTAssertEqual(ios.instances.count, 10)
        XCTAssertEqual(ios.instances[1].id, "565591e5e7428616003d5916")
        XCTAssertEqual(ios.instances[1].string("Title"), "The Greatest Road Trips in Europe")
        XCTAssertEqual(ContentFixture.ms(ios.instances[1].date("Date")), 1_388_298_780_000)
        XCTAssertEqual(ContentFixture.ms(ios.instances[1].updatedAt), 1_466_072_256_773)
        XCTAssertEqual(ios.instances[1].createdBy, "News Editor")

        let simple = try ContentFixture.decode(PaginatedContentInstances.self, "ios/simple_search_success.json")
        XCTAssertEqual(simple.paginationInfo.totalItems, 8846)
        XCTAssertEqual(simple.paginationInfo.totalPages, 885)
        XCTAssertEqual(simple.instances.count, 10)
        XCTAssertEqual(simple.instances[0].values["key"], .null)
        XCTAssertEqual(simple.instances[0].string("value"), "TRANSLATION_NOT_ADDED")
        // Language tags carried with the older custom tag type (§22 oddities).
        XCTAssertEqual(simple.instances[1].tagList.map(\.value), ["de-DE", "es-ES", "en-AU", "it-IT"])
        XCTAssertEqual(simple.instances[1].tagList[0].id, "000000000000000000000467")
        XCTAssertEqual(simple.instances[1].tagList[0].tagType, Tag.customType)
        XCTAssertEqual(simple.instances[1].tags["Spanish Spain"]?.value, "es-ES")

        let android = try ContentFixture.decode(PaginatedContentInstances.self, "android/halo-content/searchPaginatedItems.json")
        XCTAssertEqual(android.paginationInfo, PaginationInfo(page: 1, limit: 3, offset: 0, totalItems: 360, totalPages: 120))
        XCTAssertEqual(android.instances.map(\.name), ["1", "2", "3"])
        XCTAssertEqual(android.instances.map(\.id), ["57b45893df01cd0027275feb", "57b45893eccc780021aa04cf", "57b458947dca3b003b83a995"])
    }

    func testPlainArraySearchFixtureGetsASinglePage() throws {
        let page = try ContentFixture.decode(PaginatedContentInstances.self, "android/halo-content/searchNotPaginatedItems.json")
        XCTAssertEqual(page.paginationInfo, PaginationInfo(page: 1, limit: 3, offset: 0, totalItems: 3, totalPages: 1))
        XCTAssertEqual(page.instances.map(\.name), ["1", "2", "3"])
        XCTAssertEqual(page.instances.map { $0.string("foo") }, ["bar", "bar", "bar"])
        XCTAssertEqual(ContentFixture.ms(page.instances[2].createdAt), 1_471_436_948_336)
        XCTAssertEqual(page.instances[0].moduleId, "571f38b9bb7f372900a14cbc")
    }

    func testPaginationInfoFixture() throws {
        XCTAssertEqual(
            try ContentFixture.decode(PaginationInfo.self, "ios/pagination_info.json"),
            PaginationInfo(page: 2, limit: 20, offset: 20, totalItems: 100, totalPages: 5))
    }

    // MARK: Modules

    func testModuleFixtures() throws {
        let module = try ContentFixture.decode(Module.self, "ios/module_without_tags_with_isSingle.json")
        XCTAssertEqual(module.id, "000000000000000000000004")
        XCTAssertEqual(module.name, "testModule")
        XCTAssertEqual(module.customerId, 2)
        XCTAssertFalse(module.isSingle)
        XCTAssertEqual(module.createdBy, "testAdmin")
        XCTAssertEqual(module.updatedBy, "undefined")
        XCTAssertEqual(module.deletedBy, "testAdmin2")
        XCTAssertEqual(ContentFixture.ms(module.createdAt), 1_474_036_570_134)
        XCTAssertEqual(ContentFixture.ms(module.updatedAt), 1_474_063_790_249)
        XCTAssertEqual(ContentFixture.ms(module.deletedAt), 1_474_063_320_249)
        XCTAssertTrue(module.tagList.isEmpty)
        XCTAssertNil(module.fields)

        for path in ["ios/module_list_success_not_paginated.json", "ios/module_list_success_paginated.json"] {
            let list = try ContentFixture.decode(PaginatedModules.self, path)
            XCTAssertEqual(list.modules.map(\.name), ["News", "My Offers"], path)
            XCTAssertEqual(list.modules.map(\.id), ["000000000000000000000004", "000000000000000000000003"], path)
            XCTAssertEqual(list.paginationInfo.totalItems, 2, path)
            XCTAssertEqual(list.paginationInfo.totalPages, 1, path)
            XCTAssertEqual(ContentFixture.ms(list.modules[1].createdAt), 1_474_036_570_128, path)
        }
        XCTAssertEqual(
            try ContentFixture.decode(PaginatedModules.self, "ios/module_list_success_not_paginated.json").paginationInfo.limit, 2)
        XCTAssertEqual(try ContentFixture.decode(PaginatedModules.self, "ios/module_list_success_paginated.json").paginationInfo.limit, 10)

        let android = try Module.list(wire: ContentFixture.json("android/halo-sdk/getModules.json"))
        XCTAssertEqual(android.map(\.name), ["Android Test module", "QROffer", "Store Locator", "Gallery", "News Motorist"])
        XCTAssertEqual(android.first?.id, "57f613869935ad1100f612d7")
        XCTAssertTrue(android.allSatisfy { !$0.isSingle })
    }

    func testModulesWithMetadataFixtureReadsFieldsAndRules() throws {
        let modules = try Module.list(wire: ContentFixture.json("android/halo-sdk/getModulesWithMetaData.json"))
        XCTAssertEqual(modules.count, 11)
        XCTAssertEqual(modules.map { $0.fields?.count ?? -1 }, [21, 7, 4, 24, 1, 4, 3, 0, 12, 3, 0])
        XCTAssertEqual(modules.filter(\.isSingle).map(\.name), ["choice test", "Comment"])
        let first = modules[0]
        XCTAssertEqual(first.name, "matus DO NOT DELETE")
        XCTAssertEqual(first.id, "584a7c0882ad011100ac82de")
        XCTAssertEqual(first.tagList.count, 55)
        let fields = try XCTUnwrap(first.fields)
        let object = fields[0]
        XCTAssertEqual(object.id, "584a869d2b458411009fe5cd")
        XCTAssertEqual(object.moduleId, "584a7c0882ad011100ac82de")
        XCTAssertEqual(object.description, "object")
        XCTAssertEqual(object.format, [:])
        XCTAssertEqual(object.fieldType?.id, "000000000000000000000013")
        XCTAssertEqual(object.fieldType?.name, "Object")
        XCTAssertEqual(object.fieldType?.type, .object)
        XCTAssertEqual(object.fieldType?.isLongValue, true)
        XCTAssertEqual(object.fieldType?.rules, [ModuleFieldRule(rule: "custom||isJSONObject", params: [], error: "validator.11")])
        // Numeric rule params are kept (iOS dropped them).
        let text = try XCTUnwrap(fields.first { $0.name == "text" })
        XCTAssertEqual(text.fieldType?.rules.map(\.params), [[], [0, 1000]])
        let localized = try XCTUnwrap(fields.first { $0.name == "localized" })
        XCTAssertEqual(localized.fieldType?.name, "Localized text")
        XCTAssertEqual(localized.format, ["default": "pen"])
        let choice = try XCTUnwrap(fields.first { $0.name == "single choice" })
        XCTAssertEqual(choice.fieldType?.id, "000000000000000000000018")
        XCTAssertEqual(choice.format?["values"]?.arrayValue?.first, "1")
    }

    // MARK: Sync

    func testIOSSyncFixtures() throws {
        let full = try ContentFixture.decode(SyncResult.self, "ios/full_sync.json")
        XCTAssertEqual(full.syncTimestamp, 1_475_046_170_088)
        XCTAssertEqual(full.created.count, 949)
        XCTAssertEqual(full.created.first?.id, "57d6ac77933c64001bc1be76")
        XCTAssertEqual(full.created.first?.name, "nVI6NuN")
        XCTAssertEqual(full.created.last?.id, "57ce7cb511baa700289e58c2")
        XCTAssertEqual(full.updated.count, 0)
        XCTAssertEqual(full.deleted.count, 0)

        let from = try ContentFixture.decode(SyncResult.self, "ios/from_sync.json")
        XCTAssertEqual(from.syncTimestamp, 1_475_052_559_289)
        XCTAssertEqual(from.created.count, 25)
        XCTAssertEqual(from.updated.map(\.id), ["57d6ac3002e25300301be7f2"])
        XCTAssertEqual(from.deleted.count, 244)
        XCTAssertEqual(from.deleted.first, "57eb6b850c6969003548d58d")
        // The same id in created and updated (§14.2): applying keeps one copy, the update.
        XCTAssertTrue(from.created.contains { $0.id == "57d6ac3002e25300301be7f2" })
        let applied = from.applied(to: [])
        XCTAssertEqual(applied.filter { $0.id == "57d6ac3002e25300301be7f2" }, from.updated)

        let to = try ContentFixture.decode(SyncResult.self, "ios/to_sync.json")
        XCTAssertEqual(to.syncTimestamp, 1_473_686_540_000)
        XCTAssertEqual(to.created.count, 924)
        XCTAssertEqual(to.created.first?.id, "57d6ac09933c64001bc1be67")
    }

    func testAndroidSyncFixturesApplyInOrder() throws {
        let create = try ContentFixture.decode(SyncResult.self, "android/halo-content/syncCreateModule.json")
        XCTAssertEqual(create.syncTimestamp, 1_473_088_966_483)
        XCTAssertEqual(create.created.map(\.name), ["Instance A", "Instance B", "Instance C"])
        XCTAssertEqual(create.created[1].deletedBy, "Sample user")
        XCTAssertEqual(create.created[0].moduleId, "fakeId")

        let update = try ContentFixture.decode(SyncResult.self, "android/halo-content/syncUpdateModule.json")
        XCTAssertEqual(update.updated.map(\.id), ["2"])
        XCTAssertEqual(update.updated[0].string("foo"), "bar updated")
        XCTAssertEqual(update.updated[0].updatedBy, "Application sample")
        XCTAssertEqual(update.deleted, ["3"])

        let upToDate = try ContentFixture.decode(SyncResult.self, "android/halo-content/syncUpToDate.json")
        XCTAssertEqual(upToDate.syncTimestamp, 1_473_088_966_483)
        XCTAssertTrue(upToDate.created.isEmpty && upToDate.updated.isEmpty && upToDate.deleted.isEmpty)

        let state = upToDate.applied(to: update.applied(to: create.applied(to: [])))
        XCTAssertEqual(state.map(\.id), ["1", "2"])
        XCTAssertEqual(state.map { $0.string("foo") }, ["bar", "bar updated"])

        let log = SyncLogEntry(
            result: try SyncResult(
                wire: ContentFixture.json("android/halo-content/syncUpdateModule.json"), query: SyncQuery(moduleName: "Sample")))
        XCTAssertEqual(
            log,
            SyncLogEntry(
                moduleId: nil, moduleName: "Sample", syncDate: update.syncDate,
                locale: .englishUnitedStates, creations: 0, updates: 1, deletions: 1))
    }

    func testTranslationSyncFixtures() throws {
        let expected: [(String, Int64, Int, Int)] = [
            ("translationsFirstSync.json", 0, 3, 0), ("translationsFirstSyncSpanish.json", 150, 3, 0),
            ("translationsRemoveSomeSync.json", 120, 0, 1), ("translationsSync.json", 100, 0, 0),
            ("translationsSyncSpanish.json", 200, 0, 0),
        ]
        for (file, timestamp, created, deleted) in expected {
            let result = try ContentFixture.decode(SyncResult.self, "android/halo-translations/" + file)
            XCTAssertEqual(result.syncTimestamp, timestamp, file)
            XCTAssertEqual(result.created.count, created, file)
            XCTAssertEqual(result.deleted.count, deleted, file)
        }
        let spanish = try ContentFixture.decode(SyncResult.self, "android/halo-translations/translationsFirstSyncSpanish.json")
        XCTAssertEqual(spanish.created.map { $0.string("value") }, ["Primero", "Segundo", "Tercero"])
    }

    // MARK: Batch and notifications

    func testBatchFixture() throws {
        let result = try ContentFixture.decode(BatchResult.self, "android/halo-content/batchManipulation.json")
        XCTAssertEqual(
            result.operations.map(\.operation),
            [.truncate, .truncate, .create, .update, .createOrUpdate, .delete, .delete])
        XCTAssertEqual(result.operations.map(\.position), [0, 1, 0, 0, 0, 0, 1])
        XCTAssertEqual(result.succeeded.count, 3)
        XCTAssertEqual(result.failed.count, 4)
        // Truncate results in the fixture are [{id}] lists (§22): their length is the count.
        XCTAssertEqual(result.operations[0].moduleId, "000000000000000000000003")
        XCTAssertEqual(result.operations[0].deletedInstances, 1)
        XCTAssertEqual(result.operations[1].deletedInstances, 0)
        XCTAssertEqual(result.operations[2].instance?.id, "5874c5f06a3a0d1e00c8039d")
        XCTAssertEqual(result.operations[2].instance?.name, "From Android SDK")
        let conflict = result.operations[3]
        XCTAssertEqual(conflict.error?.status, 409)
        XCTAssertTrue(conflict.error?.message.hasPrefix("The specified instance was updated after your data retrieval") ?? false)
        XCTAssertEqual(conflict.conflictingInstance?.id, "58fa0e8173c4f5001031c5a8")
        XCTAssertEqual(conflict.conflictingInstance?.name, "News1 updated")
        XCTAssertEqual(ContentFixture.ms(conflict.conflictingInstance?.updatedAt), 1_492_782_728_392)
        XCTAssertEqual(result.conflicts, [conflict])
        let invalid = result.operations[4]
        XCTAssertEqual(invalid.error?.status, 400)
        XCTAssertEqual(invalid.error?.extra?["field"], "amount")
        XCTAssertEqual(invalid.error?.extra?["error"], "validator.8")
        XCTAssertNil(invalid.conflictingInstance)
        XCTAssertEqual(result.operations[5].error?.haloError, .server(status: 404, message: "Instance not found", extra: [:]))
        XCTAssertEqual(result.summary?["total"]?["failure"], 4)
    }

    func testNotificationFixtures() throws {
        let layouts: [(String, NotificationImage.Layout)] = [
            ("background", .background), ("bottom", .bottom), ("default", .default), ("expanded", .expanded),
            ("left", .left), ("right", .right), ("top", .top),
        ]
        for (name, layout) in layouts {
            let image = try ContentFixture.decode(NotificationImage.self, "android/halo-notifications/\(name)Notification.json")
            XCTAssertEqual(image.layout, layout)
            XCTAssertEqual(image.url, "http://cdn.shopify.com/s/files/1/0920/5124/t/4/assets/logo.png?1884641834595042276")
        }
        XCTAssertEqual(
            try ContentFixture.decode(NotificationImage.self, "android/halo-notifications/testNotification.json"),
            NotificationImage(url: "http://myimage.jpg", layout: .expanded))
        for action in NotificationAction.allCases {
            let file =
                "android/halo-notifications/actionNotification\(action.rawValue.prefix(1).uppercased() + action.rawValue.dropFirst()).json"
            XCTAssertEqual(
                try ContentFixture.decode(NotificationActivityEvent.self, file),
                NotificationActivityEvent(device: "myalias", schedule: "mypushId", action: action))
        }
    }

    // MARK: Fixtures of other areas (auth, devices, version, pocket): their JSON values

    func testNonContentFixturesHoldTheirValues() throws {
        for (file, message) in [
            ("login_error", "Credentials are not valid"), ("oauth_failure", "Client not found or invalid secret"),
            ("register_error", "Error message from Halo"),
            ("segmentation_appuser_failure", "One or more fields have validation problems"),
        ] {
            let json = try ContentFixture.json("ios/\(file).json")
            XCTAssertEqual(json["error"]?["message"]?.stringValue, message, file)
            XCTAssertEqual(json["error"]?["type"], "HaloError", file)
        }
        for file in ["ios/login_success.json", "ios/login_success_nil_user.json", "android/halo-auth/login.json"] {
            let token = try XCTUnwrap(ContentFixture.json(file)["token"])
            XCTAssertEqual(token["access_token"], "9aCH1pgfgnonimCE7pUxIPOecjw7k7kqvi67PyIG", file)
            XCTAssertEqual(token["expires_in"]?.int64Value, 1_478_875_644_666, file)
        }
        XCTAssertNil(try ContentFixture.json("ios/login_success_nil_user.json")["user"])
        XCTAssertEqual(try ContentFixture.json("ios/login_success.json")["user"]?["displayName"], "testName testSurname")
        XCTAssertEqual(try ContentFixture.json("android/halo-auth/login.json")["user"]?["name"], "username")
        XCTAssertEqual(try ContentFixture.json("ios/token.json")["refresh_token"], "54kBFdhtSQhccyRp6ppZ2CpnCDTJfypWEDMaK5Ot")
        XCTAssertEqual(try ContentFixture.json("ios/oauth_success.json")["expires_in"], 86_400_000)
        XCTAssertEqual(
            try ContentFixture.json("android/halo-sdk/getToken.json")["access_token"], "9pnHeuczzn0ZaKjNSsElk2JeVIstrR34MwUevUYP")
        XCTAssertEqual(try ContentFixture.json("android/halo-sdk/authenticateToken.json")["token_type"], "Bearer")
        XCTAssertEqual(try ContentFixture.json("ios/register_success.json")["id"], "identified-civ7vppyr1fee0isfzjlkbsk5")
        XCTAssertEqual(try ContentFixture.json("android/halo-auth/register.json")["id"], "identified-civdno2r503g00jqyk1v2us8b")
        let pocket = try ContentFixture.json("android/halo-auth/pocket.json")
        XCTAssertEqual(pocket["data"]?["Date"], 1_498_140_119_461)
        XCTAssertEqual(pocket["references"]?["favorites"], ["fav_1", "fav_2"])
        XCTAssertEqual(pocket["references"]?.objectValue?.count, 3)
        XCTAssertEqual(
            try ContentFixture.json("android/halo-auth/pocket_filter.json")["references"]?.objectValue?.keys.sorted(), ["favorites"])
        XCTAssertEqual(try ContentFixture.json("android/halo-sdk/currentVersionServer.json")["minAndroid"], "testVersion")
        XCTAssertEqual(try ContentFixture.json("android/halo-sdk/getOutdatedServerVersion.json")["minAndroid"], "1000")
        XCTAssertEqual(try ContentFixture.json("android/halo-sdk/getValidServerVersion.json")["minIOS"], "1.2.0")
        XCTAssertEqual(try ContentFixture.json("android/halo-sdk/addTrackEvent.json")["coord"], "3,3")
        XCTAssertEqual(try ContentFixture.json("android/halo-sdk/middlewareRequest.json")["company"], "test")

        // Device fixtures: their tags read as Tag models.
        let device = try ContentFixture.json("ios/segmentation_appuser_success.json")
        let tags = try XCTUnwrap(device["tags"]?.arrayValue).map(Tag.init(wire:))
        XCTAssertEqual(
            tags,
            [
                Tag(id: "56deeb7e669aee2a00bc82ec", name: "Platform Name", value: "ios", tagType: nil),
                Tag(id: "56e1b1c43e101b2e00224d0f", name: "female", value: "true", tagType: nil),
            ])
        XCTAssertEqual(device["alias"], "anonymous-citlcgo4d01cv1hqrmfwlujak")
        let android = try ContentFixture.json("android/halo-sdk/deviceResponse.json")
        XCTAssertEqual(android["devices"]?.arrayValue?.first?["token"], "mytoken")
        XCTAssertEqual(try XCTUnwrap(android["tags"]?.arrayValue).map(Tag.init(wire:)).count, 2)
        let added = try XCTUnwrap(ContentFixture.json("android/halo-sdk/addSegmentationTag.json")["tags"]?.arrayValue).map(Tag.init(wire:))
        XCTAssertEqual(added.count, 14)
        XCTAssertEqual(added.filter { $0.tagType == Tag.systemType }.count, 12)
        XCTAssertEqual(added[1], Tag(id: "57ecc02d6a604b00112cb61d", name: "Android Version", value: "6.0", tagType: Tag.systemType))
        let removed = try XCTUnwrap(ContentFixture.json("android/halo-sdk/removeSegmentationTag.json")["tags"]?.arrayValue).map(
            Tag.init(wire:))
        XCTAssertEqual(removed.count, 12)
    }
}
