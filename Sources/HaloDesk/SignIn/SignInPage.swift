import Foundation
import HaloServices

/// Email/password sign-in (`Resources/ui/sign-in-page.ui`) with "Stay signed in", inline errors,
/// the way to registration, and the Google/Facebook buttons. Those sign in through the user's
/// browser (the SDK's `loginWithBrowser`); meanwhile a waiting page offers Copy Link and Cancel.
@MainActor
final class SignInPage {
    let widget: Widget
    let stack: Stack
    let emailRow: Editable
    let passwordRow: Editable
    let staySwitch: Switch
    let errorLabel: Label
    let hintLabel: Label
    let signInButton: Button
    let registerButton: Button
    let googleButton: Button
    let facebookButton: Button
    let socialHintLabel: Label
    let waitingPage: StatusPage
    let waitingSpinner: Spinner
    let waitingNoteLabel: Label
    let copyLinkButton: Button
    let cancelBrowserButton: Button

    private var browserSignIn: Task<Void, Never>?
    /// The provider's sign-in address of the attempt under way (public values only: state, challenge).
    private(set) var browserAddress: URL?

    private var session: WorkspaceSession?
    private let onSignedIn: @MainActor (User) -> Void

    init(onSignedIn: @escaping @MainActor (User) -> Void, onRegister: @escaping @MainActor () -> Void) throws {
        let builder = try Builder(ui: "sign-in-page")
        stack = try builder.object("sign_in_page")
        widget = stack
        emailRow = try builder.object("email_row")
        passwordRow = try builder.object("password_row")
        staySwitch = try builder.object("stay_switch")
        errorLabel = try builder.object("error_label")
        hintLabel = try builder.object("hint_label")
        signInButton = try builder.object("sign_in_button")
        registerButton = try builder.object("register_button")
        googleButton = try builder.object("google_button")
        facebookButton = try builder.object("facebook_button")
        socialHintLabel = try builder.object("social_hint_label")
        waitingPage = try builder.object("waiting_page")
        waitingSpinner = try builder.object("waiting_spinner")
        waitingNoteLabel = try builder.object("waiting_copied_label")
        copyLinkButton = try builder.object("copy_link_button")
        cancelBrowserButton = try builder.object("cancel_browser_button")
        self.onSignedIn = onSignedIn
        emailRow.setAccessibleLabel("Email")
        passwordRow.setAccessibleLabel("Password")
        signInButton.setAccessibleLabel("Sign In")
        registerButton.setAccessibleLabel("Create an Account")
        googleButton.setAccessibleLabel("Continue with Google")
        facebookButton.setAccessibleLabel("Continue with Facebook")

        signInButton.onClicked { [unowned self] in self.signIn() }
        passwordRow.onEntryActivated { [unowned self] in self.signIn() }
        registerButton.onClicked(onRegister)
        googleButton.onClicked { [unowned self] in self.signInWithBrowser(.google) }
        facebookButton.onClicked { [unowned self] in self.signInWithBrowser(.facebook) }
        copyLinkButton.setAccessibleLabel("Copy Link")
        cancelBrowserButton.setAccessibleLabel("Cancel")
        copyLinkButton.onClicked { [unowned self] in self.copyBrowserAddress() }
        cancelBrowserButton.onClicked { [unowned self] in self.browserSignIn?.cancel() }
    }

    /// Points the page at a connected server; `hint` explains which account to use (local workspace).
    func prepare(session: WorkspaceSession, email: String?, password: String?, hint: String?) {
        self.session = session
        emailRow.text = email ?? ""
        passwordRow.text = password ?? ""
        hintLabel.show(hint)
        errorLabel.show(nil)
        setBusy(false)
        showSocialButtons()
        browserSignIn?.cancel()
        stack.visiblePage = "form"
    }

    /// A button only for a provider this workspace can use; otherwise say how to set one up.
    func showSocialButtons() {
        let providers = session?.core.configuration.socialProviders ?? [:]
        googleButton.isVisible = providers[.google] != nil
        facebookButton.isVisible = providers[.facebook] != nil
        socialHintLabel.show(
            providers.isEmpty
                ? "To sign in with Google or Facebook, enter your app's client ID in Preferences › Browser Sign-In (or GOOGLE_CLIENT_ID, FACEBOOK_APP_ID in ~/.config/halo-desk/Halo.plist). The server must trust that provider too."
                : nil)
    }

    private func setBusy(_ busy: Bool) {
        for button in [signInButton, registerButton, googleButton, facebookButton] { button.isSensitive = !busy }
        signInButton.label = busy ? "Signing In…" : "_Sign In"
    }

    func signIn() {
        guard let session else { return }
        let email = emailRow.text.trimmingCharacters(in: .whitespaces)
        guard !email.isEmpty else { errorLabel.show("Enter your email address."); return }
        guard !passwordRow.text.isEmpty else { errorLabel.show("Enter your password."); return }
        errorLabel.show(nil)
        setBusy(true)
        let profile = AuthProfile(email: email, password: passwordRow.text, deviceId: session.core.device?.alias)
        let stay = staySwitch.isOn
        Task { @MainActor in
            do {
                let user = try await session.core.auth.login(authProfile: profile, stayLoggedIn: stay)
                setBusy(false)
                passwordRow.text = ""
                onSignedIn(user)
            } catch {
                setBusy(false)
                errorLabel.show(UserMessages.signInFailure(error))
            }
        }
    }

    /// Opens the provider's page in the browser and waits (Cancel, Copy Link) for it to come back.
    func signInWithBrowser(_ network: Network) {
        guard let session, browserSignIn == nil else { return }
        let provider = session.core.configuration.socialProviders[network]?.displayName ?? network.rawValue
        let stay = staySwitch.isOn
        errorLabel.show(nil)
        browserAddress = nil
        waitingPage.details = "Sign in with \(provider) in the browser window that opened. HaloDesk is waiting for the answer."
        waitingNoteLabel.show(nil)
        copyLinkButton.isSensitive = false
        waitingSpinner.isSpinning = true
        stack.visiblePage = "waiting"
        browserSignIn = Task { @MainActor [weak self] in
            do throws(HaloError) {
                let user = try await session.core.auth.loginWithBrowser(network: network, stayLoggedIn: stay) { [weak self] address in
                    await self?.openInBrowser(address, provider: provider)
                }
                self?.endBrowserSignIn(error: nil)
                self?.onSignedIn(user)
            } catch {
                self?.endBrowserSignIn(error: error)
            }
        }
    }

    private func openInBrowser(_ address: URL, provider: String) {
        browserAddress = address
        copyLinkButton.isSensitive = true
        URIOpener.open(address.absoluteString, from: nil) { [weak self] failure in
            guard let failure else { return }
            self?.waitingNoteLabel.show(
                "No browser could be opened (\(failure)). Copy the link and open it in your browser to sign in with \(provider).")
        }
    }

    private func copyBrowserAddress() {
        guard let browserAddress else { return }
        copyLinkButton.clipboardText = browserAddress.absoluteString
        waitingNoteLabel.show("Link copied. Paste it into your browser's address bar.")
    }

    private func endBrowserSignIn(error: HaloError?) {
        browserSignIn = nil
        browserAddress = nil
        waitingSpinner.isSpinning = false
        stack.visiblePage = "form"
        guard let error else { return }
        if case .cancelled = error { return }
        errorLabel.show(UserMessages.browserSignInFailure(error))
    }
}
