import ArgumentParser
import Foundation
import HaloServices

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log an identified user in and keep the credentials in the keyring for later commands.",
        discussion: """
            With --google or --facebook the sign-in happens in your browser (OAuth 2.0 for native apps, RFC 8252): \
            halo opens the provider's page with xdg-open (or only prints its address with --no-browser) and waits \
            on 127.0.0.1 for the answer. The provider comes from the configuration file (GOOGLE_CLIENT_ID, \
            FACEBOOK_APP_ID) or from --identity-provider and --provider-client-id (any OpenID Connect issuer); \
            a client secret, when the provider has one, from HALO_PROVIDER_CLIENT_SECRET.
            """)
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Sign in with Google in the browser.") var google = false
    @Flag(help: "Sign in with Facebook in the browser.") var facebook = false
    @Flag(help: "Do not start a browser; print the address to open instead.") var noBrowser = false
    @Option(help: "OpenID Connect issuer to sign in at instead of the preset (its discovery document is read).")
    var identityProvider: String?
    @Option(help: "Client id registered at the identity provider.") var providerClientId: String?
    @Option(help: "Seconds to wait for the browser to come back.") var timeout = 300

    func validate() throws {
        if google && facebook { throw ValidationError("Choose one of --google and --facebook") }
        if identityProvider != nil && !(google || facebook) { throw ValidationError("--identity-provider needs --google or --facebook") }
    }

    func run() async throws {
        let user: User
        if google || facebook {
            user = try await browserLogin(network: google ? .google : .facebook)
        } else {
            let environment = ProcessInfo.processInfo.environment
            guard let email = global.user ?? environment["HALO_USER"], let password = global.password ?? environment["HALO_PASSWORD"]
            else {
                throw HaloError.configuration(
                    message: "login needs --user and --password (or HALO_USER / HALO_PASSWORD), or --google / --facebook")
            }
            var options = global
            options.user = nil  // log in below, staying logged in
            let core = try await options.startSession()
            do {
                user = try await core.auth.login(authProfile: AuthProfile(email: email, password: password), stayLoggedIn: true)
            } catch {
                throw loginFailure(error)
            }
        }
        if global.json {
            printJSON(
                .object([
                    "id": user.userProfile.id.map(JSONValue.string) ?? .null, "email": .string(user.userProfile.email),
                    "name": .string([user.userProfile.name, user.userProfile.surname].filter { !$0.isEmpty }.joined(separator: " ")),
                    "credentialsStored": .bool(user.credentialsStored),
                ]))
        } else {
            let who = user.userProfile.email.isEmpty ? user.userProfile.name : user.userProfile.email
            print("Logged in as \(who) (\(user.userProfile.id ?? "?"))")
        }
        if !user.credentialsStored {
            FileHandle.standardError.write(Data("halo: warning: no keyring reachable; the login is not kept for later commands\n".utf8))
        }
    }

    private func browserLogin(network: Network) async throws -> User {
        var options = global
        options.user = nil
        let issuer = identityProvider
        let clientId = providerClientId
        let secret = ProcessInfo.processInfo.environment["HALO_PROVIDER_CLIENT_SECRET"]
        let core = try await options.startSession { (configuration: inout HaloConfiguration) throws(HaloError) in
            if let issuer {
                guard let url = URL(string: issuer), url.scheme != nil else {
                    throw HaloError.configuration(message: "--identity-provider \(issuer) is not a URL")
                }
                guard let clientId else { throw HaloError.configuration(message: "--identity-provider needs --provider-client-id") }
                configuration.socialProviders[network] = .openIDConnect(
                    network: network, displayName: network == .google ? "Google" : "Facebook", issuer: url, clientId: clientId)
            } else if let clientId {
                configuration.socialProviders[network] = network == .google ? .google(clientId: clientId) : .facebook(appId: clientId)
            }
            if let secret { configuration.socialProviders[network]?.clientSecret = secret }
        }
        let print = noBrowser
        do throws(HaloError) {
            return try await core.auth.loginWithBrowser(network: network, stayLoggedIn: true, timeout: Duration.seconds(timeout)) {
                address in
                // The address carries only public values (state and PKCE challenge), so it may be shown.
                FileHandle.standardError.write(Data("Open this address to sign in: \(address.absoluteString)\n".utf8))
                if !print { try BrowserLauncher.open(address) }
            }
        } catch {
            throw loginFailure(error)
        }
    }
}

/// Opens an address in the user's browser with `xdg-open`; a missing one is not fatal (the address was printed).
enum BrowserLauncher {
    static func open(_ address: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", address.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            FileHandle.standardError.write(Data("halo: no browser could be started; open the address above yourself\n".utf8))
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
