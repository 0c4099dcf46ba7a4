import Foundation
import GRDB
import HaloContentStore
import Hummingbird

/// E8 register and E9 login of identified users (§7).
enum IdentifiedUserRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/segmentation/identified/register") { request, _ in
            // Any valid token (app or user) may register; bad tokens get the usual 401.
            _ = try await env.read(request) { _, principal in principal }
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            guard case .object(let auth)? = body["auth"] else { throw APIError.badRequest("'auth' object is required") }
            let profile = body["profile"]?.objectValue ?? [:]
            let network = try auth.optionalString("network").flatMap { $0.isEmpty ? nil : $0 } ?? "halo"
            var user = Accounts.NewUser(email: "")
            user.name = try profile.optionalString("name") ?? ""
            user.surname = try profile.optionalString("surname") ?? ""
            user.displayName = try profile.optionalString("displayName") ?? ""
            user.photoUrl = try profile.optionalString("photoUrl") ?? ""
            user.deviceAlias = try auth.optionalString("deviceId").flatMap { $0.isEmpty ? nil : $0 }
            if network == "halo" {
                user.email = try auth.optionalString("email") ?? profile.requiredString("email")
                let password = try auth.requiredString("password")
                guard password.count >= 6 else { throw APIError.badRequest("'password' must have at least 6 characters") }
                user.password = password
            } else {
                let identity = try await verifySocial(network: network, token: try auth.requiredString("token"), env)
                user.network = network
                user.socialSubject = identity.subject
                user.email = identity.email
                if user.name.isEmpty { user.name = identity.name }
                if user.surname.isEmpty { user.surname = identity.surname }
                if user.photoUrl.isEmpty { user.photoUrl = identity.photoURL }
            }
            guard isPlausibleEmail(user.email) else { throw APIError.badRequest("'email' is not a valid email address") }
            let created = try await Accounts.createUser(user, in: env.database, hashing: env.hashing)
            return JSONResponse.make(created.json)
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
                        email: email, password: password, in: env.database, hashing: env.hashing, lane: lane)
                }
                guard let verified else { throw APIError.badRequest("Credentials are not valid") }
                userId = verified
            } else {
                let identity = try await verifySocial(network: network, token: try fields.requiredString("token"), env)
                userId = try await socialUser(identity, network: network, env)
            }
            let deviceAlias = try fields.optionalString("deviceId")
            let answer: JSONValue = try await env.database.write { db in
                if let deviceAlias, !deviceAlias.isEmpty {
                    try UserRecord.setDeviceAlias(deviceAlias, userId: userId, in: db)
                }
                let token = try env.tokens.issue(clientId: nil, userId: userId, in: db)
                return ["user": try Accounts.profile(id: userId, in: db).json, "token": token.json]
            }
            return JSONResponse.make(answer)
        }
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

    /// The account of a verified social identity, created on first sign-in.
    private static func socialUser(_ identity: SocialIdentity, network: String, _ env: ServerEnvironment) async throws
        -> String
    {
        let existing = try await env.database.read { db in
            try UserRecord.socialAccountId(network: network, subject: identity.subject, email: identity.email, in: db)
        }
        if let existing { return existing }
        var user = Accounts.NewUser(email: identity.email)
        user.network = network
        user.socialSubject = identity.subject
        user.name = identity.name
        user.surname = identity.surname
        user.photoUrl = identity.photoURL
        return try await Accounts.createUser(user, in: env.database, hashing: env.hashing).id
    }

    private static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !email.contains(" ")
    }
}
