import Foundation
import Synchronization

/// Identified users: register, login (HALO account or social token), logout, the current user,
/// "stay logged in" through the keyring, and the user's pocket (the seed's `AuthManager`).
public final class AuthManager: Sendable {
    private struct State {
        var currentUser: User?
        /// What renews the current session after an app+ 401: the profile to log in again with,
        /// or a browser sign-in's provider session.
        var session: SessionCredentials?
        /// Whether the session's credentials are in the keyring (a rotated refresh token is stored again).
        var sessionStored = false
        var observers: [any AuthManagerObserver] = []
    }
    private let state = Mutex(State())
    private let coreBox: WeakBox<CoreManager>

    init(core: CoreManager) { coreBox = WeakBox(core) }

    private var core: CoreManager {
        get throws(HaloError) { try requireCore() }
    }

    func requireCore() throws(HaloError) -> CoreManager {
        guard let core = coreBox.value else { throw .configuration(message: "The CoreManager of this AuthManager is gone") }
        return core
    }

    /// The logged-in user, if any.
    public var currentUser: User? { state.withLock { $0.currentUser } }

    public func addObserver(_ observer: any AuthManagerObserver) {
        state.withLock { $0.observers.append(observer) }
    }

    public func removeObserver(_ observer: any AuthManagerObserver) {
        state.withLock { $0.observers.removeAll { $0 === observer } }
    }

    /// Where "stay logged in" credentials live: per environment and client.
    func keyring(_ core: CoreManager) -> Keyring {
        let configuration = core.configuration
        return Keyring(
            server: configuration.environment.description,
            account: "HALO_USER_AUTH-\(configuration.appCredentials?.username ?? "")")
    }

    // MARK: Register

    /// Registers a user (PROTOCOL §7.1). Registration does not log in.
    public func register(authProfile: AuthProfile, userProfile: UserProfile) async throws(HaloError) -> UserProfile {
        let core = try self.core
        let body: JSONValue = .object([
            "auth": authProfile.requestJSON(deviceAlias: core.device?.alias),
            "profile": userProfile.requestJSON(),
        ])
        return try UserProfile(
            wire: try await core.performJSON(
                APIRequest(
                    .post, "api/segmentation/identified/register", body: .json(body),
                    authenticationMode: .app)))
    }

