import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Issue 14's field editors, driven through their real widgets against a real server: one field
/// of every HALO type in the demo modules is edited as a user would (pickers, check buttons,
/// calendar, the structured tree, rows per language), bad input is refused at its field before
/// anything is sent and nothing typed is lost, and a second client reads exactly those values
/// and types from the server.
final class FieldEditorsTests: XCTestCase {
    func testProductFieldsOfEveryKindReachTheServer() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let editor = harness.view.editor
            let product = try Self.open("Products", in: harness)
            try Self.screenshots(of: editor, in: harness, named: "field-editors-product")

            // Number: refused at the field as it is typed, and at Save (nothing sent).
            let price = try XCTUnwrap(editor.fieldEditor(named: "price", as: EntryFieldEditor.self))
            price.entry.text = "12,5x"
            XCTAssertEqual(editor.problemText(field: "price"), "“price” must be a number, not “12,5x”.")
            XCTAssertTrue(price.entry.hasCSSClass("error"))
            try Self.saveIsRefused(in: harness, field: "price")
            XCTAssertEqual(price.entry.text, "12,5x", "what was typed is kept")
            price.entry.text = "19.99"
            XCTAssertNil(editor.problemText(field: "price"))

            // Color: the hex code and the swatch follow each other.
            let color = try XCTUnwrap(editor.fieldEditor(named: "color", as: ColorFieldEditor.self))
            color.hexEntry.text = "teal"
            XCTAssertEqual(
                editor.problemText(field: "color"),
                "“color” must be a color written as # and 3, 6 or 8 hex digits, like #1a73e8; “teal” is not one.")
            try Self.saveIsRefused(in: harness, field: "color")
            color.hexEntry.text = "#00897b"
            XCTAssertEqual(color.swatch.hex, "#00897b")
            XCTAssertNil(editor.problemText(field: "color"))

            // Boolean, choices, a date without a time, links.
            let inStock = try XCTUnwrap(editor.fieldEditor(named: "inStock", as: BooleanFieldEditor.self))
            inStock.toggle.isOn = !(product.values["inStock"]?.boolValue ?? false)
            let size = try XCTUnwrap(editor.fieldEditor(named: "size", as: ChoiceFieldEditor.self))
            XCTAssertEqual(size.picker.options, ["S", "M", "L", "XL"])
            let newSize = product.values["size"]?.stringValue == "XL" ? "S" : "XL"
            XCTAssertTrue(size.picker.pick(newSize))
            let features = try XCTUnwrap(editor.fieldEditor(named: "features", as: MultipleChoiceFieldEditor.self))
            XCTAssertEqual(features.checks.map(\.choice), ["waterproof", "recycled", "wireless", "organic"])
            features.checks.forEach { $0.button.isActive = ["recycled", "organic"].contains($0.choice) }
            let releaseDate = try XCTUnwrap(editor.fieldEditor(named: "releaseDate", as: DateFieldEditor.self))
            XCTAssertFalse(releaseDate.input.timeEntry.isVisible, "a date-only field has no time of day")
            releaseDate.input.choose(year: 2027, month: 3, day: 4)
            XCTAssertEqual(releaseDate.input.button.label, "2027-03-04")
            let manual = try XCTUnwrap(editor.fieldEditor(named: "manual", as: EntryFieldEditor.self))
            let play = try XCTUnwrap(manual.openButton, "a video link has a Play button")
            XCTAssertEqual(play.tooltip, "Play in your browser or media player")
            manual.entry.text = "videos.example.com/manual.mp4"
            XCTAssertFalse(play.isSensitive, "nothing to play while the address is not one")
            try Self.saveIsRefused(in: harness, field: "manual")
            manual.entry.text = "https://videos.example.com/manual-2.mp4"
            XCTAssertTrue(play.isSensitive)
            var opened: [String] = []
            editor.onOpenLink = { opened.append($0) }
            play.click()
            XCTAssertEqual(opened, ["https://videos.example.com/manual-2.mp4"], "Play opens the address typed")
            let jingle = try XCTUnwrap(editor.fieldEditor(named: "jingle", as: EntryFieldEditor.self))
            jingle.entry.text = "https://audio.example.com/new-jingle.mp3"

