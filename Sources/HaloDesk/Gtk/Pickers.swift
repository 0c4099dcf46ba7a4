import CAdw
import CGtk
import Foundation

// Wrappers for popovers, menu buttons and value pickers (calendar, color, picture) for the
// windows to come. GTK 4.8: GtkColorButton (GtkColorDialog needs 4.10).

/// A GtkPopover.
@MainActor
final class Popover: Widget {
    override class var gType: GType { gtk_popover_get_type() }

    convenience init(child: Widget) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_popover_new()))
        gtk_popover_set_child(popover, child.widget)
    }

    private var popover: UnsafeMutablePointer<GtkPopover> { raw.assumingMemoryBound(to: GtkPopover.self) }

    func popup() { gtk_popover_popup(popover) }
    func popdown() { gtk_popover_popdown(popover) }

    /// `closed`: the popover was dismissed.
    @discardableResult
    func onClosed(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("closed", handler) }
}

/// A GtkMenuButton showing a popover.
@MainActor
final class MenuButton: Widget {
    override class var gType: GType { gtk_menu_button_get_type() }

    convenience init(iconName: String, tooltip: String, popover: Popover) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_menu_button_new()))
        gtk_menu_button_set_icon_name(button, iconName)
        self.tooltip = tooltip
        setAccessibleLabel(tooltip)
        gtk_menu_button_set_popover(button, popover.widget)
    }

    /// A menu button with a text label (and GTK's drop-down arrow) opening `popover`.
    convenience init(label: String, accessibleLabel: String, popover: Popover) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_menu_button_new()))
        gtk_menu_button_set_label(button, label)
        setAccessibleLabel(accessibleLabel)
        gtk_menu_button_set_popover(button, popover.widget)
    }

    private var button: OpaquePointer { OpaquePointer(raw) }

    var label: String {
        get { swiftString(gtk_menu_button_get_label(button)) ?? "" }
        set { gtk_menu_button_set_label(button, newValue) }
    }

    func popup() { gtk_menu_button_popup(button) }
    func popdown() { gtk_menu_button_popdown(button) }
}

/// A GtkCalendar: picks a day (named apart from Foundation.Calendar).
@MainActor
final class CalendarView: Widget {
    override class var gType: GType { gtk_calendar_get_type() }

    convenience init() {
        self.init(sinking: UnsafeMutableRawPointer(gtk_calendar_new()))
    }

    private var calendar: OpaquePointer { OpaquePointer(raw) }

    /// The selected day, as (year, month 1–12, day) in the local calendar.
    var day: (year: Int, month: Int, day: Int) {
        get {
            let date = gtk_calendar_get_date(calendar)
            defer { g_date_time_unref(date) }
            return (Int(g_date_time_get_year(date)), Int(g_date_time_get_month(date)), Int(g_date_time_get_day_of_month(date)))
        }
        set {
            guard let date = g_date_time_new_local(gint(newValue.year), gint(newValue.month), gint(newValue.day), 0, 0, 0) else { return }
            defer { g_date_time_unref(date) }
            gtk_calendar_select_day(calendar, date)
        }
    }

    /// `day-selected`: the user (or `day`) selected a day.
    @discardableResult
    func onDaySelected(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("day-selected", handler) }
}

/// A GtkColorButton: picks a color (shown as `#rrggbb`).
@MainActor
final class ColorButton: Widget {
    override class var gType: GType { gtk_color_button_get_type() }

    convenience init(accessibleLabel: String) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_color_button_new()))
        setAccessibleLabel(accessibleLabel)
    }

    private var chooser: OpaquePointer { OpaquePointer(raw) }

    /// The color as `#rrggbb` (alpha ignored), or sets it from `#rgb` / `#rrggbb`.
    var hex: String {
        get {
            var rgba = GdkRGBA()
            gtk_color_chooser_get_rgba(chooser, &rgba)
            func byte(_ value: Float) -> Int { Int((value * 255).rounded()) }
            return String(format: "#%02x%02x%02x", byte(rgba.red), byte(rgba.green), byte(rgba.blue))
        }
        set {
            var rgba = GdkRGBA()
            if gdk_rgba_parse(&rgba, newValue) != 0 { gtk_color_chooser_set_rgba(chooser, &rgba) }
        }
    }

    /// `color-set`: the user picked a color.
    @discardableResult
    func onColorSet(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("color-set", handler) }
}