    /// The seed's form of `register`.
    public func register(
        authProfile: AuthProfile, userProfile: UserProfile,
        completionHandler handler: @escaping @Sendable (UserProfile?, HaloError?) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(try await register(authProfile: authProfile, userProfile: userProfile), nil) } catch {
                handler(nil, error)
            }
        }
    }

    // MARK: Login

    /// Logs in (PROTOCOL §7.2). Afterwards every request uses the user's token (app+ mode).
    /// With `stayLoggedIn` the profile is stored in the keyring and used at every `startup`;
    /// `User.credentialsStored` says whether that worked (false when no keyring is reachable).
    public func login(authProfile: AuthProfile, stayLoggedIn: Bool) async throws(HaloError) -> User {
        let core = try self.core
        let (profile, token) = try await loginRequest(authProfile, core: core)
        let stored = stayLoggedIn ? await store(.profile(authProfile), core: core) : false
        let user = User(userProfile: profile, token: token, credentialsStored: stored)
        await begin(user, session: .profile(authProfile), stored: stored, core: core)
        return user
    }

    /// The seed's form of `login`.
    public func login(
        authProfile: AuthProfile, stayLoggedIn: Bool,
        completionHandler handler: @escaping @Sendable (User?, HaloError?) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(try await login(authProfile: authProfile, stayLoggedIn: stayLoggedIn), nil) } catch {
                handler(nil, error)
            }
        }
    }

    /// `POST identified/login` with the profile; its 401 must not trigger re-authentication.
    func loginRequest(_ authProfile: AuthProfile, core: CoreManager) async throws(HaloError) -> (UserProfile, Token) {
        let call = APIRequest(
            .post, "api/segmentation/identified/login", body: .json(authProfile.requestJSON(deviceAlias: core.device?.alias)),
            authenticationMode: .app, reauthenticateOn401: false)
        let json = try await core.performJSON(call)
        guard let userJSON = json["user"], !userJSON.isNull else {
            throw .invalidResponse(status: 200, message: "the login response has no user")
        }
        guard let tokenJSON = json["token"] else { throw .invalidResponse(status: 200, message: "the login response has no token") }
        let token: Token
        do { token = try JSONDecoder().decode(Token.self, from: tokenJSON.data()) } catch {
            throw .invalidResponse(status: 200, message: "the login token is not valid: \(HTTPResponse.describe(error))")
        }
        return (try UserProfile(wire: userJSON), token)
    }

    func begin(_ user: User, session: SessionCredentials, stored: Bool, core: CoreManager) async {
        await core.tokens.setToken(user.token, for: .appPlus)
        core.authenticationMode = .appPlus
        let observers = state.withLock { state in
            state.currentUser = user
            state.session = session
            state.sessionStored = stored
            return state.observers
        }
        observers.forEach { $0.userDidLogIn(user) }
    }

    /// At start-up: logs in with what the keyring holds, if anything (§4.1 step 7): a profile, or a
    /// browser sign-in's provider session (renewed at the provider first).
    func loginWithStoredProfile() async {
        guard let core = coreBox.value else { return }
        let secret: String?
        do { secret = try await keyring(core).lookup() } catch {
            core.log.warning("No automatic login: \(error)")
            return
        }
        guard let secret else { return }
        guard let session = await SessionCredentials.decode(secret, configuration: core.configuration) else {
            core.log.warning("The stored HALO credentials are unreadable; ignoring them")
            return
        }
        do {
            let (userProfile, token, renewed) = try await renew(session, core: core)
            await begin(User(userProfile: userProfile, token: token, credentialsStored: true), session: renewed, stored: true, core: core)
            if renewed != session { await store(renewed, core: core) }
        } catch {
            core.log.error("Automatic login failed: \(error)")
        }
    }

    /// A new app+ token after a 401: the identified login again with the session's credentials (§3.4).
    func renewIdentifiedToken() async throws(HaloError) -> Token {
        let core = try self.core
        guard let session = state.withLock({ $0.session }) else {
            throw .notAuthenticated(message: "No identified user is logged in (no valid credentials)")
        }
        let (userProfile, token, renewed) = try await renew(session, core: core)
        let stored = state.withLock { state -> Bool in
            state.currentUser = User(
                userProfile: userProfile, token: token, credentialsStored: state.currentUser?.credentialsStored ?? false)
            state.session = renewed
            return state.sessionStored
        }
        if stored, renewed != session { await store(renewed, core: core) }
        return token
    }

    /// Logs in with `session`; a provider session gets fresh provider tokens first (its ID token
    /// may have expired long ago: the refresh token is what lasts).
    private func renew(_ session: SessionCredentials, core: CoreManager) async throws(HaloError)
        -> (UserProfile, Token, SessionCredentials)
    {
        switch session {
        case .profile(let profile):
            let (userProfile, token) = try await loginRequest(profile, core: core)
            return (userProfile, token, session)
        case .provider(let providerSession):
            let renewed = try await providerSession.renewed(transport: core.transport, trust: core.providerTrust)
            let (userProfile, token) = try await loginRequest(renewed.authProfile, core: core)
            return (userProfile, token, .provider(renewed))
        }
    }

    /// Writes the session to the keyring (after sign-in, and again when a refresh token rotated).
    @discardableResult
    func store(_ session: SessionCredentials, core: CoreManager) async -> Bool {
        do {
            try await keyring(core).store(try session.encoded(), label: session.keyringLabel)
            return true
        } catch {
            core.log.warning("Cannot stay logged in: \(error). The credentials were not stored anywhere.")
            return false
        }
    }

    // MARK: Logout

    /// Logs out locally (HALO has no logout endpoint, §7.4): forgets the user and the stored
    /// credentials and goes back to app credentials. Returns false when the keyring could not be cleared.
    @discardableResult
    public func logout() async -> Bool {
        guard let core = coreBox.value else { return false }
        // As the seed's iOS SDK: `false` when nobody was signed in (what is stored is cleared anyway).
        let signedIn = state.withLock { $0.currentUser != nil }
        var cleared = true
        do { try await keyring(core).clear() } catch {
            core.log.warning("Cannot clear the stored credentials: \(error)")
            cleared = false
        }
        await core.tokens.setToken(nil, for: .appPlus)
        core.authenticationMode = core.appCredentials == nil ? .user : .app
        let observers = state.withLock { state in
            state.currentUser = nil
            state.session = nil
            state.sessionStored = false
            return state.observers
        }
        guard signedIn else { return false }
        observers.forEach { $0.userDidLogOut() }
        return cleared
    }

    /// The seed's form of `logout`.
    public func logout(completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        Task { handler(await logout()) }
    }
}
