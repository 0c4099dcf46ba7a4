import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The one-shot HTTP listener a browser sign-in redirects to (RFC 8252 §7.3): `127.0.0.1` only (never
/// another interface, and the IP literal rather than `localhost`, §8.3), a port the kernel picks, one
/// path. The first request on that path whose `state` matches ends it; requests with another state or
/// path are refused and the listener keeps waiting (a stray or forged request must not abort the
/// sign-in). It closes after that callback, on timeout, or when the waiting task is cancelled.
final class LoopbackRedirectListener: Sendable {
    /// What arrived at the redirect address with the expected state.
    enum Callback: Sendable, Equatable {
        case code(String)
        /// The provider's `error` and `error_description` (the user declined, a bad request…).
        case error(code: String, description: String?)
    }

    static let callbackPath = "/halodesk/oauth2/callback"

    let redirectURI: URL
    private let channel: any Channel
    private let outcome: Outcome

    private init(redirectURI: URL, channel: any Channel, outcome: Outcome) {
        self.redirectURI = redirectURI
        self.channel = channel
        self.outcome = outcome
    }

    /// Binds `127.0.0.1:0`. `page` writes the landing page for an accepted callback.
    static func start(expectedState: String, page: @escaping @Sendable (Callback) -> String) async throws(HaloError)
        -> LoopbackRedirectListener
    {
        let outcome = Outcome()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 8)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        CallbackHandler(expectedState: expectedState, outcome: outcome, page: page))
                }
            }
        let channel: any Channel
        do { channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get() } catch {
            throw .network(message: "Cannot listen on 127.0.0.1 for the browser's answer: \(error)")
        }
        guard let port = channel.localAddress?.port, let uri = URL(string: "http://127.0.0.1:\(port)\(callbackPath)") else {
            try? await channel.close()
            throw .network(message: "Cannot listen on 127.0.0.1 for the browser's answer")
        }
        return LoopbackRedirectListener(redirectURI: uri, channel: channel, outcome: outcome)
    }

    /// Waits for the callback with the expected state; throws `.cancelled` on task cancellation and
    /// a sentence on timeout. The listener is closed whatever happens.
    func callback(timeout: Duration) async throws(HaloError) -> Callback {
        let outcome = self.outcome
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { outcome.finish(.failure(.network(message: Self.timeoutMessage(timeout)))) }
        }
        let result = await withTaskCancellationHandler {
            await outcome.wait()
        } onCancel: {
            outcome.finish(.failure(.cancelled))
        }
        timer.cancel()
        await close()
        return try result.get()
    }

    func close() async {
        outcome.finish(.failure(.cancelled))
        try? await channel.close()
    }

    private static func timeoutMessage(_ timeout: Duration) -> String {
        let minutes = Int(timeout.components.seconds / 60)
        let span = minutes >= 1 ? "\(minutes) minute\(minutes == 1 ? "" : "s")" : "\(timeout.components.seconds) seconds"
        return "The browser did not come back within \(span). Try signing in again."
    }

    /// The first accepted callback, handed to whoever waits (once).
    final class Outcome: Sendable {
        private struct State {
            var result: Result<Callback, HaloError>?
            var waiter: CheckedContinuation<Result<Callback, HaloError>, Never>?
        }
        private let state = Mutex(State())

        /// Whether this call settled it (false once settled: a replayed callback is refused).
        @discardableResult
        func finish(_ result: Result<Callback, HaloError>) -> Bool {
            let (settled, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<Callback, HaloError>, Never>?) in
                guard state.result == nil else { return (false, nil) }
                state.result = result
                defer { state.waiter = nil }
                return (true, state.waiter)
            }
            waiter?.resume(returning: result)
            return settled
        }

        func wait() async -> Result<Callback, HaloError> {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Callback, HaloError>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// Answers each request on one connection: the callback page, or a refusal.
private final class CallbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let expectedState: String
    private let outcome: LoopbackRedirectListener.Outcome
    private let page: @Sendable (LoopbackRedirectListener.Callback) -> String

    init(
        expectedState: String, outcome: LoopbackRedirectListener.Outcome,
        page: @escaping @Sendable (LoopbackRedirectListener.Callback) -> String
    ) {
        self.expectedState = expectedState
        self.outcome = outcome
        self.page = page
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let (status, body) = answer(head)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func answer(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String) {
        guard head.method == .GET, let components = URLComponents(string: head.uri),
            components.path == LoopbackRedirectListener.callbackPath
        else {
            return (.notFound, LandingPage.refused("This address only receives HaloDesk's sign-in answer."))
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] where query[item.name] == nil { query[item.name] = item.value ?? "" }
        // The state is checked first, on success and error answers alike (login CSRF, forged aborts).
        // Digests compare in constant time (swift-crypto): the state's bytes leak no timing.
        guard let state = query["state"], SHA256.hash(data: Data(state.utf8)) == SHA256.hash(data: Data(expectedState.utf8)) else {
            return (.badRequest, LandingPage.refused("This sign-in answer does not belong to the sign-in HaloDesk is waiting for."))
        }
        let callback: LoopbackRedirectListener.Callback
        if let code = query["code"], !code.isEmpty {
            callback = .code(code)
        } else {
            callback = .error(code: query["error"] ?? "invalid_request", description: query["error_description"])
        }
        guard outcome.finish(.success(callback)) else {
            return (.gone, LandingPage.refused("This sign-in has already finished. Return to HaloDesk."))
        }
        return (.ok, page(callback))
    }
}
