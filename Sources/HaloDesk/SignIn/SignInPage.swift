import HaloServices

/// Email/password sign-in (`Resources/ui/sign-in-page.ui`) with "Stay signed in", inline errors,
/// the way to registration, and the Google/Facebook buttons.
@MainActor
final class SignInPage {
    let widget: Widget
    let emailRow: Editable
    let passwordRow: Editable
    let staySwitch: Switch
    let errorLabel: Label
    let hintLabel: Label
    let signInButton: Button
    let registerButton: Button
    let googleButton: Button
    let facebookButton: Button

    private var session: WorkspaceSession?
    private let onSignedIn: @MainActor (User) -> Void

    init(onSignedIn: @escaping @MainActor (User) -> Void, onRegister: @escaping @MainActor () -> Void) throws {
        let builder = try Builder(ui: "sign-in-page")
        widget = try builder.object("sign_in_page")
        emailRow = try builder.object("email_row")
        passwordRow = try builder.object("password_row")
        staySwitch = try builder.object("stay_switch")
        errorLabel = try builder.object("error_label")
        hintLabel = try builder.object("hint_label")
        signInButton = try builder.object("sign_in_button")
        registerButton = try builder.object("register_button")
        googleButton = try builder.object("google_button")
        facebookButton = try builder.object("facebook_button")
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
    }

    /// Points the page at a connected server; `hint` explains which account to use (local workspace).
    func prepare(session: WorkspaceSession, email: String?, password: String?, hint: String?) {
        self.session = session
        emailRow.text = email ?? ""
        passwordRow.text = password ?? ""
        hintLabel.show(hint)
        errorLabel.show(nil)
        setBusy(false)
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

    private func signInWithBrowser(_ network: Network) {
        guard let session else { return }
        let stay = staySwitch.isOn
        Task { @MainActor in
            do {
                onSignedIn(try await session.core.auth.loginWithBrowser(network: network, stayLoggedIn: stay))
            } catch {
                errorLabel.show(UserMessages.signInFailure(error))
            }
        }
    }
}
