import Foundation
import GRDB
import HaloContentStore
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// A running HALO-compatible server: the app's in-process local workspace, the peer of the
/// integration tests, and what `halo-server serve` runs.
///
/// ```swift
/// let server = try await HaloServerInstance.start(.init(dataDirectory: dir))
/// print(server.baseURL)   // http://127.0.0.1:<port>
/// await server.stop()
/// ```
public final class HaloServerInstance: Sendable {
    /// The server's own version, reported by the version check (E3/E4).
    public static let version = "1.0.0"

    /// `http://<host>:<port>` with the port actually bound.
    public let baseURL: URL
    /// The bound TCP port (useful when the configuration asked for port 0).
    public let port: Int
    /// Seeding and account management on the same database.
    public let admin: HaloServerAdmin

    private let task: Task<Void, any Error>
    private let serviceGroup: ServiceGroup

    private init(baseURL: URL, port: Int, admin: HaloServerAdmin, task: Task<Void, any Error>, serviceGroup: ServiceGroup) {
        self.baseURL = baseURL
        self.port = port
        self.admin = admin
        self.task = task
        self.serviceGroup = serviceGroup
    }

    /// Opens (and migrates) the database, binds the socket and starts serving. Returns once the
    /// server accepts connections.
    public static func start(_ configuration: HaloServerConfiguration) async throws -> HaloServerInstance {
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let (application, admin) = try await makeApplication(configuration) { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        // Our own group (no signal handlers: the host app owns those) so `stop()` can shut down gracefully.
        let serviceGroup = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: application.logger))
        let task = Task {
            // Ends the port stream when the server stops or fails to bind, so `start` never hangs.
            defer {
                portContinuation.finish()
                admin.close()
            }
            try await serviceGroup.run()
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            if case .failure(let error) = await task.result { throw error }
            throw HaloServerStartError("The server did not start on \(configuration.host):\(configuration.port)")
        }
        guard let url = URL(string: "http://\(urlHost(configuration.host)):\(port)") else {
            throw HaloServerStartError("Cannot form a URL for host \(configuration.host)")
        }
        return HaloServerInstance(baseURL: url, port: port, admin: admin, task: task, serviceGroup: serviceGroup)
    }

    /// Runs in the foreground until SIGINT/SIGTERM, then shuts down gracefully (`halo-server serve`).
    public static func serve(
        _ configuration: HaloServerConfiguration, onRunning: @escaping @Sendable (Int) -> Void
    ) async throws {
        let (application, admin) = try await makeApplication(configuration, onRunning: onRunning)
        defer { admin.close() }
        try await application.runService()
    }

    /// Stops accepting connections, lets requests in flight finish, and waits for the server to end.
    public func stop() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = await task.result
    }

    // MARK: Assembly

    /// Database, shared services, routes and middleware: everything but the run loop.
    private static func makeApplication(
        _ configuration: HaloServerConfiguration, onRunning: @escaping @Sendable (Int) -> Void
    ) async throws -> (application: Application<RouterResponder<ServerContext>>, admin: HaloServerAdmin) {
        var logger = Logger(label: "halo-server")
        logger.logLevel = configuration.logRequests ? .info : .warning
        if SecretHasher.rounds < SecretHasher.defaultRounds {
            logger.warning(
                "New password hashes use \(SecretHasher.rounds) PBKDF2 rounds (\(SecretHasher.roundsVariable)); the default is \(SecretHasher.defaultRounds)"
            )
        }
        let environment = ServerEnvironment(
            storage: try await ServerStorage.open(configuration, logger: logger),
            tokens: TokenService(lifetimeMilliseconds: configuration.tokenLifetimeMilliseconds),
            configuration: configuration, logger: logger)
        let router = Router(context: ServerContext.self)
        if configuration.trustedProxies != .none {
            router.add(middleware: ForwardedClientMiddleware(proxies: configuration.trustedProxies))
        }
        if configuration.logRequests { router.add(middleware: RequestLogMiddleware(logger: logger)) }
        router.add(middleware: ErrorEnvelopeMiddleware())
        Routes.register(on: router, environment)
        let limits = configuration.limits
        let connectionCap = ConnectionLimits.connectionCap(limits, logger: logger)
        // Idle connections make room for new ones well before the hard cap is reached.
        let connections = ConnectionRegistry(evictionThreshold: connectionCap * 9 / 10)
        let application = Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        StalledClientHandler(
                            window: .init(limits.stallTimeout),
                            minimumBytes: limits.minimumTransferRate * Int(limits.stallTimeout.components.seconds)),
                        ConnectionTracker(registry: connections),
                    ],
                    idleTimeout: .init(limits.idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "HaloServer",
                // At the cap the listener stops accepting (no busy loop); waiting clients queue in the backlog.
                availableConnectionsDelegate: MaximumAvailableConnections(connectionCap, logger: logger)),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        return (application, HaloServerAdmin(environment: environment))
    }

    private static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

/// The server could not start (bad address, port in use, unreadable data directory…).
public struct HaloServerStartError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
