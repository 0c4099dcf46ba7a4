import Foundation

extension CoreManager {
    /// Sends an API call: resolves it against the environment, attaches the token of its
    /// authentication mode, renews the token once on 401 (PROTOCOL §3.4; requests wait while a
    /// renewal runs), retries network errors and 5xx with exponential backoff, and tells network
    /// add-ons. Returns the 2xx response; any other status becomes `HaloError.server`.
    public func perform(_ call: APIRequest) async throws(HaloError) -> HTTPResponse {
        try await perform(call, sink: nil)
    }

    /// Sends an API call whose 2xx body is handed to `sink` block by block as it arrives (a sync
    /// answer may be far larger than memory should hold); the returned response has an empty body.
    /// Same environment, TLS policy and §3.4 token renewal on 401 as `perform(_:)` — a refused
    /// answer never reaches the sink — but never retried: part of the body may have been consumed.
    public func perform(_ call: APIRequest, streamingTo sink: any HTTPBodySink) async throws(HaloError) -> HTTPResponse {
        try await perform(call, sink: sink)
    }

    private func perform(_ call: APIRequest, sink: (any HTTPBodySink)?) async throws(HaloError) -> HTTPResponse {
        guard let baseURL = environment.baseURL else {
            throw .configuration(message: "The environment \(environment) has no valid base URL")
        }
        let mode = call.authenticationMode ?? authenticationMode
        let retries = sink == nil ? call.numberOfRetries ?? numberOfRetries : 0
        let baseDelay = retryBaseDelay
        let options = try transferOptions(for: call)
        var attempt = 0
        var renewedToken = false
        while true {
            if Task.isCancelled { throw .cancelled }
            var request = try call.httpRequest(baseURL: baseURL)
            let token = await tokens.token(for: mode)
            if let token { request.headers["Authorization"] = token.authorizationHeader }
            let response: HTTPResponse
            do {
                response = try await send(request, options: options, sink: sink)
            } catch {
                if case .network = error, attempt < retries {
                    attempt += 1
                    try await backoff(attempt: attempt, base: baseDelay, reason: error.description)
                    continue
                }
                throw error
            }
            if response.statusCode == 401 && call.reauthenticateOn401 && !renewedToken {
                renewedToken = true
                log.info("\(request) → 401: obtaining a \(mode) token")
                _ = try await tokens.renew(for: mode, rejected: token) { [self] held in try await fetchToken(for: mode, held: held) }
                continue
            }
            if response.statusCode >= 500 && attempt < retries {
                attempt += 1
                try await backoff(attempt: attempt, base: baseDelay, reason: "HTTP \(response.statusCode)")
                continue
            }
            guard response.isSuccess else {
                let error = HaloError(response: response)
                log.warning("\(request) failed: \(error)")
                throw error
            }
            return response
        }
    }

    /// Timeouts (the call's, else the core's), the response cap and the TLS policy of a call.
    private func transferOptions(for call: APIRequest) throws(HaloError) -> TransferOptions {
        TransferOptions(
            timeoutIntervalForRequest: call.timeoutIntervalForRequest ?? timeoutIntervalForRequest,
            timeoutIntervalForResource: call.timeoutIntervalForResource ?? timeoutIntervalForResource,
            maximumResponseBytes: maximumResponseBytes, trust: try tlsTrust(), certificatesFolder: configuration.certificatesDirectory)
    }

