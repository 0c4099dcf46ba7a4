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
