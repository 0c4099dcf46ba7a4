import CGtk

/// A GtkWidget. Subclasses add what their widget type offers; all of them are main-actor only.
@MainActor
class Widget: GObjectRef {
    override class var gType: GType { gtk_widget_get_type() }

    var widget: UnsafeMutablePointer<GtkWidget> { halo_widget(raw) }

    var isVisible: Bool {
        get { gtk_widget_get_visible(widget) != 0 }
        set { gtk_widget_set_visible(widget, newValue ? 1 : 0) }
    }

    var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    var tooltip: String? {
        get { swiftString(gtk_widget_get_tooltip_text(widget)) }
        set { gtk_widget_set_tooltip_text(widget, newValue) }
    }

    /// The name assistive technologies announce. Every interactive control needs one.
    func setAccessibleLabel(_ label: String) {
        halo_accessible_set_label(halo_accessible(raw), label)
    }

    func setAccessibleDescription(_ text: String) {
        halo_accessible_set_description(halo_accessible(raw), text)
    }

    func addCSSClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    func removeCSSClass(_ name: String) { gtk_widget_remove_css_class(widget, name) }
    func hasCSSClass(_ name: String) -> Bool { gtk_widget_has_css_class(widget, name) != 0 }

    @discardableResult
    func grabFocus() -> Bool { gtk_widget_grab_focus(widget) != 0 }

    /// The display's clipboard text, for Copy buttons (reads back only what this app put there).
    var clipboardText: String? {
        get {
            guard let text = halo_clipboard_local_text(gtk_widget_get_clipboard(widget)) else { return nil }
            defer { g_free(text) }
            return String(cString: text)
        }
        set { gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), newValue ?? "") }
    }

    /// True once the widget is in a window that has been mapped on screen.
    var isMapped: Bool { gtk_widget_get_mapped(widget) != 0 }

    /// `map`: the widget is about to be shown on screen.
    @discardableResult
    func onMap(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("map", handler) }

    /// Calls `handler` after each frame the widget's window paints (`GdkFrameClock::after-paint`);
    /// nil when the widget is not realized yet (connect from `onMap`).
    @discardableResult
    func onAfterPaint(_ handler: @escaping @MainActor () -> Void) -> SignalConnection? {
        guard let clock = gtk_widget_get_frame_clock(widget) else { return nil }
        return GObjectRef(retaining: UnsafeMutableRawPointer(clock)).on("after-paint", handler)
    }

    /// Calls `handler` once per frame of the widget's window, before it is drawn
    /// (`gtk_widget_add_tick_callback`), for as long as it returns true. A tick callback keeps the
    /// frame clock running at the display's rate while it is installed.
    func onEachFrame(_ handler: @escaping @MainActor () -> Bool) {
        let box = Unmanaged.passRetained(SignalHandlerBox(handler)).toOpaque()
        gtk_widget_add_tick_callback(
            widget,
            { _, _, data in
                guard let data else { return 0 }
                return MainActor.assumeIsolated {
                    Unmanaged<SignalHandlerBox<@MainActor () -> Bool>>.fromOpaque(data).takeUnretainedValue().handler() ? 1 : 0
                }
            }, box,
            { data in
                guard let data else { return }
                Unmanaged<SignalHandlerBox<@MainActor () -> Bool>>.fromOpaque(data).release()
            })
    }
}

@MainActor
final class Label: Widget {
    override class var gType: GType { gtk_label_get_type() }

    convenience init(_ text: String = "") {
        self.init(sinking: UnsafeMutableRawPointer(gtk_label_new(text)))
    }

    var text: String {
        get { swiftString(gtk_label_get_text(halo_label(raw))) ?? "" }
        set { gtk_label_set_text(halo_label(raw), newValue) }
    }
}

@MainActor
final class Button: Widget {
    override class var gType: GType { gtk_button_get_type() }

    convenience init(label: String) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_button_new_with_label(label)))
    }

    /// A flat icon button; an icon alone says nothing to assistive technologies, so it is named.
    convenience init(iconName: String, accessibleLabel: String, tooltip: String) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_button_new_from_icon_name(iconName)))
        addCSSClass("flat")
        setAccessibleLabel(accessibleLabel)
        self.tooltip = tooltip
    }

    var label: String {
        get { swiftString(gtk_button_get_label(halo_button(raw))) ?? "" }
        set { gtk_button_set_label(halo_button(raw), newValue) }
    }

    var iconName: String {
        get { swiftString(gtk_button_get_icon_name(halo_button(raw))) ?? "" }
        set { gtk_button_set_icon_name(halo_button(raw), newValue) }
    }

    @discardableResult
    func onClicked(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        on("clicked", handler)
    }

    /// Clicks the button now, synchronously, as a user would (tests, shortcuts):
    /// `gtk_widget_activate` would click about 250 ms later.
    func click() { emit("clicked") }
}

/// Any widget implementing GtkEditable (GtkEntry, GtkPasswordEntry, GtkSearchEntry, AdwEntryRow…).
@MainActor
final class Editable: Widget {
    override class var gType: GType { gtk_editable_get_type() }

    var text: String {
        get { swiftString(gtk_editable_get_text(halo_editable(raw))) ?? "" }
        set { gtk_editable_set_text(halo_editable(raw), newValue) }
    }

    @discardableResult
    func onChanged(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        on("changed", handler)
    }

    /// `GtkSearchEntry::search-changed`: the text changed and the entry's short delay passed.
    @discardableResult
    func onSearchChanged(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        on("search-changed", handler)
    }

    /// `AdwEntryRow::entry-activated`: Enter was pressed in the row.
    @discardableResult
    func onEntryActivated(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        on("entry-activated", handler)
    }
}

@MainActor
class Window: Widget {
    override class var gType: GType { gtk_window_get_type() }

    var window: UnsafeMutablePointer<GtkWindow> { halo_window(raw) }

    var title: String {
        get { swiftString(gtk_window_get_title(window)) ?? "" }
        set { gtk_window_set_title(window, newValue) }
    }

    func present() { gtk_window_present(window) }
    func close() { gtk_window_close(window) }
    func destroy() { gtk_window_destroy(window) }

    /// Keeps the window above the window holding `widget` (and centred on it).
    func setTransient(for widget: Widget) {
        if let root = gtk_widget_get_root(widget.widget) {
            gtk_window_set_transient_for(window, halo_window(UnsafeMutableRawPointer(root)))
        }
    }

    func setDefaultSize(width: Int, height: Int) {
        gtk_window_set_default_size(window, gint(width), gint(height))
    }

    /// `close-request`: return true to keep the window open (e.g. to ask first).
    @discardableResult
    func onCloseRequest(_ handler: @escaping @MainActor () -> Bool) -> SignalConnection {
        onReturningBool("close-request", handler)
    }
}
