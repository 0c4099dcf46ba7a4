import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Saved views: saved from the builder into the user's pocket, listed under their module on
/// another computer of the same user, renamed and deleted from their row's menu, refused with
/// the room left when the pocket is full, and opened with missing fields marked.
final class SavedViewsTests: XCTestCase {
    func testAViewSavedOnOneComputerOpensOnAnotherAndItsDeletionFollows() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            let products = try XCTUnwrap(view.pager.moduleId)
            // Something else the user keeps in the pocket: saving views must not lose it.
            try Self.setPocketData(["notes": "keep me"], harness: harness)

            let builder = try FilterBuilderTests.openBuilder(in: harness)
            XCTAssertTrue(
                builder.viewsGroup.groupDescription.hasPrefix("Views are kept in your account’s pocket"),
                builder.viewsGroup.groupDescription)
            XCTAssertFalse(builder.updateViewRow.isVisible, "a new draft belongs to no view")
            builder.textView.text = "price >= 10 and price <= 500"
            builder.readText()
            builder.applyButton.click()
            try Self.save(as: "Mid-range", in: builder, harness: harness, view: view)
            XCTAssertTrue(harness.toasts.contains("View “Mid-range” saved"), "\(harness.toasts)")
            XCTAssertEqual(view.sidebar.views.map(\.name), ["Mid-range"])
            XCTAssertEqual(view.currentView?.name, "Mid-range")
            XCTAssertTrue(builder.updateViewRow.isVisible)
            XCTAssertEqual(builder.updateViewRow.title, "Update “Mid-range”")
            try harness.screenshots(name: "saved-views")
            try GUITestEnvironment.screenshots(of: builder.window, named: "filter-builder-saved-view")
            let pocket = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(pocket.data["notes"], "keep me")
            XCTAssertEqual(
                pocket.data["haloDesk"]?["views"]?.arrayValue?.first?["filter"], "price >= 10 and price <= 500",
                "the filter is kept as its text")
            // A second view with the same name in the module is refused at the builder.
            builder.saveViewRow.asEditable.text = "Mid-range"
            builder.saveViewRow.activate()
            XCTAssertTrue(harness.pump { builder.viewProblemLabel.isVisible })
            XCTAssertEqual(
                builder.viewProblemLabel.text, "The view was not saved: This module already has a view named “Mid-range”.")

            // The same user on another computer: the view is under Products, and opens the same rows.
            let (other, otherToasts) = try harness.openSecondWorkspace()
            XCTAssertTrue(harness.pump { other.sidebar.views.map(\.name) == ["Mid-range"] }, "\(other.sidebar.views)")
            let savedView = try XCTUnwrap(other.sidebar.views.first)
            XCTAssertEqual(savedView.moduleId, products)
            other.sidebar.activate(viewId: savedView.id)
            let expected = try harness.haloSearch(module: "Products", filter: "price >= 10 and price <= 500")
            XCTAssertGreaterThan(expected.count, 0)
            try FilterBuilderTests.assertRows(expected, in: harness, view: other)
            XCTAssertEqual(other.filterButton.label, "Filter · 2")
            XCTAssertEqual(other.pager.moduleId, products)

            // Renamed there from its row's menu; the first computer sees the new name after Refresh.
            let menu = try XCTUnwrap(other.sidebar.viewMenus[savedView.id])
            menu.nameEntry.text = "Mid price"
            let renamedCount = other.completedViewOperations
            menu.renameButton.click()
            XCTAssertTrue(harness.pump { other.completedViewOperations > renamedCount })
            XCTAssertEqual(other.sidebar.views.map(\.name), ["Mid price"])
            XCTAssertTrue(otherToasts.messages.contains("View renamed to “Mid price”"), "\(otherToasts.messages)")
            try Self.refresh(view, harness: harness)
            XCTAssertEqual(view.sidebar.views.map(\.name), ["Mid price"])

