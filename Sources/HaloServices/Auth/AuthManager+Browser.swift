extension AuthManager {
    /// Signs in with Google or Facebook: the single entry point the app's "Continue with …"
    /// buttons call. The browser flow (system browser + loopback redirect) is not built yet, so
    /// this fails with a plain explanation and sends nothing; `login(authProfile:)` with a
    /// network token already works for callers that obtained the token themselves.
    public func loginWithBrowser(network: Network, stayLoggedIn: Bool) async throws(HaloError) -> User {
        let name = network == .facebook ? "Facebook" : network == .google ? "Google" : network.rawValue
        throw .notAuthenticated(message: "Sign-in with \(name) is not available yet. Use your email and password.")
    }
}
