import Crypto
import Foundation
import Hummingbird
import JWTKit
import Synchronization

/// The provider's endpoints: OpenID Connect discovery, authorization (a consent page), token,
/// JWKS, and Facebook's token inspection and profile.
final class ProviderRoutes: Sendable {
    let settings: LocalIdentityProvider.Settings
    let ledger: ProviderLedger
    let keys: Task<SigningKeys, any Error>
    private let issuerBox = Mutex<URL?>(nil)

    init(settings: LocalIdentityProvider.Settings, ledger: ProviderLedger, keys: Task<SigningKeys, any Error>) {
        self.settings = settings
        self.ledger = ledger
        self.keys = keys
    }

    /// The port is known only once bound; the issuer is set before the first request can arrive.
    func bind(issuer: URL) async { issuerBox.withLock { $0 = issuer } }

    private var issuer: String { issuerBox.withLock { $0?.absoluteString ?? "" } }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/.well-known/openid-configuration") { _, _ in Self.json(self.discoveryDocument()) }
        router.get("/jwks") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try await self.keys.value.jwksJSON)))
        }
        router.get("/authorize") { request, _ in
            self.consent(AuthorizationRequest(fields: Self.query(request)))
        }
        router.post("/authorize") { request, _ in
            let fields = try await Self.form(request)
            return try await self.decide(AuthorizationRequest(fields: fields), fields: fields)
        }
        router.post("/token") { request, _ in try await self.token(Self.form(request)) }
        router.get("/debug_token") { request, _ in self.debugToken(Self.query(request)) }
        router.get("/me") { request, _ in self.profile(Self.query(request)) }
    }

    private func discoveryDocument() -> [String: Any] {
        [
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "jwks_uri": issuer + "/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
            // Our extension: where Facebook-style access tokens are inspected and profiles read.
            "debug_token_endpoint": issuer + "/debug_token",
            "profile_endpoint": issuer + "/me",
        ]
    }

    // MARK: Authorization

    /// The parameters of `/authorize`, checked in RFC 6749 §4.1.2.1's order: a bad client or
    /// redirect is shown on the page (never redirected to); other mistakes go back to the app.
    struct AuthorizationRequest {
        var fields: [String: String]
        subscript(_ name: String) -> String? { fields[name].flatMap { $0.isEmpty ? nil : $0 } }
    }

    enum AuthorizationCheck {
        case page(String)
        case redirect(error: String, description: String)
        case valid(LocalIdentityProvider.Client, redirect: URLComponents)
    }

    func check(_ request: AuthorizationRequest) -> AuthorizationCheck {
        guard let clientId = request["client_id"], let client = settings.clients.first(where: { $0.id == clientId }) else {
            return .page("This application is not registered at this provider (unknown client_id).")
        }
        guard let redirect = request["redirect_uri"], let components = URLComponents(string: redirect),
            Self.isLoopbackRedirect(components)
        else {
            return .page(
                "The redirect address must be http://127.0.0.1:<port>/… or http://[::1]:<port>/… (a native app's loopback redirect, RFC 8252 §7.3)."
            )
        }
        guard request["response_type"] == "code" else {
            return .redirect(error: "unsupported_response_type", description: "Only the authorization code flow is supported")
        }
        guard request["code_challenge_method"] == "S256", let challenge = request["code_challenge"], challenge.count == 43 else {
            return .redirect(error: "invalid_request", description: "PKCE with S256 is required (RFC 7636)")
        }
        return .valid(client, redirect: components)
    }

    /// RFC 8252 §7.3: an IP literal on loopback, any port, plain http. Not `localhost` (§8.3).
    static func isLoopbackRedirect(_ url: URLComponents) -> Bool {
        url.scheme == "http" && ["127.0.0.1", "[::1]", "::1"].contains(url.host ?? "") && url.port != nil && url.fragment == nil
    }

    private func consent(_ request: AuthorizationRequest) -> Response {
        switch check(request) {
        case .page(let message):
            return Self.html(ConsentPage.error(message, provider: settings.displayName), status: .badRequest)
        case .redirect(let error, let description):
            return redirect(request, error: error, description: description)
        case .valid(let client, _):
            return Self.html(ConsentPage.consent(request: request.fields, client: client, settings: settings))
        }
    }

    private func decide(_ request: AuthorizationRequest, fields: [String: String]) async throws -> Response {
        guard case .valid(let client, _) = check(request) else { return consent(request) }
        guard fields["cancel"] == nil, let subject = fields["account"],
            settings.accounts.contains(where: { $0.subject == subject })
        else {
            return redirect(request, error: "access_denied", description: "The user declined")
        }
        let code = Self.randomToken()
        ledger.addCode(
            code,
            .init(
                clientId: client.id, redirectURI: request["redirect_uri"] ?? "", codeChallenge: request["code_challenge"] ?? "",
                subject: subject, nonce: request["nonce"], scope: request["scope"] ?? "openid",
                expires: .now + settings.codeLifetime))
        return redirect(request, parameters: [("code", code)])
    }

    private func redirect(_ request: AuthorizationRequest, error: String, description: String) -> Response {
        redirect(request, parameters: [("error", error), ("error_description", description)])
    }

    private func redirect(_ request: AuthorizationRequest, parameters: [(String, String)]) -> Response {
        var components = URLComponents(string: request["redirect_uri"] ?? "") ?? URLComponents()
        var items = components.queryItems ?? []
        items += parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        if let state = request["state"] { items.append(URLQueryItem(name: "state", value: state)) }
        components.queryItems = items
        return Response(
            status: .found,
            headers: [.location: components.string ?? "", .cacheControl: "no-store", .init("Referrer-Policy")!: "no-referrer"])
    }

    // MARK: Token

    private func token(_ fields: [String: String]) async throws -> Response {
        guard let clientId = fields["client_id"], let client = settings.clients.first(where: { $0.id == clientId }) else {
            return Self.oauthError("invalid_client", "Unknown client", status: .unauthorized)
        }
        if let secret = client.secret, fields["client_secret"].map({ Self.constantTimeEqual($0, secret) }) != true {
            return Self.oauthError("invalid_client", "The client secret is missing or wrong", status: .unauthorized)
        }
        switch fields["grant_type"] {
        case "authorization_code":
            guard let code = fields["code"] else { return Self.oauthError("invalid_request", "'code' is required") }
            guard case .valid(let pending) = ledger.redeem(code) else {
                return Self.oauthError("invalid_grant", "The authorization code is unknown, expired or already used")
            }
            guard pending.clientId == client.id, pending.redirectURI == fields["redirect_uri"] else {
                return Self.oauthError("invalid_grant", "The code was issued to another client or redirect address")
            }
            guard let verifier = fields["code_verifier"], (43...128).contains(verifier.count),
                Self.constantTimeEqual(Self.challenge(for: verifier), pending.codeChallenge)
            else {
                return Self.oauthError("invalid_grant", "The PKCE code verifier does not match the challenge")
            }
            return try await issueTokens(
                clientId: client.id, subject: pending.subject, scope: pending.scope, nonce: pending.nonce, origin: code)
        case "refresh_token":
            guard let refresh = fields["refresh_token"], let grant = ledger.takeRefreshGrant(refresh), grant.clientId == client.id
            else {
                return Self.oauthError("invalid_grant", "The refresh token is unknown or was already used")
            }
            return try await issueTokens(clientId: client.id, subject: grant.subject, scope: grant.scope, nonce: nil, origin: refresh)
        default:
            return Self.oauthError("unsupported_grant_type", "Use authorization_code or refresh_token")
        }
    }

    private func issueTokens(clientId: String, subject: String, scope: String, nonce: String?, origin: String) async throws
        -> Response
    {
        guard let account = settings.accounts.first(where: { $0.subject == subject }) else {
            return Self.oauthError("invalid_grant", "The account is gone")
        }
        let lifetime = Int(settings.tokenLifetime.components.seconds)
        let now = Date()
        let expiresAt = Int(now.timeIntervalSince1970) + lifetime
        let access = Self.randomToken()
        let refresh = Self.randomToken()
        ledger.addTokens(
            access: access, refresh: refresh,
            grant: .init(clientId: clientId, subject: subject, scope: scope, expiresAt: expiresAt, origin: origin))
        var answer: [String: Any] = [
            "access_token": access, "token_type": "Bearer", "expires_in": lifetime, "refresh_token": refresh, "scope": scope,
        ]
        if scope.split(separator: " ").contains("openid") {
            let claims = IDTokenClaims(
                iss: .init(value: issuer), sub: .init(value: subject), aud: .init(value: [clientId]),
                exp: .init(value: now.addingTimeInterval(TimeInterval(lifetime))), iat: .init(value: now), nonce: nonce,
                email: account.email, email_verified: account.email == nil ? nil : account.emailVerified, name: account.displayName,
                given_name: account.givenName, family_name: account.familyName, picture: account.picture.isEmpty ? nil : account.picture)
            answer["id_token"] = try await keys.value.collection.sign(claims, kid: JWKIdentifier(string: SigningKeys.keyId))
        }
        return Self.json(answer)
    }

    // MARK: Facebook-style inspection and profile

    /// `GET /debug_token?input_token=…&access_token=<app id>|<app secret>` in Graph API's shape.
    private func debugToken(_ query: [String: String]) -> Response {
        let appCredentials = (query["access_token"] ?? "").split(separator: "|", maxSplits: 1).map(String.init)
        guard appCredentials.count == 2, let app = settings.clients.first(where: { $0.id == appCredentials[0] }),
            let secret = app.secret, Self.constantTimeEqual(secret, appCredentials[1])
        else {
            return Self.graphError("Invalid OAuth access token - Cannot parse access token", code: 190)
        }
        guard let input = query["input_token"], let grant = ledger.accessGrant(input) else {
            return Self.json(["data": ["is_valid": false, "error": ["code": 190, "message": "Invalid OAuth access token."]]])
        }
        let valid = grant.expiresAt > Int(Date().timeIntervalSince1970)
        return Self.json([
            "data": [
                "app_id": grant.clientId, "type": "USER", "application": app.name, "is_valid": valid,
                "expires_at": grant.expiresAt, "user_id": grant.subject, "scopes": grant.scope.split(separator: " ").map(String.init),
            ]
        ])
    }

    /// `GET /me?fields=id,name,email&access_token=…`. An account without an email has no `email`.
    private func profile(_ query: [String: String]) -> Response {
        guard let token = query["access_token"], let grant = ledger.accessGrant(token),
            grant.expiresAt > Int(Date().timeIntervalSince1970),
            let account = settings.accounts.first(where: { $0.subject == grant.subject })
        else {
            return Self.graphError("Error validating access token: The session is invalid or has expired.", code: 190)
        }
        var answer: [String: Any] = [
            "id": account.subject, "name": account.displayName, "first_name": account.givenName, "last_name": account.familyName,
        ]
        if let email = account.email { answer["email"] = email }
        return Self.json(answer)
    }

    // MARK: Helpers

    static func challenge(for verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()
    }

    static func randomToken() -> String {
        Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64URLEncoded()
    }

    /// Secrets compared without leaking where they differ: swift-crypto compares digests in constant time.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        SHA256.hash(data: Data(a.utf8)) == SHA256.hash(data: Data(b.utf8))
    }

    static func query(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { fields[String(name)] = String(value) }
        return fields
    }

    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 64 * 1024)
        var components = URLComponents()
        components.percentEncodedQuery = String(buffer: body).replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func oauthError(_ error: String, _ description: String, status: HTTPResponse.Status = .badRequest) -> Response {
        json(["error": error, "error_description": description], status: status)
    }

    static func graphError(_ message: String, code: Int) -> Response {
        json(["error": ["message": message, "type": "OAuthException", "code": code]], status: .badRequest)
    }

    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .init("X-Frame-Options")!: "DENY", .init("Referrer-Policy")!: "no-referrer",
                .init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}
