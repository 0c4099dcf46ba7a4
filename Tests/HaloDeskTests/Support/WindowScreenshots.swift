import CAdw
import Foundation

@testable import HaloDesk

extension GUITestEnvironment {
    /// Saves a window (or `part` of it, whole even where it scrolls) in the light and the dark
    /// style (`<name>-light.png`, `<name>-dark.png` in the artifacts directory), each after its
    /// next paint.
    @MainActor
    static func screenshots(of window: Window, part: Widget? = nil, named name: String) throws {
        let styleManager = adw_style_manager_get_default()
        defer { adw_style_manager_set_color_scheme(styleManager, ADW_COLOR_SCHEME_DEFAULT) }
        for (style, scheme) in [("light", ADW_COLOR_SCHEME_FORCE_LIGHT), ("dark", ADW_COLOR_SCHEME_FORCE_DARK)] {
            adw_style_manager_set_color_scheme(styleManager, scheme)
            let path = artifactsDirectory.appendingPathComponent("\(name)-\(style).png").path
            try Screenshot.saveAfterNextPaint(window, part: part, to: path)
        }
    }

    /// The main window, once its page transition is over.
    @MainActor
    static func screenshots(of window: MainWindow, named name: String) throws {
        MainLoopBridge.iterate(until: { !window.stack.isTransitionRunning }, timeout: 5)
        try screenshots(of: window.window, named: name)
    }
}
