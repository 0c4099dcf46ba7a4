import CGtk

// Small typed wrappers for the boxes and inputs the workspace builds in code.

@MainActor
final class Box: Widget {
    override class var gType: GType { gtk_box_get_type() }

    convenience init(vertical: Bool, spacing: Int = 0) {
        self.init(
            sinking: UnsafeMutableRawPointer(gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, gint(spacing))))
    }

    func append(_ child: Widget) { gtk_box_append(halo_box(raw), child.widget) }

    /// Removes every child (the detail pane rebuilds its rows per instance).
    func removeAll() {
        while let child = gtk_widget_get_first_child(widget) { gtk_box_remove(halo_box(raw), child) }
    }
}

extension Widget {
    func setMargins(_ margin: Int) {
        gtk_widget_set_margin_top(widget, gint(margin)); gtk_widget_set_margin_bottom(widget, gint(margin))
        gtk_widget_set_margin_start(widget, gint(margin)); gtk_widget_set_margin_end(widget, gint(margin))
    }

    func expand(horizontally: Bool = false, vertically: Bool = false) {
        if horizontally { gtk_widget_set_hexpand(widget, 1) }
        if vertically { gtk_widget_set_vexpand(widget, 1) }
    }

    /// Centred vertically in a taller row (a menu button beside multi-line content).
    func centerVertically() { gtk_widget_set_valign(widget, GTK_ALIGN_CENTER) }

    func setSizeRequest(width: Int = -1, height: Int = -1) { gtk_widget_set_size_request(widget, gint(width), gint(height)) }
}

extension Label {
    /// A left-aligned label, optionally wrapping, with CSS classes (e.g. "dim-label", "heading").
    convenience init(_ text: String, classes: [String], wrap: Bool = false, selectable: Bool = false) {
        self.init(text)
        let label = OpaquePointer(raw)
        gtk_label_set_xalign(label, 0)
        if wrap {
            gtk_label_set_wrap(label, 1)
            gtk_label_set_wrap_mode(label, PANGO_WRAP_WORD_CHAR)
        } else {
            gtk_label_set_ellipsize(label, PANGO_ELLIPSIZE_END)
        }
        if selectable { gtk_label_set_selectable(label, 1) }
        classes.forEach(addCSSClass)
    }
}

@MainActor
final class ScrolledWindow: Widget {
    override class var gType: GType { gtk_scrolled_window_get_type() }

    convenience init(child: Widget, horizontalScrolling: Bool = false) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_scrolled_window_new()))
        gtk_scrolled_window_set_policy(
            OpaquePointer(raw), horizontalScrolling ? GTK_POLICY_AUTOMATIC : GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(OpaquePointer(raw), child.widget)
    }
}

extension Editable {
    /// A one-line text entry with an accessible name.
    static func entry(accessibleLabel: String, placeholder: String? = nil) -> Editable {
        let entry = Editable(sinking: UnsafeMutableRawPointer(gtk_entry_new()))
        if let placeholder { gtk_entry_set_placeholder_text(entry.raw.assumingMemoryBound(to: GtkEntry.self), placeholder) }
        entry.setAccessibleLabel(accessibleLabel)
        return entry
    }
}

extension Switch {
    /// A switch aligned at the start of its row (Switch itself is in Containers.swift).
    convenience init(accessibleLabel: String) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_switch_new()))
        gtk_widget_set_halign(widget, GTK_ALIGN_START)
        setAccessibleLabel(accessibleLabel)
    }

    func onToggled(_ handler: @escaping @MainActor () -> Void) { onPointer("notify::active") { _ in handler() } }
}

/// A multi-line text editor (GtkTextView in a frame-like card).
@MainActor
final class TextView: Widget {
    override class var gType: GType { gtk_text_view_get_type() }

