import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The workspace driven through its real widgets against a real local server; every edit is
/// checked on the server through a second SDK client.
final class WorkspaceTests: XCTestCase {
    func testBrowseSortFilterOpenEditValidateAndSave() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            XCTAssertEqual(Set(view.sidebar.modules.compactMap(\.name)), ["Articles", "Authors", "Events", "Products", "Translations"])

            try harness.openModule("Products")
            XCTAssertEqual(view.table.columnView.sortState?.key, "updatedAt", "the default order shows on its header")
            XCTAssertEqual(view.table.columnView.sortState?.ascending, false)
            XCTAssertEqual(view.pager.totalItems, 150)
            XCTAssertEqual(view.table.model.count, 150)
            XCTAssertTrue(view.statusLabel.text.contains("Online"), view.statusLabel.text)
            XCTAssertTrue(view.statusLabel.text.contains("150 instances"), view.statusLabel.text)

            // Modules come with their field definitions, so inputs follow the declared types.
            let products = try XCTUnwrap(view.sidebar.modules.first { $0.name == "Products" })
            let declared = try XCTUnwrap(products.fields, "getModules(withFields: true) should describe the fields")
            XCTAssertEqual(declared.first { $0.name == "price" }?.fieldType?.name, "Number")

            // Header click on "Name" sorts on the server: the first row is the alphabetically first.
            view.table.columnView.sort(byKey: "name", ascending: true)
            XCTAssertTrue(harness.pump { view.pager.sort == .init(field: .name, order: .ascending) && view.pager.instance(at: 0) != nil })
            let names = try harness.serverInstances(module: "Products").map(\.name)
            XCTAssertEqual(view.pager.instance(at: 0)?.name, names.min())
            view.table.columnView.sort(byKey: "name", ascending: false)
            XCTAssertTrue(harness.pump { view.pager.sort.order == .descending && view.pager.instance(at: 0) != nil })
            XCTAssertEqual(view.pager.instance(at: 0)?.name, names.max())

            // Typing in the filter narrows the list (debounced search-changed → metaSearch name like).
            view.searchEntry.text = "Summit"
            XCTAssertTrue(
                harness.pump { view.pager.nameFilter == "Summit" && view.pager.totalItems != nil && view.pager.instance(at: 0) != nil })
            let expected = names.filter { $0.localizedCaseInsensitiveContains("Summit") }.count
            XCTAssertEqual(view.pager.totalItems, expected)
            XCTAssertGreaterThan(expected, 0)
            XCTAssertTrue((0..<expected).allSatisfy { view.pager.instance(at: $0)?.name.contains("Summit") ?? false })

            // Select the first row: the detail pane shows its fields with kinds.
            view.table.columnView.select([0])
            let opened = try XCTUnwrap(view.pager.instance(at: 0))
            XCTAssertTrue(harness.pump { view.editor.instance?.id == opened.id })
            XCTAssertEqual(view.editor.nameEntry.text, opened.name)
            let price = try XCTUnwrap(view.editor.fieldEditor(named: "price", as: EntryFieldEditor.self)?.entry)
            let inStock = try XCTUnwrap(view.editor.fieldEditor(named: "inStock", as: BooleanFieldEditor.self)?.toggle)
            let releaseDate = try XCTUnwrap(view.editor.fieldEditor(named: "releaseDate", as: DateFieldEditor.self)?.input)
            XCTAssertNotNil(releaseDate.button.label.wholeMatch(of: /\d{4}-\d{2}-\d{2}/), "a date-only field: \(releaseDate.button.label)")
            XCTAssertFalse(view.saveButton.isSensitive, "nothing edited yet")

            // A number field refuses text: nothing is sent, the toast says why.
            price.text = "cheap"
            XCTAssertTrue(view.saveButton.isSensitive)
            let before = view.completedOperations
            view.saveButton.click()
            XCTAssertEqual(harness.toasts.last, "“price” must be a number, not “cheap”.")
            XCTAssertEqual(view.editor.problemText(field: "price"), "“price” must be a number, not “cheap”.", "said under the field")
            XCTAssertEqual(view.completedOperations, before)

