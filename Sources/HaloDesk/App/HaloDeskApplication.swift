import CAdw
import CGtk
import Foundation

/// The `AdwApplication`: owns the windows, the app-wide actions and their shortcuts.
@MainActor
final class HaloDeskApplication {
    let application: Application
    private let options: CommandLineOptions
    private(set) var mainWindow: MainWindow?
    private(set) var shell: ShellController?

    init(options: CommandLineOptions) {
        self.options = options
        let flags = options.nonUnique ? G_APPLICATION_NON_UNIQUE : G_APPLICATION_DEFAULT_FLAGS
        application = Application(id: AppInfo.applicationID, flags: flags)
        application.onStartup { [unowned self] in self.startup() }
        application.onActivate { [unowned self] in self.activate() }
    }

    /// Runs the GLib main loop until the last window closes; returns the exit status.
    func run() -> Int32 {
        g_application_run(halo_application(application.raw), 0, nil)
    }

    func quit() {
        g_application_quit(halo_application(application.raw))
    }

    private func startup() {
        g_set_application_name(AppInfo.name)
        gtk_window_set_default_icon_name(AppInfo.applicationID)
        AppResources.installOnDisplay()
        Actions.add("quit", to: application) { [unowned self] in self.quit() }
        Actions.add("about", to: application) { [unowned self] in self.showAbout() }
        // A desktop notification was clicked (DesktopNotifications sets it as the default action).
        Actions.addTakingText("open-notification", to: application) { [unowned self] target in
            self.activate()
            self.shell?.openNotification(target)
        }
        setAccelerators(["<Control>q"], for: "app.quit")
        setAccelerators(["<Control>question"], for: "win.show-help-overlay")
        setAccelerators(["<Control>comma"], for: "win.preferences")
    }

    private func activate() {
        if let mainWindow {
            mainWindow.window.present()
            return
        }
        do {
            let window = try MainWindow(application: self)
            mainWindow = window
            let shell = ShellController(window: window)
            self.shell = shell
            afterFirstFrame(of: window)
            BenchmarkMarks.watchFrames(of: window.window)
            shell.start(forceLocal: options.localWorkspace)
            window.window.present()
        } catch {
            // Without its layout the app cannot show anything: say why on stderr and exit non-zero.
            FileHandle.standardError.write(Data("halo-desk: \(error)\n".utf8))
            g_application_quit(halo_application(application.raw))
        }
    }

    /// Handles `--screenshot` and `--quit-after-first-frame` once the window has painted.
    private func afterFirstFrame(of window: MainWindow) {
        guard options.screenshotPath != nil || options.quitAfterFirstFrame else { return }
        let finished = Flag()
        window.window.onMap { [unowned self] in
            window.window.onAfterPaint { [unowned self] in
                guard !finished.isSet else { return }
                finished.isSet = true
                if let path = self.options.screenshotPath {
                    do {
                        try Screenshot.save(window.window, to: path)
                    } catch {
                        FileHandle.standardError.write(Data("halo-desk: screenshot failed: \(error)\n".utf8))
                    }
                }
                self.quit()
            }
        }
    }

    private func setAccelerators(_ accelerators: [String], for action: String) {
        Actions.setAccelerators(accelerators, for: action, application: halo_gtk_application(application.raw))
    }

    private func showAbout() {
        BenchmarkMarks.mark("about open")  // the filter builder benchmark's floor
        guard let about = adw_about_window_new() else { return }
        let aboutWindow = OpaquePointer(about)
        adw_about_window_set_application_name(aboutWindow, AppInfo.name)
        adw_about_window_set_application_icon(aboutWindow, AppInfo.applicationID)
        adw_about_window_set_version(aboutWindow, AppInfo.version)
        adw_about_window_set_developer_name(aboutWindow, "The HaloDesk developers")
        adw_about_window_set_comments(
            aboutWindow,
            "A desktop client for HALO content: browse, filter and edit modules and their instances, also while the server cannot be reached; edits made meanwhile wait until it answers. Others' changes show as they happen, notifications reach the desktop, and editors design modules and their fields."
        )
        adw_about_window_set_website(aboutWindow, AppInfo.website)
        adw_about_window_set_license_type(aboutWindow, GTK_LICENSE_APACHE_2_0)
        if let mainWindow { gtk_window_set_transient_for(halo_window(about), mainWindow.window.window) }
        BenchmarkMarks.markNextPaint(of: Widget(retaining: UnsafeMutableRawPointer(about)), "about painted")
        gtk_window_present(halo_window(about))
    }

}
