import Crypto
import Foundation

/// One browser sign-in at an OAuth 2.0 provider, as RFC 8252 wants it for native apps: the user's
/// own browser, a loopback redirect, PKCE S256 and a fresh `state`, then the code exchanged at the
/// provider's token endpoint. Codes, tokens and the verifier are never logged, and never part of an
/// error message.
struct BrowserSignIn: Sendable {
    /// What the provider's token endpoint answered.
    struct ProviderTokens: Sendable, Equatable {
        var idToken: String?
        var accessToken: String
        var refreshToken: String?
    }

    let provider: SocialProvider
    let transport: CurlTransport
    let trust: TLSTrust

    /// A fresh code verifier (32 random octets, base64url: 43 characters, RFC 7636 §4.1) and its S256 challenge.
    struct PKCE: Sendable {
        let verifier: String
        let challenge: String
        init() {
            verifier = Self.randomBase64URL(octets: 32)
            challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URL
        }
        static func randomBase64URL(octets: Int) -> String {
            var generator = SystemRandomNumberGenerator()
            return Data((0..<octets).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64URL
        }
    }

    /// Runs the whole sign-in: opens the browser, waits for its answer, exchanges the code, and
    /// hands the provider's tokens to `complete` (HALO's login). Only then does the browser get its
    /// page, saying how it ended; if that takes longer than the listener's wait, the browser gets
    /// "still signing you in" meanwhile and the caller alone reports the outcome.
    ///
    /// `openBrowser` runs beside the wait (a caller that itself waits for the browser's page does
    /// not hold the sign-in up); its failure ends the wait unless the browser already answered, and
    /// `run` returns only once it has returned.
    func run(
        openBrowser: @escaping @Sendable (URL) async throws -> Void, timeout: Duration,
        complete: (ProviderTokens) async throws(HaloError) -> User
    ) async throws(HaloError) -> User {
        let endpoints = try await resolveEndpoints()
        let pkce = PKCE()
        let state = PKCE.randomBase64URL(octets: 32)
        let name = provider.displayName
        let listener = try await LoopbackRedirectListener.start(expectedState: state) { LandingPage.stillRunning(provider: name) }
        let address = authorizationURL(endpoints.authorization, redirectURI: listener.redirectURI, state: state, pkce: pkce)
        let opening = Task {
            do { try await openBrowser(address) } catch {
                let failure: HaloError =
                    error is CancellationError
                    ? .cancelled : (error as? HaloError) ?? .configuration(message: "The browser could not be opened: \(error)")
                listener.fail(failure)
            }
        }
        let outcome = await withTaskCancellationHandler {
            await finish(listener: listener, timeout: timeout, tokenEndpoint: endpoints.token, verifier: pkce.verifier, complete: complete)
        } onCancel: {
            opening.cancel()
        }
        await opening.value
        return try outcome.get()
    }

    /// The wait, the exchange and `complete`, then the browser's page.
    private func finish(
        listener: LoopbackRedirectListener, timeout: Duration, tokenEndpoint: URL, verifier: String,
        complete: (ProviderTokens) async throws(HaloError) -> User
    ) async -> Result<User, HaloError> {
        let name = provider.displayName
        let accepted: LoopbackRedirectListener.Accepted
        do { accepted = try await listener.callback(timeout: timeout) } catch { return .failure(error) }
        let code: String
        switch accepted.callback {
        case .code(let received):
            code = received
        case .error(let error, let description):
            await accepted.page.send(LandingPage.declined(code: error, provider: name))
            if error == "access_denied" { return .failure(.notAuthenticated(message: "You cancelled the sign-in at \(name).")) }
            return .failure(.notAuthenticated(message: "\(name) refused the sign-in: \(description ?? error)"))
        }
        var step = LandingPage.Step.provider
        do throws(HaloError) {
            let tokens = try await exchange(code: code, at: tokenEndpoint, redirectURI: listener.redirectURI, verifier: verifier)
            step = .server
            let user = try await complete(tokens)
            let who = user.userProfile.email.isEmpty ? user.userProfile.name : user.userProfile.email
            await accepted.page.send(LandingPage.signedIn(provider: name, as: who))
            return .success(user)
        } catch {
            await accepted.page.send(LandingPage.failed(error, at: step, provider: name))
            return .failure(error)
        }
    }

