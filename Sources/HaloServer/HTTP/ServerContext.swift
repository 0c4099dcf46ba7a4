import Hummingbird

/// The request context every route uses: Hummingbird's basic context plus the client's address
/// (for `LoginThrottle`'s per-address limit).
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address (or socket path), nil when the channel has none; behind a trusted
    /// proxy, the address it forwarded for (`ForwardedClientMiddleware`).
    var clientAddress: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        let remote = source.channel.remoteAddress
        clientAddress = remote?.ipAddress ?? remote?.pathname
    }
}
