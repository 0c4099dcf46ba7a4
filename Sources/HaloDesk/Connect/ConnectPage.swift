import HaloServices

/// A remote HALO server the user chose: where it is and the app client to use.
struct ServerChoice: Equatable {
    var environment: HaloEnvironment
    var clientId: String
    var clientSecret: String
}

/// "Connect to a HALO Server" (`Resources/ui/connect-page.ui`): environment or URL, app
/// credentials, and a connection test with a clear verdict. For an https server it shows the
/// certificate presented (subject, issuer, expiry, fingerprint) and offers to pin it.
@MainActor
final class ConnectPage {
    let widget: Widget
    let environmentRow: ComboRow
    let urlRow: Editable
    let clientIdRow: Editable
    let clientSecretRow: Editable
    let verdictLabel: Label
    let testButton: Button
    let connectButton: Button
    let backButton: Button
    let certificateGroup: PreferencesGroup
    let certificateSubjectRow: ActionRow
    let certificateIssuerRow: ActionRow
    let certificateExpiresRow: ActionRow
    let certificateFingerprintRow: ActionRow
    let pinButton: Button
    let copyFingerprintButton: Button

    /// The certificate shown in the card, and the server that presented it.
    private(set) var shownCertificate: (certificate: ServerCertificate, choice: ServerChoice)?
    /// The app's settings as they are now (SSL pinning may be off).
    private let settings: @MainActor () -> AppSettings
    private let toaster: @MainActor (Toast) -> Void

    /// Combo row order (see the .ui file).
    private static let environments: [HaloEnvironment?] = [.prod, .stage, .qa, .int, nil]

    init(
        onConnect: @escaping @MainActor (ServerChoice) -> Void, onBack: @escaping @MainActor () -> Void,
        settings: @escaping @MainActor () -> AppSettings = { AppSettings() }, toaster: @escaping @MainActor (Toast) -> Void = { _ in }
    ) throws {
        self.settings = settings
        self.toaster = toaster
        let builder = try Builder(ui: "connect-page")
        widget = try builder.object("connect_page")
        environmentRow = try builder.object("environment_row")
        urlRow = try builder.object("url_row")
        clientIdRow = try builder.object("client_id_row")
        clientSecretRow = try builder.object("client_secret_row")
        verdictLabel = try builder.object("verdict_label")
        testButton = try builder.object("test_button")
        connectButton = try builder.object("connect_button")
        backButton = try builder.object("back_button")
        certificateGroup = try builder.object("certificate_group")
        certificateSubjectRow = try builder.object("certificate_subject_row")
        certificateIssuerRow = try builder.object("certificate_issuer_row")
        certificateExpiresRow = try builder.object("certificate_expires_row")
        certificateFingerprintRow = try builder.object("certificate_fingerprint_row")
        pinButton = try builder.object("pin_button")
        copyFingerprintButton = try builder.object("copy_fingerprint_button")
        for (row, name) in [
            (environmentRow as Widget, "Environment"), (urlRow, "Server URL"), (clientIdRow, "Client ID"),
            (clientSecretRow, "Client Secret"), (copyFingerprintButton, "Copy Fingerprint"),
        ] {
            row.setAccessibleLabel(name)
        }
        environmentRow.onSelectionChanged { [unowned self] in
            self.urlRow.isVisible = Self.environments[self.environmentRow.selectedIndex] == nil
            self.hideCertificate()
        }
        urlRow.onChanged { [unowned self] in self.hideCertificate() }
        backButton.onClicked(onBack)
        testButton.onClicked { [unowned self] in self.testConnection() }
        connectButton.onClicked { [unowned self] in
            switch self.choice() {
            case .success(let choice): onConnect(choice)
            case .failure(let problem): self.verdictLabel.show(problem.message)
            }
        }
        pinButton.onClicked { [unowned self] in self.pinShownCertificate() }
        copyFingerprintButton.onClicked { [unowned self] in
            self.copyFingerprintButton.clipboardText = self.shownCertificate?.certificate.fingerprintSHA256
            self.toaster(Toast("Fingerprint copied"))
        }
    }

    /// Fills the form from remembered settings (the secret comes from the keyring).
    func prefill(environment: String?, clientId: String?, clientSecret: String?) {
        if let environment {
            let parsed = HaloEnvironment(environment)
            if let index = Self.environments.firstIndex(of: parsed) {
                environmentRow.selectedIndex = index
            } else {
                environmentRow.selectedIndex = Self.environments.count - 1
                urlRow.text = environment
            }
        }
        clientIdRow.text = clientId ?? ""
        clientSecretRow.text = clientSecret ?? ""
    }

    struct Problem: Error { let message: String }

