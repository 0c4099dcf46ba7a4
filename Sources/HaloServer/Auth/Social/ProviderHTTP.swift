import AsyncHTTPClient
import Foundation
import NIOCore

/// The server's outbound HTTP(S) to identity providers: small JSON answers, a short timeout, and
/// errors phrased for the person signing in. Query strings never reach a log (they carry tokens).
enum ProviderHTTP {
    static let timeout: TimeAmount = .seconds(10)
    static let maximumBytes = 1 << 20

    static func json(_ url: URL, query: [(String, String)] = []) async throws -> (status: Int, object: [String: Any]) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw SocialTokenRejection("The provider address \(url) is not valid")
        }
        let items = (components.queryItems ?? []) + query.map { URLQueryItem(name: $0.0, value: $0.1) }
        if !items.isEmpty { components.queryItems = items }
        guard let address = components.url?.absoluteString else { throw SocialTokenRejection("The provider address \(url) is not valid") }
        let request = HTTPClientRequest(url: address)
        let host = url.host ?? url.absoluteString
        let response: HTTPClientResponse
        do { response = try await HTTPClient.shared.execute(request, timeout: timeout) } catch {
            throw SocialTokenRejection("The server cannot reach the identity provider at \(host) to check the sign-in")
        }
        let body: ByteBuffer
        do { body = try await response.body.collect(upTo: maximumBytes) } catch {
            throw SocialTokenRejection("The identity provider at \(host) sent an answer that could not be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw SocialTokenRejection("The identity provider at \(host) did not answer with JSON (HTTP \(response.status.code))")
        }
        return (Int(response.status.code), object)
    }
}
