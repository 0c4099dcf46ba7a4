import CAdw
import CGtk

@testable import HaloDesk

/// Walks a realized widget tree and lists every interactive control that has no accessible name.
///
/// A name is GTK_ACCESSIBLE_PROPERTY_LABEL (set by `<accessibility>` in a `.ui` file, by
/// `setAccessibleLabel`, or by GTK itself for a button with a text label) or a labelled-by
/// relation (what libadwaita's rows use for their title; not enough for buttons, see `isNamed`).
/// Read back through GTK's test
/// accessibility API, which needs `GTK_A11Y=test` (GUITestEnvironment sets it).
@MainActor
enum AccessibilityAudit {
    /// One line per unnamed control: its type, builder id and the path of types leading to it.
    static func unnamedControls(in root: UnsafeMutablePointer<GtkWidget>) -> [String] {
        var findings: [String] = []
        visit(root, path: [], findings: &findings)
        return findings
    }

    private static func visit(_ widget: UnsafeMutablePointer<GtkWidget>, path: [String], findings: inout [String]) {
        // Only what a person can reach now: hidden widgets and the pages a stack or a leaflet
        // does not show are skipped (tests show each page in turn). This also skips libadwaita's
        // hidden internals, such as a preferences window's disabled search and one-page switcher.
        guard gtk_widget_get_visible(widget) != 0, gtk_widget_get_child_visible(widget) != 0 else { return }
        let type = typeName(widget)
        let here = path + [type]
        let kind = classify(widget)
        if kind != .container && !isNamed(UnsafeMutableRawPointer(widget)) {
            let id = swiftString(gtk_buildable_get_buildable_id(OpaquePointer(widget))).map { " id=\($0)" } ?? ""
            let tooltip = swiftString(gtk_widget_get_tooltip_text(widget)).map { " tooltip=\"\($0)\"" } ?? ""
            findings.append("\(type)\(id)\(tooltip) at \(here.suffix(6).joined(separator: " > "))")
        }
        guard kind != .opaqueControl else { return }
        // A squeezer shows one child without hiding the others, and disables pages it must not
        // show (a one-page preferences window disables its view switcher): visit only the one shown.
        if isA(widget, adw_squeezer_get_type()) {
            let squeezer = OpaquePointer(widget)
            if let shown = adw_squeezer_get_visible_child(squeezer),
                adw_squeezer_page_get_enabled(adw_squeezer_get_page(squeezer, shown)) != 0
            {
                visit(shown, path: here, findings: &findings)
            }
            return
        }
        for child in childWidgets(of: widget) { visit(child, path: here, findings: &findings) }
    }

    private enum Kind {
        /// Not interactive itself; its children are checked.
        case container
        /// Interactive, checked, and its insides are its own business (a GtkEntry's GtkText, a
        /// column view's rows and headers, a combo row's popover).
        case opaqueControl
        /// Interactive and checked, and so are its children (list boxes, action rows with a switch).
        case controlWithChildren
    }

    private static func classify(_ widget: UnsafeMutablePointer<GtkWidget>) -> Kind {
        // libadwaita's entry and combo rows are list rows too: test them before GtkListBoxRow.
        let opaque: [GType] = [
            gtk_button_get_type(), gtk_menu_button_get_type(), gtk_switch_get_type(), gtk_check_button_get_type(),
            gtk_entry_get_type(), gtk_search_entry_get_type(), gtk_password_entry_get_type(), gtk_spin_button_get_type(),
            gtk_text_get_type(), gtk_text_view_get_type(), gtk_drop_down_get_type(), gtk_column_view_get_type(),
            gtk_list_view_get_type(), gtk_scale_get_type(), adw_entry_row_get_type(), adw_combo_row_get_type(),
        ]
        if opaque.contains(where: { isA(widget, $0) }) { return .opaqueControl }
        if isA(widget, gtk_list_box_row_get_type()) { return .controlWithChildren }
        if isA(widget, gtk_list_box_get_type()) {
            // A "boxed-list" (a preferences group's rows) is a visual grouping: its rows carry the names.
            return gtk_widget_has_css_class(widget, "boxed-list") != 0 ? .container : .controlWithChildren
        }
        return .container
    }

    private static func isNamed(_ widget: UnsafeMutableRawPointer) -> Bool {
        let accessible = halo_accessible(widget)
        if gtk_test_accessible_has_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL) != 0 { return true }
        // GTK 4.8 makes every button "labelled by" its child, even an icon-only button's nameless
        // image; a button with text gets the label property. So buttons need the property.
        if g_type_check_instance_is_a(widget.assumingMemoryBound(to: GTypeInstance.self), gtk_button_get_type()) != 0 { return false }
        return gtk_test_accessible_has_relation(accessible, GTK_ACCESSIBLE_RELATION_LABELLED_BY) != 0
    }

    private static func isA(_ widget: UnsafeMutablePointer<GtkWidget>, _ type: GType) -> Bool {
        g_type_check_instance_is_a(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), type) != 0
    }

    private static func typeName(_ widget: UnsafeMutablePointer<GtkWidget>) -> String {
        swiftString(g_type_name_from_instance(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self))) ?? "?"
    }
}