    /// The form's values, or the first problem with them.
    func choice() -> Result<ServerChoice, Problem> {
        let environment: HaloEnvironment
        if let named = Self.environments[min(environmentRow.selectedIndex, Self.environments.count - 1)] {
            environment = named
        } else {
            let url = urlRow.text.trimmingCharacters(in: .whitespaces)
            guard HaloEnvironment.custom(url).baseURL != nil else {
                return .failure(Problem(message: "Enter the server's address, such as https://halo.example.com."))
            }
            environment = .custom(url)
        }
        let clientId = clientIdRow.text.trimmingCharacters(in: .whitespaces)
        guard !clientId.isEmpty else { return .failure(Problem(message: "Enter the app's client ID.")) }
        guard !clientSecretRow.text.isEmpty else { return .failure(Problem(message: "Enter the app's client secret.")) }
        return .success(ServerChoice(environment: environment, clientId: clientId, clientSecret: clientSecretRow.text))
    }

    func testConnection() {
        let choice: ServerChoice
        switch self.choice() {
        case .success(let value): choice = value
        case .failure(let problem): verdictLabel.show(problem.message); return
        }
        showVerdict("Testing the connection…", style: nil)
        testButton.isSensitive = false
        let settings = self.settings()
        Task { @MainActor in
            // The certificate is read while the connection is tried: it is shown either way.
            async let certificate = RemoteWorkspace.presentedCertificate(choice, settings: settings)
            let verdict = await RemoteWorkspace.test(choice, settings: settings)
            showCertificate(await certificate, of: choice)
            testButton.isSensitive = true
            switch verdict {
            case .success(let summary): showVerdict("Connected. \(summary)", style: "success")
            case .failure(let error): showVerdict("Connection failed: \(UserMessages.describe(error))", style: "error")
            }
        }
    }

    /// A connection that failed after Connect: the reason under the form and, for a refused
    /// certificate, the certificate with the offer to pin it.
    func explainFailure(_ error: Error, connecting choice: ServerChoice) {
        prefill(environment: choice.environment.description, clientId: choice.clientId, clientSecret: choice.clientSecret)
        showVerdict("Connection failed: \(UserMessages.describe(error))", style: "error")
        let settings = self.settings()
        Task { @MainActor in
            showCertificate(await RemoteWorkspace.presentedCertificate(choice, settings: settings), of: choice)
        }
    }

    private func showVerdict(_ text: String, style: String?) {
        verdictLabel.removeCSSClass("error")
        verdictLabel.removeCSSClass("success")
        if let style { verdictLabel.addCSSClass(style) }
        verdictLabel.show(text)
    }

    // MARK: - The server's certificate

    /// Fills the certificate card (hidden when there is none: http, or nothing answered).
    private func showCertificate(_ certificate: ServerCertificate?, of choice: ServerChoice) {
        guard let certificate else { return hideCertificate() }
        shownCertificate = (certificate, choice)
        certificateSubjectRow.subtitle = certificate.subject
        certificateIssuerRow.subtitle = certificate.issuer == certificate.subject ? "Itself (self-signed)" : certificate.issuer
        certificateExpiresRow.subtitle = certificate.expires
        certificateFingerprintRow.subtitle = certificate.fingerprintSHA256
        let settings = self.settings()
        let core = RemoteWorkspace.client(for: choice, settings: settings)
        let pinned = core.isPinned(certificate)
        pinButton.isVisible = !pinned
        if settings.disableSSLPinning {
            certificateGroup.groupDescription = "SSL pinning is off in Preferences, so pinned certificates are not used."
        } else if pinned {
            certificateGroup.groupDescription =
                "Pinned in \(core.configuration.certificatesDirectory.path). Only pinned certificates are trusted for this server."
        } else {
            certificateGroup.groupDescription =
                "Before pinning, compare the fingerprint with the one your server’s administrator gives you. Once pinned, only pinned certificates are trusted."
        }
        certificateGroup.isVisible = true
    }

    private func hideCertificate() {
        shownCertificate = nil
        certificateGroup.isVisible = false
    }

    /// Pin This Certificate: saved in the certificates folder, then the connection is tested
    /// again with it. The toast's Undo takes the pin back.
    func pinShownCertificate() {
        guard let (certificate, choice) = shownCertificate else { return }
        let core = RemoteWorkspace.client(for: choice, settings: settings())
        do {
            let pin = try core.pinCertificate(certificate)
            let toast = Toast("Certificate pinned", button: "_Undo")
            toast.onButtonClicked { [weak self] in self?.undoPin(pin, with: core) }
            toaster(toast)
            testConnection()
        } catch {
            showVerdict("The certificate could not be pinned: \(error.description)", style: "error")
        }
    }

    func undoPin(_ pin: CertificatePin, with core: CoreManager) {
        do {
            try core.undoPin(pin)
            testConnection()
        } catch {
            showVerdict("The pin could not be taken back: \(error.description)", style: "error")
        }
    }
}
