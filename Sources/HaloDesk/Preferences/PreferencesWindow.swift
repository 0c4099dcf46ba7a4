import CAdw
import CGtk
import HaloServices

/// The preferences window (`Resources/ui/preferences-window.ui`). Changes apply at once to the
/// running session where they can (retries, log level, sign-in providers, running in the
/// background) and are remembered;
/// SSL pinning applies from the next connection, and turning it off asks first.
@MainActor
final class PreferencesWindow {
    let window: Window
    let retriesSpin: SpinButton
    let pinningSwitch: Switch
    let backgroundSwitch: Switch
    let logLevelRow: ComboRow
    let signInProviders: SignInProvidersGroup
    private let serverRow: Widget

    static let logLevels: [(name: String, level: LogLevel)] = [("none", .none), ("error", .error), ("warning", .warning), ("info", .info)]

    init(shell: ShellController, parent: Window) throws {
        let builder = try Builder(ui: "preferences-window")
        window = try builder.object("preferences_window")
        retriesSpin = try builder.object("retries_spin")
        pinningSwitch = try builder.object("pinning_switch")
        backgroundSwitch = try builder.object("background_switch")
        logLevelRow = try builder.object("log_level_row")
        serverRow = try builder.object("server_row")
        signInProviders = try SignInProvidersGroup(builder: builder, shell: shell)
        let switchButton: Button = try builder.object("switch_button")
        gtk_window_set_transient_for(window.window, parent.window)
        ViewSwitcherNames.apply(under: window.widget)

        let settings = shell.settings
        adw_preferences_row_set_title(
            serverRow.raw.assumingMemoryBound(to: AdwPreferencesRow.self), shell.session?.title ?? "Not connected")
        retriesSpin.value = Double(settings.numberOfRetries)
        pinningSwitch.isOn = !settings.disableSSLPinning
        backgroundSwitch.isOn = settings.runInBackground == true
        logLevelRow.selectedIndex = Self.logLevels.firstIndex { $0.name == settings.logLevel } ?? 2

        retriesSpin.onValueChanged { [unowned shell, unowned self] in
            let retries = Int(self.retriesSpin.value.rounded())
            shell.updateSettings { $0.numberOfRetries = retries }
        }
        logLevelRow.onSelectionChanged { [unowned shell, unowned self] in
            let name = Self.logLevels[min(self.logLevelRow.selectedIndex, Self.logLevels.count - 1)].name
            shell.updateSettings { $0.logLevel = name }
        }
        // state-set fires before the switch moves: returning true keeps it on until the user confirms.
        pinningSwitch.onStateSet { [unowned shell, unowned self] turningOn in
            if turningOn {
                shell.updateSettings { $0.disableSSLPinning = false }
                return false
            }
            self.confirmDisablingPinning(shell: shell)
            return true
        }
        backgroundSwitch.onStateSet { [unowned shell] turningOn in
            shell.updateSettings { $0.runInBackground = turningOn }
            return false
        }
        switchButton.onClicked { [unowned shell, unowned self] in
            self.window.close()
            shell.showWelcome()
        }
    }

    /// Turning pinning off exposes the connection to interception: say so and ask.
    private func confirmDisablingPinning(shell: ShellController) {
        let dialog = ConfirmationDialog(
            parent: window, heading: "Turn Off SSL Pinning?",
            body:
                "Without pinning, HaloDesk trusts any certificate the system trusts, so a compromised or intercepting certificate authority could read your content and credentials. Only turn it off for testing.",
            confirmLabel: "_Turn Off", confirmId: "disable", destructive: true)
        dialog.onResponse { [unowned shell, unowned self] choice in
            guard choice == "disable" else { return }
            shell.updateSettings { $0.disableSSLPinning = true }
            self.pinningSwitch.isOn = false
            shell.window.showToast("SSL pinning is off from the next connection.")
        }
        dialog.present()
    }

    func present() { window.present() }

    /// Shows the page named `name` ("general", "sign-in").
    func showPage(_ name: String) {
        adw_preferences_window_set_visible_page_name(window.raw.assumingMemoryBound(to: AdwPreferencesWindow.self), name)
    }
}
