import ArgumentParser
import Foundation
import Glibc
import HaloServices

/// The root command. Exit codes (documented in `--help`) let scripts tell failures apart;
/// errors are printed as one line on stderr: `halo: <category>: <message>`.
struct HaloCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "halo",
        abstract: "Scripting client for HALO servers: modules, content search and edition, sync, pocket.",
        discussion: """
            Server and credentials come from the options, the environment (HALO_SERVER, HALO_CLIENT_ID,
            HALO_CLIENT_SECRET, HALO_USER, HALO_PASSWORD) or the configuration file
            ($XDG_CONFIG_HOME/halo-desk/Halo.plist, or --config).

            Exit codes: 0 ok, 1 usage or configuration error, 2 authentication failed,
            3 not found, 4 server error, 5 network error (including TLS/pinning failures).
            """,
        subcommands: [
            Login.self, Logout.self, Modules.self, Search.self, Get.self, Save.self, Delete.self,
            Batch.self, Sync.self, PocketCommand.self, ModuleCommand.self, Export.self, Import.self,
        ])

    /// Runs the command line and exits with the documented codes.
    static func runAndExit() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Glibc.exit(ExitStatus.ok)
        } catch let error as HaloError {
            fail(error)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(ExitStatus.ok)
            }
            FileHandle.standardError.write(Data("halo: usage: \(message(for: error).split(separator: "\n").first ?? "")\n".utf8))
            Glibc.exit(ExitStatus.usage)
        }
    }

    static func fail(_ error: HaloError) -> Never {
        let (status, category) = ExitStatus.of(error)
        let sentence = error.description.replacingOccurrences(of: "\n", with: " ")
        FileHandle.standardError.write(Data("halo: \(category): \(sentence)\n".utf8))
        Glibc.exit(status)
    }
}

/// The documented exit codes.
enum ExitStatus {
    static let ok: Int32 = 0
    static let usage: Int32 = 1
    static let auth: Int32 = 2
    static let notFound: Int32 = 3
    static let server: Int32 = 4
    static let network: Int32 = 5

    static func of(_ error: HaloError) -> (Int32, String) {
        switch error {
        case .server(let status, _, _) where status == 401 || status == 403: return (auth, "auth")
        case .notAuthenticated: return (auth, "auth")
        case .server(404, _, _): return (notFound, "not found")
        case .server, .invalidResponse, .cache: return (server, "server")
        case .network, .sslPinningFailed: return (network, "network")
        case .configuration, .invalidInput, .cancelled: return (usage, "usage")
        }
    }
}
