import CGtk

/// Keyboard help for window-wide accelerators that are also editing keys (Delete).
@MainActor
enum TextFocus {
    /// When the focus (in the window holding `widget`) is a text field or text view, deletes the
    /// selection or the character after the cursor there and returns true; otherwise false.
    static func deleteForward(in widget: Widget) -> Bool {
        guard let root = gtk_widget_get_root(widget.widget), let focus = gtk_root_get_focus(root) else { return false }
        let instance = UnsafeMutableRawPointer(focus).assumingMemoryBound(to: GTypeInstance.self)
        if g_type_check_instance_is_a(instance, gtk_editable_get_type()) != 0 {
            let editable = halo_editable(UnsafeMutableRawPointer(focus))
            var start: gint = 0, end: gint = 0
            if gtk_editable_get_selection_bounds(editable, &start, &end) != 0 {
                gtk_editable_delete_selection(editable)
            } else {
                let position = gtk_editable_get_position(editable)
                gtk_editable_delete_text(editable, position, position + 1)
            }
            return true
        }
        if g_type_check_instance_is_a(instance, gtk_text_view_get_type()) != 0 {
            let buffer = gtk_text_view_get_buffer(UnsafeMutableRawPointer(focus).assumingMemoryBound(to: GtkTextView.self))
            if gtk_text_buffer_get_has_selection(buffer) != 0 {
                gtk_text_buffer_delete_selection(buffer, 1, 1)
            } else {
                var cursor = GtkTextIter(), next = GtkTextIter()
                gtk_text_buffer_get_iter_at_mark(buffer, &cursor, gtk_text_buffer_get_insert(buffer))
                next = cursor
                gtk_text_iter_forward_char(&next)
                gtk_text_buffer_delete_interactive(buffer, &cursor, &next, 1)
            }
            return true
        }
        return false
    }
}
