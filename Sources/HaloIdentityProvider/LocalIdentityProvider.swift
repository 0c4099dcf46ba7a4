import Foundation
import Hummingbird
import JWTKit
import Logging
import ServiceLifecycle

/// A small OpenID Connect provider on loopback, for tests and the local workspace: it stands in for
/// Google (authorization code + PKCE, ID tokens signed with RS256 and published as a JWKS) and for
/// Facebook (opaque access tokens, a `debug_token` inspection endpoint and a `/me` profile), so the
/// whole browser sign-in runs on one machine with no internet. Its consent page is a real HTML page
/// a browser submits. State lives in memory: a restart forgets codes and tokens, not accounts.
///
/// ```swift
/// let provider = try await LocalIdentityProvider.start(.demo)
/// provider.issuer            // http://127.0.0.1:<port>, also the discovery document's base
/// await provider.stop()
/// ```
public final class LocalIdentityProvider: Sendable {
    /// The issuer (`iss`) of its ID tokens: `http://127.0.0.1:<port>`.
    public let issuer: URL
    public let port: Int
    public let settings: Settings
    /// Codes and tokens issued so far (tests read it to replay or expire them).
    let ledger: ProviderLedger
    /// Made in the background (a 2048-bit RSA key takes a noticeable moment): starting the
    /// provider, and with it the local workspace, does not wait for it; the first token does.
    let keys: Task<SigningKeys, any Error>
    private let task: Task<Void, any Error>
    private let serviceGroup: ServiceGroup

    private init(
        issuer: URL, port: Int, settings: Settings, ledger: ProviderLedger, keys: Task<SigningKeys, any Error>, task: Task<Void, any Error>,
        serviceGroup: ServiceGroup
    ) {
        self.keys = keys
        self.issuer = issuer
        self.port = port
        self.settings = settings
        self.ledger = ledger
        self.task = task
        self.serviceGroup = serviceGroup
    }

    /// `<issuer>/.well-known/openid-configuration`.
    public var discoveryURL: URL { issuer.appendingPathComponent(".well-known/openid-configuration") }

    /// Binds `settings.host:settings.port` and serves until `stop()`.
    public static func start(_ settings: Settings) async throws -> LocalIdentityProvider {
        let signing = Task { try await SigningKeys.generate() }
        let ledger = ProviderLedger()
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "halo-identity-provider")
        logger.logLevel = .warning
        let router = Router()
        let routes = ProviderRoutes(settings: settings, ledger: ledger, keys: signing)
        routes.register(on: router)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "HaloIdentityProvider"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let serviceGroup = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0,
            let issuer = URL(string: "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)")
        else {
            task.cancel()
            signing.cancel()
            if case .failure(let error) = await task.result { throw error }
            throw IdentityProviderError("The identity provider did not start on \(settings.host):\(settings.port)")
        }
        await routes.bind(issuer: issuer)
        return LocalIdentityProvider(
            issuer: issuer, port: port, settings: settings, ledger: ledger, keys: signing, task: task, serviceGroup: serviceGroup)
    }

    /// Runs in the foreground until SIGINT/SIGTERM (`halo-server identity-provider`).
    public static func serve(_ settings: Settings, onRunning: @escaping @Sendable (URL) -> Void) async throws {
        let provider = try await start(settings)
        onRunning(provider.issuer)
        try await withTaskCancellationHandler {
            _ = try await provider.task.value
        } onCancel: {
            Task { await provider.stop() }
        }
    }

    public func stop() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = await task.result
    }

    // MARK: Tokens made directly (tests of the server's verification)

    /// An ID token signed with this provider's key, as its token endpoint would issue for `subject`;
    /// every claim can be made wrong on purpose.
    public func idToken(
        subject: String, audience: String = Settings.desktopClientId, issuer: String? = nil, expiresIn: TimeInterval = 3600
    ) async throws -> String {
        guard let account = settings.accounts.first(where: { $0.subject == subject }) else {
            throw IdentityProviderError("No account \(subject)")
        }
        let now = Date()
        let claims = IDTokenClaims(
            iss: .init(value: issuer ?? self.issuer.absoluteString), sub: .init(value: subject), aud: .init(value: [audience]),
            exp: .init(value: now.addingTimeInterval(expiresIn)), iat: .init(value: min(now, now.addingTimeInterval(expiresIn))),
            nonce: nil, email: account.email, email_verified: account.email == nil ? nil : account.emailVerified,
            name: account.displayName, given_name: account.givenName, family_name: account.familyName, picture: nil)
        return try await keys.value.collection.sign(claims, kid: JWKIdentifier(string: SigningKeys.keyId))
    }

    /// An access token for `subject` issued to `clientId`, known to `debug_token` and `/me`.
    public func accessToken(subject: String, clientId: String = Settings.facebookAppId, expiresIn: Int = 3600) -> String {
        let token = ProviderRoutes.randomToken()
        ledger.addTokens(
            access: token, refresh: ProviderRoutes.randomToken(),
            grant: .init(
                clientId: clientId, subject: subject, scope: "email public_profile",
                expiresAt: Int(Date().timeIntervalSince1970) + expiresIn, origin: "direct"))
        return token
    }
}

/// The provider could not start or was configured wrongly.
public struct IdentityProviderError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
