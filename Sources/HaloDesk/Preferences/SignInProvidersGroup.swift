import Foundation
import HaloServices

/// Preferences › Browser Sign-In: the user's own Google and Facebook app registrations
/// (`SocialProviderKeys`), applied as they are typed once valid, each problem shown at its row.
/// The Google client secret goes to the keyring, never to the settings file.
@MainActor
final class SignInProvidersGroup {
    let googleClientIdRow: Editable
    let googleClientSecretRow: Editable
    let googleDiscoveryRow: Editable
    let facebookAppIdRow: Editable
    let errorLabel: Label

    private unowned let shell: ShellController
    /// The keyring write that follows typing in the secret row (one at a time, after a pause).
    private(set) var pendingSecret: Task<Void, Never>?
    /// The client id whose keyring entry the secret row shows.
    private var secretClientId: String?
    /// Counts the user's edits of the secret row, so a keyring lookup that ends after the user
    /// started typing does not overwrite what they typed.
    private var secretEdits = 0

    init(builder: Builder, shell: ShellController) throws {
        self.shell = shell
        googleClientIdRow = try builder.object("google_client_id_row")
        googleClientSecretRow = try builder.object("google_client_secret_row")
        googleDiscoveryRow = try builder.object("google_discovery_row")
        facebookAppIdRow = try builder.object("facebook_app_id_row")
        errorLabel = try builder.object("sign_in_error_label")
        googleClientIdRow.setAccessibleLabel("Google Client ID")
        googleClientSecretRow.setAccessibleLabel("Google Client Secret")
        googleDiscoveryRow.setAccessibleLabel("Other OpenID Connect Provider")
        facebookAppIdRow.setAccessibleLabel("Facebook App ID")

        let keys = shell.settings.signInProviders ?? SocialProviderKeys()
        googleClientIdRow.text = keys.googleClientId ?? ""
        googleDiscoveryRow.text = keys.googleDiscoveryURL ?? ""
        facebookAppIdRow.text = keys.facebookAppId ?? ""
        showStoredSecret()

        for row in [googleClientIdRow, googleDiscoveryRow, facebookAppIdRow] {
            row.onChanged { [unowned self] in self.apply() }
        }
        googleClientSecretRow.onChanged { [unowned self] in self.storeSecretSoon() }
    }

    /// The keys as the rows hold them (blank rows unset).
    var typedKeys: SocialProviderKeys {
        func value(_ row: Editable) -> String? {
            let text = row.text.trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
        return SocialProviderKeys(
            googleClientId: value(googleClientIdRow), googleDiscoveryURL: value(googleDiscoveryRow),
            facebookAppId: value(facebookAppIdRow))
    }

    /// Marks the rows with problems and says what is wrong; valid keys are saved and reach the
    /// sign-in page at once. Invalid ones are not saved: the last valid keys stay in use.
    private func apply() {
        let keys = typedKeys
        let problems = keys.problems
        let rows: [(SocialProviderKeys.Field, Editable)] = [
            (.googleClientId, googleClientIdRow), (.googleDiscoveryURL, googleDiscoveryRow), (.facebookAppId, facebookAppIdRow),
        ]
        for (field, row) in rows {
            if problems[field] != nil { row.addCSSClass("error") } else { row.removeCSSClass("error") }
        }
        errorLabel.show(problems.isEmpty ? nil : rows.compactMap { problems[$0.0] }.joined(separator: " "))
        guard problems.isEmpty else { return }
        shell.updateSettings { $0.signInProviders = keys == SocialProviderKeys() ? nil : keys }
        shell.signInProvidersChanged()
        if keys.googleClientId != secretClientId { showStoredSecret() }
    }

    /// Fills the secret row from the keyring entry of the current Google client id.
    private func showStoredSecret() {
        let clientId = typedKeys.googleClientId
        secretClientId = clientId
        googleClientSecretRow.isSensitive = clientId != nil
        guard let clientId else { return setSecretText("") }
        let edits = secretEdits
        Task { @MainActor [weak self] in
            let stored = (try? await SocialProvider.secretKeyring(clientId: clientId).lookup()) ?? nil
            guard let self, self.secretClientId == clientId, self.secretEdits == edits else { return }
            self.setSecretText(stored ?? "")
        }
    }

    private var fillingSecret = false
    private func setSecretText(_ text: String) {
        fillingSecret = true
        googleClientSecretRow.text = text
        fillingSecret = false
    }

    /// Saves the secret half a second after the last keystroke (a keyring write per key would be
    /// slow); a cleared row removes it from the keyring.
    private func storeSecretSoon() {
        guard !fillingSecret, let clientId = secretClientId else { return }
        secretEdits += 1
        let secret = googleClientSecretRow.text.trimmingCharacters(in: .whitespacesAndNewlines)
        pendingSecret?.cancel()
        pendingSecret = Task { @MainActor [weak shell] in
            try? await Task.sleep(for: .milliseconds(500))
            guard !Task.isCancelled else { return }
            let keyring = SocialProvider.secretKeyring(clientId: clientId)
            do {
                if secret.isEmpty {
                    try await keyring.clear()
                } else {
                    try await keyring.store(secret, label: "HaloDesk sign-in client secret")
                }
            } catch {
                shell?.window.showToast("The client secret could not be saved in the keyring: \(error.localizedDescription)")
            }
        }
    }
}