/// A GtkPicture: shows an image file or texture, scaled to fit.
@MainActor
final class Picture: Widget {
    override class var gType: GType { gtk_picture_get_type() }

    convenience init(accessibleLabel: String) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_picture_new()))
        setAccessibleLabel(accessibleLabel)
    }

    private var picture: OpaquePointer { OpaquePointer(raw) }

    /// Shows the image in `file` (nil clears it).
    func show(file: URL?) { gtk_picture_set_filename(picture, file?.path) }

    /// Whether an image is shown.
    var hasImage: Bool { gtk_picture_get_paintable(picture) != nil }
}

/// Opens `uri` in the user's browser (or the handler of its scheme) with `gtk_show_uri_full`,
/// the way for GTK 4.8 (GtkUriLauncher needs 4.10); `completion` gets nil, or the reason it could
/// not be opened.
@MainActor
enum URIOpener {
    private typealias Completion = @MainActor (String?) -> Void

    static func open(_ uri: String, from window: Window?, completion: @escaping @MainActor (String?) -> Void) {
        let box = Unmanaged.passRetained(SignalHandlerBox(completion as Completion)).toOpaque()
        gtk_show_uri_full(window?.window, uri, guint32(GDK_CURRENT_TIME), nil, finished, box)
    }

    private static let finished: @convention(c) (UnsafeMutablePointer<GObject>?, OpaquePointer?, gpointer?) -> Void = {
        source, result, data in
        let address = UInt(bitPattern: data)
        var error: UnsafeMutablePointer<GError>?
        let opened =
            gtk_show_uri_full_finish(source.map { $0.withMemoryRebound(to: GtkWindow.self, capacity: 1) { $0 } }, result, &error) != 0
        let reason = opened ? nil : swiftString(error?.pointee.message) ?? "unknown error"
        g_clear_error(&error)
        MainActor.assumeIsolated {
            guard let pointer = UnsafeMutableRawPointer(bitPattern: address) else { return }
            let box = Unmanaged<SignalHandlerBox<Completion>>.fromOpaque(pointer).takeRetainedValue()
            box.handler(reason)
        }
    }
}

/// The ⋮ menu of one node of an editable tree (the filter builder's conditions and groups, the
/// structured editor's JSON nodes): a flat button per action, its shortcut as the tooltip, its
/// accessible name "<action> this <kind>".
@MainActor
struct NodeMenu {
    struct Entry {
        let label: String
        let shortcut: String
        var isEnabled = true
        let action: @MainActor () -> Void
    }

    let button: MenuButton
    /// The items by label (tests press them as a user would).
    let items: [String: Button]

    init(kind: String, tooltip: String, entries: [Entry]) {
        let box = Box(vertical: true)
        let popover = Popover(child: box)
        var items: [String: Button] = [:]
        for entry in entries {
            let item = Button(label: entry.label)
            item.addCSSClass("flat")
            if let child = gtk_button_get_child(halo_button(item.raw)) { gtk_label_set_xalign(OpaquePointer(child), 0) }
            item.tooltip = entry.shortcut
            item.isSensitive = entry.isEnabled
            item.setAccessibleLabel("\(entry.label) this \(kind)")
            let action = entry.action
            item.onClicked { [weak popover] in
                popover?.popdown()
                action()
            }
            box.append(item)
            items[entry.label] = item
        }
        button = MenuButton(iconName: "view-more-symbolic", tooltip: tooltip, popover: popover)
        button.addCSSClass("flat")
        button.centerVertically()
        self.items = items
    }
}

extension Button {
    /// A flat button with an icon and a label with a mnemonic ("Add _Condition").
    static func iconAndLabel(_ icon: String, label: String) -> Button {
        let button = Button(sinking: UnsafeMutableRawPointer(gtk_button_new()))
        let content = adw_button_content_new()
        adw_button_content_set_icon_name(OpaquePointer(content), icon)
        adw_button_content_set_label(OpaquePointer(content), label)
        adw_button_content_set_use_underline(OpaquePointer(content), 1)
        gtk_button_set_child(halo_button(button.raw), content)
        button.addCSSClass("flat")
        return button
    }
}
