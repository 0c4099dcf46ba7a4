import ArgumentParser
import Foundation
import HaloIdentityProvider
import HaloServer

/// `halo-server`: run and administer a HALO-compatible server.
@main
struct HaloServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "halo-server",
        abstract: "A HALO-compatible server (content, search, sync, devices, identified users, pocket).",
        discussion: """
            Rights: tokens of users added with `user add --editor` (password grant or identified login) and of
            app clients added with `client add --editor` may create, update and delete content; other tokens get 403.
            """,
        version: HaloServerInstance.version,
        subcommands: [Serve.self, Seed.self, Client.self, User.self, Module.self, IdentityProvider.self])
}

/// Where the data is: `--data DIR` (SQLite, the default) or `--database postgres://…`.
struct DataOption: ParsableArguments {
    @Option(name: .customLong("data"), help: "Data directory (holds halo.sqlite; created when missing).")
    var directory: String = "./halo-data"
    @Option(
        name: .customLong("database"),
        help: """
            Keep the data in PostgreSQL instead: postgres://USER@HOST:PORT/DATABASE[?sslmode=disable|prefer|require]. \
            The password comes from PGPASSWORD or the password file (PGPASSFILE, else ~/.pgpass), never from the \
            command line. Several servers may share one database; see docs/deploy.md.
            """)
    var postgresAddress: String?

    var url: URL { URL(fileURLWithPath: directory, isDirectory: true) }

    /// The PostgreSQL database, when `--database` names one.
    func postgres() throws -> PostgresLocation? {
        guard let postgresAddress else { return nil }
        do { return try PostgresLocation(postgresAddress) } catch { throw ValidationError("--database: \(error)") }
    }

    /// The data for an administration command, opened and migrated.
    func admin() async throws -> HaloServerAdmin {
        if let location = try postgres() {
            do { return try await HaloServerAdmin.open(postgres: location) } catch { throw ValidationError("\(error)") }
        }
        return try HaloServerAdmin.open(dataDirectory: url)
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the HALO API until interrupted.")

    @Option(help: "Interface to bind.") var host = "127.0.0.1"
    @Option(help: "TCP port (0 = any free port).") var port = 8080
    @OptionGroup var data: DataOption
    @Option(help: "Largest accepted request body in bytes.") var maxBody = 8 * 1024 * 1024
    @Option(help: "Access token lifetime in seconds.") var tokenLifetime = 86_400
    @Option(
        name: .customLong("limit"),
        help: "Set one limit, NAME=VALUE (repeatable; timeouts in seconds). See docs/limits.md for names and defaults.")
    var limitSettings: [String] = []
    @Option(
        help: """
            A JSON file naming the identity providers whose tokens identified login accepts (Google and other OpenID \
            Connect issuers, Facebook) and how their users are linked to accounts. See docs/social-sign-in.md. \
            Without it every social token is refused.
            """)
    var socialConfig: String?
    @Option(
        name: .customLong("trusted-proxy"),
        help: """
            A reverse proxy (address or CIDR range; repeatable) whose X-Forwarded-For header names the client, for the \
            per-address limits. Without it the header is ignored. See docs/deploy.md.
            """)
    var trustedProxies: [String] = []
    @Option(
        name: .customLong("allowed-origin"),
        help: """
            A web origin (https://host[:port]; repeatable) whose pages may call the API from a browser. Without it \
            every request carrying an Origin header is refused (403); no SDK sends one. See docs/protocol.md §23.13.
            """)
    var allowedOrigins: [String] = []
    @Flag(help: "Do not log each request.") var quiet = false

    func validate() throws {
        _ = try configuration()
    }

    private func configuration() throws -> HaloServerConfiguration {
        var configuration = HaloServerConfiguration(
            host: host, port: port, dataDirectory: data.url,
            tokenLifetimeMilliseconds: Int64(tokenLifetime) * 1000, logRequests: !quiet)
        configuration.maxBodyBytes = maxBody
        configuration.postgres = try data.postgres()
        if let socialConfig {
            do { configuration.trustSocialProviders(try SocialSignInSettings.load(URL(fileURLWithPath: socialConfig))) } catch {
                throw ValidationError("\(error)")
            }
        }
        do {
            for setting in limitSettings { try configuration.setLimit(setting) }
        } catch {
            throw ValidationError(error.description)
        }
        do { configuration.trustedProxies = try TrustedProxies(trustedProxies) } catch {
            throw ValidationError("--trusted-proxy: \(error)")
        }
        do { configuration.allowedOrigins = try AllowedOrigins(allowedOrigins) } catch {
            throw ValidationError("--allowed-origin: \(error)")
        }
        return configuration
    }

    func run() async throws {
        let configuration = try configuration()
        let host = self.host
        try await HaloServerInstance.serve(configuration) { port in
            // Unbuffered on stderr: scripts and tests wait for this line.
            FileHandle.standardError.write(Data("halo-server listening on http://\(host):\(port)\n".utf8))
        }
    }
}

struct Seed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fill the data directory: --demo for a realistic workspace, --instances N for benchmark data.")

