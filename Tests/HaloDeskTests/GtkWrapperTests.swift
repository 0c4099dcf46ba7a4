import CAdw
import CGtk
import Foundation
import XCTest

@testable import HaloDesk

/// The wrappers for the windows to come: each is the GType it says, its typed signals reach
/// Swift, and its handlers are freed when the widget goes (no leak, no call after the owner).
final class GtkWrapperTests: XCTestCase {
    private final class Canary {}

    /// Makes a wrapper with `make`, connects a handler that captures a canary with `connect`,
    /// runs `exercise` (which must make the signal fire), then drops the wrapper and checks that
    /// GTK finalized it and freed the handler.
    @MainActor
    private static func check<W: GObjectRef>(
        _ make: () -> W, connect: (W, @escaping @MainActor () -> Void) -> Void, exercise: (W) -> Void,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        weak var weakCanary: Canary?
        weak var weakWrapper: W?
        var fired = 0
        do {
            let wrapper = make()
            weakWrapper = wrapper
            XCTAssertTrue(GObjectRef.instance(wrapper.raw, isA: W.gType), "\(W.self) is its gType", file: file, line: line)
            let canary = Canary()
            weakCanary = canary
            connect(wrapper) {
                _ = canary
                fired += 1
            }
            exercise(wrapper)
            XCTAssertGreaterThan(fired, 0, "\(W.self): the typed signal reached Swift", file: file, line: line)
        }
        MainLoopBridge.iterate(until: { weakCanary == nil }, timeout: 2)
        XCTAssertNil(weakWrapper, "\(W.self) was finalized", file: file, line: line)
        XCTAssertNil(weakCanary, "\(W.self): the handler was freed with the widget", file: file, line: line)
    }

    /// Emits `query-tooltip` as GTK does when the pointer rests on `widget`; true when a tooltip shows.
    @MainActor
    private static func queryTooltip(of widget: Widget) -> Bool {
        let tooltip = g_object_new_with_properties(gtk_tooltip_get_type(), 0, nil, nil)
        defer { g_object_unref(tooltip) }
        var arguments = [GValue](repeating: GValue(), count: 5)
        g_value_init(&arguments[0], gtk_widget_get_type())
        g_value_set_object(&arguments[0], widget.raw)
        g_value_init(&arguments[1], GType(6 << 2))  // G_TYPE_INT
        g_value_init(&arguments[2], GType(6 << 2))
        g_value_init(&arguments[3], GType(5 << 2))  // G_TYPE_BOOLEAN
        g_value_init(&arguments[4], gtk_tooltip_get_type())
        g_value_set_object(&arguments[4], tooltip)
        var shown = GValue()
        g_value_init(&shown, GType(5 << 2))
        g_signal_emitv(&arguments, g_signal_lookup("query-tooltip", gtk_widget_get_type()), 0, &shown)
        defer { (0..<arguments.count).forEach { g_value_unset(&arguments[$0]) } }
        return g_value_get_boolean(&shown) != 0
    }