            // Deleted there after confirming; gone on the first computer after Refresh.
            try XCTUnwrap(other.sidebar.viewMenus[savedView.id]).deleteButton.click()
            let dialog = try XCTUnwrap(other.pendingDialog)
            XCTAssertEqual(dialog.heading, "Delete View?")
            XCTAssertTrue(dialog.body.contains("from every computer you sign in on"), dialog.body)
            let deletedCount = other.completedViewOperations
            dialog.respond("delete-view")
            XCTAssertTrue(harness.pump { other.completedViewOperations > deletedCount })
            XCTAssertEqual(other.sidebar.views, [])
            try Self.refresh(view, harness: harness)
            XCTAssertEqual(view.sidebar.views, [])
            XCTAssertNil(view.currentView, "the list keeps its filter, no longer named")
            XCTAssertFalse(builder.updateViewRow.isVisible)
            let after = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(after.data["notes"], "keep me")
        }
    }

    /// A full pocket refuses the view with the room left; a view naming a field the module does not
    /// have opens in the builder with that condition marked.
    func testAFullPocketSaysHowMuchRoomIsLeftAndMissingFieldsAreMarked() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            let products = try XCTUnwrap(view.pager.moduleId)
            let filler = String(repeating: "x", count: 1_900)
            try Self.setPocketData(["notes": .string(filler)], harness: harness)
            try Self.refresh(view, harness: harness)

            let builder = try FilterBuilderTests.openBuilder(in: harness)
            XCTAssertTrue(
                builder.viewsGroup.groupDescription.hasSuffix(": 88 of 2,000 characters left."), builder.viewsGroup.groupDescription)
            builder.textView.text = #"price >= 10 and (inStock = true or title like "abi")"#
            builder.readText()
            let before = view.completedViewOperations
            builder.saveViewRow.asEditable.text = "In stock"
            builder.saveViewRow.activate()
            XCTAssertTrue(harness.pump { view.completedViewOperations > before })
            XCTAssertTrue(builder.viewProblemLabel.isVisible)
            XCTAssertTrue(
                builder.viewProblemLabel.text.hasPrefix("The view was not saved: Your pocket has no room for this: it needs "),
                builder.viewProblemLabel.text)
            XCTAssertTrue(builder.viewProblemLabel.text.contains("and 88 of 2,000 are left."), builder.viewProblemLabel.text)
            XCTAssertEqual(view.sidebar.views, [])
            let pocket = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(pocket.data, ["notes": .string(filler)], "nothing was written")

            // Written by another client: a view on a field Products does not have.
            let ghost: JSONValue = [
                "id": "0badf00d", "module": .string(products), "name": "Old view", "filter": "price >= 10 and ghost = 3",
                "sort": "name asc",
            ]
            try Self.setPocketData(["haloDesk": ["views": [ghost, ["unknown": "entry"]]]], harness: harness)
            try Self.refresh(view, harness: harness)
            let old = try XCTUnwrap(view.sidebar.views.first)
            XCTAssertEqual(view.sidebar.views.count, 1, "an entry this version cannot read is not listed")
            view.sidebar.activate(viewId: old.id)
            let reopened = try XCTUnwrap(view.filterBuilder)
            XCTAssertTrue(harness.pump { reopened.window.isMapped })
            XCTAssertFalse(reopened.applyButton.isSensitive)
            let ghostCondition = try XCTUnwrap(reopened.tree.root.childIds.last)
            XCTAssertEqual(
                reopened.nodeControls[ghostCondition]?.problemLabel?.text, "“ghost” is not a field of this module any more.")
            XCTAssertEqual(reopened.updateViewRow.title, "Update “Old view”")
            XCTAssertEqual(view.pager.sort, InstancePager.Sort(field: .name, order: .ascending))

            // Fixed in the builder and updated: the entry this version cannot read is still there.
            reopened.textView.text = "price >= 10"
            reopened.readText()
            let updating = view.completedViewOperations
            reopened.updateViewButton.click()
            XCTAssertTrue(harness.pump { view.completedViewOperations > updating })
            let saved = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(saved.data["haloDesk"]?["views"]?.arrayValue?.first?["filter"], "price >= 10")
            XCTAssertEqual(saved.data["haloDesk"]?["views"]?.arrayValue?.last, ["unknown": "entry"])
        }
    }

    /// Without an identified user the builder says views stay on this computer, and they do.
    func testWithoutAUserViewsAreKeptOnThisComputerAndTheBuilderSaysSo() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(beforeTheView: { core in
                _ = try WorkspaceHarness.wait { await core.auth.logout() }
            })
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            let builder = try FilterBuilderTests.openBuilder(in: harness)
            XCTAssertEqual(
                builder.viewsGroup.groupDescription, "You are not signed in as a user: views are kept on this computer only.")
            builder.textView.text = "price < 20"
            builder.readText()
            try Self.save(as: "Cheap", in: builder, harness: harness, view: view)
            XCTAssertEqual(view.sidebar.views.map(\.name), ["Cheap"])
            let file = try XCTUnwrap(view.viewStore as? LocalViewStore).file
            XCTAssertTrue(file.path.hasPrefix(harness.directory.path), file.path)
            let stored = try JSONValue(data: try Data(contentsOf: file))
            XCTAssertEqual(stored["views"]?.arrayValue?.first?["filter"], "price < 20")
        }
    }

    // MARK: Steps

    @MainActor
    static func save(as name: String, in builder: FilterBuilderWindow, harness: WorkspaceHarness, view: WorkspaceView) throws {
        let before = view.completedViewOperations
        builder.saveViewRow.asEditable.text = name
        builder.saveViewRow.activate()
        XCTAssertTrue(harness.pump { view.completedViewOperations > before })
        XCTAssertFalse(builder.viewProblemLabel.isVisible, builder.viewProblemLabel.text)
    }

    /// F5, as the user presses it: the modules and the views are read again.
    @MainActor
    static func refresh(_ view: WorkspaceView, harness: WorkspaceHarness) throws {
        let before = view.completedViewOperations
        view.refresh()
        XCTAssertTrue(harness.pump { view.completedViewOperations > before }, "the views were not read again")
    }

    /// Replaces the pocket's data as another client of the same user would.
    @MainActor
    static func setPocketData(_ data: [String: JSONValue], harness: WorkspaceHarness) throws {
        try WorkspaceHarness.wait { [checker = harness.checker] in
            let pocket = Pocket()
            pocket.setData(data)
            _ = try await checker.auth.savePocket(pocket)
        }
    }
}

