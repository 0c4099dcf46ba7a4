import CAdw
import CGtk
import Foundation
import XCTest

@testable import HaloDesk

/// What GUI tests share: where the package and its artifacts are, and a GTK initialised once.
///
/// `make test` runs the suite inside scripts/gui-session.sh (Xvfb, D-Bus, keyring, AT-SPI) and
/// sets HALO_REQUIRE_GUI=1, so a missing display there is a failure, not a skip.
enum GUITestEnvironment {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Screenshots and logs a person can look at after the run: `<package>/test-artifacts/`.
    static var artifactsDirectory: URL {
        let url = packageRoot.appendingPathComponent("test-artifacts")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The directory holding the built products (`halo-desk`, `halo-server`, the test bundle).
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    static var requireGUI: Bool { ProcessInfo.processInfo.environment["HALO_REQUIRE_GUI"] == "1" }

    /// Skips (plain `swift test` without a display) or fails (`make test`) when there is no X display.
    static func requireDisplay() throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"]?.isEmpty == false else {
            if requireGUI { XCTFail("HALO_REQUIRE_GUI=1 but no DISPLAY: run through scripts/gui-session.sh") }
            throw XCTSkip("no X display (run `make test` for GUI tests)")
        }
    }

    /// Initialises GTK and libadwaita in this process once, and installs the main-loop bridge.
    @MainActor
    static func initializeGTK() throws {
        try requireDisplay()
        guard !gtkReady else { return }
        setenv("GSK_RENDERER", "cairo", 0)
        // GTK's test accessibility backend: no AT-SPI bus traffic, but accessible names are kept
        // so AccessibilityAudit can read them back (with "none" they are dropped).
        setenv("GTK_A11Y", "test", 1)
        gtk_init()
        adw_init()
        AppResources.installOnDisplay()
        MainLoopBridge.install()
        gtkReady = true
    }

    @MainActor private static var gtkReady = false
    @MainActor private static var application: HaloDeskApplication?

    /// One registered HaloDeskApplication for all in-process window tests: a second GApplication
    /// with the same id cannot export itself on the session bus from the same process.
    @MainActor
    static func sharedApplication() throws -> HaloDeskApplication {
        try initializeGTK()
        if let application { return application }
        var options = CommandLineOptions()
        options.nonUnique = true
        let app = HaloDeskApplication(options: options)
        var error: UnsafeMutablePointer<GError>?
        guard g_application_register(halo_application(app.application.raw), nil, &error) != 0 else {
            let message = swiftString(error?.pointee.message) ?? "unknown error"
            g_clear_error(&error)
            throw XCTSkip("cannot register the application: \(message)")
        }
        application = app
        return app
    }
}