    func testRowsAndGroups() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            Self.check(
                { ActionRow(title: "Title", subtitle: "Sub") }, connect: { $0.onActivated($1) },
                exercise: { row in
                    XCTAssertEqual(row.title, "Title")
                    XCTAssertEqual(row.subtitle, "Sub")
                    adw_action_row_activate(row.raw.assumingMemoryBound(to: AdwActionRow.self))
                })
            Self.check(
                { ExpanderRow(title: "More") }, connect: { row, handler in row.onExpandedChanged { _ in handler() } },
                exercise: { row in
                    row.addRow(ActionRow(title: "Nested"))
                    row.isExpanded = true
                    XCTAssertTrue(row.isExpanded)
                })
            Self.check(
                { EntryRow(title: "Name") }, connect: { $0.onChanged($1) },
                exercise: { row in
                    row.asEditable.text = "typed"
                    XCTAssertEqual(row.asEditable.text, "typed")
                })
            Self.check(
                { Label("A long name") },
                connect: { label, handler in
                    label.onQueryTooltip {
                        handler()
                        return "A long name, whole"
                    }
                },
                exercise: { label in
                    XCTAssertNotEqual(gtk_widget_get_has_tooltip(label.widget), 0)
                    XCTAssertTrue(Self.queryTooltip(of: label), "the handler's text makes GTK show a tooltip")
                })
            let group = PreferencesGroup(title: "Group", description: "What it holds")
            XCTAssertEqual(group.title, "Group")
            let row = ActionRow(title: "In the group")
            group.add(row)
            group.remove(row)
        }
    }

    func testPickersPopoversAndToasts() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            Self.check(
                { CalendarView() }, connect: { $0.onDaySelected($1) },
                exercise: { calendar in
                    calendar.day = (2024, 5, 17)
                    XCTAssertEqual(calendar.day.year, 2024)
                    XCTAssertEqual(calendar.day.month, 5)
                    XCTAssertEqual(calendar.day.day, 17)
                })
            Self.check(
                { ColorButton(accessibleLabel: "Color") }, connect: { $0.onColorSet($1) },
                exercise: { button in
                    button.hex = "#1a2b3c"
                    XCTAssertEqual(button.hex, "#1a2b3c")
                    button.emit("color-set")  // what a user's pick emits
                })
            Self.check(
                { Popover(child: Label("Inside")) }, connect: { $0.onClosed($1) },
                exercise: { popover in
                    // A popover needs a parent to pop up; a menu button gives it one.
                    let menu = MenuButton(iconName: "view-more-symbolic", tooltip: "More", popover: popover)
                    let window = Window(retaining: UnsafeMutableRawPointer(gtk_window_new()))
                    gtk_window_set_child(window.window, menu.widget)
                    window.present()
                    menu.popup()
                    popover.popdown()
                    MainLoopBridge.iterate(until: { false }, timeout: 0.2)
                    window.destroy()
                })
            Self.check(
                { Toast("Deleted 3 instances", button: "Undo") }, connect: { $0.onButtonClicked($1) },
                exercise: { toast in
                    XCTAssertEqual(toast.title, "Deleted 3 instances")
                    toast.emit("button-clicked")
                })
            let picture = Picture(accessibleLabel: "Cover")
            XCTAssertFalse(picture.hasImage)
            let icon = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("data/icons/hicolor/128x128/apps/io.github.halodesk.HaloDesk.png")
            picture.show(file: icon)
            XCTAssertTrue(picture.hasImage, icon.path)
            let spin = SpinButton(retaining: UnsafeMutableRawPointer(gtk_spin_button_new_with_range(0, 10, 1)))
            var values: [Double] = []
            spin.onValueChanged { values.append(spin.value) }
            spin.value = 4
            XCTAssertEqual(values, [4])
        }
    }

    /// `URIOpener` hands the address to the desktop's handler for its scheme (here a fake browser
    /// registered for `x-scheme-handler/https` in the session's data folder), and reports success.
    func testOpeningAURIInTheUsersBrowser() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            // GLib read the XDG folders when GTK started: register the handler where it looks.
            let data = URL(fileURLWithPath: swiftString(g_get_user_data_dir()) ?? NSTemporaryDirectory())
            let config = URL(fileURLWithPath: swiftString(g_get_user_config_dir()) ?? NSTemporaryDirectory())
            let applications = data.appendingPathComponent("applications")
            try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            let record = FileManager.default.temporaryDirectory.appendingPathComponent("halo-opened-\(UUID().uuidString).txt")
            let entry = applications.appendingPathComponent("halo-test-browser.desktop")
            let mimeapps = config.appendingPathComponent("mimeapps.list")
            let previousMimeapps = try? Data(contentsOf: mimeapps)
            try """
            [Desktop Entry]
            Type=Application
            Name=Fake Browser
            Exec=sh -c 'printf %%s "$1" > \(record.path)' fake %u
            MimeType=x-scheme-handler/https;
            """.write(to: entry, atomically: true, encoding: .utf8)
            try "[Default Applications]\nx-scheme-handler/https=halo-test-browser.desktop\n"
                .write(to: mimeapps, atomically: true, encoding: .utf8)
            defer {
                try? FileManager.default.removeItem(at: entry)
                if let previousMimeapps {
                    try? previousMimeapps.write(to: mimeapps)
                } else {
                    try? FileManager.default.removeItem(at: mimeapps)
                }
            }
            // Let GIO's monitor of the applications folder see the new entry.
            MainLoopBridge.iterate(until: { false }, timeout: 0.5)

            let address = "https://example.com/callback?state=a%26b"
            var outcome: String??
            URIOpener.open(address, from: nil) { outcome = .some($0) }
            MainLoopBridge.iterate(until: { outcome != nil }, timeout: 10)
            XCTAssertEqual(outcome, .some(nil), "opened without error")
            // The shell's `>` creates the file before `printf` fills it: wait for its content.
            MainLoopBridge.iterate(until: { (try? String(contentsOf: record, encoding: .utf8))?.isEmpty == false }, timeout: 10)
            XCTAssertEqual(try? String(contentsOf: record, encoding: .utf8), address)
        }
    }
}
