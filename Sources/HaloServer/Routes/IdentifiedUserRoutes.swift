import Foundation
import HaloContentStore
import Hummingbird

/// E8 register and E9 login of identified users (§7).
enum IdentifiedUserRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/segmentation/identified/register") { request, context in
            // Any valid token (app or user) may register; bad tokens get the usual 401.
            _ = try await env.read(request) { _, principal in principal }
            // Every app ships its token, so accounts are budgeted per address (`LoginThrottle`).
            return try await env.logins.registering(address: context.clientAddress) {
                try await registerUser(request, env)
            }
        }

        // The body's credentials authenticate this call: a valid, stale or absent token is fine (§7.2).
        // Password checks go through `LoginThrottle` (429 when the email or the address failed too often).
        router.post("/api/segmentation/identified/login") { request, context in
            let fields = try await RequestInput.fields(request, limit: env.maxBodyBytes)
            let network = try fields.optionalString("network").flatMap { $0.isEmpty ? nil : $0 } ?? "halo"
            let userId: String
            if network == "halo" {
                guard let email = try fields.optionalString("email"), let password = try fields.optionalString("password")
                else { throw APIError.badRequest("Credentials are not valid") }
                let verified = try await env.logins.check(.user(email: email), address: context.clientAddress) { lane in
                    try await Accounts.verifyPassword(
                        email: email, password: password, in: env.storage, hashing: env.hashing, lane: lane)
                }
                guard let verified else { throw APIError.badRequest("Credentials are not valid") }
                userId = verified
            } else {
                let identity = try await verifySocial(network: network, token: try fields.requiredString("token"), env)
                userId = try await socialUser(identity, network: network, profile: Accounts.NewUser(email: nil), env)
            }
            let deviceAlias = try fields.optionalString("deviceId")
            let authorization = request.headers[.authorization]
            let answer: JSONValue = try await env.storage.write { db in
                // The user's token acts for the app client of the token sent with the login (§23.12).
                let clientId = try env.tokens.loginClient(authorization: authorization, in: db)
                if let deviceAlias, !deviceAlias.isEmpty {
                    try UserRecord.setDeviceAlias(deviceAlias, userId: userId, in: db)
                    try nameDevice(alias: deviceAlias, userId: userId, clientId: clientId, in: db)
                }
                let token = try env.tokens.issue(clientId: clientId, userId: userId, in: db)
                return ["user": try Accounts.profile(id: userId, in: db).json, "token": token.json]
            }
            return JSONResponse.make(answer)
        }
    }

    /// E8: the body's account, made (a HALO account, or a social identity's).
    private static func registerUser(_ request: Request, _ env: ServerEnvironment) async throws -> Response {
        let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
        guard case .object(let auth)? = body["auth"] else { throw APIError.badRequest("'auth' object is required") }
        let profile = body["profile"]?.objectValue ?? [:]
        let network = try auth.optionalString("network").flatMap { $0.isEmpty ? nil : $0 } ?? "halo"
        var user = Accounts.NewUser(email: nil)
        user.name = try profile.optionalString("name") ?? ""
        user.surname = try profile.optionalString("surname") ?? ""
        user.displayName = try profile.optionalString("displayName") ?? ""
        user.photoUrl = try profile.optionalString("photoUrl") ?? ""
        user.deviceAlias = try auth.optionalString("deviceId").flatMap { $0.isEmpty ? nil : $0 }
        guard network == "halo" else {
            // A social registration is a social sign-in that does not log in: the same linking rules.
            let identity = try await verifySocial(network: network, token: try auth.requiredString("token"), env)
            let userId = try await socialUser(identity, network: network, profile: user, env)
            return JSONResponse.make(try await env.storage.read { db in try Accounts.profile(id: userId, in: db).json })
        }
        let email = try auth.optionalString("email") ?? profile.requiredString("email")
        let password = try auth.requiredString("password")
        guard password.count >= 6 else { throw APIError.badRequest("'password' must have at least 6 characters") }
        guard isPlausibleEmail(email) else { throw APIError.badRequest("'email' is not a valid email address") }
        user.email = email
        user.password = password
        let created = try await Accounts.createUser(user, in: env.storage, hashing: env.hashing)
        return JSONResponse.make(created.json)
    }

    /// Records the device a login named (`deviceId`) as the user's (§23.12), when the login's
    /// client may act on it: a device of that client, or one unclaimed since devices have owners
    /// (an alias is no secret, so a login cannot name another app's device into its user's reach).
    /// A login without a client names only unclaimed devices. Naming never fails the login.
    private static func nameDevice(alias: String, userId: String, clientId: String?, in db: any SQLExecutor) throws {
        guard let device = try DeviceRecord.find(alias: alias, in: db) else { return }
        guard device.isUnclaimed || (clientId != nil && device.clientId == clientId) || device.userId == userId else { return }
        try DeviceRecord.recordNaming(deviceId: device.id, byUser: userId, at: TokenService.nowMilliseconds(), in: db)
    }

    private static func verifySocial(network: String, token: String, _ env: ServerEnvironment) async throws
        -> SocialIdentity
    {
        guard let social = SocialNetwork(rawValue: network) else {
            throw APIError.badRequest("Unknown network '\(network)': use halo, google or facebook")
        }
        do {
            return try await env.configuration.socialVerifier.verify(token: token, network: social)
        } catch let rejection as SocialTokenRejection {
            throw APIError.badRequest(rejection.message)
        }
    }

    /// The account of a verified social identity:
    /// 1. the account that signed in with this network and subject before;
    /// 2. else, when the provider vouches for the email, the account with that email (linked now);
    /// 3. else a new account. An email the provider does not vouch for never takes over an existing
    ///    account and is not recorded: the settings' `unverifiedEmail` policy makes a separate
    ///    account or refuses. An account without an email is keyed by the provider's user id alone.
    private static func socialUser(
        _ identity: SocialIdentity, network: String, profile: Accounts.NewUser, _ env: ServerEnvironment
    ) async throws -> String {
        let policy = env.configuration.unverifiedEmailPolicy
        let existing: String? = try await env.storage.write { db in
            if let id = try UserRecord.socialAccountId(network: network, subject: identity.subject, in: db) { return id }
            guard let email = identity.email, var account = try UserRecord.account(email: email, in: db) else { return nil }
            guard identity.emailVerified else {
                if policy == .refuse {
                    throw APIError.badRequest(
                        "An account with the email \(email) exists, and the provider has not verified that this email is yours. Sign in with that account's password instead."
                    )
                }
                return nil
            }
            if account.socialSubject == nil {
                account.network = network
                account.socialSubject = identity.subject
                try account.update(db)
            }
            return account.id
        }
        if let existing { return existing }
        if identity.email != nil, !identity.emailVerified, policy == .refuse {
            throw APIError.badRequest("The provider has not verified your email address; this server requires a verified one")
        }
        var user = profile
        user.email = identity.emailVerified ? identity.email : nil
        user.network = network
        user.socialSubject = identity.subject
        if user.name.isEmpty { user.name = identity.name }
        if user.surname.isEmpty { user.surname = identity.surname }
        if user.photoUrl.isEmpty { user.photoUrl = identity.photoURL }
        return try await Accounts.createUser(user, in: env.storage, hashing: env.hashing).id
    }

    private static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !email.contains(" ")
    }
}
