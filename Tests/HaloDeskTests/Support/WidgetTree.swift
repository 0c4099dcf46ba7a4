import CGtk

/// The direct children of a widget, in order (rows of a list view, cells of a row, …).
@MainActor
func childWidgets(of widget: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
    var children: [UnsafeMutablePointer<GtkWidget>] = []
    var child = gtk_widget_get_first_child(widget)
    while let current = child {
        children.append(current)
        child = gtk_widget_get_next_sibling(current)
    }
    return children
}

/// The texts the labels under `widget` show (after markup is parsed: a label given text that is
/// not valid markup shows nothing), in tree order.
@MainActor
func shownTexts(in widget: UnsafeMutablePointer<GtkWidget>) -> [String] {
    var texts: [String] = []
    let isLabel = g_type_check_instance_is_a(
        UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_label_get_type())
    if isLabel != 0, let text = gtk_label_get_text(halo_label(UnsafeMutableRawPointer(widget))) {
        texts.append(String(cString: text))
    }
    return texts + childWidgets(of: widget).flatMap(shownTexts(in:))
}