/// The views' stored form and the file a session without an identified user keeps them in.
final class SavedViewStoreTests: XCTestCase {
    func testAViewRoundTripsThroughItsJSONAndUnreadableEntriesAreKept() throws {
        let fields = [FilterField(name: "price", kind: .number, isMetadata: false)]
        var tree = FilterTree(try SearchFilters.parse(expression: "price >= 10"), fields: fields)
        tree.tags = [FilterTag(name: "country", value: "es"), FilterTag(name: "beta", value: "")]
        tree.matchesAllTags = true
        let view = try SavedView(
            moduleId: "m1", name: "Spanish beta", tree: tree, sort: InstancePager.Sort(field: .name, order: .ascending))
        XCTAssertEqual(view.id.count, 8)
        XCTAssertEqual(
            view.json,
            [
                "id": .string(view.id), "module": "m1", "name": "Spanish beta", "filter": "price >= 10", "sort": "name asc",
                "tags": ["country=es", "beta="], "allTags": true,
            ])
        XCTAssertEqual(SavedView(json: view.json), view)
        XCTAssertEqual(view.tree(fields: fields), tree)
        XCTAssertNil(SavedView(json: ["id": "x", "module": "m1", "name": "No filter"]))
        XCTAssertNil(SavedView(json: ["id": "x", "module": "m1", "name": "n", "filter": "", "sort": "sideways"]))

        var list = SavedViewList(json: [["written by": "a newer HaloDesk"]])
        list.add(view)
        XCTAssertEqual(list.views, [view])
        list.remove(id: view.id)
        XCTAssertEqual(list.json, [["written by": "a newer HaloDesk"]])
        let data = SavedViewList([view]).stored(in: ["haloDesk": ["theme": "dark"], "other": 1])
        XCTAssertEqual(data["haloDesk"]?["theme"], "dark", "other keys of the app's part are kept")
        XCTAssertEqual(data["other"], 1)
        XCTAssertEqual(SavedViewList(pocketData: data).views, [view])
    }

    func testTheLocalFileKeepsViewsAndADamagedOneIsNeverOverwritten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("views-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = LocalViewStore(baseURL: URL(string: "http://127.0.0.1:8080/halo"), directory: directory)
        XCTAssertFalse(store.followsUser)
        XCTAssertEqual(store.file.lastPathComponent, "http___127_0_0_1_8080_halo.json")
        let empty = try await store.load()
        XCTAssertEqual(empty.views, SavedViewList())
        XCTAssertNil(empty.pocketUsed)
        let view = try SavedView(moduleId: "m1", name: "All", tree: FilterTree(), sort: .recentFirst)
        _ = try await store.change { $0.add(view) }
        let reopened = LocalViewStore(file: store.file)
        let loaded = try await reopened.load()
        XCTAssertEqual(loaded.views.views, [view])

        try Data("{ not json".utf8).write(to: store.file)
        do {
            _ = try await store.change { $0.remove(id: view.id) }
            XCTFail("a damaged file was overwritten")
        } catch {}
        XCTAssertEqual(try String(contentsOf: store.file, encoding: .utf8), "{ not json")
    }
}
