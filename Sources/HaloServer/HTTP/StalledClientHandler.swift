import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client takes a waiting response too slowly: while response bytes
/// are waiting to be written, the client must take at least `minimumBytes` in every `window`.
/// NIO's write promises complete only once bytes reach the socket, so a client that stopped
/// reading completes nothing, and one trickling at a few hundred bytes a second completes too
/// little. The handler writing the response then sees its write fail and lets go of everything it
/// held. A response that fits in the socket's buffers never waits, so a small answer to a slow
/// client is never cut; an idle connection with nothing to write is the idle timeout's job.
final class StalledClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    private let window: TimeAmount
    private let minimumBytes: Int
    private var pendingWrites = 0
    private var windowStart = NIODeadline.now()
    private var bytesInWindow = 0
    private var check: Scheduled<Void>?

    init(window: TimeAmount, minimumBytes: Int) {
        self.window = window
        self.minimumBytes = minimumBytes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if pendingWrites == 0 {
            windowStart = .now()
            bytesInWindow = 0
        }
        var size = 0
        if case .body(let buffer) = unwrapOutboundIn(data) { size = buffer.readableBytes }
        pendingWrites += 1
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.assumeIsolated().whenComplete { _ in
            self.pendingWrites -= 1
            self.bytesInWindow += size
        }
        scheduleCheck(context)
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    private func scheduleCheck(_ context: ChannelHandlerContext) {
        guard check == nil else { return }
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: windowStart + window) {
            self.check = nil
            guard self.pendingWrites > 0 else { return }
            if NIODeadline.now() - self.windowStart < self.window {
                self.scheduleCheck(context)
            } else if self.bytesInWindow < self.minimumBytes {
                context.close(promise: nil)
            } else {
                self.windowStart = .now()
                self.bytesInWindow = 0
                self.scheduleCheck(context)
            }
        }
    }
}