    @OptionGroup var data: DataOption
    @Flag(help: "A demo workspace (Articles, Products, Events, Translations) with an editor and an app client.")
    var demo = false
    @Option(help: "Number of benchmark instances to generate.") var instances: Int?
    @Option(help: "Number of benchmark modules.") var modules = 10
    @Option(help: "Fields per benchmark module: the 8 the search benchmark uses, then fields of mixed types.")
    var fields = HaloServerAdmin.benchmarkFields.count
    @Option(help: "Random seed (same seed, same data).") var seed: UInt64 = 1

    func validate() throws {
        if demo == (instances != nil) { throw ValidationError("Pass exactly one of --demo or --instances N") }
        if let instances, instances < 0 { throw ValidationError("--instances must not be negative") }
        if modules < 1 { throw ValidationError("--modules must be at least 1") }
        if fields < HaloServerAdmin.benchmarkFields.count {
            throw ValidationError("--fields must be at least \(HaloServerAdmin.benchmarkFields.count)")
        }
    }

    func run() async throws {
        let admin = try await data.admin()
        if demo {
            let credentials = try await admin.seedDemo()
            print(
                """
                Demo workspace created in \(data.postgresAddress ?? data.directory)
                  client id:       \(credentials.clientId)
                  client secret:   \(credentials.clientSecret)
                  editor email:    \(credentials.editorEmail)
                  editor password: \(credentials.editorPassword)
                """)
        } else if let instances {
            let start = Date()
            let moduleIds = try await admin.seedBenchmark(instances: instances, modules: modules, fields: fields, seed: seed)
            print(
                "Seeded \(instances) instances in \(moduleIds.count) modules in \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
            )
            for id in moduleIds { print("  module \(id)") }
        }
    }
}

struct Client: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage app clients.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an app client and print its credentials.")
        @OptionGroup var data: DataOption
        @Option(help: "A name for the client (recorded as createdBy of its edits).") var name = "App"
        @Flag(help: "Let this client's tokens create, update and delete content.") var editor = false
        @Option(help: "The HALO app (appId) its devices belong to; clients of other apps cannot reach them.")
        var appId: Int64 = 1

        func validate() throws {
            guard (1...Int64(Int32.max)).contains(appId) else { throw ValidationError("--app-id must be a whole number from 1") }
        }

        func run() async throws {
            let credentials = try await data.admin().addClient(name: name, editor: editor, appId: appId)
            print("client id:     \(credentials.clientId)\nclient secret: \(credentials.clientSecret)")
        }
    }
}

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage users.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user (password grant and identified login).")
        @OptionGroup var data: DataOption
        @Option(help: "Email (the login name).") var email: String
        @Option(help: "Password.") var password: String
        @Flag(help: "Let this user's tokens create, update and delete content.") var editor = false

        func run() async throws {
            let id = try await data.admin()
                .addUser(email: email, password: password, editor: editor)
            print("user id: \(id)")
        }
    }
}

/// `halo-server identity-provider`: the local OpenID Connect provider, for demos and tests on a
/// machine without internet. It trusts nobody and nobody trusts it until a server is started with
/// the settings it writes (`--write-server-config`).
struct IdentityProvider: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity-provider",
        abstract: "Run a local OpenID Connect provider (Google-style ID tokens, Facebook-style tokens) with a consent page.")

    @Option(help: "TCP port on 127.0.0.1 (0 = any free port).") var port = 0
    @Option(help: "Lifetime of ID and access tokens in seconds.") var tokenLifetime = 3600
    @Option(help: "Write a --social-config file that trusts this provider here.") var writeServerConfig: String?

    func run() async throws {
        var settings = LocalIdentityProvider.Settings.demo
        settings.port = port
        settings.tokenLifetime = .seconds(tokenLifetime)
        let output = writeServerConfig
        try await LocalIdentityProvider.serve(settings) { issuer in
            if let output {
                let trust = SocialSignInSettings.localProvider(
                    issuer: issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
                    facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
                    facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                _ = FileManager.default.createFile(
                    atPath: output, contents: try? encoder.encode(trust), attributes: [.posixPermissions: 0o600])
            }
            FileHandle.standardError.write(Data("identity provider listening on \(issuer.absoluteString)\n".utf8))
        }
    }
}
