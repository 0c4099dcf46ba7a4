import ArgumentParser
import Foundation
import HaloServices

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log an identified user in and keep the credentials in the keyring for later commands.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let email = global.user ?? environment["HALO_USER"], let password = global.password ?? environment["HALO_PASSWORD"] else {
            throw HaloError.configuration(message: "login needs --user and --password (or HALO_USER / HALO_PASSWORD)")
        }
        var options = global
        options.user = nil  // log in below, staying logged in
        let core = try await options.startSession()
        let user: User
        do {
            user = try await core.auth.login(authProfile: AuthProfile(email: email, password: password), stayLoggedIn: true)
        } catch {
            throw loginFailure(error)
        }
        if global.json {
            printJSON(
                .object([
                    "id": user.userProfile.id.map(JSONValue.string) ?? .null, "email": .string(user.userProfile.email),
                    "credentialsStored": .bool(user.credentialsStored),
                ]))
        } else {
            print("Logged in as \(user.userProfile.email) (\(user.userProfile.id ?? "?"))")
        }
        if !user.credentialsStored {
            FileHandle.standardError.write(Data("halo: warning: no keyring reachable; the login is not kept for later commands\n".utf8))
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Forget the stored identified user.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let core = try await global.startSession()
        guard await core.auth.logout() else {
            throw HaloError.cache(message: "The stored credentials could not be removed from the keyring")
        }
        if !global.json { print("Logged out") }
    }
}

struct PocketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pocket", abstract: "Read or write the identified user's pocket.",
        subcommands: [GetPocket.self, SetPocket.self])

    struct GetPocket: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print the pocket.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "Only these reference lists (repeatable).") var reference: [String] = []

        func run() async throws {
            let core = try await global.startSession()
            let pocket = try await core.auth.getPocket(filterReferences: reference.isEmpty ? nil : reference)
            printJSON(pocket.wireJSON)
        }
    }

    struct SetPocket: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Save a pocket from JSON {\"references\":{…},\"data\":{…}} (stdin or --file); null lists are deleted.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "JSON file ('-' or absent: stdin).") var file: String?

        func run() async throws {
            let pocket = try Pocket(wire: try readJSONInput(file))
            let core = try await global.startSession()
            printJSON(try await core.auth.savePocket(pocket).wireJSON)
        }
    }
}
