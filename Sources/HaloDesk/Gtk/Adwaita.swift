import CAdw
import CGtk

/// `AdwLeaflet`: panes side by side that fold into one-at-a-time navigation on narrow windows
/// (built from a `.ui` file, e.g. the workspace's).
@MainActor
final class Leaflet: Widget {
    override class var gType: GType { adw_leaflet_get_type() }

    private var leaflet: OpaquePointer { halo_adw_leaflet(raw) }

    var isFolded: Bool { adw_leaflet_get_folded(leaflet) != 0 }

    func show(_ child: Widget) { adw_leaflet_set_visible_child(leaflet, child.widget) }

    /// Makes `child` the visible one without moving the keyboard focus. AdwLeaflet moves the focus
    /// into the child it shows even when unfolded, where every pane is on screen: a row clicked in
    /// the list would hand the focus to the detail pane's first button.
    func showKeepingFocus(_ child: Widget) {
        guard let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root) else { return show(child) }
        let kept = GObjectRef(retaining: UnsafeMutableRawPointer(focus))
        show(child)
        if gtk_root_get_focus(root) != focus, gtk_widget_get_root(halo_widget(kept.raw)) == root {
            gtk_widget_grab_focus(halo_widget(kept.raw))
        }
    }
}

/// `AdwMessageDialog` asking to confirm something; `onResponse` gets the chosen response id.
@MainActor
final class ConfirmationDialog: Window {
    override class var gType: GType { adw_message_dialog_get_type() }

    static let cancel = "cancel"

    /// Builds (not shows) a dialog transient for the window `parent` belongs to.
    convenience init(parent: Widget, heading: String, body: String, confirmLabel: String, confirmId: String, destructive: Bool) {
        let root = gtk_widget_get_root(parent.widget)
        let window = root.flatMap { halo_window(UnsafeMutableRawPointer($0)) }
        self.init(sinking: UnsafeMutableRawPointer(adw_message_dialog_new(window, heading, body)))
        let dialog = halo_adw_message_dialog(raw)
        adw_message_dialog_add_response(dialog, Self.cancel, "_Cancel")
        adw_message_dialog_add_response(dialog, confirmId, confirmLabel)
        if destructive { adw_message_dialog_set_response_appearance(dialog, confirmId, ADW_RESPONSE_DESTRUCTIVE) }
        adw_message_dialog_set_default_response(dialog, Self.cancel)
        adw_message_dialog_set_close_response(dialog, Self.cancel)
    }

    /// Adds a response after the others; `isDefault` makes it the one Enter picks, shown as suggested.
    func addResponse(_ id: String, label: String, isDefault: Bool) {
        let dialog = halo_adw_message_dialog(raw)
        adw_message_dialog_add_response(dialog, id, label)
        if isDefault {
            adw_message_dialog_set_response_appearance(dialog, id, ADW_RESPONSE_SUGGESTED)
            adw_message_dialog_set_default_response(dialog, id)
        }
    }

    /// A widget under the body (an entry the dialog asks for).
    func setExtraChild(_ child: Widget) { adw_message_dialog_set_extra_child(halo_adw_message_dialog(raw), child.widget) }

    /// Makes `id` the suggested response, the one Enter picks.
    func suggest(_ id: String) {
        adw_message_dialog_set_response_appearance(halo_adw_message_dialog(raw), id, ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(halo_adw_message_dialog(raw), id)
    }

    /// Whether the response `id` can be chosen (e.g. not while a required entry is empty).
    func setResponse(_ id: String, enabled: Bool) {
        adw_message_dialog_set_response_enabled(halo_adw_message_dialog(raw), id, enabled ? 1 : 0)
    }

    var heading: String { swiftString(adw_message_dialog_get_heading(halo_adw_message_dialog(raw))) ?? "" }
    var body: String { swiftString(adw_message_dialog_get_body(halo_adw_message_dialog(raw))) ?? "" }

    func onResponse(_ handler: @escaping @MainActor (String) -> Void) {
        onPointer("response") { response in
            handler(response.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? Self.cancel)
        }
    }

    /// Answers as if the user clicked the response `id` (tests, keyboard shortcuts).
    func respond(_ id: String) { adw_message_dialog_response(halo_adw_message_dialog(raw), id) }
}

/// An AdwToast, optionally with a button (e.g. "Undo"); shown by `MainWindow.show(_:)`.
@MainActor
final class Toast: GObjectRef {
    override class var gType: GType { adw_toast_get_type() }

    private var toast: OpaquePointer { OpaquePointer(raw) }

    /// A toast saying `message`; with `button`, a button with that label (`onButtonClicked`).
    convenience init(_ message: String, button: String? = nil, timeoutSeconds: Int = 5) {
        self.init(adopting: UnsafeMutableRawPointer(adw_toast_new(message)))
        if let button { adw_toast_set_button_label(toast, button) }
        adw_toast_set_timeout(toast, guint(timeoutSeconds))
    }

    var title: String { swiftString(adw_toast_get_title(toast)) ?? "" }

    /// `button-clicked`: the user pressed the toast's button.
    @discardableResult
    func onButtonClicked(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("button-clicked", handler) }

    /// `dismissed`: the toast went away (timeout, close, or button).
    @discardableResult
    func onDismissed(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("dismissed", handler) }

    func dismiss() { adw_toast_dismiss(toast) }

    /// Shows the toast over `overlay` (an AdwToastOverlay).
    func show(in overlay: Widget) {
        // The overlay takes the toast's reference (transfer full): give it one of its own.
        adw_toast_overlay_add_toast(halo_adw_toast_overlay(overlay.raw), OpaquePointer(g_object_ref(raw)))
    }
}

/// libadwaita 1.2's view switcher buttons (a preferences window with several pages) have no
/// accessible name: their page title is a child label GTK 4.8 does not read as the name. Each
/// button under `root` gets the text of its first label.
@MainActor
enum ViewSwitcherNames {
    static func apply(under root: UnsafeMutablePointer<GtkWidget>) {
        var child = gtk_widget_get_first_child(root)
        while let widget = child {
            let raw = UnsafeMutableRawPointer(widget)
            if GObjectRef.typeName(of: raw) == "AdwViewSwitcherButton", let title = firstLabel(under: widget) {
                halo_accessible_set_label(halo_accessible(raw), title)
            } else {
                apply(under: widget)
            }
            child = gtk_widget_get_next_sibling(widget)
        }
    }

    private static func firstLabel(under root: UnsafeMutablePointer<GtkWidget>) -> String? {
        var child = gtk_widget_get_first_child(root)
        while let widget = child {
            let raw = UnsafeMutableRawPointer(widget)
            if GObjectRef.typeName(of: raw) == "GtkLabel", let text = swiftString(gtk_label_get_text(halo_label(raw))), !text.isEmpty {
                return text
            }
            if let found = firstLabel(under: widget) { return found }
            child = gtk_widget_get_next_sibling(widget)
        }
        return nil
    }
}