    /// One transfer, bracketed by the network add-ons' hooks.
    private func send(_ request: HTTPRequest, options: TransferOptions, sink: (any HTTPBodySink)? = nil) async throws(HaloError)
        -> HTTPResponse
    {
        let networkAddons = getAddons(type: (any NetworkAddon).self)
        networkAddons.forEach { $0.willPerformRequest(request: request) }
        log.info("→ \(request)")
        let start = Date()
        do {
            let response: HTTPResponse
            if let sink {
                response = try await transport.perform(request, options: options, streamingTo: sink)
            } else {
                response = try await transport.perform(request, options: options)
            }
            let elapsed = Date().timeIntervalSince(start)
            networkAddons.forEach { $0.didPerformRequest(request: request, time: elapsed, response: response) }
            log.info("← \(response.statusCode) \(request) (\(Int(elapsed * 1000)) ms)")
            return response
        } catch {
            let elapsed = Date().timeIntervalSince(start)
            networkAddons.forEach { $0.didPerformRequest(request: request, time: elapsed, response: nil) }
            log.warning("✕ \(request): \(error)")
            throw error
        }
    }

    private func backoff(attempt: Int, base: TimeInterval, reason: String) async throws(HaloError) {
        let delay = base * pow(2, Double(attempt - 1))
        log.info("Retry \(attempt) in \(delay) s after \(reason)")
        do { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) } catch { throw .cancelled }
    }

    /// Obtains a token for `mode` (§3.4). app: refresh grant when a token was held, else client
    /// credentials; user: password grant with Basic header (and the app's client, when configured);
    /// app+: the identified login again.
    func fetchToken(for mode: AuthenticationMode, held: Token?) async throws(HaloError) -> Token {
        switch mode {
        case .app:
            guard let credentials = appCredentials else {
                throw .notAuthenticated(message: "No app credentials configured (CLIENT_ID / CLIENT_SECRET)")
            }
            let client = [("client_id", credentials.username), ("client_secret", credentials.password)]
            if let refresh = held?.refreshToken {
                do {
                    return try await requestToken(
                        marker: "_app", form: [("grant_type", "refresh_token"), ("refresh_token", refresh)] + client, headers: [:])
                } catch .server(let status, _, _) where (400..<500).contains(status) {
                    // The refresh token was refused too (the session was revoked). iOS gives up
                    // here (§3.4); the client credentials are at hand, so start a new session as
                    // Android always does rather than fail every call until the app restarts.
                    log.info("Refresh grant refused (HTTP \(status)): requesting a new app token")
                }
            }
            return try await requestToken(marker: "_app", form: [("grant_type", "client_credentials")] + client, headers: [:])
        case .user:
            guard let credentials = userCredentials else {
                throw .notAuthenticated(message: "No user credentials configured (USERNAME / PASSWORD)")
            }
            let basic = Data("\(credentials.username):\(credentials.password)".utf8).base64EncodedString()
            // Ours (docs/protocol.md §23.12): the app's client credentials make the user's token act
            // for this app, so it may save this app's device; HALO ignored unknown form fields.
            let client = appCredentials.map { [("client_id", $0.username), ("client_secret", $0.password)] } ?? []
            return try await requestToken(
                marker: "_user",
                form: [("grant_type", "password"), ("username", credentials.username), ("password", credentials.password)] + client,
                headers: ["Authorization": "Basic \(basic)"])
        case .appPlus:
            return try await auth.renewIdentifiedToken()
        }
    }

    private func requestToken(marker: String, form: [(String, String)], headers: [String: String]) async throws(HaloError) -> Token {
        guard let baseURL = environment.baseURL else { throw .configuration(message: "No base URL") }
        let call = APIRequest(
            .post, "api/oauth/token", query: [URLQueryItem(name: marker, value: nil)], body: .form(form),
            headers: headers, reauthenticateOn401: false)
        var request = try call.httpRequest(baseURL: baseURL)
        request.headers.merge(headers) { _, new in new }
        let response = try await send(request, options: try transferOptions(for: call))
        guard response.isSuccess else {
            let error = HaloError(response: response)
            log.error("Token request failed: \(error)")
            throw error
        }
        return try response.decode(Token.self)
    }

    /// Performs a call and returns its JSON body.
    func performJSON(_ call: APIRequest) async throws(HaloError) -> JSONValue {
        try await perform(call).json()
    }
}
