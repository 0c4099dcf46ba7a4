import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The pocket window, driven as a user drives it: data edited in the structured editor, lists
/// edited (an instance picked by name, Clear List, Delete List, a new list), the review with a
/// Revert, the save read back byte for byte by another client of the same user; an over-limit
/// pocket refused before anything is sent; a pocket saved elsewhere meanwhile shown beside the
/// user's, and Keep Mine.
final class PocketWindowTests: XCTestCase {
    func testEditedReviewedAndSavedPocketReachesAnotherClientByteForByte() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            try harness.openModule("Products")
            let product = try XCTUnwrap(harness.serverInstances(module: "Products").first)
            let productId = try XCTUnwrap(product.id)
            try Self.setPocket(
                data: ["theme": "dark", "count": 3, "nested": ["list": [1, 2]]],
                references: ["favorites": [], "recent": ["a", "b"], "old": ["x"]], harness: harness)

            let window = try Self.open(harness)
            let editor = try XCTUnwrap(window.editor)
            XCTAssertEqual(window.sizeLabel.text, "\(Pocket.dataLength(try XCTUnwrap(window.draft?.dataValue))) of 2,000 characters")
            XCTAssertFalse(window.saveButton.isSensitive, "nothing changed yet")

            // data.theme typed; data.count typed as 12.0 (a number, saved as 12); a new member
            // "code" holding the string +1 (it stays a string); a new boolean member.
            try Self.valueEntry("theme", in: editor).text = "light"
            try Self.valueEntry("count", in: editor).text = "12.0"
            try Self.addMember(named: "code", in: editor).text = "+1"
            let flagEntry = try Self.addMember(named: "enabled", in: editor)
            _ = flagEntry
            let flag = try XCTUnwrap(Self.node("enabled", in: editor))
            XCTAssertTrue(try XCTUnwrap(editor.nodeControls[flag.id]).typePicker.pick("boolean"))
            let flagSwitch = try XCTUnwrap(editor.nodeControls[flag.id]?.valueSwitch)
            flagSwitch.isOn = true
            // A number that is not one is said at its row and keeps Save disabled.
            try Self.valueEntry("count", in: editor).text = "12,5"
            let count = try XCTUnwrap(Self.node("count", in: editor))
            XCTAssertEqual(editor.nodeControls[count.id]?.problemLabel.text, "“12,5” is not a number.")
            XCTAssertFalse(window.saveButton.isSensitive)
            try Self.valueEntry("count", in: editor).text = "12.0"

            // Lists: an instance picked by name into favorites; recent cleared; old deleted; a new list.
            let favorites = try XCTUnwrap(window.listControls["favorites"])
            favorites.picker.open()
            XCTAssertTrue(harness.pump { favorites.picker.completedSearches >= 1 })
            favorites.picker.searchEntry.text = product.name
            XCTAssertTrue(harness.pump { favorites.picker.resultButtons.contains { $0.choice.id == productId } })
            try XCTUnwrap(favorites.picker.resultButtons.first { $0.choice.id == productId }).button.click()
            let pickedRow = try XCTUnwrap(window.listControls["favorites"]?.entries.first?.row)
            XCTAssertEqual(pickedRow.title, product.name, "an instance id shows the instance's name")
            XCTAssertEqual(pickedRow.subtitle, "Products · \(productId)")
            try XCTUnwrap(window.listControls["recent"]).clear.click()
            try XCTUnwrap(window.listControls["old"]).delete.click()
            XCTAssertEqual(window.listControls["old"]?.delete.label, "Keep List")
            window.newListRow.asEditable.text = "tags"
            window.newListRow.activate()
            let tags = try XCTUnwrap(window.listControls["tags"])
            // What the user typed shows as typed: never read as markup.
            tags.addEntryRow.asEditable.text = "summer & <sun>"
            tags.addEntryRow.activate()
            let tagRow = try XCTUnwrap(window.listControls["tags"]?.entries.first?.row)
            XCTAssertEqual(tagRow.title, "summer & <sun>")
            XCTAssertTrue(shownTexts(in: tagRow.widget).contains("summer & <sun>"), "\(shownTexts(in: tagRow.widget))")
            XCTAssertTrue(window.saveButton.isSensitive)
            try GUITestEnvironment.screenshots(of: window.window, named: "pocket-window")

