import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The filter builder, driven as a user drives it: the Filter button, the pickers' option
/// buttons, the value inputs, the node menus, the text form, Apply, Clear, undo and redo.
final class FilterBuilderTests: XCTestCase {
    static let doneWhen = #"price >= 10 and price <= 500 and (inStock = true or title like "abi")"#

    /// The issue's filter built by clicking lists what `halo search --filter` returns for the same
    /// text, online and again with the server stopped (from the offline copy).
    func testTheFilterBuiltByClickingListsWhatHaloSearchReturnsOnlineAndOffline() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(serverProcess: true)
            defer { harness.tearDown() }
            let view = harness.view
            try harness.openModule("Products")
            XCTAssertTrue(
                harness.pump(timeout: 60) { view.offlineCopies.completedSyncs >= 2 && view.offlineCopies.progress == nil },
                "the copies of Articles and Products were not made")
            let expected = try harness.haloSearch(module: "Products", filter: Self.doneWhen)
            XCTAssertGreaterThan(expected.count, 0)
            XCTAssertLessThan(expected.count, 150, "the filter must narrow the module")

            XCTAssertEqual(view.filterButton.label, "Filter")
            let builder = try Self.openBuilder(in: harness)
            let root = builder.tree.root.id

            // price >= 10, price <= 500
            let first = try Self.addCondition(to: root, in: builder)
            try Self.choose(field: "price", operation: "is at least", in: builder, condition: first)
            try Self.type("10", into: first, in: builder)
            let second = try Self.addCondition(to: root, in: builder)
            try Self.choose(field: "price", operation: "is at most", in: builder, condition: second)
            try Self.type("500", into: second, in: builder)
            // (inStock = true or title like "abi"): a new group matches any of its conditions.
            try XCTUnwrap(builder.nodeControls[root]?.addGroup).click()
            let group = try XCTUnwrap(builder.tree.root.childIds.last)
            XCTAssertTrue(try XCTUnwrap(builder.nodeControls[group]?.matchAny).isActiveToggle)
            let third = try XCTUnwrap(builder.tree.node(group)?.childIds.first)
            try Self.choose(field: "inStock", operation: "is", in: builder, condition: third)
            guard case .toggle(let toggle)? = builder.nodeControls[third]?.valueEditor?.input else { return XCTFail("no switch") }
            XCTAssertTrue(toggle.isOn, "the switch shows the value the condition holds")
            try XCTUnwrap(builder.nodeControls[group]?.addCondition).click()
            let fourth = try XCTUnwrap(builder.tree.node(group)?.childIds.last)
            try Self.choose(field: "title", operation: "contains", in: builder, condition: fourth)
            try Self.type("ab", into: fourth, in: builder)
            XCTAssertEqual(
                builder.nodeControls[fourth]?.problemLabel?.text, "Type at least 3 characters: HALO finds text by 3 or more.")
            XCTAssertFalse(builder.applyButton.isSensitive, "an incomplete condition is not applied")
            try Self.type("abi", into: fourth, in: builder)

            // The text form follows the tree, and the live count the server's answer.
            XCTAssertEqual(builder.textView.text, try SearchFilters.parse(expression: Self.doneWhen).expression)
            XCTAssertTrue(builder.applyButton.isSensitive)
            XCTAssertTrue(harness.pump { builder.liveCount?.total == expected.count }, "\(builder.liveCount?.total ?? -1)")
            XCTAssertEqual(builder.liveCount?.offline, false)
            XCTAssertTrue(builder.requestView.text.contains(#""searchValues""#), builder.requestView.text)

            builder.applyButton.click()
            XCTAssertEqual(view.filterButton.label, "Filter · 4")
            try Self.assertRows(expected, in: harness)

            // Server stopped: Clear shows the whole module from the copy, undo brings the
            // conditions back, and Apply lists the same instances as the server did.
            harness.killServer()
            builder.clearButton.click()
            XCTAssertEqual(view.filterButton.label, "Filter")
            XCTAssertTrue(harness.pump(timeout: 30) { view.pager.totalItems == 150 }, "\(view.pager.totalItems ?? -1)")
            XCTAssertTrue(harness.pump(timeout: 30) { !view.connection.isOnline })
            let counted = builder.completedCounts
            builder.undoButton.click()
            XCTAssertEqual(builder.tree.conditionCount, 4)
            XCTAssertTrue(harness.pump(timeout: 30) { builder.completedCounts > counted })
            XCTAssertEqual(builder.liveCount?.total, expected.count)
            XCTAssertEqual(builder.liveCount?.offline, true)
            XCTAssertTrue(builder.windowTitle.subtitle.contains("offline copy"), builder.windowTitle.subtitle)
            builder.applyButton.click()
            try Self.assertRows(expected, in: harness)

            XCTAssertEqual(AccessibilityAudit.unnamedControls(in: builder.window.widget), [], "every control has a name")
            try GUITestEnvironment.screenshots(of: builder.window, named: "filter-builder")
            builder.window.setDefaultSize(width: 360, height: 720)
            try GUITestEnvironment.screenshots(of: builder.window, named: "filter-builder-narrow")
        }
    }

