import CAdw
import CGtk

/// The main window (`Resources/ui/main-window.ui`): header bar, primary menu, toasts, content.
@MainActor
final class MainWindow {
    let window: Window
    private let toastOverlay: Widget

    init(application: HaloDeskApplication) throws {
        let builder = try Builder(ui: "main-window")
        window = try builder.object("main_window")
        toastOverlay = try builder.object("toast_overlay")
        gtk_window_set_application(window.window, halo_gtk_application(application.application.raw))
        gtk_widget_set_name(window.widget, "main-window")
        window.setAccessibleLabel(AppInfo.name)

        let shortcuts = try Builder(ui: "help-overlay")
        let helpOverlay: Window = try shortcuts.object("help_overlay")
        gtk_application_window_set_help_overlay(window.raw.assumingMemoryBound(to: GtkApplicationWindow.self), OpaquePointer(helpOverlay.raw))
    }

    /// Shows a short message at the bottom of the window (libadwaita toast).
    func showToast(_ message: String) {
        let toast = adw_toast_new(message)
        adw_toast_overlay_add_toast(halo_adw_toast_overlay(toastOverlay.raw), toast)
    }
}
