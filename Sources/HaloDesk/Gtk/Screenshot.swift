import CGtk

/// Renders a realized window to a PNG file, the way GTK paints it (used by GUI tests and by
/// `halo-desk --screenshot`). Must run after the window's first frame has been painted.
@MainActor
enum Screenshot {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// `part`: a widget inside the window to render alone (e.g. a dialog's content, when the
    /// dialog window itself paints nothing through a paintable); the whole window by default.
    static func save(_ window: Window, part: Widget? = nil, to path: String) throws {
        let target = part ?? window
        let width = gtk_widget_get_width(target.widget)
        let height = gtk_widget_get_height(target.widget)
        guard width > 0, height > 0 else { throw Failure(description: "window is not realized (size \(width)x\(height))") }
        guard let renderer = gtk_native_get_renderer(halo_native(window.raw)) else {
            throw Failure(description: "window has no renderer yet")
        }
        let paintable = GObjectRef(adopting: UnsafeMutableRawPointer(gtk_widget_paintable_new(target.widget)))
        guard let snapshot = gtk_snapshot_new() else { throw Failure(description: "cannot create a GtkSnapshot") }
        gdk_paintable_snapshot(halo_paintable(paintable.raw), snapshot, Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else {
            throw Failure(description: "the window painted nothing")
        }
        defer { gsk_render_node_unref(node) }
        guard let texture = gsk_renderer_render_texture(renderer, node, nil) else {
            throw Failure(description: "rendering the window failed")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        if gdk_texture_save_to_png(texture, path) == 0 {
            throw Failure(description: "cannot write \(path)")
        }
    }

    /// Waits (pumping the main loop) until the window has painted a frame, then saves it.
    static func saveAfterNextPaint(_ window: Window, part: Widget? = nil, to path: String, timeout: Double = 10) throws {
        // The part's own surface paints it (a popover has its own, apart from the window's).
        guard let clock = gtk_widget_get_frame_clock((part ?? window).widget) else {
            throw Failure(description: "window has no frame clock (not realized)")
        }
        let clockRef = GObjectRef(retaining: UnsafeMutableRawPointer(clock))
        let painted = Flag()
        let connection = clockRef.on("after-paint") { painted.isSet = true }
        // The clock must outlive the disconnect: without this, ARC may drop `clockRef` right after
        // its last use above, and a clock GTK replaced meanwhile would be freed before it.
        defer { withExtendedLifetime(clockRef) { connection.disconnect() } }
        // A frame can run without redrawing the widget (its render node then stays empty): wait
        // for a few frames before giving up.
        var attempt = 0
        while true {
            painted.isSet = false
            gtk_widget_queue_draw((part ?? window).widget)
            guard MainLoopBridge.iterate(until: { painted.isSet }, timeout: timeout) else {
                throw Failure(description: "window did not paint within \(timeout) s")
            }
            do {
                return try save(window, part: part, to: path)
            } catch is Failure where attempt < 5 {
                attempt += 1
            }
        }
    }
}

/// A main-actor boolean that escaping handlers can set (captured `var`s cannot be mutated from them).
@MainActor
final class Flag {
    var isSet = false
}