    func authorizationURL(_ endpoint: URL, redirectURI: URL, state: String, pkce: PKCE) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: provider.clientId),
                URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
                URLQueryItem(name: "scope", value: provider.scopes.joined(separator: " ")),
                URLQueryItem(name: "state", value: state),
                URLQueryItem(name: "code_challenge", value: pkce.challenge),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        // A space is %20 in a query (some providers refuse "+"), and "+" itself must be escaped.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url ?? endpoint
    }

    // MARK: Provider calls

    struct Endpoints: Sendable {
        var authorization: URL
        var token: URL
    }

    func resolveEndpoints() async throws(HaloError) -> Endpoints {
        var authorization = provider.authorizationEndpoint
        var token = provider.tokenEndpoint
        if authorization == nil || token == nil, let discovery = provider.discoveryURL {
            let document = try await json(HTTPRequest(method: .get, url: discovery), purpose: "read the sign-in settings of")
            authorization = authorization ?? (document["authorization_endpoint"]?.stringValue).flatMap(URL.init(string:))
            token = token ?? (document["token_endpoint"]?.stringValue).flatMap(URL.init(string:))
        }
        guard let authorization, let token else {
            throw .configuration(
                message: "\(provider.displayName) sign-in needs an authorization and a token endpoint, or a discovery document")
        }
        return Endpoints(authorization: authorization, token: token)
    }

    func exchange(code: String, at endpoint: URL, redirectURI: URL, verifier: String) async throws(HaloError) -> ProviderTokens {
        try await tokens(
            at: endpoint,
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI.absoluteString),
                ("code_verifier", verifier),
            ])
    }

    /// A refresh grant (RFC 6749 §6): new tokens without the browser.
    func refresh(_ refreshToken: String) async throws(HaloError) -> ProviderTokens {
        let endpoints = try await resolveEndpoints()
        var tokens = try await tokens(at: endpoints.token, form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        // Providers that do not rotate refresh tokens answer without one: keep the old.
        if tokens.refreshToken == nil { tokens.refreshToken = refreshToken }
        return tokens
    }

    private func tokens(at endpoint: URL, form: [(String, String)]) async throws(HaloError) -> ProviderTokens {
        var fields = form + [("client_id", provider.clientId)]
        if let secret = provider.clientSecret { fields.append(("client_secret", secret)) }
        let body = fields.map { "\($0.0)=\(Self.formEscape($0.1))" }.joined(separator: "&")
        let request = HTTPRequest(
            method: .post, url: endpoint,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"], body: Data(body.utf8))
        let answer = try await json(request, purpose: "finish the sign-in with", acceptErrors: true)
        if let error = answer["error"]?.stringValue {
            let detail = answer["error_description"]?.stringValue ?? error
            throw .notAuthenticated(message: "\(provider.displayName) did not accept the sign-in: \(detail)")
        }
        guard let access = answer["access_token"]?.stringValue else {
            throw .invalidResponse(status: nil, message: "\(provider.displayName)'s token answer has no access token")
        }
        let tokens = ProviderTokens(
            idToken: answer["id_token"]?.stringValue, accessToken: access, refreshToken: answer["refresh_token"]?.stringValue)
        if provider.tokenKind == .idToken, tokens.idToken == nil {
            throw .invalidResponse(status: nil, message: "\(provider.displayName) sent no ID token (is \"openid\" among the scopes?)")
        }
        return tokens
    }

    private func json(_ request: HTTPRequest, purpose: String, acceptErrors: Bool = false) async throws(HaloError) -> JSONValue {
        let options = TransferOptions(
            timeoutIntervalForRequest: 30, timeoutIntervalForResource: 60, maximumResponseBytes: 1 << 20, trust: trust)
        let response: HTTPResponse
        do { response = try await transport.perform(request, options: options) } catch {
            if case .cancelled = error { throw error }
            throw .network(message: "Cannot \(purpose) \(provider.displayName) (\(request.url.host ?? "")): \(error.localizedDescription)")
        }
        guard response.isSuccess || (acceptErrors && (400..<500).contains(response.statusCode)) else {
            throw .invalidResponse(status: response.statusCode, message: "\(provider.displayName) answered HTTP \(response.statusCode)")
        }
        guard let value = try? JSONValue(data: response.body), case .object = value else {
            throw .invalidResponse(status: response.statusCode, message: "\(provider.displayName) did not answer with JSON")
        }
        return value
    }

    private static func formEscape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

extension Data {
    /// Base64url without padding (RFC 4648 §5), as PKCE and JWTs use it.
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
