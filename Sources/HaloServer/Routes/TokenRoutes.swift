import Foundation
import HaloContentStore
import Hummingbird

/// E1/E2 `POST /api/oauth/token?_app|_user`: client-credentials, refresh and password grants (§3.2);
/// a password grant may name its app client (ours, §23.12).
/// Every grant checks a secret: all of them go through `LoginThrottle` (429 when the client id,
/// the email or the caller's address has failed too often).
enum TokenRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/oauth/token") { request, context in
            let fields = try await RequestInput.fields(request, limit: env.maxBodyBytes)
            let grant = try fields.optionalString("grant_type") ?? ""
            let token: IssuedToken
            switch grant {
            case "client_credentials":
                let clientId = try await authenticateClient(fields, address: context.clientAddress, env)
                token = try await env.storage.write { db in try env.tokens.issue(clientId: clientId, userId: nil, in: db) }
            case "refresh_token":
                let clientId = try await authenticateClient(fields, address: context.clientAddress, env)
                let refreshToken = try fields.requiredString("refresh_token")
                let refreshed = try await env.storage.write { db in
                    try env.tokens.refresh(refreshToken, clientId: clientId, in: db)
                }
                guard let refreshed else { throw APIError.unauthorized("Refresh token is not valid") }
                token = refreshed
            case "password":
                // Ours (§23.12): `client_id` with its `client_secret` makes the user's token act for
                // that app client (HaloServices sends them); without them the token has no client.
                let sentClient = try fields.optionalString("client_id") != nil || fields.optionalString("client_secret") != nil
                let clientId = sentClient ? try await authenticateClient(fields, address: context.clientAddress, env) : nil
                let (username, password) = try userCredentials(request, fields)
                let verified = try await env.logins.check(.user(email: username), address: context.clientAddress) { lane in
                    try await Accounts.verifyPassword(
                        email: username, password: password, in: env.storage, hashing: env.hashing, lane: lane)
                }
                guard let userId = verified else { throw APIError.unauthorized("Invalid username or password") }
                token = try await env.storage.write { db in try env.tokens.issue(clientId: clientId, userId: userId, scope: "user", in: db)
                }
            case "":
                throw APIError.badRequest("'grant_type' is required")
            default:
                throw APIError.badRequest(
                    "Unsupported grant_type '\(grant)': use client_credentials, refresh_token or password")
            }
            return JSONResponse.make(token.json)
        }
    }

    /// Checks `client_id` / `client_secret`; 401 with HALO's message otherwise (`oauth_failure.json`).
    private static func authenticateClient(
        _ fields: [String: JSONValue], address: String?, _ env: ServerEnvironment
    ) async throws -> String {
        let failure = APIError.unauthorized("Client not found or invalid secret")
        guard let clientId = try fields.optionalString("client_id"), let secret = try fields.optionalString("client_secret")
        else { throw failure }
        let verified = try await env.logins.check(.client(id: clientId), address: address) { lane -> String? in
            let stored = try await env.storage.read { db in
                try ClientRecord.secretHash(clientId: clientId, in: db)
            }
            guard let stored else { return nil }
            return await env.hashing.run(lane) { SecretHasher.verifyPassword(secret, against: stored) } ? clientId : nil
        }
        guard let verified else { throw failure }
        return verified
    }

    /// The password grant's credentials: form fields, falling back to the Basic header (§3.2).
    private static func userCredentials(_ request: Request, _ fields: [String: JSONValue]) throws -> (String, String) {
        if let username = try fields.optionalString("username"), let password = try fields.optionalString("password") {
            return (username, password)
        }
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        {
            return (String(text[..<colon]), String(text[text.index(after: colon)...]))
        }
        throw APIError.unauthorized("Invalid username or password")
    }
}
