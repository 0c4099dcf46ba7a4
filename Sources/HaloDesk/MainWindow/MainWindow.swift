import CAdw
import CGtk

/// The main window (`Resources/ui/main-window.ui`): header bar, primary menu, toasts, and a page
/// stack the shell fills (welcome, connect, sign-in, register, workspace; loading and error are
/// part of the layout).
@MainActor
final class MainWindow {
    let window: Window
    let stack: Stack
    let windowTitle: WindowTitle
    private let toastOverlay: Widget
    /// Hidden while a page with its own header bars (the workspace) is shown.
    let headerBar: Widget
    private let loadingSpinner: Spinner
    private let loadingLabel: Label
    private let errorPage: StatusPage
    let errorRetryButton: Button
    let errorBackButton: Button

    init(application: HaloDeskApplication) throws {
        let builder = try Builder(ui: "main-window")
        window = try builder.object("main_window")
        stack = try builder.object("content_stack")
        windowTitle = try builder.object("window_title")
        toastOverlay = try builder.object("toast_overlay")
        headerBar = try builder.object("header_bar")
        try PrimaryMenu.attach(to: try builder.object("primary_menu_button"))
        loadingSpinner = try builder.object("loading_spinner")
        loadingLabel = try builder.object("loading_label")
        errorPage = try builder.object("error_page")
        errorRetryButton = try builder.object("error_retry_button")
        errorBackButton = try builder.object("error_back_button")
        gtk_window_set_application(window.window, halo_gtk_application(application.application.raw))
        gtk_widget_set_name(window.widget, "main-window")
        window.setAccessibleLabel(AppInfo.name)

        // The shortcuts window (a few hundred widgets) is built on first use, not at start-up.
        firstUseShortcutsAction = Actions.add("show-help-overlay", to: window) { [unowned self] in self.showShortcuts() }
    }

    /// Kept alive here: GTK's own show-help-overlay action replaces it in the window's action map
    /// while it is being activated, and the map's reference is then the one dropped.
    private var firstUseShortcutsAction: GObjectRef?

    /// The keyboard shortcuts window, once it was asked for. GTK owns it (the window's help
    /// overlay); no reference is kept here: the overlay's disposal reaches back to the main
    /// window, so it must not outlive it.
    var shortcuts: Window? {
        gtk_application_window_get_help_overlay(window.raw.assumingMemoryBound(to: GtkApplicationWindow.self))
            .map { Window(retaining: UnsafeMutableRawPointer($0)) }
    }

    /// Opens the keyboard shortcuts window (Ctrl+?), building it the first time.
    func showShortcuts() {
        if shortcuts == nil {
            do {
                let built: Window = try Builder(ui: "help-overlay").object("help_overlay")
                // As the window's help overlay its rows show the application's accelerators, it is
                // modal, hides on close and goes with the window; GTK's own show-help-overlay action
                // replaces this one from now on.
                gtk_application_window_set_help_overlay(
                    window.raw.assumingMemoryBound(to: GtkApplicationWindow.self),
                    OpaquePointer(built.raw))
            } catch {
                showToast("The keyboard shortcuts could not be shown: \(error)")
                return
            }
        }
        shortcuts?.present()
    }

    /// The toast shown last (what a test presses Undo on).
    private(set) var lastToast: Toast?

    /// Shows a short message at the bottom of the window (libadwaita toast).
    func showToast(_ message: String) { show(Toast(message)) }

    /// Shows `toast` (e.g. one with an Undo button) over the window's content.
    func show(_ toast: Toast) {
        lastToast = toast
        toast.show(in: toastOverlay)
    }

    /// Adds `page` under `name` once; later calls only show it. A page that `hasOwnHeaderBars`
    /// (the workspace: one per pane) replaces the window's header bar while it is shown.
    func show(_ page: Widget, named name: String, hasOwnHeaderBars: Bool = false) {
        if !stack.hasPage(name) { stack.addPage(page, named: name) }
        loadingSpinner.isSpinning = false
        headerBar.isVisible = !hasOwnHeaderBars
        stack.visiblePage = name
    }

    func showLoading(_ message: String) {
        loadingLabel.text = message
        loadingSpinner.isSpinning = true
        headerBar.isVisible = true
        stack.visiblePage = "loading"
    }

    func showError(title: String, message: String) {
        errorPage.title = title
        errorPage.details = message
        loadingSpinner.isSpinning = false
        headerBar.isVisible = true
        stack.visiblePage = "error"
    }
}
