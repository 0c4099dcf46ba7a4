import HaloServices

/// A remote HALO server the user chose: where it is and the app client to use.
struct ServerChoice: Equatable {
    var environment: HaloEnvironment
    var clientId: String
    var clientSecret: String
}

/// "Connect to a HALO Server" (`Resources/ui/connect-page.ui`): environment or URL, app
/// credentials, and a connection test with a clear verdict.
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

    /// Combo row order (see the .ui file).
    private static let environments: [HaloEnvironment?] = [.prod, .stage, .qa, .int, nil]

    init(onConnect: @escaping @MainActor (ServerChoice) -> Void, onBack: @escaping @MainActor () -> Void) throws {
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
        for (row, name) in [
            (environmentRow as Widget, "Environment"), (urlRow, "Server URL"), (clientIdRow, "Client ID"),
            (clientSecretRow, "Client Secret"),
        ] {
            row.setAccessibleLabel(name)
        }
        environmentRow.onSelectionChanged { [unowned self] in
            self.urlRow.isVisible = Self.environments[self.environmentRow.selectedIndex] == nil
        }
        backButton.onClicked(onBack)
        testButton.onClicked { [unowned self] in self.testConnection() }
        connectButton.onClicked { [unowned self] in
            switch self.choice() {
            case .success(let choice): onConnect(choice)
            case .failure(let problem): self.verdictLabel.show(problem.message)
            }
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

    private func testConnection() {
        let choice: ServerChoice
        switch self.choice() {
        case .success(let value): choice = value
        case .failure(let problem): verdictLabel.show(problem.message); return
        }
        verdictLabel.removeCSSClass("error")
        verdictLabel.removeCSSClass("success")
        verdictLabel.show("Testing the connection…")
        testButton.isSensitive = false
        Task { @MainActor in
            let verdict = await RemoteWorkspace.test(choice)
            testButton.isSensitive = true
            switch verdict {
            case .success(let summary):
                verdictLabel.addCSSClass("success")
                verdictLabel.show("Connected. \(summary)")
            case .failure(let error):
                verdictLabel.addCSSClass("error")
                verdictLabel.show("Connection failed: \(UserMessages.describe(error))")
            }
        }
    }
}
