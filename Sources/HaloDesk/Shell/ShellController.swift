import CAdw
import Foundation
import HaloServices

/// Decides what the main window shows and moves between pages: welcome → local workspace or
/// connect → sign-in (or register) → workspace; sign out and switch workspace go back.
@MainActor
final class ShellController {
    let window: MainWindow
    private(set) var settings: AppSettings
    private(set) var session: WorkspaceSession?
    private(set) var localWorkspace: LocalWorkspace?
    private var retry: (@MainActor () -> Void)?
    /// The signed-in workspace, while one is shown.
    private(set) var workspaceView: WorkspaceView?
    /// The open preferences window, if any.
    private(set) var preferencesWindow: PreferencesWindow?
    /// Shows the notifications HALO sends this device on the desktop.
    let desktopNotifications = DesktopNotifications()

    private(set) lazy var welcomePage = try? WelcomePage(
        onOpenLocal: { [unowned self] in self.openLocalWorkspace() },
        onConnect: { [unowned self] in self.showConnect() })
    private(set) lazy var connectPage = try? ConnectPage(
        onConnect: { [unowned self] choice in self.connect(to: choice) },
        onBack: { [unowned self] in self.showWelcome() },
        settings: { [unowned self] in self.settings },
        toaster: { [unowned self] toast in self.window.show(toast) })
    private(set) lazy var signInPage = try? SignInPage(
        onSignedIn: { [unowned self] user in self.showWorkspace(user: user) },
        onRegister: { [unowned self] in self.showRegister() })
    private(set) lazy var registerPage = try? RegisterPage(
        onRegistered: { [unowned self] email in self.registered(email: email) },
        onBack: { [unowned self] in self.showSignIn() })

    /// Where the settings are read from and saved to.
    private let settingsFile: URL

    init(window: MainWindow, settingsFile: URL = AppSettings.file) {
        self.window = window
        self.settingsFile = settingsFile
        let loaded = AppSettings.load(from: settingsFile)
        settings = loaded.settings
        if let problem = loaded.problem { window.showToast(problem) }
        window.errorRetryButton.onClicked { [unowned self] in self.retry?() }
        window.errorBackButton.onClicked { [unowned self] in self.showWelcome() }
        Actions.add("sign-out", to: window.window) { [unowned self] in self.signOut() }
        Actions.add("switch-workspace", to: window.window) { [unowned self] in
            self.leaveWorkspace { self.showWelcome() }
        }
        // Closing the window with unsaved edits asks first; with "Run in background" the window
        // only hides, and HaloDesk goes on receiving notifications (Ctrl+Q quits).
        window.window.onCloseRequest { [unowned self] in
            if let view = self.workspaceView, view.hasUnsavedChanges {
                view.confirmLeaving { self.closeWindow() }
                return true
            }
            guard self.settings.runInBackground == true else { return false }
            self.closeWindow()
            return true
        }
        Actions.add("preferences", to: window.window) { [unowned self] in self.showPreferences() }
    }

    /// The first page: the remembered workspace, or the welcome page on first run.
    func start(forceLocal: Bool) {
        if forceLocal || settings.workspace == .local {
            openLocalWorkspace()
        } else if settings.workspace == .remote, let environment = settings.environment, let clientId = settings.clientId {
            reconnect(environment: HaloEnvironment(environment), clientId: clientId)
        } else {
            showWelcome()
        }
    }

    // MARK: - Pages

    func showWelcome() {
        guard let page = welcomePage else { return fail("The welcome page could not be loaded.") }
        window.windowTitle.subtitle = ""
        window.show(page.widget, named: "welcome")
    }

    /// The Connect page, filled from the remembered server, or after a refused connection with
    /// that server's form, the reason and its certificate.
    func showConnect(after failure: (error: Error, choice: ServerChoice)? = nil) {
        guard let page = connectPage else { return fail("The connection page could not be loaded.") }
        if let failure {
            page.explainFailure(failure.error, connecting: failure.choice)
        } else {
            page.prefill(environment: settings.environment, clientId: settings.clientId, clientSecret: nil)
        }
        window.windowTitle.subtitle = "Connect"
        window.show(page.widget, named: "connect")
    }

    func showSignIn(email: String? = nil) {
        guard let page = signInPage, let session else { return fail("The sign-in page could not be loaded.") }
        if let local = localWorkspace {
            page.prepare(
                session: session, email: email ?? local.editorEmail, password: email == nil ? local.editorPassword : nil,
                hint: "This local workspace comes with a demo editor account, filled in below.")
        } else {
            page.prepare(session: session, email: email ?? settings.lastEmail, password: nil, hint: nil)
        }
        window.windowTitle.subtitle = session.title
        window.show(page.widget, named: "sign-in")
    }