            // The review lists every change, current → new; Revert puts data.theme back.
            window.saveButton.click()
            XCTAssertEqual(
                window.reviewRows.map(\.change.path),
                [
                    "data.code", "data.count", "data.enabled", "data.theme", "references.favorites", "references.old",
                    "references.recent", "references.tags",
                ])
            let theme = try XCTUnwrap(window.reviewRows.first { $0.change.path == "data.theme" })
            XCTAssertEqual(theme.row.subtitle, #""dark" → "light""#)
            // Reference lists read as their entries, an instance id by its name; Clear and Delete in words.
            XCTAssertEqual(window.reviewRows.first { $0.change.path == "references.old" }?.row.subtitle, "x → (list deleted)")
            XCTAssertEqual(window.reviewRows.first { $0.change.path == "references.recent" }?.row.subtitle, "a, b → (empty list)")
            let favoritesChange = try XCTUnwrap(window.reviewRows.first { $0.change.path == "references.favorites" }?.row)
            XCTAssertTrue(favoritesChange.subtitle.hasSuffix(product.name), favoritesChange.subtitle)
            XCTAssertFalse(favoritesChange.subtitle.contains(productId), "no raw id: \(favoritesChange.subtitle)")
            let tagsChange = try XCTUnwrap(window.reviewRows.first { $0.change.path == "references.tags" }?.row)
            XCTAssertTrue(
                shownTexts(in: tagsChange.widget).contains("(none) → summer & <sun>"), "\(shownTexts(in: tagsChange.widget))")
            try GUITestEnvironment.screenshots(of: window.window, named: "pocket-review")
            theme.revert.click()
            XCTAssertFalse(window.reviewRows.contains { $0.change.path == "data.theme" })
            let saves = window.completedSaves
            window.confirmButton.click()
            XCTAssertTrue(harness.pump { window.completedSaves > saves })
            XCTAssertEqual(window.windowTitle.subtitle, "Saved")

            // Another client of the same user reads exactly that.
            let pocket = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(
                JSONValue.object(pocket.data).compactJSONText,
                #"{"code":"+1","count":12,"enabled":true,"nested":{"list":[1,2]},"theme":"dark"}"#)
            XCTAssertEqual(
                pocket.references, ["favorites": [productId], "recent": [], "tags": ["summer & <sun>"]], "old deleted, recent kept empty")
            // The wire: the cleared list is [] and the deleted one gone (it was sent as null).
            XCTAssertEqual(pocket.wireJSON["references"]?["recent"], .array([]))
            XCTAssertNil(pocket.wireJSON["references"]?["old"])
        }
    }

