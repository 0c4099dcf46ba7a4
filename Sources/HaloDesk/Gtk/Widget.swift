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

    /// True once the widget is in a window that has been mapped on screen.
    var isMapped: Bool { gtk_widget_get_mapped(widget) != 0 }
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

    var label: String {
        get { swiftString(gtk_button_get_label(halo_button(raw))) ?? "" }
        set { gtk_button_set_label(halo_button(raw), newValue) }
    }

    @discardableResult
    func onClicked(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        on("clicked", handler)
    }
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

    func setDefaultSize(width: Int, height: Int) {
        gtk_window_set_default_size(window, gint(width), gint(height))
    }
}