    /// Editing: a field change clears a value that no longer fits and says so; the text form
    /// becomes the tree, a syntax error points at its character and keeps the tree; move,
    /// duplicate and delete by the node menu and by the keyboard shortcuts; undo and redo.
    func testEditingTheTreeAndTheTextForm() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            try harness.openModule("Products")
            let builder = try Self.openBuilder(in: harness)
            let root = builder.tree.root.id

            let price = try Self.addCondition(to: root, in: builder)
            try Self.choose(field: "price", operation: "is at least", in: builder, condition: price)
            try Self.type("12.5", into: price, in: builder)
            XCTAssertEqual(builder.textView.text, "price >= 12.5")
            // The spin takes no text that is not a number: nothing is entered, and the condition says so.
            try Self.type("12,5x", into: price, in: builder)
            guard case .number(let spin)? = builder.nodeControls[price]?.valueEditor?.input else { return XCTFail("no spin") }
            XCTAssertEqual(spin.text, "")
            XCTAssertEqual(builder.nodeControls[price]?.problemLabel?.text, "Enter a value.")
            XCTAssertFalse(builder.applyButton.isSensitive)
            XCTAssertThrowsError(
                try FilterValueEditor.value(typed: "1.2.3", for: FilterField(name: "price", kind: .number, isMetadata: false)))
            try Self.type("12.5", into: price, in: builder)

            // Another field: "is at least" and 12.5 do not fit a text field; both go, visibly.
            try XCTUnwrap(builder.nodeControls[price]?.fieldPicker).pick("title")
            guard case .condition(let changed)? = builder.tree.node(price)?.content else { return XCTFail() }
            XCTAssertEqual(changed.operation, .contains)
            XCTAssertEqual(changed.value, .none)
            XCTAssertEqual(builder.nodeControls[price]?.problemLabel?.text, "Enter a value.")
            builder.undoButton.click()
            XCTAssertEqual(builder.textView.text, "price >= 12.5")
            builder.redoButton.click()
            builder.undoButton.click()