    func testAnOverLimitPocketIsRefusedBeforeAnythingIsSent() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            try Self.setPocket(data: ["note": "short"], references: [:], harness: harness)
            let before = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            let window = try Self.open(harness)
            let editor = try XCTUnwrap(window.editor)
            try Self.valueEntry("note", in: editor).text = String(repeating: "é", count: 2_100)
            XCTAssertFalse(window.saveButton.isSensitive)
            let reason = try XCTUnwrap(window.problemLabel.isVisible ? window.problemLabel.text : nil)
            XCTAssertTrue(reason.hasPrefix("Data is 2,"), reason)
            XCTAssertTrue(reason.contains("over the limit of 2,000"), reason)
            XCTAssertEqual(window.saveButton.tooltip, reason)
            window.review()  // Ctrl+S
            XCTAssertEqual(window.completedSaves, 0, "nothing is sent")
            let after = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(after.revision, before.revision)
            XCTAssertEqual(after.data, ["note": "short"])
            // Undo takes the typing back in one step, and Save is possible again once something changed.
            window.undo()
            XCTAssertEqual(try Self.valueEntry("note", in: editor).text, "short")
            XCTAssertFalse(window.problemLabel.isVisible)
        }
    }

    /// The meter of the whole pocket counts what the server counts, against the limits it
    /// announced: lists near the 262,144 bytes and data of four-byte characters pass the limit, and
    /// Save waits with the reason in words before anything is sent.
    func testTheWholePocketMeterCountsAsTheServerAndSaveWaitsOverTheLimit() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            // Three lists of 87 entries of 250 four-byte characters: 261,853 bytes with the data.
            let entry = String(repeating: "😀", count: 250)
            let lists = Dictionary(uniqueKeysWithValues: (0..<3).map { ("list\($0)", Array(repeating: entry, count: 87)) })
            try Self.setPocket(data: ["note": "short"], references: lists, harness: harness)
            let stored = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            let window = try Self.open(harness)
            XCTAssertEqual(window.draft?.limits, harness.appCore.auth.pocketLimits, "the limits the server announced")
            XCTAssertEqual(harness.appCore.auth.pocketLimits.wholePocketBytes, 262_144)
            XCTAssertEqual(window.pocketSizeLabel.text, "\(DisplayFormat.count(stored.wholeBytes)) of 262,144 bytes used")
            XCTAssertEqual(stored.wholeBytes, 261_853)

            // 1,000 four-byte characters of data: within its 2,000 characters, over the whole pocket's bytes.
            let editor = try XCTUnwrap(window.editor)
            try Self.valueEntry("note", in: editor).text = String(repeating: "😀", count: 1_000)
            let grown = try XCTUnwrap(window.draft?.wholeBytes)
            XCTAssertEqual(grown, stored.wholeBytes - 5 + 4_000)
            XCTAssertEqual(window.pocketSizeLabel.text, "\(DisplayFormat.count(grown)) of 262,144 bytes used")
            XCTAssertEqual(window.sizeLabel.text, "1,011 of 2,000 characters")
            XCTAssertFalse(window.saveButton.isSensitive)
            let reason = try XCTUnwrap(window.problemLabel.isVisible ? window.problemLabel.text : nil)
            XCTAssertEqual(
                reason,
                "The pocket would take \(DisplayFormat.count(grown)) bytes, \(DisplayFormat.count(grown - 262_144)) more than the 262,144 it can hold. Remove entries or data to save."
            )
            XCTAssertEqual(window.saveButton.tooltip, reason)
            try GUITestEnvironment.screenshots(of: window.window, named: "pocket-window-size")
            window.review()
            XCTAssertEqual(window.completedSaves, 0, "nothing is sent")

            // Smaller: saved, and the server's pocket is what the meter said.
            try Self.valueEntry("note", in: editor).text = String(repeating: "😀", count: 20)
            XCTAssertTrue(window.saveButton.isSensitive, window.problemLabel.text)
            let shown = try XCTUnwrap(window.draft?.wholeBytes)
            window.saveButton.click()
            let saves = window.completedSaves
            window.confirmButton.click()
            XCTAssertTrue(harness.pump { window.completedSaves > saves })
            XCTAssertEqual(window.windowTitle.subtitle, "Saved")
            let saved = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(saved.wholeBytes, shown)
        }
    }

    func testAPocketSavedElsewhereIsShownBesideMineAndKeepMineSavesOverIt() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            try Self.setPocket(data: ["theme": "dark"], references: [:], harness: harness)
            let window = try Self.open(harness)
            let editor = try XCTUnwrap(window.editor)
            try Self.valueEntry("theme", in: editor).text = "light"
            // Meanwhile, another computer saves.
            try Self.setPocket(data: ["theme": "blue"], references: [:], harness: harness)
            window.saveButton.click()
            var saves = window.completedSaves
            window.confirmButton.click()
            XCTAssertTrue(harness.pump { window.completedSaves > saves })
            XCTAssertNotNil(window.conflict, "the save was refused: the pocket moved on")
            XCTAssertTrue(window.theirsLabel.text.contains(#""theme": "blue""#), window.theirsLabel.text)
            XCTAssertTrue(window.mineLabel.text.contains(#""theme": "light""#), window.mineLabel.text)
            try GUITestEnvironment.screenshots(of: window.window, named: "pocket-conflict")
            var server = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(server.data, ["theme": "blue"], "nothing was overwritten")

            saves = window.completedSaves
            window.keepMineButton.click()
            XCTAssertTrue(harness.pump { window.completedSaves > saves })
            server = try WorkspaceHarness.wait { [checker = harness.checker] in try await checker.auth.getPocket() }
            XCTAssertEqual(server.data, ["theme": "light"])
            XCTAssertNil(window.conflict)
        }
    }

    /// Offline, the pocket shows from the copy on this computer, said so, and a save is kept for
    /// later (`OfflinePocketTests` follows it to the server).
    func testThePocketIsReadableOffline() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(serverProcess: true)
            defer { harness.tearDown() }
            try Self.setPocket(data: ["theme": "dark"], references: ["favorites": ["a"]], harness: harness)
            let online = try Self.open(harness)
            XCTAssertFalse(online.offlineLabel.isVisible)
            online.window.close()
            XCTAssertTrue(harness.pump { harness.view.pocketWindow?.window.isVisible != true })

            harness.killServer()
            harness.view.refresh()  // F5: a request fails, and the workspace notices the server is gone
            XCTAssertTrue(harness.pump(timeout: 30) { !harness.view.connection.isOnline })
            let window = try Self.open(harness)
            XCTAssertEqual(window.draft?.dataValue, ["theme": "dark"], "the copy of the pocket read online")
            XCTAssertEqual(window.listControls["favorites"]?.entries.map(\.row.title), ["a"])
            XCTAssertTrue(window.offlineLabel.isVisible)
            let editor = try XCTUnwrap(window.editor)
            try Self.valueEntry("theme", in: editor).text = "light"
            XCTAssertTrue(window.saveButton.isSensitive)
            XCTAssertEqual(window.saveButton.tooltip, "Offline: the save is kept on this computer and sent when the server is reachable")
        }
    }

    // MARK: Helpers (main actor: they drive the window)

    @MainActor static func open(_ harness: WorkspaceHarness) throws -> PocketWindow {
        harness.view.showPocket()
        let window = try XCTUnwrap(harness.view.pocketWindow)
        XCTAssertTrue(harness.pump { window.completedLoads >= 1 && window.editor != nil })
        return window
    }

    @MainActor static func setPocket(data: [String: JSONValue], references: [String: [String]], harness: WorkspaceHarness) throws {
        try WorkspaceHarness.wait { [checker = harness.checker] in
            let pocket = Pocket()
            pocket.setData(data)
            for (key, values) in references { pocket.setReferences(key: key, values: values) }
            _ = try await checker.auth.savePocket(pocket)
        }
    }

    @MainActor static func node(_ key: String, in editor: StructuredValueEditor) -> JSONDraftNode? {
        guard case .object(let members) = editor.draft.root.content else { return nil }
        return members.first { $0.key == key }?.value
    }

    @MainActor static func valueEntry(_ key: String, in editor: StructuredValueEditor) throws -> Editable {
        let node = try XCTUnwrap(node(key, in: editor), "no member \(key)")
        return try XCTUnwrap(editor.nodeControls[node.id]?.valueEntry, "\(key) has no text input")
    }

    /// Adds a member to data with the root's Add Member button and names it; returns its value input.
    @MainActor static func addMember(named key: String, in editor: StructuredValueEditor) throws -> Editable {
        try XCTUnwrap(editor.nodeControls[editor.draft.root.id]?.addButton).click()
        let added = try XCTUnwrap(node("key", in: editor))
        try XCTUnwrap(editor.nodeControls[added.id]?.keyEntry).text = key
        return try valueEntry(key, in: editor)
    }
}
