import Foundation

/// Everything needed to start a server: where it listens, where it keeps its data, and its limits.
public struct HaloServerConfiguration: Sendable {
    /// Interface to bind. Loopback by default: a local workspace must not be reachable from the network.
    public var host: String
    /// TCP port; 0 asks the kernel for a free one (read it back from `HaloServerInstance.port`).
    public var port: Int
    /// Directory holding `halo.sqlite` (created when missing), and the spill files of large
    /// sync answers.
    public var dataDirectory: URL
    /// When set, the data lives in this PostgreSQL database, which several server processes may
    /// share, instead of `halo.sqlite` (see docs/deploy.md).
    public var postgres: PostgresLocation?
    /// Request, stream and connection limits (see `ServerLimits` and docs/limits.md).
    public var limits: ServerLimits
    /// Largest accepted request body in bytes; bigger bodies get 413. (`limits.bodyBytes`.)
    public var maxBodyBytes: Int {
        get { limits.bodyBytes }
        set { limits.bodyBytes = newValue }
    }
    /// Lifetime of issued access tokens, in milliseconds (HALO's `expires_in` unit).
    public var tokenLifetimeMilliseconds: Int64
    /// Verifies Google/Facebook tokens for identified login. The default rejects every social token;
    /// `trustSocialProviders` installs the real one.
    public var socialVerifier: any SocialTokenVerifier
    /// What a social sign-in whose email the provider does not vouch for gets (see the policy).
    public var unverifiedEmailPolicy: SocialSignInSettings.UnverifiedEmailPolicy = .separateAccount
    /// Log one line per request (method, path, status, duration).
    public var logRequests: Bool
    /// Brute-force protection of password and client-secret checks (see `LoginThrottle`).
    public var loginThrottle: LoginThrottle.Settings
    /// Password hashes (PBKDF2) run at most this many at once, on their own threads; nil: one per
    /// core but one, at least one (see `HashingExecutor`).
    public var passwordHashingConcurrency: Int?
    /// Reverse proxies whose `X-Forwarded-For` names the client (see `TrustedProxies`); none by default.
    public var trustedProxies: TrustedProxies = .none
    /// Web origins whose pages may call the API (`Origin`); none by default (see `AllowedOrigins`).
    public var allowedOrigins: AllowedOrigins = .none

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        dataDirectory: URL,
        limits: ServerLimits = ServerLimits(),
        tokenLifetimeMilliseconds: Int64 = 86_400_000,
        socialVerifier: any SocialTokenVerifier = UnconfiguredSocialTokenVerifier(),
        logRequests: Bool = true,
        loginThrottle: LoginThrottle.Settings = .default,
        passwordHashingConcurrency: Int? = nil
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.limits = limits
        self.tokenLifetimeMilliseconds = tokenLifetimeMilliseconds
        self.socialVerifier = socialVerifier
        self.logRequests = logRequests
        self.loginThrottle = loginThrottle
        self.passwordHashingConcurrency = passwordHashingConcurrency
    }

    /// Accepts the social tokens of the providers `settings` trust, verified for real.
    public mutating func trustSocialProviders(_ settings: SocialSignInSettings) {
        socialVerifier = ProviderTokenVerifier(settings: settings)
        unverifiedEmailPolicy = settings.unverifiedEmail
    }
}