            // Object and list in the structured editor: a member added, an item added, no JSON typed.
            let specs = try XCTUnwrap(editor.fieldEditor(named: "specs", as: StructuredFieldEditor.self))
            try PocketWindowTests.addMember(named: "origin", in: specs.editor).text = "Portugal"
            try PocketWindowTests.valueEntry("weight", in: specs.editor).text = "12.0"
            let sizes = try XCTUnwrap(editor.fieldEditor(named: "sizes", as: StructuredFieldEditor.self))
            try XCTUnwrap(sizes.editor.nodeControls[sizes.editor.draft.root.id]?.addButton).click()
            let added = try XCTUnwrap(sizes.editor.draft.root.children.last)
            try XCTUnwrap(sizes.editor.nodeControls[added.id]?.valueEntry).text = "XXL"
            XCTAssertTrue(specs.undoButton.isSensitive)

            try Self.save(in: harness)
            let stored = try XCTUnwrap(harness.serverInstances(module: "Products").first { $0.id == product.id })
            XCTAssertEqual(stored.values["price"], .number(19.99))
            XCTAssertEqual(stored.values["color"], "#00897b")
            XCTAssertEqual(stored.values["inStock"], .bool(!(product.values["inStock"]?.boolValue ?? false)))
            XCTAssertEqual(stored.values["size"], .string(newSize))
            XCTAssertEqual(Set(stored.values["features"]?.arrayValue ?? []), ["recycled", "organic"])
            XCTAssertEqual(stored.values["releaseDate"], .number(1_804_118_400_000), "00:00 UTC of 2027-03-04")
            XCTAssertEqual(stored.values["manual"], "https://videos.example.com/manual-2.mp4")
            XCTAssertEqual(stored.values["jingle"], "https://audio.example.com/new-jingle.mp3")
            var expectedSpecs = try XCTUnwrap(product.values["specs"]?.objectValue)
            expectedSpecs["origin"] = "Portugal"
            expectedSpecs["weight"] = .number(12)
            XCTAssertEqual(stored.values["specs"], .object(expectedSpecs), "a number typed as 12.0 is the number 12")
            XCTAssertEqual(stored.values["sizes"], .array((product.values["sizes"]?.arrayValue ?? []) + ["XXL"]))
            XCTAssertEqual(stored.values["title"], product.values["title"], "a field not touched keeps its value")
        }
    }

    func testArticleFieldsOfEveryKindReachTheServer() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let editor = harness.view.editor
            let article = try Self.open("Articles", in: harness)
            let authors = try harness.serverInstances(module: "Authors")

            // Localized text: one row per locale, by name; a locale added, one removed.
            let title = try XCTUnwrap(editor.fieldEditor(named: "title", as: LocalizedTextFieldEditor.self))
            XCTAssertEqual(title.rows.map(\.code), ["en-US", "es-ES", "nl-NL"])
            XCTAssertEqual(title.rows[1].entry.text, article.values["title"]?["es-ES"]?.stringValue)
            XCTAssertTrue(shownTexts(in: title.widget.widget).contains("Spanish (Spain)"), "\(shownTexts(in: title.widget.widget))")
            title.addEntry.text = "english"
            title.addButton.click()
            XCTAssertEqual(
                editor.problemText(field: "title"), "“english” is not a locale: write a language code and a country, like fr-FR.")
            title.addEntry.text = "fr-FR"
            title.addButton.click()
            XCTAssertNil(editor.problemText(field: "title"))
            XCTAssertEqual(title.rows.map(\.code), ["en-US", "es-ES", "nl-NL", "fr-FR"])
            title.rows[3].entry.text = "Bonjour & bienvenue"
            title.rows[0].entry.text = "Hello & welcome"
            title.rows[2].removeButton.click()
            XCTAssertEqual(title.rows.map(\.code), ["en-US", "es-ES", "fr-FR"])

            // Long text with a preview of the HTML's text.
            let body = try XCTUnwrap(editor.fieldEditor(named: "body", as: LongTextFieldEditor.self))
            body.textView.text = "<h2>Oak &amp; steel</h2><p>Built to last.</p>"
            XCTAssertEqual(body.preview.text, "Oak & steel\nBuilt to last.")
            XCTAssertTrue(body.preview.isVisible)

            // Relations by name: the author changed through the picker, a related article removed
            // and another added.
            let author = try XCTUnwrap(editor.fieldEditor(named: "author", as: RelationFieldEditor.self))
            XCTAssertTrue(harness.pump { author.chips.chips.first?.nameButton?.label != article.values["author"]?.stringValue })
            let newAuthor = try XCTUnwrap(authors.first { $0.id != article.values["author"]?.stringValue })
            try Self.pick(newAuthor, with: author.picker, in: harness)
            XCTAssertEqual(author.chips.chips.map(\.value), [newAuthor.id])
            XCTAssertEqual(author.chips.chips.first?.nameButton?.label, newAuthor.name)
            let related = try XCTUnwrap(editor.fieldEditor(named: "related", as: RelationFieldEditor.self))
            let before = related.ids
            XCTAssertFalse(before.isEmpty)
            related.chips.chips[0].removeButton.click()
            let other = try XCTUnwrap(
                harness.serverInstances(module: "Articles").first { $0.id != article.id && !before.contains($0.id ?? "") })
            try Self.pick(other, with: related.picker, in: harness)

            // Choices, links and a YouTube address that is not one.
            let topics = try XCTUnwrap(editor.fieldEditor(named: "topics", as: MultipleChoiceFieldEditor.self))
            topics.checks.forEach { $0.button.isActive = ["design", "science"].contains($0.choice) }
            let category = try XCTUnwrap(editor.fieldEditor(named: "category", as: ChoiceFieldEditor.self))
            let newCategory = article.values["category"]?.stringValue == "guide" ? "news" : "guide"
            XCTAssertTrue(category.picker.pick(newCategory))
            let video = try XCTUnwrap(editor.fieldEditor(named: "video", as: EntryFieldEditor.self))
            video.entry.text = "https://vimeo.com/1234"
            try Self.saveIsRefused(in: harness, field: "video")
            video.entry.text = "https://youtu.be/abc123"
            try XCTUnwrap(editor.fieldEditor(named: "link", as: EntryFieldEditor.self)).entry.text = "https://example.com/new"
            try XCTUnwrap(editor.fieldEditor(named: "cover", as: EntryFieldEditor.self)).entry.text =
                "https://picsum.photos/seed/x/1200/600"
            try XCTUnwrap(editor.fieldEditor(named: "featured", as: BooleanFieldEditor.self)).toggle.isOn = true
            try XCTUnwrap(editor.fieldEditor(named: "summary", as: EntryFieldEditor.self)).entry.text = "A new summary."
            try Self.screenshots(of: editor, in: harness, named: "field-editors-article")

            try Self.save(in: harness)
            let stored = try XCTUnwrap(harness.serverInstances(module: "Articles").first { $0.id == article.id })
            var expectedTitle = try XCTUnwrap(article.values["title"]?.objectValue)
            expectedTitle["en-US"] = "Hello & welcome"
            expectedTitle["fr-FR"] = "Bonjour & bienvenue"
            expectedTitle["nl-NL"] = nil
            XCTAssertEqual(stored.values["title"], .object(expectedTitle))
            XCTAssertEqual(stored.values["body"], "<h2>Oak &amp; steel</h2><p>Built to last.</p>")
            XCTAssertEqual(stored.values["author"], .string(try XCTUnwrap(newAuthor.id)), "a single relation is one id")
            XCTAssertEqual(stored.values["related"], .array((Array(before.dropFirst()) + [try XCTUnwrap(other.id)]).map(JSONValue.string)))
            XCTAssertEqual(Set(stored.values["topics"]?.arrayValue ?? []), ["design", "science"])
            XCTAssertEqual(stored.values["category"], .string(newCategory))
            XCTAssertEqual(stored.values["video"], "https://youtu.be/abc123")
            XCTAssertEqual(stored.values["link"], "https://example.com/new")
            XCTAssertEqual(stored.values["cover"], "https://picsum.photos/seed/x/1200/600")
            XCTAssertEqual(stored.values["featured"], .bool(true))
            XCTAssertEqual(stored.values["summary"], "A new summary.")
        }
    }

    /// A date and time picked in the user's time zone, a time of day typed, and the values that
    /// reach the server; then the same instance opened under another time zone shows the same
    /// time of day and, saved untouched, keeps every millisecond.
    func testEventDatesAndTimesOfDay() throws {
        try MainActor.assumeIsolated {
            let zones = TimeZoneSwitch()
            defer { zones.restore() }
            zones.use("America/New_York")
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let editor = harness.view.editor
            let event = try Self.open("Events", in: harness)

            let doors = try XCTUnwrap(editor.fieldEditor(named: "doors", as: EntryFieldEditor.self))
            XCTAssertEqual(doors.entry.text, FieldValueText.display(event.values["doors"], kind: .time))
            doors.entry.text = "25:00"
            XCTAssertEqual(editor.problemText(field: "doors"), "“doors” must be a time of day like 19:30, not “25:00”.")
            try Self.saveIsRefused(in: harness, field: "doors")
            doors.entry.text = "18:45"
            let starts = try XCTUnwrap(editor.fieldEditor(named: "starts", as: DateFieldEditor.self))
            // 8 March 2026 is the night New York moves its clocks: 03:30 is EDT (07:30 UTC).
            starts.input.choose(year: 2026, month: 3, day: 8, time: "03:30")
            starts.input.timeEntry.text = "3h30"
            XCTAssertEqual(editor.problemText(field: "starts"), "“starts”: Write the time of day as HH:mm, like 14:30.")
            try Self.saveIsRefused(in: harness, field: "starts")
            starts.input.timeEntry.text = "03:30"
            // The day can be typed too (the calendar follows); a day that does not exist is
            // refused at the field, and nothing typed is lost.
            starts.input.dayEntry.text = "2026-02-30"
            XCTAssertEqual(editor.problemText(field: "starts"), "“starts”: Write the date as yyyy-mm-dd, like 2026-03-29.")
            try Self.saveIsRefused(in: harness, field: "starts")
            XCTAssertEqual(starts.input.dayEntry.text, "2026-02-30")
            starts.input.dayEntry.text = "2026-03-07"
            XCTAssertTrue(starts.input.calendar.day == (2026, 3, 7), "the calendar follows the day typed")
            starts.input.button.popup()
            XCTAssertTrue(harness.pump { starts.input.calendar.isMapped })
            try GUITestEnvironment.screenshots(
                of: harness.window,
                part: Widget(
                    retaining: UnsafeMutableRawPointer(gtk_widget_get_ancestor(starts.input.calendar.widget, gtk_popover_get_type())!)),
                named: "date-popover")
            starts.input.button.popdown()
            starts.input.dayEntry.text = "2026-03-08"
            XCTAssertNil(editor.problemText(field: "starts"))
            let speakers = try XCTUnwrap(editor.fieldEditor(named: "speakers", as: RelationFieldEditor.self))
            XCTAssertTrue(harness.pump { speakers.chips.chips.allSatisfy { $0.nameButton?.label != $0.value } }, "speaker names")
            try Self.screenshots(of: editor, in: harness, named: "field-editors-event")
            try Self.save(in: harness)
            let stored = try XCTUnwrap(harness.serverInstances(module: "Events").first { $0.id == event.id })
            XCTAssertEqual(stored.values["doors"], .number(67_500_000), "18:45 is 67,500,000 ms after midnight")
            XCTAssertEqual(stored.values["starts"], .number(1_772_955_000_000))

            // Kolkata: the same instance reads 13:00 for the start, 18:45 for the doors; saved
            // with only its venue changed, neither moves.
            zones.use("Asia/Kolkata")
            harness.view.table.columnView.select([])
            XCTAssertTrue(harness.pump { editor.instance == nil })
            _ = try Self.open("Events", in: harness, id: event.id)
            XCTAssertEqual(
                try XCTUnwrap(editor.fieldEditor(named: "starts", as: DateFieldEditor.self)).input.button.label, "2026-03-08 13:00")
            XCTAssertEqual(try XCTUnwrap(editor.fieldEditor(named: "doors", as: EntryFieldEditor.self)).entry.text, "18:45")
            try XCTUnwrap(editor.fieldEditor(named: "venue", as: EntryFieldEditor.self)).entry.text = "Main Hall"
            try Self.save(in: harness)
            let again = try XCTUnwrap(harness.serverInstances(module: "Events").first { $0.id == event.id })
            XCTAssertEqual(again.values["starts"], .number(1_772_955_000_000))
            XCTAssertEqual(again.values["doors"], .number(67_500_000))
            XCTAssertEqual(again.values["description"], event.values["description"])
        }
    }

    // MARK: Helpers

    /// Opens the module and its first instance (or the one with `id`) in the editor.
    @MainActor static func open(_ module: String, in harness: WorkspaceHarness, id: String? = nil) throws -> ContentInstance {
        let view = harness.view
        try harness.openModule(module)
        XCTAssertTrue(harness.pump { view.pager.instance(at: 0) != nil })
        let row = try XCTUnwrap(id.map { view.pager.loadedRow(ofInstanceId: $0) } ?? 0, "instance not loaded")
        let instance = try XCTUnwrap(view.pager.instance(at: row))
        view.table.columnView.select([row])
        XCTAssertTrue(harness.pump { view.editor.instance?.id == instance.id })
        return instance
    }

    /// Save refuses the edit with the field's sentence: nothing is sent.
    @MainActor static func saveIsRefused(in harness: WorkspaceHarness, field: String) throws {
        let view = harness.view
        let before = view.completedOperations
        view.saveButton.click()
        let problem = try XCTUnwrap(view.editor.problemText(field: field), "nothing said under \(field)")
        XCTAssertEqual(harness.toasts.last, problem)
        XCTAssertEqual(view.completedOperations, before, "nothing was sent")
    }

    @MainActor static func save(in harness: WorkspaceHarness) throws {
        let view = harness.view
        XCTAssertTrue(view.saveButton.isSensitive)
        let before = view.completedOperations
        view.saveButton.click()
        harness.waitForOperation(after: before)
        XCTAssertTrue(harness.toasts.last?.hasPrefix("Saved “") ?? false, "\(harness.toasts)")
    }

    /// Searches the picker for the instance's name as a user types it, and clicks it.
    @MainActor static func pick(_ instance: ContentInstance, with picker: InstancePicker, in harness: WorkspaceHarness) throws {
        picker.open()
        picker.searchEntry.text = instance.name
        XCTAssertTrue(harness.pump { picker.resultButtons.contains { $0.choice.id == instance.id } }, picker.status.text)
        try XCTUnwrap(picker.resultButtons.first { $0.choice.id == instance.id }).button.click()
    }

    /// The window made tall enough to show the editor's whole form (an X window may be larger
    /// than the screen), light and dark; then its size is put back.
    @MainActor static func screenshots(of editor: InstanceEditor, in harness: WorkspaceHarness, named name: String) throws {
        let window = harness.window
        let width = gtk_widget_get_width(window.widget), height = gtk_widget_get_height(window.widget)
        let viewport = try XCTUnwrap(gtk_scrolled_window_get_child(OpaquePointer(editor.widget.raw)))
        var natural: gint = 0
        gtk_widget_measure(viewport, GTK_ORIENTATION_VERTICAL, 560, nil, &natural, nil, nil)
        // A size request is what an already mapped window follows.
        gtk_window_unmaximize(window.raw.assumingMemoryBound(to: GtkWindow.self))
        gtk_widget_set_size_request(window.widget, 1280, natural + 160)
        defer {
            gtk_widget_set_size_request(window.widget, -1, -1)
            window.setDefaultSize(width: Int(width), height: Int(height))
        }
        XCTAssertTrue(harness.pump { gtk_widget_get_height(window.widget) >= natural + 100 }, "the window did not grow")
        try GUITestEnvironment.screenshots(of: window, named: name)
    }
}
