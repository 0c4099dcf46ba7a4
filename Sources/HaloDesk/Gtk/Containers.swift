import CAdw
import CGtk

/// A GtkStack: named pages, one visible at a time.
@MainActor
final class Stack: Widget {
    override class var gType: GType { gtk_stack_get_type() }

    func addPage(_ child: Widget, named name: String) {
        gtk_stack_add_named(halo_stack(raw), child.widget, name)
    }

    var visiblePage: String? {
        get { swiftString(gtk_stack_get_visible_child_name(halo_stack(raw))) }
        set { if let newValue { gtk_stack_set_visible_child_name(halo_stack(raw), newValue) } }
    }

    /// True while a page change is still animating (screenshots wait for it to end).
    var isTransitionRunning: Bool { gtk_stack_get_transition_running(halo_stack(raw)) != 0 }

    func hasPage(_ name: String) -> Bool { gtk_stack_get_child_by_name(halo_stack(raw), name) != nil }

    func removePage(_ name: String) {
        if let child = gtk_stack_get_child_by_name(halo_stack(raw), name) { gtk_stack_remove(halo_stack(raw), child) }
    }
}

/// A GtkSwitch.
@MainActor
final class Switch: Widget {
    override class var gType: GType { gtk_switch_get_type() }

    var isOn: Bool {
        get { gtk_switch_get_active(halo_switch(raw)) != 0 }
        set { gtk_switch_set_active(halo_switch(raw), newValue ? 1 : 0) }
    }

    /// `state-set`, before the switch moves to `on`: return true to keep it where it is (e.g. until
    /// the user confirms).
    @discardableResult
    func onStateSet(_ handler: @escaping @MainActor (_ on: Bool) -> Bool) -> SignalConnection {
        onReturningBoolWithFlag("state-set", handler)
    }
}

/// A GtkSpinner.
@MainActor
final class Spinner: Widget {
    override class var gType: GType { gtk_spinner_get_type() }

    var isSpinning: Bool {
        get { gtk_spinner_get_spinning(halo_spinner(raw)) != 0 }
        set { gtk_spinner_set_spinning(halo_spinner(raw), newValue ? 1 : 0) }
    }
}

/// An AdwComboRow over a string list.
@MainActor
final class ComboRow: Widget {
    override class var gType: GType { adw_combo_row_get_type() }

    var selectedIndex: Int {
        get { Int(adw_combo_row_get_selected(raw.assumingMemoryBound(to: AdwComboRow.self))) }
        set { adw_combo_row_set_selected(raw.assumingMemoryBound(to: AdwComboRow.self), guint(newValue)) }
    }

    @discardableResult
    func onSelectionChanged(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        onPointer("notify::selected") { _ in handler() }
    }

    /// Lists `items` (a GtkStringList made here; the row takes its reference).
    func setItems(_ items: [String]) {
        let model = StringList.make(items)
        adw_combo_row_set_model(raw.assumingMemoryBound(to: AdwComboRow.self), halo_list_model(model))
        g_object_unref(model)
    }
}

/// An AdwStatusPage (icon, title, description).
@MainActor
final class StatusPage: Widget {
    override class var gType: GType { adw_status_page_get_type() }

    var title: String {
        get { swiftString(adw_status_page_get_title(OpaquePointer(raw))) ?? "" }
        set { adw_status_page_set_title(OpaquePointer(raw), newValue) }
    }

    var details: String {
        get { swiftString(adw_status_page_get_description(OpaquePointer(raw))) ?? "" }
        set { adw_status_page_set_description(OpaquePointer(raw), newValue) }
    }
}

/// An AdwWindowTitle (header bar title and subtitle).
@MainActor
final class WindowTitle: Widget {
    override class var gType: GType { adw_window_title_get_type() }

    var title: String {
        get { swiftString(adw_window_title_get_title(OpaquePointer(raw))) ?? "" }
        set { adw_window_title_set_title(OpaquePointer(raw), newValue) }
    }

    var subtitle: String {
        get { swiftString(adw_window_title_get_subtitle(OpaquePointer(raw))) ?? "" }
        set { adw_window_title_set_subtitle(OpaquePointer(raw), newValue) }
    }
}

extension Label {
    /// Shows `message` (or hides the label when nil): for inline errors and verdicts.
    func show(_ message: String?) {
        text = message ?? ""
        isVisible = message != nil
    }
}
