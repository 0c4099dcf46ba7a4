import CGtk
import Foundation

/// Finds the run-time files the app loads (`.ui` layouts, CSS, icons).
///
/// Order: `$HALO_DESK_RESOURCES`; the installed layout `<prefix>/share/halo-desk` beside
/// `<prefix>/bin/halo-desk`; otherwise the source tree (`make run` runs the binary from `.build/`).
enum AppResources {
    /// The folder holding `ui/`, `style.css`, … (the repository's `Resources/` in development).
    static let directory: String = locateResources()

    /// The folder holding the `hicolor` icon theme with the app icon.
    static var iconThemeDirectory: String {
        let installed = (directory as NSString).appendingPathComponent("../icons")
        let source = (directory as NSString).appendingPathComponent("../data/icons")
        return FileManager.default.fileExists(atPath: source) ? source : installed
    }

    static func uiFile(_ name: String) -> String {
        (directory as NSString).appendingPathComponent("ui/\(name).ui")
    }

    static var styleSheet: String { (directory as NSString).appendingPathComponent("style.css") }

    /// Gives the default display the app's icons and style sheet (the app at start-up, and the
    /// window tests, so their screenshots look as the app does).
    @MainActor
    static func installOnDisplay() {
        guard let display = gdk_display_get_default() else { return }
        gtk_icon_theme_add_search_path(gtk_icon_theme_get_for_display(display), iconThemeDirectory)
        let css = gtk_css_provider_new()
        gtk_css_provider_load_from_path(css, styleSheet)
        gtk_style_context_add_provider_for_display(display, OpaquePointer(css), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(css)
    }

    private static func locateResources() -> String {
        if let explicit = ProcessInfo.processInfo.environment["HALO_DESK_RESOURCES"], !explicit.isEmpty {
            return explicit
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let binDirectory = executable.deletingLastPathComponent()
        let installed = binDirectory.appendingPathComponent("../share/halo-desk").standardized
        if FileManager.default.fileExists(atPath: installed.appendingPathComponent("ui").path) {
            return installed.path
        }
        // Development: walk up from .build/<triple>/<config>/ to the package root.
        var candidate = binDirectory
        for _ in 0..<6 {
            let resources = candidate.appendingPathComponent("Resources")
            if FileManager.default.fileExists(atPath: resources.appendingPathComponent("ui").path) {
                return resources.path
            }
            candidate = candidate.deletingLastPathComponent()
        }
        // Last resort: relative to the working directory (tests run from the package root).
        return FileManager.default.currentDirectoryPath + "/Resources"
    }
}
