import CAdw
import CGtk
import XCTest

@testable import HaloDesk

/// The real main window built in-process, painted under Xvfb, screenshotted light and dark.
final class MainWindowTests: XCTestCase {
    func testMainWindowPaintsInLightAndDarkStyle() throws {
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let window = try MainWindow(application: app)
            window.window.present()
            defer { window.window.destroy() }
            XCTAssertEqual(window.window.title, "HaloDesk")

            let styleManager = adw_style_manager_get_default()
            defer { adw_style_manager_set_color_scheme(styleManager, ADW_COLOR_SCHEME_DEFAULT) }
            var luminance: [String: Double] = [:]
            for (name, scheme) in [("light", ADW_COLOR_SCHEME_FORCE_LIGHT), ("dark", ADW_COLOR_SCHEME_FORCE_DARK)] {
                adw_style_manager_set_color_scheme(styleManager, scheme)
                let path = GUITestEnvironment.artifactsDirectory.appendingPathComponent("main-window-\(name).png").path
                try Screenshot.saveAfterNextPaint(window.window, to: path)
                luminance[name] = try Self.averageLuminance(ofPNG: path)
            }
            let light = try XCTUnwrap(luminance["light"]), dark = try XCTUnwrap(luminance["dark"])
            XCTAssertGreaterThan(light, 0.8, "light style should be mostly light")
            XCTAssertLessThan(dark, 0.35, "dark style should be mostly dark")
        }
    }

    /// The shortcuts window is not built at start-up; Ctrl+? (win.show-help-overlay) builds it once
    /// and shows it over the main window, and closing it only hides it.
    func testShortcutsWindowIsBuiltOnFirstUse() throws {
        try MainActor.assumeIsolated {
            let app = try GUITestEnvironment.sharedApplication()
            let window = try MainWindow(application: app)
            window.window.present()
            defer { window.window.destroy() }
            XCTAssertNil(window.shortcuts, "built at start-up")

            g_action_group_activate_action(OpaquePointer(window.window.raw), "show-help-overlay", nil)
            let shortcuts = try XCTUnwrap(window.shortcuts, "Ctrl+? did not build the shortcuts window")
            XCTAssertTrue(MainLoopBridge.iterate(until: { shortcuts.isVisible }, timeout: 10), "the shortcuts window did not show")
            XCTAssertEqual(gtk_window_get_transient_for(shortcuts.window), window.window.window)
            let path = GUITestEnvironment.artifactsDirectory.appendingPathComponent("shortcuts-window.png").path
            try Screenshot.saveAfterNextPaint(shortcuts, to: path)

            gtk_window_close(shortcuts.window)
            XCTAssertTrue(MainLoopBridge.iterate(until: { !shortcuts.isVisible }, timeout: 10))
            g_action_group_activate_action(OpaquePointer(window.window.raw), "show-help-overlay", nil)
            XCTAssertEqual(window.shortcuts?.raw, shortcuts.raw, "the shortcuts window was built twice")
            XCTAssertTrue(MainLoopBridge.iterate(until: { shortcuts.isVisible }, timeout: 10))
            gtk_window_close(shortcuts.window)
        }
    }

    /// Mean of (r+g+b)/3 over the image, 0…1, read back through GdkTexture.
    @MainActor
    private static func averageLuminance(ofPNG path: String) throws -> Double {
        var error: UnsafeMutablePointer<GError>?
        guard let texture = gdk_texture_new_from_filename(path, &error) else {
            throw XCTSkip("cannot load \(path): \(swiftString(error?.pointee.message) ?? "?")")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        let width = Int(gdk_texture_get_width(texture)), height = Int(gdk_texture_get_height(texture))
        XCTAssertGreaterThan(width, 300)
        XCTAssertGreaterThan(height, 300)
        let stride = width * 4
        var pixels = [UInt8](repeating: 0, count: stride * height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            gdk_texture_download(texture, buffer.baseAddress, gsize(stride))
        }
        var total = 0.0
        for index in Swift.stride(from: 0, to: pixels.count, by: 4) {
            total += (Double(pixels[index]) + Double(pixels[index + 1]) + Double(pixels[index + 2])) / (3 * 255)
        }
        return total / Double(width * height)
    }
}