    func showRegister() {
        guard let page = registerPage, let session else { return }
        page.prepare(session: session)
        window.show(page.widget, named: "register")
    }

    private func registered(email: String) {
        showSignIn(email: email)
        window.showToast("Account created. Sign in with your new password.")
    }

    func showWorkspace(user: User) {
        guard let session else { return }
        settings.lastEmail = user.userProfile.email
        saveSettings()
        let userName = user.userProfile.displayName ?? user.userProfile.email
        window.windowTitle.subtitle = "\(session.title) — \(userName)"
        window.stack.removePage("workspace")
        do {
            let content = try makeWorkspaceContent(session: session)
            workspaceView?.showSignedIn(workspace: session.title, user: userName)
            window.show(content, named: "workspace", hasOwnHeaderBars: true)
        } catch {
            fail("The workspace could not be shown: \(error)")
        }
    }

    /// The workspace view for a signed-in session; its window actions get their shortcuts here.
    func makeWorkspaceContent(session: WorkspaceSession) throws -> Widget {
        workspaceView?.close()
        let view = try WorkspaceView(session: session, toaster: { [unowned self] message in self.window.showToast(message) })
        view.onInstanceShown = { [unowned self] id in self.desktopNotifications.instanceOpened(id) }
        workspaceView = view
        for (action, accelerators) in view.installActions(on: window.window) {
            Actions.setAccelerators(accelerators, for: action, in: window.window)
        }
        return view.widget
    }

    /// Runs `proceed` now, or after the user agrees to drop unsaved edits in the workspace.
    func leaveWorkspace(then proceed: @escaping @MainActor () -> Void) {
        guard let workspaceView, workspaceView.hasUnsavedChanges else { return proceed() }
        workspaceView.confirmLeaving(then: proceed)
    }

    /// Hides the main window while HaloDesk runs in the background, else closes it (and quits).
    private func closeWindow() {
        if settings.runInBackground == true {
            window.window.isVisible = false
        } else {
            window.window.destroy()
        }
    }

    /// A desktop notification was clicked: opens what it links to (an instance, or a web page in
    /// the browser) and tells the server it was opened.
    func openNotification(_ text: String) {
        guard let target = NotificationTarget(text: text) else { return }
        desktopNotifications.withdraw(target.notificationId)
        if target.notificationId != DesktopNotifications.summaryId, let notifications = session?.notifications {
            Task {
                try? await notifications.report(.open, for: HaloNotification(payload: ["scheduleId": .string(target.notificationId)]))
            }
        }
        if let instanceId = target.instanceId {
            guard let workspaceView else { return window.showToast("Sign in to see what the notification links to.") }
            workspaceView.openInstance(id: instanceId)
        } else if let url = target.url {
            URIOpener.open(url, from: window.window) { [weak self] reason in
                if let reason { self?.window.showToast("Could not open \(url): \(reason)") }
            }
        }
    }

    // MARK: - Connecting

    func openLocalWorkspace() {
        retry = { [unowned self] in self.openLocalWorkspace() }
        if let local = localWorkspace {
            return connected(WorkspaceSession(core: local.core, title: "Local workspace", isLocal: true))
        }
        window.showLoading("Starting the local workspace…")
        Task { @MainActor in
            do {
                let local = try await LocalWorkspace.open(notifications: NotificationsAddon(delegate: desktopNotifications.receiver))
                localWorkspace = local
                settings.workspace = .local
                saveSettings()
                connected(WorkspaceSession(core: local.core, title: "Local workspace", isLocal: true))
            } catch {
                window.showError(title: "The Local Workspace Could Not Be Started", message: UserMessages.describe(error))
            }
        }
    }

    func connect(to choice: ServerChoice) {
        retry = { [unowned self] in self.connect(to: choice) }
        window.showLoading("Connecting to \(choice.environment.baseURL?.host ?? choice.environment.description)…")
        Task { @MainActor in
            do {
                let core = try await RemoteWorkspace.open(
                    choice, settings: settings, notifications: NotificationsAddon(delegate: desktopNotifications.receiver))
                let keyring = RemoteWorkspace.secretKeyring(environment: choice.environment, clientId: choice.clientId)
                do {
                    try await keyring.store(choice.clientSecret, label: "HaloDesk client secret for \(choice.environment)")
                } catch {
                    window.showToast("No keyring available: the client secret will be asked for next time.")
                }
                settings.workspace = .remote
                settings.environment = choice.environment.description
                settings.clientId = choice.clientId
                saveSettings()
                localWorkspace = nil
                connected(
                    WorkspaceSession(
                        core: core, title: choice.environment.baseURL?.host ?? choice.environment.description,
                        isLocal: false))
            } catch {
                if case HaloError.sslPinningFailed = error {
                    // A refused certificate is decided on the Connect page, where it can be pinned.
                    showConnect(after: (error, choice))
                } else {
                    window.showError(title: "Could Not Connect", message: UserMessages.describe(error))
                }
            }
        }
    }

