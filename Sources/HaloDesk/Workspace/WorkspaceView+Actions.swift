import CGtk

/// The window actions the workspace adds (find, filter, new, save, delete, refresh, pocket,
/// send notification, new module, module settings, favorite) and their shortcuts.
extension WorkspaceView {
    /// Window actions and their accelerators (the caller registers the accelerators with
    /// `gtk_application_set_accels_for_action`).
    @discardableResult
    func installActions(on window: GObjectRef) -> [(action: String, accelerators: [String])] {
        Actions.add("find", to: window, handler: weakly(self) { $0.searchEntry.grabFocus() })
        Actions.add("filter", to: window, handler: weakly(self) { $0.showFilterBuilder() })
        Actions.add("new-instance", to: window, handler: weakly(self) { $0.newInstance() })
        Actions.add("save", to: window, handler: weakly(self) { $0.save() })
        Actions.add(
            "delete", to: window,
            handler: weakly(self) { view in
                // The Delete accelerator must not take the key from a text field being edited.
                if !TextFocus.deleteForward(in: view.widget) { view.deleteSelection() }
            })
        Actions.add("refresh", to: window, handler: weakly(self) { $0.refresh() })
        Actions.add("pocket", to: window, handler: weakly(self) { $0.showPocket() })
        Actions.add("send-notification", to: window, handler: weakly(self) { $0.showSendNotification() })
        Actions.add("new-module", to: window, handler: weakly(self) { $0.newModule() })
        Actions.add("module-settings", to: window, handler: weakly(self) { $0.showModuleSettings() })
        Actions.add("favorite", to: window, handler: weakly(self) { $0.toggleFavorite() })
        return [
            ("win.find", ["<Control>f"]), ("win.filter", ["<Control><Shift>f"]), ("win.new-instance", ["<Control>n"]),
            ("win.save", ["<Control>s"]),
            ("win.delete", ["Delete"]), ("win.refresh", ["F5"]),
            // Not Ctrl+D: the structured editor duplicates a JSON node with it, and window
            // shortcuts are matched before a focused editor's own.
            ("win.favorite", ["<Control><Shift>d"]),
        ]
    }
}
