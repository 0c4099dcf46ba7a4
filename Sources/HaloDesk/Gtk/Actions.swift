import CGtk

/// Adds named `GSimpleAction`s (`app.<name>` or `win.<name>`) with Swift handlers.
@MainActor
enum Actions {
    /// Registers `name` on an action map (a GtkApplication or GtkApplicationWindow) and returns it
    /// so callers can toggle `enabled`. The map keeps the action alive.
    @discardableResult
    static func add(_ name: String, to map: GObjectRef, handler: @escaping @MainActor () -> Void) -> GObjectRef {
        let action = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_new(name, nil)))
        action.onPointer("activate") { _ in handler() }
        g_action_map_add_action(halo_action_map(map.raw), halo_action(action.raw))
        return action
    }

    /// Registers `name` with a string parameter (`app.<name>::<text>` in a menu, or a
    /// notification's target); the handler gets the text.
    @discardableResult
    static func addTakingText(_ name: String, to map: GObjectRef, handler: @escaping @MainActor (String) -> Void) -> GObjectRef {
        let type = g_variant_type_new("s")
        defer { g_variant_type_free(type) }
        let action = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_new(name, type)))
        action.onPointer("activate") { parameter in
            guard let parameter else { return }
            handler(String(cString: g_variant_get_string(OpaquePointer(parameter), nil)))
        }
        g_action_map_add_action(halo_action_map(map.raw), halo_action(action.raw))
        return action
    }

    static func setEnabled(_ action: GObjectRef, _ enabled: Bool) {
        g_simple_action_set_enabled(OpaquePointer(action.raw), enabled ? 1 : 0)
    }

    /// Gives `action` (e.g. "win.save") its keyboard shortcuts in the window's application.
    static func setAccelerators(_ accelerators: [String], for action: String, in window: Window) {
        guard let application = gtk_window_get_application(window.window) else { return }
        setAccelerators(accelerators, for: action, application: application)
    }

    /// Gives `action` (e.g. "app.quit") its keyboard shortcuts.
    static func setAccelerators(
        _ accelerators: [String], for action: String,
        application: UnsafeMutablePointer<GtkApplication>
    ) {
        var cStrings = accelerators.map { strdup($0) } + [nil]
        defer { cStrings.forEach { free($0) } }
        cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress?.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { pointer in
                gtk_application_set_accels_for_action(application, action, pointer)
            }
        }
    }

    /// Keyboard shortcuts (`<Alt>Up` → `json.move-up`) that act while the keyboard is anywhere
    /// inside `widget`: a local controller, so several editors in one window each get their own.
    static func addShortcuts(_ shortcuts: [(trigger: String, action: String)], to widget: Widget) {
        let controller = gtk_shortcut_controller_new()
        for (trigger, action) in shortcuts {
            gtk_shortcut_controller_add_shortcut(
                controller, gtk_shortcut_new(gtk_shortcut_trigger_parse_string(trigger), gtk_named_action_new(action)))
        }
        gtk_widget_add_controller(widget.widget, controller)
    }
}