    /// A remembered server: the secret comes from the keyring; without it, ask again.
    private func reconnect(environment: HaloEnvironment, clientId: String) {
        Task { @MainActor in
            let keyring = RemoteWorkspace.secretKeyring(environment: environment, clientId: clientId)
            if let secret = try? await keyring.lookup() {
                connect(to: ServerChoice(environment: environment, clientId: clientId, clientSecret: secret))
            } else {
                showConnect()
            }
        }
    }

    /// A started client: straight to the workspace when a stayed-in user was logged back in.
    private func connected(_ session: WorkspaceSession) {
        self.session = session
        if let user = session.core.auth.currentUser {
            showWorkspace(user: user)
        } else {
            showSignIn()
        }
    }

    func signOut() {
        leaveWorkspace { [unowned self] in self.askHowToSignOut() }
    }

    /// The sign-out question, while it is shown.
    private(set) var signOutDialog: ConfirmationDialog?

    /// On a server's workspace, signing out offers to remove this account's offline copy (for a
    /// computer others use); the local workspace keeps no copy, so it just signs out.
    private func askHowToSignOut() {
        guard let session, !session.isLocal else { return performSignOut(removingCopy: false) }
        let waiting = (try? session.core.content.outbox().pending().count) ?? 0
        var body =
            "HaloDesk keeps a copy of the content you opened on this computer, to show it offline. Remove it if others use this computer."
        if waiting > 0 {
            body += " \(waiting == 1 ? "One edit" : "\(waiting) edits") not sent yet stay either way, and are sent when you sign in again."
        }
        let dialog = ConfirmationDialog(
            parent: window.window, heading: "Sign Out?", body: body, confirmLabel: "_Remove Copy and Sign Out", confirmId: "remove",
            destructive: true)
        dialog.addResponse("sign-out", label: "_Sign Out", isDefault: true)
        dialog.onResponse { [unowned self] choice in
            self.signOutDialog = nil
            guard choice != ConfirmationDialog.cancel else { return }
            self.performSignOut(removingCopy: choice == "remove")
        }
        signOutDialog = dialog
        dialog.present()
    }

    private func performSignOut(removingCopy: Bool) {
        guard let session else { return }
        let view = workspaceView
        workspaceView = nil
        Task { @MainActor in
            await view?.closeAndWait()
            let account = session.core.offlineAccount
            _ = await session.core.auth.logout()
            var note = "Signed out."
            if removingCopy {
                // After logging out: nothing still running opens that account's copy again.
                do throws(HaloError) {
                    try session.core.removeOfflineCopy(ofAccount: account)
                    note = "Signed out. The offline copy was removed from this computer."
                } catch {
                    note = "Signed out, but the offline copy could not be removed: \(error.sentence)"
                }
            }
            window.stack.removePage("workspace")
            showSignIn()
            window.showToast(note)
        }
    }

    /// Changes a setting, remembers it, and applies it to the running session where it can.
    func updateSettings(_ change: (inout AppSettings) -> Void) {
        change(&settings)
        saveSettings()
        guard let core = session?.core else { return }
        core.numberOfRetries = settings.numberOfRetries
        core.logLevel = PreferencesWindow.logLevels.first { $0.name == settings.logLevel }?.level ?? .warning
    }

    /// Preferences changed the browser sign-in providers: a remote workspace uses them from now on,
    /// and the sign-in page shows the buttons they allow.
    func signInProvidersChanged() {
        guard let session, !session.isLocal else { return }
        session.core.configuration.socialProviders = RemoteWorkspace.socialProviders(settings: settings)
        signInPage?.showSocialButtons()
    }

    func showPreferences() {
        do {
            let preferences = try PreferencesWindow(shell: self, parent: window.window)
            preferencesWindow = preferences
            preferences.present()
        } catch {
            window.showToast("Preferences could not be opened: \(error)")
        }
    }

    private func saveSettings() {
        do { try settings.save(to: settingsFile) } catch { window.showToast("Settings could not be saved: \(error.localizedDescription)") }
    }

    private func fail(_ message: String) {
        window.showError(title: "Something Went Wrong", message: message)
    }
}
