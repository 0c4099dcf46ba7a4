import Foundation

/// The identity providers an identified user can log in with (PROTOCOL §7.2).
public enum Network: String, Sendable, Codable {
    case halo, google, facebook
}

/// Credentials of an identified user (the seed's `AuthProfile`): email + password for HALO
/// accounts, or a provider token (Facebook access token, Google ID token) for social ones.
public struct AuthProfile: Sendable, Equatable, Codable {
    public let email: String?
    public let password: String?
    public let token: String?
    public let network: Network
    /// The device alias sent as `deviceId`; nil = the current device's alias at send time.
    public var deviceId: String?

    public init(email: String, password: String, deviceId: String? = nil) {
        self.email = email; self.password = password; self.token = nil
        self.network = .halo; self.deviceId = deviceId
    }

    public init(token: String, network: Network, deviceId: String? = nil) {
        self.email = nil; self.password = nil; self.token = token
        self.network = network; self.deviceId = deviceId
    }

    /// The `auth` JSON of register and the body of login (iOS shapes, §7.1/§7.2).
    func requestJSON(deviceAlias: String?) -> JSONValue {
        var object: [String: JSONValue] = [
            "deviceId": .string(deviceId ?? deviceAlias ?? ""),
            "network": .string(network.rawValue),
        ]
        if let email { object["email"] = .string(email) }
        if let password { object["password"] = .string(password) }
        if let token { object["token"] = .string(token) }
        return .object(object)
    }
}

/// The public profile of an identified user (the seed's `UserProfile`).
public struct UserProfile: Sendable, Equatable {
    public var id: String?
    public var email: String
    public var name: String
    public var surname: String
    public var displayName: String?
    public var profilePictureUrl: String?

    public init(id: String?, email: String, name: String, surname: String, displayName: String?, profilePictureUrl: String?) {
        self.id = id; self.email = email; self.name = name; self.surname = surname
        self.displayName = displayName; self.profilePictureUrl = profilePictureUrl
    }

    /// Reads the server's profile object (`photoUrl` is the wire name of the picture).
    public init(wire: JSONValue) throws(HaloError) {
        guard case .object(let object) = wire else {
            throw .invalidResponse(status: nil, message: "a user profile must be a JSON object")
        }
        id = object["id"]?.stringValue
        email = object["email"]?.stringValue ?? ""
        name = object["name"]?.stringValue ?? ""
        surname = object["surname"]?.stringValue ?? ""
        displayName = object["displayName"]?.stringValue
        profilePictureUrl = object["photoUrl"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `profile` JSON of register (§7.1, iOS: strings always, displayName falls back to name).
    func requestJSON() -> JSONValue {
        var object: [String: JSONValue] = [
            "email": .string(email), "name": .string(name), "surname": .string(surname),
            "displayName": .string(displayName ?? name),
            "id": id.map(JSONValue.string) ?? .null,
        ]
        if let profilePictureUrl { object["photoUrl"] = .string(profilePictureUrl) }
        return .object(object)
    }
}

/// A logged-in identified user (the seed's `User`): the profile and its token.
public struct User: Sendable, Equatable {
    public let userProfile: UserProfile
    public let token: Token
    /// Whether `stayLoggedIn` credentials were stored in the keyring. False when not asked, or
    /// when no Secret Service was reachable (then nothing was stored anywhere; see the log).
    public let credentialsStored: Bool

    /// Who this is, for keeping what is cached for them apart (their offline copy, their pocket):
    /// the server's user id, else the email.
    public var account: String { userProfile.id ?? userProfile.email }
}

/// Observes identified-user sessions (the seed's `AuthManagerObserver`).
public protocol AuthManagerObserver: AnyObject, Sendable {
    func userDidLogIn(_ user: User)
    func userDidLogOut()
}