    convenience init(accessibleLabel: String, monospace: Bool = false) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_text_view_new()))
        let view = raw.assumingMemoryBound(to: GtkTextView.self)
        gtk_text_view_set_wrap_mode(view, GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_monospace(view, monospace ? 1 : 0)
        gtk_text_view_set_left_margin(view, 8); gtk_text_view_set_right_margin(view, 8)
        gtk_text_view_set_top_margin(view, 6); gtk_text_view_set_bottom_margin(view, 6)
        setSizeRequest(height: 72)
        addCSSClass("card")
        setAccessibleLabel(accessibleLabel)
    }

    private var buffer: UnsafeMutablePointer<GtkTextBuffer> { gtk_text_view_get_buffer(raw.assumingMemoryBound(to: GtkTextView.self)) }

    var text: String {
        get {
            var start = GtkTextIter(), end = GtkTextIter()
            gtk_text_buffer_get_bounds(buffer, &start, &end)
            guard let chars = gtk_text_buffer_get_text(buffer, &start, &end, 0) else { return "" }
            defer { g_free(chars) }
            return String(cString: chars)
        }
        set { gtk_text_buffer_set_text(buffer, newValue, -1) }
    }

    func onChanged(_ handler: @escaping @MainActor () -> Void) {
        GObjectRef(retaining: UnsafeMutableRawPointer(buffer)).on("changed", handler)
    }
}

/// A GtkDropDown over fixed strings (the widget comes from a `.ui` file).
@MainActor
final class DropDown: Widget {
    override class var gType: GType { gtk_drop_down_get_type() }

    private(set) var items: [String] = []

    func setItems(_ strings: [String]) {
        items = strings
        let model = StringList.make(strings)
        gtk_drop_down_set_model(OpaquePointer(raw), halo_list_model(model))
        g_object_unref(model)
    }

    var selectedIndex: Int? {
        get {
            let index = gtk_drop_down_get_selected(OpaquePointer(raw))
            return index == guint.max || Int(index) >= items.count ? nil : Int(index)
        }
        set { gtk_drop_down_set_selected(OpaquePointer(raw), newValue.map { guint($0) } ?? guint.max) }
    }

    var selectedItem: String? { selectedIndex.map { items[$0] } }
}

extension TextView {
    /// True while the keyboard is in the text view (its text is then the user's, not ours).
    var hasFocus: Bool { gtk_widget_has_focus(widget) != 0 }

    /// Underlines the character at a 1-based position (one past the end: the last one) and puts
    /// the cursor there.
    func markError(atCharacter character: Int) {
        let buffer = gtk_text_view_get_buffer(raw.assumingMemoryBound(to: GtkTextView.self))
        let table = gtk_text_buffer_get_tag_table(buffer)
        if gtk_text_tag_table_lookup(table, "error") == nil {
            let tag = gtk_text_tag_new("error")
            halo_object_set_int(UnsafeMutableRawPointer(tag), "underline", gint(PANGO_UNDERLINE_ERROR.rawValue))
            gtk_text_tag_table_add(table, tag)
            g_object_unref(UnsafeMutableRawPointer(tag))
        }
        let count = Int(gtk_text_buffer_get_char_count(buffer))
        let start = max(0, min(character - 1, count - 1))
        var from = GtkTextIter(), to = GtkTextIter()
        gtk_text_buffer_get_iter_at_offset(buffer, &from, gint(start))
        gtk_text_buffer_get_iter_at_offset(buffer, &to, gint(start + 1))
        gtk_text_buffer_apply_tag_by_name(buffer, "error", &from, &to)
        gtk_text_buffer_place_cursor(buffer, &from)
    }

    func clearErrorMark() {
        let buffer = gtk_text_view_get_buffer(raw.assumingMemoryBound(to: GtkTextView.self))
        guard gtk_text_tag_table_lookup(gtk_text_buffer_get_tag_table(buffer), "error") != nil else { return }
        var start = GtkTextIter(), end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        gtk_text_buffer_remove_tag_by_name(buffer, "error", &start, &end)
    }
}

/// A GtkStringList of `strings` (a new reference: the caller unrefs it once a widget holds it).
enum StringList {
    static func make(_ strings: [String]) -> UnsafeMutableRawPointer {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { strings in
                UnsafeMutableRawPointer(gtk_string_list_new(strings))
            }
        }
    }
}
