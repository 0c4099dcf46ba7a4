import Foundation
import HaloContentStore
import Logging

/// Credentials printed by `halo-server seed --demo` and returned by `HaloServerAdmin.seedDemo()`.
public struct DemoCredentials: Sendable, Equatable {
    public var clientId: String
    public var clientSecret: String
    public var editorEmail: String
    public var editorPassword: String

    public init(clientId: String, clientSecret: String, editorEmail: String, editorPassword: String) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.editorEmail = editorEmail
        self.editorPassword = editorPassword
    }
}

/// An app client's credentials (the secret is only known at creation; it is stored hashed).
public struct ClientCredentials: Sendable, Equatable {
    public var clientId: String
    public var clientSecret: String

    public init(clientId: String, clientSecret: String) {
        self.clientId = clientId
        self.clientSecret = clientSecret
    }
}

/// Seeding and account management, for the `halo-server` command, the app's local workspace and tests.
///
/// Rights: a token may edit content when it was issued to a user created with `editor: true`
/// (password grant or identified login) or to an app client created with `editor: true`
/// (`halo-server client add --editor`, `halo-server user add --editor`).
public struct HaloServerAdmin: Sendable {
    let environment: ServerEnvironment

    /// Sync answers admitted and not yet ended: being produced, or waiting for their client (a
    /// stalled client's answer ends when the server cuts it off).
    public var syncAnswersInProgress: Int { environment.streams.count }

    /// Opens (creating and migrating if needed) the database in `dataDirectory` without serving it.
    public static func open(dataDirectory: URL) throws -> HaloServerAdmin {
        let configuration = HaloServerConfiguration(dataDirectory: dataDirectory, logRequests: false)
        return admin(on: try ServerStorage.sqlite(directory: dataDirectory), configuration)
    }

    /// Opens (migrating if needed) the PostgreSQL database at `location` without serving it.
    public static func open(postgres location: PostgresLocation) async throws -> HaloServerAdmin {
        var configuration = HaloServerConfiguration(dataDirectory: FileManager.default.temporaryDirectory, logRequests: false)
        configuration.postgres = location
        let logger = Logger(label: "halo-server-admin")
        return admin(on: try await ServerStorage.open(configuration, logger: logger), configuration)
    }

    private static func admin(on storage: ServerStorage, _ configuration: HaloServerConfiguration) -> HaloServerAdmin {
        HaloServerAdmin(
            environment: ServerEnvironment(
                storage: storage, tokens: TokenService(lifetimeMilliseconds: configuration.tokenLifetimeMilliseconds),
                configuration: configuration, logger: .init(label: "halo-server-admin"), serving: false))
    }

    /// Stops its background work and closes the database (a command that is done with it).
    public func close() { environment.shutDown() }

    /// Adds an app client; `editor` lets its tokens create, update and delete content. `appId` is
    /// the HALO app its devices belong to (docs/protocol.md §23.12): 1 unless several apps share
    /// the server.
    public func addClient(name: String = "App", editor: Bool = false, appId: Int64 = 1) async throws -> ClientCredentials {
        let (id, secret) = try await Accounts.createClient(
            name: name, editor: editor, appId: appId, in: environment.storage, hashing: environment.hashing)
        return ClientCredentials(clientId: id, clientSecret: secret)
    }

    /// Adds a `halo` user (usable for the password grant and identified login). Returns the user id.
    @discardableResult
    public func addUser(email: String, password: String, editor: Bool = false, name: String = "", surname: String = "")
        async throws -> String
    {
        var user = Accounts.NewUser(email: email, password: password)
        user.editor = editor
        user.name = name
        user.surname = surname
        return try await Accounts.createUser(user, in: environment.storage, hashing: environment.hashing).id
    }

    /// Creates a module with its fields; returns the module id.
    @discardableResult
    public func addModule(_ spec: ModuleSpec) async throws -> String {
        let clock = environment.clock
        return try await environment.storage.write { db in
            try ModuleCatalog.create(spec, createdBy: "Admin", now: clock.next(), in: db)
        }
    }

    /// Revokes an access token; later requests with it get 401. Returns whether it existed.
    @discardableResult
    public func revokeToken(_ accessToken: String) async throws -> Bool {
        let tokens = environment.tokens
        return try await environment.storage.write { db in try tokens.revoke(accessToken: accessToken, in: db) }
    }

    /// Number of stored (non-deleted or deleted) instances per module id.
    public func instanceCounts() async throws -> [String: Int] {
        try await environment.storage.read { db in try ContentTables.moduleCounts(in: db) }
    }
}
