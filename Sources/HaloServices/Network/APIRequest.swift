import Foundation

/// A HALO API call before it is resolved against the environment's base URL and authenticated.
/// Every manager describes its calls with this; `CoreManager.perform` sends them.
public struct APIRequest: Sendable {
    /// The body of a request.
    public enum Body: Sendable {
        case none
        case json(JSONValue)
        case form([(String, String)])
    }

    public var method: HTTPMethod
    /// Path relative to the host root, e.g. `api/generalcontent/module` (PROTOCOL §1.1: served at the root).
    public var path: String
    /// Query items in order; iOS sorts keys alphabetically, so callers pass them sorted.
    public var query: [URLQueryItem]
    public var body: Body
    public var headers: [String: String]
    /// Overrides `CoreManager.authenticationMode` for this call.
    public var authenticationMode: AuthenticationMode?
    /// False for calls whose 401 must not trigger re-authentication (token endpoint, identified login).
    public var reauthenticateOn401: Bool
    /// Overrides `CoreManager.numberOfRetries` for this call.
    public var numberOfRetries: Int?
    /// Overrides `CoreManager.defaultOfflinePolicy` for this call.
    public var offlinePolicy: OfflinePolicy?
    /// Override `CoreManager.timeoutIntervalForRequest` / `timeoutIntervalForResource` for this call.
    public var timeoutIntervalForRequest: TimeInterval?
    public var timeoutIntervalForResource: TimeInterval?
    /// Override `CoreManager.cacheTimeToLive` for this call: how old a kept answer may be and
    /// still be used without asking the server (under `.loadAndStoreLocalData`).
    public var cacheTimeToLive: TimeInterval?

    public init(
        _ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], body: Body = .none,
        headers: [String: String] = [:], authenticationMode: AuthenticationMode? = nil,
        reauthenticateOn401: Bool = true, numberOfRetries: Int? = nil, offlinePolicy: OfflinePolicy? = nil,
        cacheTimeToLive: TimeInterval? = nil
    ) {
        self.cacheTimeToLive = cacheTimeToLive
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.headers = headers
        self.authenticationMode = authenticationMode
        self.reauthenticateOn401 = reauthenticateOn401
        self.numberOfRetries = numberOfRetries
        self.offlinePolicy = offlinePolicy
    }

    /// Resolves the call against `baseURL` into the request the transport sends (without `Authorization`).
    func httpRequest(baseURL: URL) throws(HaloError) -> HTTPRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw .configuration(message: "Invalid base URL \(baseURL.absoluteString)")
        }
        components.path = "/" + path.drop(while: { $0 == "/" })
        if !query.isEmpty {
            // Percent-encode brackets and the like, as the iOS encoder did (PROTOCOL §1.3).
            components.percentEncodedQuery = query.map { item in
                let value = item.value.map { "=" + Self.formEncode($0) } ?? ""
                return Self.formEncode(item.name) + value
            }.joined(separator: "&")
        }
        guard let url = components.url else { throw .configuration(message: "Cannot build a URL for \(path)") }
        var headers = self.headers
        var data: Data?
        switch body {
        case .none:
            break
        case .json(let value):
            headers["Content-Type"] = "application/json"
            data = value.data(sortedKeys: true)
        case .form(let fields):
            headers["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8"
            data = Data(fields.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
        }
        headers["Accept"] = headers["Accept"] ?? "application/json"
        return HTTPRequest(method: method, url: url, headers: headers, body: data)
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `application/x-www-form-urlencoded` / query component encoding: everything but unreserved is escaped.
    static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
