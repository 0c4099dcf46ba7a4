import NIOCore

/// Closes a connection whose client has taken no response bytes for `timeout` while a response
/// is waiting to be written. NIO's write promises complete only once bytes reach the socket, so
/// "writes pending and none completed for `timeout`" means the client stopped reading (or reads
/// slower than a trickle). The handler that writes the response then sees its write fail and lets
/// go of everything it held. An idle connection with nothing to write is the idle timeout's job.
final class StalledClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private let timeout: TimeAmount
    private var pendingWrites = 0
    private var lastProgress = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if pendingWrites == 0 { lastProgress = .now() }
        pendingWrites += 1
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.assumeIsolated().whenComplete { _ in
            self.pendingWrites -= 1
            self.lastProgress = .now()
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
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: lastProgress + timeout) {
            self.check = nil
            guard self.pendingWrites > 0 else { return }
            if NIODeadline.now() - self.lastProgress >= self.timeout {
                context.close(promise: nil)
            } else {
                self.scheduleCheck(context)
            }
        }
    }
}
