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
///
/// The browser's request that brought the callback is not answered at once: its page waits for the
/// outcome (the code exchange and HALO's login), sent through `PendingPage`. Should nobody answer
/// within `pageWait`, the browser gets `stillRunning` instead (a tab does not spin for minutes).
final class LoopbackRedirectListener: Sendable {
    /// What arrived at the redirect address with the expected state.
    enum Callback: Sendable, Equatable {
        case code(String)
        /// The provider's `error` and `error_description` (the user declined, a bad request…).
        case error(code: String, description: String?)
    }

    /// An accepted callback and the browser's request waiting for its page.
    struct Accepted: Sendable {
        var callback: Callback
        var page: PendingPage
    }

    static let callbackPath = "/halodesk/oauth2/callback"
    /// How long the browser waits for the outcome before it gets the "still signing you in" page.
    static let pageWait: Duration = .seconds(15)

    let redirectURI: URL
    private let channel: any Channel
    private let outcome: Outcome

    private init(redirectURI: URL, channel: any Channel, outcome: Outcome) {
        self.redirectURI = redirectURI
        self.channel = channel
        self.outcome = outcome
    }

    /// Binds `127.0.0.1:0`. `stillRunning` writes the page for a browser whose outcome is not known
    /// after `pageWait`.
    static func start(
        expectedState: String, pageWait: Duration = pageWait, stillRunning: @escaping @Sendable () -> String
    ) async throws(HaloError) -> LoopbackRedirectListener {
        let outcome = Outcome()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 8)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        CallbackHandler(expectedState: expectedState, outcome: outcome, pageWait: pageWait, stillRunning: stillRunning))
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
    /// a sentence on timeout. The listener stops listening whatever happens; the accepted request
    /// stays open until its page is sent.
    func callback(timeout: Duration) async throws(HaloError) -> Accepted {
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

    /// Ends the wait with `error` unless a callback already arrived (the browser could not be opened).
    func fail(_ error: HaloError) {
        outcome.finish(.failure(error))
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
            var result: Result<Accepted, HaloError>?
            var waiter: CheckedContinuation<Result<Accepted, HaloError>, Never>?
        }
        private let state = Mutex(State())

        /// Whether this call settled it (false once settled: a replayed callback is refused).
        @discardableResult
        func finish(_ result: Result<Accepted, HaloError>) -> Bool {
            let (settled, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<Accepted, HaloError>, Never>?) in
                guard state.result == nil else { return (false, nil) }
                state.result = result
                defer { state.waiter = nil }
                return (true, state.waiter)
            }
            waiter?.resume(returning: result)
            return settled
        }

        func wait() async -> Result<Accepted, HaloError> {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Accepted, HaloError>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// The browser's request that brought the callback, waiting for its page: the first page sent is
/// the one it gets (the outcome, or "still signing you in" after the listener's `pageWait`).
final class PendingPage: Sendable {
    private let sent = Mutex(false)
    private let write: @Sendable (String) -> EventLoopFuture<Void>

    init(write: @escaping @Sendable (String) -> EventLoopFuture<Void>) {
        self.write = write
    }

    /// Sends `html` unless a page was sent already; returns once it is written (or the browser
    /// went away), so a process may exit right after. Whether this call sent it.
    @discardableResult
    func send(_ html: String) async -> Bool {
        guard let writing = sendNow(html) else { return false }
        try? await writing.get()
        return true
    }

    /// The write under way, or nil when a page was sent already. For the event loop's timer.
    @discardableResult
    func sendNow(_ html: String) -> EventLoopFuture<Void>? {
        let first = sent.withLock { sent in
            defer { sent = true }
            return !sent
        }
        return first ? write(html) : nil
    }
}

/// Answers each request on one connection: a refusal at once, or, for the accepted callback, the
/// page its sign-in sends later.
private final class CallbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let expectedState: String
    private let outcome: LoopbackRedirectListener.Outcome
    private let pageWait: Duration
    private let stillRunning: @Sendable () -> String

    init(
        expectedState: String, outcome: LoopbackRedirectListener.Outcome, pageWait: Duration,
        stillRunning: @escaping @Sendable () -> String
    ) {
        self.expectedState = expectedState
        self.outcome = outcome
        self.pageWait = pageWait
        self.stillRunning = stillRunning
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        switch accept(head) {
        case .refused(let status, let body):
            _ = respond(context: context, version: head.version, status: status, body: body)
        case .accepted(let callback):
            let loop = context.eventLoop
            let bound = NIOLoopBound(context, eventLoop: loop)
            let version = head.version
            let page = PendingPage { body in
                loop.flatSubmit { Self.respond(context: bound.value, version: version, status: .ok, body: body) }
            }
            guard outcome.finish(.success(.init(callback: callback, page: page))) else {
                let body = LandingPage.refused("This sign-in has already finished. Return to HaloDesk.")
                _ = respond(context: context, version: head.version, status: .gone, body: body)
                return
            }
            let stillRunning = self.stillRunning
            let (seconds, attoseconds) = pageWait.components
            let wait = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            loop.scheduleTask(in: wait) { page.sendNow(stillRunning()) }
        }
    }

    private static func respond(context: ChannelHandlerContext, version: HTTPVersion, status: HTTPResponseStatus, body: String)
        -> EventLoopFuture<Void>
    {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
        headers.add(name: "Connection", value: "close")
        context.write(
            NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let channel = context.channel
        let written = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        written.whenComplete { _ in channel.close(promise: nil) }
        // The browser may have gone away meanwhile: the page is then nobody's, not a failure.
        return written.recover { _ in }
    }

    private func respond(context: ChannelHandlerContext, version: HTTPVersion, status: HTTPResponseStatus, body: String)
        -> EventLoopFuture<Void>
    {
        Self.respond(context: context, version: version, status: status, body: body)
    }

    private enum Answer {
        case refused(HTTPResponseStatus, String)
        case accepted(LoopbackRedirectListener.Callback)
    }

    private func accept(_ head: HTTPRequestHead) -> Answer {
        guard head.method == .GET, let components = URLComponents(string: head.uri),
            components.path == LoopbackRedirectListener.callbackPath
        else {
            return .refused(.notFound, LandingPage.refused("This address only receives HaloDesk's sign-in answer."))
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] where query[item.name] == nil { query[item.name] = item.value ?? "" }
        // The state is checked first, on success and error answers alike (login CSRF, forged aborts).
        // Digests compare in constant time (swift-crypto): the state's bytes leak no timing.
        guard let state = query["state"], SHA256.hash(data: Data(state.utf8)) == SHA256.hash(data: Data(expectedState.utf8)) else {
            return .refused(.badRequest, LandingPage.refused("This sign-in answer does not belong to the sign-in HaloDesk is waiting for."))
        }
        if let code = query["code"], !code.isEmpty { return .accepted(.code(code)) }
        return .accepted(.error(code: query["error"] ?? "invalid_request", description: query["error_description"]))
    }
}
