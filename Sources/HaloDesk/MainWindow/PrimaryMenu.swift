import CGtk

/// The primary menu (`Resources/ui/primary-menu.ui`): sign out, switch workspace, preferences,
/// shortcuts, about. One definition, given to every header bar that offers the menu.
@MainActor
enum PrimaryMenu {
    /// Sets the menu on a GtkMenuButton loaded from a `.ui` file.
    static func attach(to menuButton: Widget) throws {
        let builder = try Builder(ui: "primary-menu")
        let menu: GObjectRef = try builder.object("primary_menu")
        gtk_menu_button_set_menu_model(OpaquePointer(menuButton.raw), menu.raw.assumingMemoryBound(to: GMenuModel.self))
    }
}
