import HaloServices

/// Account creation (`Resources/ui/register-page.ui`): name, surname, display name, email,
/// password twice. Registration does not sign in (PROTOCOL §7.1); on success the sign-in page
/// comes back with the email filled in.
@MainActor
final class RegisterPage {
    let widget: Widget
    let nameRow: Editable
    let surnameRow: Editable
    let displayNameRow: Editable
    let emailRow: Editable
    let passwordRow: Editable
    let confirmRow: Editable
    let errorLabel: Label
    let createButton: Button
    let backButton: Button

    private var session: WorkspaceSession?
    private let onRegistered: @MainActor (_ email: String) -> Void

    init(onRegistered: @escaping @MainActor (String) -> Void, onBack: @escaping @MainActor () -> Void) throws {
        let builder = try Builder(ui: "register-page")
        widget = try builder.object("register_page")
        nameRow = try builder.object("name_row")
        surnameRow = try builder.object("surname_row")
        displayNameRow = try builder.object("display_name_row")
        emailRow = try builder.object("email_row")
        passwordRow = try builder.object("password_row")
        confirmRow = try builder.object("confirm_row")
        errorLabel = try builder.object("error_label")
        createButton = try builder.object("create_button")
        backButton = try builder.object("back_button")
        self.onRegistered = onRegistered
        for (row, name) in [
            (nameRow, "Name"), (surnameRow, "Surname"), (displayNameRow, "Display Name"), (emailRow, "Email"),
            (passwordRow, "Password"), (confirmRow, "Confirm Password"),
        ] {
            row.setAccessibleLabel(name)
        }
        backButton.onClicked(onBack)
        createButton.onClicked { [unowned self] in self.register() }
    }

    func prepare(session: WorkspaceSession) {
        self.session = session
        errorLabel.show(nil)
        for row in [nameRow, surnameRow, displayNameRow, emailRow, passwordRow, confirmRow] { row.text = "" }
    }

    /// The first problem with the form, if any (checked before anything is sent).
    func validationProblem() -> String? {
        let email = emailRow.text.trimmingCharacters(in: .whitespaces)
        if nameRow.text.trimmingCharacters(in: .whitespaces).isEmpty { return "Enter your name." }
        if !Self.looksLikeEmail(email) { return "Enter a valid email address." }
        if passwordRow.text.count < 8 { return "Choose a password of at least 8 characters." }
        if passwordRow.text != confirmRow.text { return "The two passwords do not match." }
        return nil
    }

    /// name@domain.tld: catches typos before the server does, without pretending to validate fully.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(" ") else { return false }
        let domain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return domain.count >= 2 && domain.allSatisfy { !$0.isEmpty }
    }

    private func register() {
        guard let session else { return }
        if let problem = validationProblem() { errorLabel.show(problem); return }
        errorLabel.show(nil)
        createButton.isSensitive = false
        let email = emailRow.text.trimmingCharacters(in: .whitespaces)
        let name = nameRow.text.trimmingCharacters(in: .whitespaces)
        let displayName = displayNameRow.text.trimmingCharacters(in: .whitespaces)
        let profile = UserProfile(
            id: nil, email: email, name: name, surname: surnameRow.text.trimmingCharacters(in: .whitespaces),
            displayName: displayName.isEmpty ? name : displayName, profilePictureUrl: nil)
        let auth = AuthProfile(email: email, password: passwordRow.text, deviceId: session.core.device?.alias)
        Task { @MainActor in
            do {
                _ = try await session.core.auth.register(authProfile: auth, userProfile: profile)
                createButton.isSensitive = true
                onRegistered(email)
            } catch {
                createButton.isSensitive = true
                errorLabel.show(UserMessages.signInFailure(error))
            }
        }
    }
}
