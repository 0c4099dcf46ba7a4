import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

enum ConnectionLimits {
    /// Descriptors kept for everything but client connections: the database pool, spool files of
    /// the syncs running at once, logs, the listening socket.
    static func reservedDescriptors(_ limits: ServerLimits) -> Int { 64 + limits.syncStreams }

    /// Raises the soft limit of open files to the hard limit (distributions' default soft limit is
    /// often 1,024, sometimes 256), then returns how many connections fit: the configured cap, or
    /// fewer if the descriptors run out first. The listener stops accepting at that number, so it
    /// never meets EMFILE (which makes NIO retry accepting in a loop).
    static func connectionCap(_ limits: ServerLimits, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return limits.connections }
        if limit.rlim_cur < limit.rlim_max {
            let before = limit.rlim_cur
            limit.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
                logger.warning("Could not raise the open-file limit above \(before): \(String(cString: strerror(errno)))")
                _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            }
        }
        let available = Int(clamping: limit.rlim_cur) - reservedDescriptors(limits)
        let cap = max(8, min(limits.connections, available))
        if cap < limits.connections {
            logger.warning("The open-file limit (\(limit.rlim_cur)) allows \(cap) connections, not \(limits.connections)")
        }
        return cap
    }
}

/// The server's open connections, so that a crowd of idle ones cannot keep new clients out:
/// past `evictionThreshold` open connections, each new one closes the connection that has been
/// idle (no request in progress) the longest. Busy connections are never closed for room.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        /// When the connection last finished a response (or opened); nil while a request is in progress.
        var idleSince: NIODeadline?
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    let evictionThreshold: Int

    init(evictionThreshold: Int) { self.evictionThreshold = evictionThreshold }

    var count: Int { entries.withLock { $0.count } }

    func opened(_ channel: any Channel) {
        let victim: (any Channel)? = entries.withLock { entries in
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: .now())
            guard entries.count > evictionThreshold else { return nil }
            let oldest = entries.filter { $0.key != ObjectIdentifier(channel) }
                .compactMap { key, entry in entry.idleSince.map { (key, $0) } }
                .min { $0.1 < $1.1 }
            guard let oldest else { return nil }
            return entries.removeValue(forKey: oldest.0)?.channel
        }
        victim?.close(promise: nil)
    }

    func closed(_ channel: any Channel) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func setBusy(_ channel: any Channel, _ busy: Bool) {
        entries.withLock { entries in
            entries[ObjectIdentifier(channel)]?.idleSince = busy ? nil : .now()
        }
    }
}

/// Tells the registry when its connection opens, closes, starts and finishes requests.
final class ConnectionTracker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    private let registry: ConnectionRegistry
    private var inProgress = 0

    init(registry: ConnectionRegistry) { self.registry = registry }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { registry.opened(context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        registry.opened(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inProgress += 1
            if inProgress == 1 { registry.setBusy(context.channel, true) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inProgress -= 1
            if inProgress == 0 { registry.setBusy(context.channel, false) }
        }
        context.write(data, promise: promise)
    }
}
