import ArgumentParser
import Foundation
import HaloServices

/// Options every command takes: where the server is and who we are.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Server base URL or environment name (int, qa, stage, prod). Env: HALO_SERVER.")
    var server: String?

    @Option(name: .long, help: "Configuration file (plist or JSON with CLIENT_ID, CLIENT_SECRET, ENVIRONMENT…).")
    var config: String?

    @Option(name: .long, help: "App client id. Env: HALO_CLIENT_ID.")
    var clientId: String?

    @Option(name: .long, help: "App client secret. Env: HALO_CLIENT_SECRET.")
    var clientSecret: String?

    @Option(name: .long, help: "Log in as this identified user (email) for this command. Env: HALO_USER.")
    var user: String?

    @Option(name: .long, help: "Password of --user. Env: HALO_PASSWORD (preferred: not visible in the process list).")
    var password: String?

    @Option(name: .long, help: "Folder of pinned server certificates (.cer, .crt, .der, .pem); when it holds any, only they are trusted.")
    var certificates: String?

    @Flag(name: .long, help: "Ignore pinned certificates (trust the system's certificate authorities instead).")
    var noSslPinning = false

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Flag(name: .long, help: "Log requests to stderr.")
    var verbose = false

    /// Builds and starts an SDK instance from the options, logging the user in when asked.
    /// `adjust` changes the configuration before start-up (a command's own settings).
    func startSession(adjust: (inout HaloConfiguration) throws(HaloError) -> Void = { _ in }) async throws(HaloError) -> CoreManager {
        let environment = ProcessInfo.processInfo.environment
        var configuration: HaloConfiguration
        if let config {
            configuration = try HaloConfiguration.load(config)
        } else if FileManager.default.fileExists(atPath: HaloConfiguration.defaultFile.path) {
            configuration = try HaloConfiguration.load()
        } else {
            configuration = HaloConfiguration()
        }
        if let server = server ?? environment["HALO_SERVER"] {
            configuration.environment = HaloEnvironment(server)
            guard configuration.environment.baseURL != nil else {
                throw .configuration(message: "--server \(server) is neither an environment name nor a URL")
            }
        }
        if let id = clientId ?? environment["HALO_CLIENT_ID"] {
            guard let secret = clientSecret ?? environment["HALO_CLIENT_SECRET"] else {
                throw .configuration(message: "--client-id needs --client-secret (or HALO_CLIENT_SECRET)")
            }
            configuration.appCredentials = Credentials(clientId: id, clientSecret: secret)
        }
        guard configuration.appCredentials != nil else {
            throw .configuration(
                message:
                    "No app credentials: pass --client-id and --client-secret, or set CLIENT_ID/CLIENT_SECRET in the configuration file")
        }
        if let certificates { configuration.certificatesDirectory = URL(fileURLWithPath: certificates, isDirectory: true) }
        if noSslPinning { configuration.disableSSLPinning = true }
        configuration.applicationName = "halo"
        try adjust(&configuration)

        let core = CoreManager(configuration: configuration)
        if verbose {
            core.addLogger(ConsoleLogger())
            core.logLevel = .info
        } else {
            core.logLevel = .none
        }
        try await core.startup()
        if let user = user ?? environment["HALO_USER"] {
            guard let password = password ?? environment["HALO_PASSWORD"] else {
                throw .configuration(message: "--user needs --password (or HALO_PASSWORD)")
            }
            do {
                _ = try await core.auth.login(authProfile: AuthProfile(email: user, password: password), stayLoggedIn: false)
            } catch {
                throw loginFailure(error)
            }
        }
        return core
    }
}

/// HALO answers a rejected login with 400 (§7.2): for scripts that is an authentication failure (exit 2).
func loginFailure(_ error: HaloError) -> HaloError {
    if case .server(400, let message, _) = error { return .notAuthenticated(message: "Login failed: \(message)") }
    return error
}

/// Reads a JSON document from a file, or stdin when the path is nil or "-".
func readJSONInput(_ path: String?) throws(HaloError) -> JSONValue {
    let data: Data
    if let path, path != "-" {
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .invalidInput(message: "Cannot read \(path)")
        }
    } else {
        data = FileHandle.standardInput.readDataToEndOfFile()
    }
    do { return try JSONValue(data: data) } catch {
        throw .invalidInput(message: "The input is not valid JSON: \(error)")
    }
}

/// Prints rows as an aligned table with a header.
func printTable(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { column in
        ([header[column]] + rows.map { column < $0.count ? $0[column] : "" }).map(\.count).max() ?? 0
    }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
    print(line(header))
    rows.forEach { print(line($0)) }
}

/// Prints JSON pretty-printed with sorted keys.
func printJSON(_ value: JSONValue) {
    if let object = try? JSONSerialization.jsonObject(with: value.data(sortedKeys: true), options: [.fragmentsAllowed]),
        let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])
    {
        print(String(decoding: pretty, as: UTF8.self))
    } else {
        print(value.jsonString(sortedKeys: true))
    }
}
