import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Favorites as a user meets them: the star in the detail header (and Ctrl+Shift+D) adds the open
/// instance to the pocket's `favorites` list and removes it, checked by another client of the same
/// user on the server; the sidebar's Favorites lists instances of several modules, opens them in
/// their module's editor, skips ids that are no instance, and says how to add some when empty.
final class FavoritesTests: XCTestCase {
    func testTheStarAddsAndRemovesTheOpenInstanceInThePocketOnTheServer() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            // What else the user keeps in the pocket must survive a star.
            try PocketWindowTests.setPocket(data: ["theme": "dark"], references: ["recent": ["x"]], harness: harness)
            try harness.openModule("Products")
            XCTAssertFalse(view.favoriteButton.isVisible, "no instance open: no star")
            view.newButton.click()
            XCTAssertTrue(view.editor.isNew)
            XCTAssertFalse(view.favoriteButton.isVisible, "a new instance cannot be starred before it is saved")
            let first = try XCTUnwrap(view.pager.instance(at: 0))
            view.table.columnView.select([0])
            view.pendingDialog?.respond("discard")  // leaving the new instance asks first
            XCTAssertTrue(harness.pump { view.editor.instance?.id == first.id })

            let product = try Self.open(row: 0, in: harness)
            let id = try XCTUnwrap(product.id)
            XCTAssertTrue(view.favoriteButton.isVisible)
            XCTAssertTrue(view.favoriteButton.isSensitive)
            XCTAssertEqual(view.favoriteButton.iconName, "non-starred-symbolic")
            XCTAssertEqual(view.favoriteButton.tooltip, "Add to Favorites (Ctrl+Shift+D)")
            XCTAssertEqual(Self.accessibleLabelMismatch(view.favoriteButton, "Add to Favorites"), nil)
            try harness.screenshots(name: "favorites-star-off")
            // The pocket window, open meanwhile, follows.
            let pocketWindow = try PocketWindowTests.open(harness)
            let loads = pocketWindow.completedLoads

            var done = view.completedFavoriteOperations
            view.favoriteButton.click()
            XCTAssertTrue(harness.pump { view.completedFavoriteOperations > done })
            XCTAssertTrue(harness.pump { pocketWindow.completedLoads > loads && pocketWindow.editor != nil })
            XCTAssertEqual(pocketWindow.draft?.references.first { $0.name == "favorites" }?.entries, [id])
            pocketWindow.window.close()
            XCTAssertEqual(view.favoriteButton.iconName, "starred-symbolic")
            XCTAssertEqual(view.favoriteButton.tooltip, "Remove from Favorites (Ctrl+Shift+D)")
            XCTAssertEqual(Self.accessibleLabelMismatch(view.favoriteButton, "Remove from Favorites"), nil)
            var pocket = try Self.serverPocket(harness)
            XCTAssertEqual(pocket.references["favorites"], [id])
            XCTAssertEqual(pocket.references["recent"], ["x"], "other lists kept")
            XCTAssertEqual(pocket.data, ["theme": "dark"], "data kept")
            XCTAssertTrue(harness.pump { view.sidebar.favoritesCountText == "1" }, view.sidebar.favoritesCountText ?? "no row")
            try harness.screenshots(name: "favorites-star-on")