            // A value only the server refuses (a text over its 1,000 characters): its sentence
            // goes under the field, in words, with no HTTP status anywhere.
            let title = try XCTUnwrap(view.editor.fieldEditor(named: "title", as: EntryFieldEditor.self)?.entry)
            let shownTitle = title.text
            price.text = "42.5"
            title.text = String(repeating: "x", count: 1001)
            var attempt = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: attempt)
            let serverSentence = try XCTUnwrap(view.editor.problemText(field: "title"))
            XCTAssertTrue(serverSentence.contains("1000 characters"), serverSentence)
            XCTAssertNil(view.editor.problemText(field: "price"), "the earlier problem is gone")
            XCTAssertEqual(harness.toasts.last, "Could not save “\(opened.name)”: \(serverSentence)")
            XCTAssertFalse(harness.toasts.contains { $0.contains("HTTP") }, "\(harness.toasts)")
            XCTAssertEqual(title.text.count, 1001, "what was typed is kept")
            try harness.screenshots(name: "workspace-field-error")
            title.text = shownTitle
            attempt = view.completedOperations

            // Valid edits are saved and reach the server.
            price.text = "42.5"
            inStock.isOn = !inStock.isOn
            releaseDate.choose(year: 2027, month: 3, day: 4)
            view.editor.nameEntry.text = "Renamed by the workspace test"
            view.saveButton.click()
            harness.waitForOperation(after: attempt)
            XCTAssertEqual(harness.toasts.last, "Saved “Renamed by the workspace test”.")
            let onServer = try XCTUnwrap(harness.serverInstances(module: "Products").first { $0.id == opened.id })
            XCTAssertEqual(onServer.name, "Renamed by the workspace test")
            XCTAssertEqual(onServer.values["price"], .number(42.5))
            XCTAssertEqual(onServer.values["inStock"], .bool(inStock.isOn))
            XCTAssertEqual(onServer.values["releaseDate"], .number(1_804_118_400_000), "00:00 UTC of 2027-03-04")
            XCTAssertFalse(view.saveButton.isSensitive, "saved: nothing left to save")
            try harness.screenshots(name: "workspace-product")
        }
    }

    /// Rows whose data arrives again (a page refetched, an offline copy brought up to date, a
    /// save) are filled in place: the keyboard focus stays on the list row it was on, so Space
    /// does not reach the Delete button and End / Page Down keep moving in the list.
    func testKeyboardFocusStaysInTheListWhenRowsAreRefreshed() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Authors")
            let root = try XCTUnwrap(gtk_widget_get_root(view.table.columnView.widget))
            let list = view.table.columnView.widget
            func focusIsInTheList() -> Bool {
                guard let focus = gtk_root_get_focus(root) else { return false }
                return gtk_widget_is_ancestor(focus, list) != 0
            }
            // As a click does: the row takes the focus, then the selection follows.
            XCTAssertTrue(view.table.columnView.grabFocus())
            XCTAssertTrue(harness.pump { focusIsInTheList() })
            let focusedRow = gtk_root_get_focus(root)
            view.table.columnView.select([0])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == view.pager.instance(at: 0)?.id })
            XCTAssertTrue(focusIsInTheList(), "opening the instance leaves the focus on its row")
            XCTAssertEqual(gtk_root_get_focus(root), focusedRow)

            // Every loaded row gets new data.
            view.pager.refetch()
            XCTAssertTrue(harness.pump { view.pager.instance(at: 0) != nil })
            MainLoopBridge.iterate(until: { false }, timeout: 0.3)
            XCTAssertTrue(focusIsInTheList(), "the focus left the list")
            XCTAssertFalse(gtk_root_get_focus(root) == view.deleteButton.widget, "Space would open the delete dialog")
            XCTAssertEqual(gtk_root_get_focus(root), focusedRow, "the same row keeps the focus")
            XCTAssertEqual(view.table.columnView.selectedPositions, [0])
        }
    }

    /// The list shows what the filters select (values and metadata), with the name box on top and
    /// the sort kept: the same instances the server gives a second client for the same text.
    func testFiltersNarrowTheListToWhatTheServerAnswers() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            let text = #"price >= 10 and price <= 500 and (inStock = true or title like "abi") and meta.deletedAt = null"#
            let filters = try SearchFilters.parse(expression: text)
            let moduleId = try XCTUnwrap(view.pager.moduleId)
            let checker = harness.checker
            let expected = try WorkspaceHarness.wait {
                try await checker.content.search(
                    query: SearchQuery().moduleIds([moduleId]).filters(filters).addSortBy(field: .updatedAt, order: .descending)
                        .skipPagination()
                ).instances.compactMap(\.id)
            }
            XCTAssertGreaterThan(expected.count, 0)
            XCTAssertLessThan(expected.count, 150, "the filter must narrow the module")

            view.pager.show(moduleId: moduleId, filters: filters)
            XCTAssertTrue(
                harness.pump { view.pager.totalItems == expected.count && view.table.isSettled }, "\(view.pager.totalItems ?? -1)")
            XCTAssertTrue(view.pager.isFiltered)
            XCTAssertTrue(harness.pump { (0..<expected.count).allSatisfy { view.pager.isLoaded(row: $0) } })
            XCTAssertEqual((0..<expected.count).compactMap { view.pager.instance(at: $0)?.id }, expected)
            XCTAssertEqual(view.sidebar.countText(forModuleId: moduleId), "150", "the sidebar keeps the module's own count")

            // The name box narrows further (a metadata condition added to the filters).
            let firstName = try XCTUnwrap(view.pager.instance(at: 0)?.name)
            view.pager.show(moduleId: moduleId, nameFilter: firstName)
            XCTAssertTrue(harness.pump { view.pager.totalItems.map { $0 >= 1 && $0 <= expected.count } ?? false })
            XCTAssertTrue(harness.pump { view.pager.instance(at: 0)?.name == firstName })

            // Another module starts without them.
            view.searchEntry.text = ""
            try harness.openModule("Authors")
            XCTAssertTrue(view.pager.filters.isEmpty)
        }
    }

    func testUnsavedChangesGuardAndDeleteAfterConfirmation() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Authors")
            view.table.columnView.select([0])
            let first = try XCTUnwrap(view.pager.instance(at: 0))
            XCTAssertTrue(harness.pump { view.editor.instance?.id == first.id })

            // Leaving an edited instance asks first; "Cancel" keeps the edit and the selection.
            view.editor.nameEntry.text = "Edited but not saved"
            view.table.columnView.select([1])
            let guardDialog = try XCTUnwrap(view.pendingDialog, "selecting another row with unsaved edits must ask")
            guardDialog.respond(ConfirmationDialog.cancel)
            XCTAssertEqual(view.editor.instance?.id, first.id)
            XCTAssertEqual(view.editor.nameEntry.text, "Edited but not saved")
            XCTAssertEqual(view.table.columnView.selectedPositions, [0])

            // "Discard" moves on and drops the edit; nothing reached the server.
            view.table.columnView.select([1])
            try XCTUnwrap(view.pendingDialog).respond("discard")
            let second = try XCTUnwrap(view.pager.instance(at: 1))
            XCTAssertEqual(view.editor.instance?.id, second.id)
            XCTAssertFalse(try harness.serverInstances(module: "Authors").contains { $0.name == "Edited but not saved" })

            // Delete asks; Cancel keeps it, Delete removes it on the server.
            view.deleteButton.click()
            try XCTUnwrap(view.pendingDialog).respond(ConfirmationDialog.cancel)
            XCTAssertTrue(try harness.serverInstances(module: "Authors").contains { $0.id == second.id })
            let before = view.completedOperations
            view.deleteButton.click()
            try XCTUnwrap(view.pendingDialog).respond("delete")
            harness.waitForOperation(after: before)
            XCTAssertEqual(harness.toasts.last, "Deleted “\(second.name)”.")
            let remaining = try harness.serverInstances(module: "Authors")
            XCTAssertEqual(remaining.count, 9)
            XCTAssertFalse(remaining.contains { $0.id == second.id })
            XCTAssertTrue(harness.pump { view.pager.totalItems == 9 })
        }
    }

    func testCreateInstanceWithValidation() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Authors")
            // Through the window action (Ctrl+N) the shell registers from installActions.
            let actions = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_group_new()))
            let accelerators = view.installActions(on: actions)
            XCTAssertEqual(accelerators.first { $0.action == "win.new-instance" }?.accelerators, ["<Control>n"])
            XCTAssertEqual(
                Set(accelerators.map(\.action)),
                ["win.find", "win.filter", "win.new-instance", "win.save", "win.delete", "win.refresh", "win.favorite"])
            g_action_group_activate_action(OpaquePointer(actions.raw), "new-instance", nil)
            XCTAssertTrue(view.editor.isNew)
            view.saveButton.click()
            XCTAssertEqual(harness.toasts.last, "An instance needs a name.")
            // Delete while typing edits the text; it does not ask to delete the instance.
            view.editor.nameEntry.text = "XKatherine Johnson"
            view.editor.nameEntry.grabFocus()
            gtk_editable_select_region(halo_editable(view.editor.nameEntry.raw), 0, 0)
            g_action_group_activate_action(OpaquePointer(actions.raw), "delete", nil)
            XCTAssertNil(view.pendingDialog)
            XCTAssertEqual(view.editor.nameEntry.text, "Katherine Johnson")
            let photo = try XCTUnwrap(view.editor.fieldEditor(named: "photo", as: EntryFieldEditor.self)?.entry)
            photo.text = "not a url"
            view.saveButton.click()
            XCTAssertEqual(harness.toasts.last, "“photo” must be an http(s) image address.")
            let cloudinary = "https://res.cloudinary.com/demo/image/upload/v1/kj.jpg"
            photo.text = cloudinary
            let before = view.completedOperations
            view.saveButton.click()
            harness.waitForOperation(after: before)
            XCTAssertEqual(harness.toasts.last, "Created “Katherine Johnson”.")
            let created = try XCTUnwrap(harness.serverInstances(module: "Authors").first { $0.name == "Katherine Johnson" })
            XCTAssertEqual(created.values["photo"], .string(cloudinary))
            // The saved instance is shown with a Cloudinary thumbnail address under its image field.
            XCTAssertEqual(view.editor.instance?.id, created.id)
            let caption = try XCTUnwrap(view.editor.imageCaptions["photo"])
            XCTAssertTrue(caption.hasPrefix("Thumbnail: https://res.cloudinary.com/demo/image/upload/"), caption)
            XCTAssertTrue(caption.contains("w_240") && caption.contains("h_160"), caption)
            XCTAssertTrue(harness.pump { view.pager.totalItems == 11 })
            // Recently updated first (the default order): the new instance is the first row.
            XCTAssertTrue(harness.pump { view.pager.instance(at: 0)?.id == created.id }, "\(view.pager.instance(at: 0)?.name ?? "-")")
        }
    }

    func testBulkEditAndBulkDeleteReportEachFailure() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            let chosen = (0..<4).compactMap { view.pager.instance(at: $0) }
            XCTAssertEqual(chosen.count, 4)
            view.table.columnView.select([0, 1, 2, 3])
            XCTAssertTrue(harness.pump { view.bulk.fields.contains { $0.name == "price" } })

            // Another client deletes two of them meanwhile: the batch reports both under one reason,
            // the rest succeed.
            let (gone, alsoGone) = (chosen[2], chosen[3])
            let checker = harness.checker
            _ = try WorkspaceHarness.wait {
                _ = try await checker.content.delete(instanceId: gone.id ?? "")
                _ = try await checker.content.delete(instanceId: alsoGone.id ?? "")
            }

            let priceIndex = try XCTUnwrap(view.bulk.fields.firstIndex { $0.name == "price" })
            view.bulk.fieldChooser.selectedIndex = priceIndex
            view.bulk.valueEntry.text = "not a number"
            view.bulk.applyButton.click()
            XCTAssertEqual(view.bulk.report.text, "“price” must be a number, not “not a number”.")

            view.bulk.valueEntry.text = "9.99"
            var before = view.completedOperations
            view.bulk.applyButton.click()
            harness.waitForOperation(after: before)
            let report = view.bulk.report.text
            let lines = report.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "2 of 4 updated.")
            XCTAssertEqual(lines.count, 2, report)
            XCTAssertTrue(lines.last?.hasSuffix(": “\(gone.name)”, “\(alsoGone.name)”") ?? false, report)
            XCTAssertFalse(report.contains("HTTP"), report)
            // The list reloads (two instances are gone) and the report stays visible.
            XCTAssertTrue(harness.pump { view.pager.totalItems == 148 && view.pager.isLoaded(row: 0) })
            XCTAssertEqual(view.visibleDetail, .bulk)
            let products = try harness.serverInstances(module: "Products")
            for instance in chosen where instance.id != gone.id && instance.id != alsoGone.id {
                XCTAssertEqual(products.first { $0.id == instance.id }?.values["price"], .number(9.99), instance.name)
            }

            // Bulk delete asks, then removes every selected instance through one batch.
            XCTAssertTrue(harness.pump { view.pager.instance(at: 3) != nil })
            let toDelete = (0..<3).compactMap { view.pager.instance(at: $0) }
            view.table.columnView.select([0, 1, 2])
            view.deleteButton.click()
            before = view.completedOperations
            try XCTUnwrap(view.pendingDialog).respond("delete")
            harness.waitForOperation(after: before)
            XCTAssertTrue(view.bulk.report.text.hasPrefix("3 of 3 deleted."), view.bulk.report.text)
            XCTAssertTrue(harness.pump { view.pager.totalItems == 145 })
            XCTAssertEqual(view.visibleDetail, .bulk, "the report stays on screen after the list reloads")
            let left = try harness.serverInstances(module: "Products")
            XCTAssertEqual(left.count, 148 - 3)
            XCTAssertTrue(toDelete.allSatisfy { deleted in !left.contains { $0.id == deleted.id } })
        }
    }

    func testRelationLinkOpensRelatedInstanceAndScreenshots() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Articles")
            view.table.columnView.select([0])
            let article = try XCTUnwrap(view.pager.instance(at: 0))
            XCTAssertTrue(harness.pump { view.editor.instance?.id == article.id })
            let authorId = try XCTUnwrap(article.string("author"))
            let authorButton = try XCTUnwrap(view.editor.relationButtons[authorId]?.first)
            // The link is relabelled with the author's name once resolved.
            XCTAssertTrue(harness.pump { authorButton.label != authorId }, "relation name not resolved")

            try harness.screenshots(name: "workspace-article")
            XCTAssertEqual(view.table.columnView.selectedPositions, [0], "the selection must survive page loads and repaints")
            XCTAssertEqual(view.editor.instance?.id, article.id)

            authorButton.click()
            XCTAssertTrue(harness.pump { view.editor.instance?.id == authorId }, "author not opened; toasts: \(harness.toasts)")
            XCTAssertEqual(view.sidebar.modules.first { $0.id == view.pager.moduleId }?.name, "Authors")
            XCTAssertEqual(view.editor.instance?.name, authorButton.label)

            XCTAssertTrue(harness.pump { view.pager.instance(at: 2) != nil })
            view.table.columnView.select([0, 1, 2])
            XCTAssertEqual(view.table.columnView.selectedPositions, [0, 1, 2])
            XCTAssertTrue(harness.pump { view.bulk.fields.contains { $0.name == "bio" } })
            try harness.screenshots(name: "workspace-bulk")

            // A narrow window folds the leaflet to one pane at a time, with a back button.
            harness.window.setDefaultSize(width: 420, height: 700)
            XCTAssertTrue(harness.pump(timeout: 5) { gtk_widget_get_width(harness.window.widget) < 500 && view.isFolded })
            XCTAssertTrue(view.detailBackButton.isVisible && view.listBackButton.isVisible, "folded panes offer a way back")
            try harness.screenshots(name: "workspace-narrow")
            // Back from the detail: the list pane alone, with its own header bar.
            view.detailBackButton.click()
            harness.pump(timeout: 1.5) { false }  // let the slide finish
            try harness.screenshots(name: "workspace-narrow-list")
        }
    }
}