            // The text form: a valid text becomes the tree; an error keeps it and points at the character.
            builder.textView.text = #"size = "M" or meta.name like "abc""#
            builder.readText()
            XCTAssertTrue(builder.textStatusLabel.isVisible, "a metadata condition cannot be in an 'or' with values")
            XCTAssertTrue(builder.textStatusLabel.text.contains("character 15"), builder.textStatusLabel.text)
            XCTAssertEqual(builder.tree.conditionCount, 1, "the tree keeps its last valid state")
            builder.textView.text = #"size in ["M", "L"] and releaseDate >= @2024-05-01 and meta.name like "abc""#
            builder.readText()
            XCTAssertFalse(builder.textStatusLabel.isVisible, builder.textStatusLabel.text)
            XCTAssertEqual(builder.tree.conditionCount, 3)
            let ids = builder.tree.root.childIds
            guard case .chips(let chips)? = builder.nodeControls[ids[0]]?.valueEditor?.input else { return XCTFail("no chips") }
            XCTAssertEqual(chips.chips.map(\.value), ["M", "L"])
            guard case .date(let date)? = builder.nodeControls[ids[1]]?.valueEditor?.input else { return XCTFail("no date") }
            XCTAssertEqual(date.button.label, "2024-05-01 00:00")
            chips.chips[0].removeButton.click()
            XCTAssertTrue(builder.textView.text.hasPrefix(#"size in ["L"]"#), builder.textView.text)
            builder.textView.text = "price >= "
            builder.readText()
            XCTAssertTrue(builder.textStatusLabel.text.contains("Expected a value at the end"), builder.textStatusLabel.text)
            XCTAssertEqual(builder.tree.conditionCount, 3)

            // The node menu and the shortcuts move, duplicate and delete.
            try XCTUnwrap(builder.nodeControls[ids[2]]?.menuItems["Move Up"]).click()
            XCTAssertEqual(builder.tree.root.childIds, [ids[0], ids[2], ids[1]])
            XCTAssertFalse(try XCTUnwrap(builder.nodeControls[ids[0]]?.menuItems["Move Up"]).isSensitive)
            builder.nodeControls[ids[1]]?.menuButton?.grabFocus()
            XCTAssertEqual(builder.focusedNode, ids[1])
            _ = gtk_widget_activate_action_variant(builder.window.widget, "filter.move-up", nil)
            XCTAssertEqual(builder.tree.root.childIds, [ids[0], ids[1], ids[2]])
            XCTAssertEqual(builder.focusedNode, ids[1], "the keyboard stays on the moved condition")
            _ = gtk_widget_activate_action_variant(builder.window.widget, "filter.duplicate", nil)
            XCTAssertEqual(builder.tree.conditionCount, 4)
            try XCTUnwrap(builder.nodeControls[ids[0]]?.menuItems["Delete"]).click()
            XCTAssertEqual(builder.tree.conditionCount, 3)
            builder.undoButton.click()
            XCTAssertEqual(builder.tree.root.childIds.first, ids[0])

            // The tags section: a tag with a name narrows the list to tagged instances.
            builder.addTagButton.click()
            XCTAssertFalse(builder.applyButton.isSensitive, "a tag needs a name")
            builder.tagRows[0].name.text = "market"
            builder.tagRows[0].value.text = "es"
            XCTAssertTrue(builder.requestView.text.contains(#""segmentTags""#), builder.requestView.text)

            // A filter the builder accepts but the server refuses (a `like` pattern over its
            // 1,000-character limit): the refusal is said at the builder, and Apply waits.
            builder.tagRows[0].remove.click()
            builder.textView.text = "title like \"\(String(repeating: "abc", count: 400))\""
            builder.readText()
            XCTAssertTrue(builder.applyButton.isSensitive, "nothing the builder itself can flag")
            let counted = builder.completedCounts
            XCTAssertTrue(harness.pump { builder.completedCounts > counted })
            XCTAssertTrue(builder.problemLabel.isVisible)
            XCTAssertTrue(builder.problemLabel.text.hasPrefix("The search was refused: "), builder.problemLabel.text)
            XCTAssertTrue(builder.problemLabel.text.contains("1000"), builder.problemLabel.text)
            XCTAssertFalse(builder.applyButton.isSensitive)
            XCTAssertEqual(builder.windowTitle.subtitle, "Could not count the matches")
            builder.textView.text = #"title like "abc""#
            builder.readText()
            XCTAssertTrue(builder.applyButton.isSensitive)
            XCTAssertTrue(harness.pump { builder.completedCounts > counted + 1 && !builder.problemLabel.isVisible })
        }
    }

    /// A relation is chosen by name with the search-as-you-type picker, and a date with the
    /// calendar: the list then shows what the server answers for the same text.
    func testRelationsAndDatesAreChosenWithPickers() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            try harness.openModule("Articles")
            let article = try XCTUnwrap(try harness.serverInstances(module: "Articles").first { $0.values["author"]?.stringValue != nil })
            let authorId = try XCTUnwrap(article.values["author"]?.stringValue)
            let author = try XCTUnwrap(try harness.serverInstances(module: "Authors").first { $0.id == authorId })
            let builder = try Self.openBuilder(in: harness)
            let root = builder.tree.root.id

            let relation = try Self.addCondition(to: root, in: builder)
            try Self.choose(field: "author", operation: "is", in: builder, condition: relation)
            guard case .instance(let picker)? = builder.nodeControls[relation]?.valueEditor?.input else { return XCTFail("no picker") }
            picker.open()
            XCTAssertTrue(harness.pump { picker.completedSearches >= 1 })
            XCTAssertEqual(picker.status.text, "Recently updated")
            picker.searchEntry.text = String(author.name.prefix(2))
            XCTAssertTrue(harness.pump { picker.status.text == "Type at least 3 characters of the name." })
            picker.searchEntry.text = author.name
            XCTAssertTrue(harness.pump { picker.resultButtons.contains { $0.choice.id == authorId } }, picker.status.text)
            let result = try XCTUnwrap(picker.resultButtons.first { $0.choice.id == authorId })
            XCTAssertEqual(result.choice.label, "\(author.name) — Authors")
            result.button.click()
            XCTAssertEqual(picker.button.label, author.name, "the picker shows the name, not the id")
            XCTAssertEqual(builder.textView.text, #"author = "\#(authorId)""#)

            let updated = try Self.addCondition(to: root, in: builder)
            try Self.choose(field: "Updated", operation: "is at least", in: builder, condition: updated)
            guard case .date(let date)? = builder.nodeControls[updated]?.valueEditor?.input else { return XCTFail("no date") }
            date.choose(year: 2000, month: 1, day: 1, time: "08:30")
            XCTAssertEqual(date.button.label, "2000-01-01 08:30")
            date.timeEntry.text = "8h"
            XCTAssertEqual(builder.nodeControls[updated]?.problemLabel?.text, "Write the time of day as HH:mm, like 14:30.")
            XCTAssertFalse(builder.applyButton.isSensitive)
            date.timeEntry.text = ""
            XCTAssertTrue(builder.textView.text.hasPrefix(#"author = "\#(authorId)" and meta.updatedAt >= @"#), builder.textView.text)

            let expected = try WorkspaceHarness.wait {
                [checker = harness.checker, moduleId = article.moduleId, text = builder.textView.text] in
                try await checker.content.search(
                    query: SearchQuery().moduleIds([moduleId]).filters(try SearchFilters.parse(expression: text))
                        .addSortBy(field: .updatedAt, order: .descending).skipPagination()
                ).instances.compactMap(\.id)
            }
            XCTAssertTrue(expected.contains(try XCTUnwrap(article.id)))
            builder.applyButton.click()
            try Self.assertRows(expected, in: harness)
        }
    }

    // MARK: Steps a user takes

    /// Clicks the Filter button and waits for the builder on screen.
    @MainActor
    static func openBuilder(in harness: WorkspaceHarness) throws -> FilterBuilderWindow {
        harness.view.filterButton.click()
        let shown = harness.view.filterBuilder
        let builder = try XCTUnwrap(shown)
        XCTAssertTrue(harness.pump { builder.window.isMapped })
        return builder
    }

    /// Clicks the group's Add Condition and returns the new condition's id.
    @MainActor
    static func addCondition(to group: Int, in builder: FilterBuilderWindow) throws -> Int {
        let button = builder.nodeControls[group]?.addCondition
        try XCTUnwrap(button).click()
        let added = builder.tree.node(group)?.childIds.last
        return try XCTUnwrap(added)
    }

    /// Picks the field, then the comparison, by clicking their options.
    @MainActor
    static func choose(field: String, operation: String, in builder: FilterBuilderWindow, condition: Int) throws {
        let fieldPicker = builder.nodeControls[condition]?.fieldPicker
        let pickedField = try XCTUnwrap(fieldPicker).pick(field)
        XCTAssertTrue(pickedField, "no field \(field)")
        let operatorPicker = builder.nodeControls[condition]?.operatorPicker
        let pickedOperator = try XCTUnwrap(operatorPicker).pick(operation)
        XCTAssertTrue(pickedOperator, "no comparison \(operation)")
    }

    /// Types into the condition's value input (a number spin or a text entry).
    @MainActor
    static func type(_ text: String, into condition: Int, in builder: FilterBuilderWindow) throws {
        switch builder.nodeControls[condition]?.valueEditor?.input {
        case .number(let spin)?: spin.text = text
        case .entry(let entry)?: entry.text = text
        default: XCTFail("condition \(condition) has no text input")
        }
    }

    @MainActor
    static func assertRows(
        _ expected: [String], in harness: WorkspaceHarness, view: WorkspaceView? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let view = view ?? harness.view
        let loaded = harness.pump(timeout: 30) {
            view.pager.totalItems == expected.count && (0..<expected.count).allSatisfy { view.pager.isLoaded(row: $0) }
        }
        let total = view.pager.totalItems ?? -1
        XCTAssertTrue(loaded, "\(total) rows, \(expected.count) expected", file: file, line: line)
        let shown = (0..<expected.count).compactMap { view.pager.instance(at: $0)?.id }
        XCTAssertEqual(shown, expected, file: file, line: line)
    }
}

extension FilterNode {
    /// The ids of a group's direct children.
    var childIds: [Int] { if case .group(_, let children) = content { children.map(\.id) } else { [] } }
}

extension Button {
    var isActiveToggle: Bool { gtk_toggle_button_get_active(raw.assumingMemoryBound(to: GtkToggleButton.self)) != 0 }
}