            // Ctrl+Shift+D, the window action the shell registers, takes it out again.
            let actions = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_group_new()))
            let accelerators = view.installActions(on: actions)
            XCTAssertEqual(accelerators.first { $0.action == "win.favorite" }?.accelerators, ["<Control><Shift>d"])
            done = view.completedFavoriteOperations
            g_action_group_activate_action(OpaquePointer(actions.raw), "favorite", nil)
            XCTAssertTrue(harness.pump { view.completedFavoriteOperations > done })
            XCTAssertEqual(view.favoriteButton.iconName, "non-starred-symbolic")
            pocket = try Self.serverPocket(harness)
            XCTAssertEqual(pocket.references["favorites"], [])
            XCTAssertEqual(pocket.references["recent"], ["x"])
            XCTAssertEqual(pocket.data, ["theme": "dark"])
            XCTAssertFalse(harness.toasts.contains { $0.contains("Favorites") }, "\(harness.toasts)")

            // A full list: the star says why, and nothing is sent.
            let limit = 1000  // PocketLimits.entriesPerList, the server's and the SDK's
            let full = (0..<limit).map { String(format: "%024x", $0) }
            try PocketWindowTests.setPocket(data: ["theme": "dark"], references: ["favorites": full], harness: harness)
            let before = try Self.serverPocket(harness).revision
            try Self.star(in: harness)
            let toast = try XCTUnwrap(harness.toasts.last)
            XCTAssertTrue(toast.hasPrefix("Could not add “\(product.name)” to Favorites: "), toast)
            XCTAssertTrue(toast.contains("limit is \(limit)"), toast)
            XCTAssertEqual(view.favoriteButton.iconName, "non-starred-symbolic")
            XCTAssertEqual(try Self.serverPocket(harness).revision, before)
        }
    }

    func testFavoritesListsInstancesOfTwoModulesAndOpensThemInTheirEditor() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            // An id that is no instance (deleted meanwhile) is skipped.
            try PocketWindowTests.setPocket(data: [:], references: ["favorites": ["0123456789abcdef01234567"]], harness: harness)
            let done = view.completedFavoriteOperations
            view.loadFavorites()
            XCTAssertTrue(harness.pump { view.completedFavoriteOperations > done })

            try harness.openModule("Products")
            let product = try Self.open(row: 1, in: harness)
            try Self.star(in: harness)
            try harness.openModule("Authors")
            let author = try Self.open(row: 0, in: harness)
            try Self.star(in: harness)
            XCTAssertEqual(
                try Self.serverPocket(harness).references["favorites"],
                ["0123456789abcdef01234567", product.id, author.id].compactMap { $0 })

            view.sidebar.activateFavorites()
            XCTAssertTrue(harness.pump { view.pager.showsInstances && view.pager.totalItems == 2 && view.table.isSettled })
            let listed = (0..<2).compactMap { view.pager.instance(at: $0) }
            XCTAssertEqual(Set(listed.compactMap(\.id)), Set([product.id, author.id].compactMap { $0 }))
            XCTAssertEqual(Set(listed.map(\.moduleId)).count, 2, "two modules in one list")
            XCTAssertEqual(view.sidebar.favoritesCountText, "2")
            XCTAssertEqual(view.listStack.visiblePage, "list")
            XCTAssertFalse(view.newButton.isSensitive, "a new instance needs a module")
            XCTAssertFalse(view.filterButton.isSensitive)
            XCTAssertTrue(view.table.showsModules, "rows of several modules say which")
            try harness.screenshots(name: "favorites-list")

            // Opening one shows it in the editor with its own module's fields, starred.
            let authorRow = try XCTUnwrap(view.pager.loadedRow(ofInstanceId: try XCTUnwrap(author.id)))
            view.table.columnView.select([authorRow])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == author.id })
            XCTAssertEqual(view.detailTitle.title, author.name)
            XCTAssertNotNil(view.editor.imagePreviews["photo"], "the Authors module's image field, in the editor")
            let authorFields = view.fields(for: author).map(\.name)
            XCTAssertTrue(authorFields.contains("bio") && !authorFields.contains("price"), "\(authorFields)")
            XCTAssertEqual(view.favoriteButton.iconName, "starred-symbolic")
            try harness.screenshots(name: "favorites-open")

            // Unstarred from the list: it leaves the list.
            try Self.star(in: harness)
            XCTAssertTrue(harness.pump { view.pager.totalItems == 1 && view.pager.instance(at: 0)?.id == product.id })
            XCTAssertEqual(view.sidebar.favoritesCountText, "1")
            let productRow = try XCTUnwrap(view.pager.loadedRow(ofInstanceId: try XCTUnwrap(product.id)))
            view.table.columnView.select([productRow])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == product.id })
            XCTAssertTrue(view.fields(for: product).contains { $0.name == "price" }, "the Products module's fields")
            XCTAssertTrue(view.editor.imagePreviews.isEmpty, "no Authors field left")
            try Self.star(in: harness)
            XCTAssertTrue(harness.pump { view.pager.totalItems == 0 })
            XCTAssertEqual(view.listStack.visiblePage, "no_favorites")
            XCTAssertEqual(view.sidebar.favoritesCountText, "0")
            try harness.screenshots(name: "favorites-empty")
            XCTAssertEqual(try Self.serverPocket(harness).references["favorites"], ["0123456789abcdef01234567"])

            // Back to a module: its list, and its buttons, again.
            try harness.openModule("Products")
            XCTAssertEqual(view.listStack.visiblePage, "list")
            XCTAssertTrue(view.newButton.isSensitive)
            XCTAssertFalse(view.table.showsModules)
        }
    }

    // MARK: Helpers

    /// Selects the row and waits for the editor to show it.
    @MainActor static func open(row: Int, in harness: WorkspaceHarness) throws -> ContentInstance {
        let instance = try XCTUnwrap(harness.view.pager.instance(at: row))
        harness.view.table.columnView.select([row])
        XCTAssertTrue(harness.pump { harness.view.editor.instance?.id == instance.id })
        return instance
    }

    /// Clicks the star and waits for the pocket to be saved.
    @MainActor static func star(in harness: WorkspaceHarness) throws {
        let done = harness.view.completedFavoriteOperations
        XCTAssertTrue(harness.view.favoriteButton.isVisible && harness.view.favoriteButton.isSensitive)
        harness.view.favoriteButton.click()
        XCTAssertTrue(harness.pump { harness.view.completedFavoriteOperations > done })
    }

    @MainActor static func serverPocket(_ harness: WorkspaceHarness) throws -> Pocket {
        try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
    }

    /// nil when the widget's accessible name is `label`, else what GTK says differs.
    @MainActor static func accessibleLabelMismatch(_ widget: Widget, _ label: String) -> String? {
        guard let message = halo_test_accessible_check_label(halo_accessible(widget.raw), label) else { return nil }
        defer { g_free(message) }
        return String(cString: message)
    }
}
