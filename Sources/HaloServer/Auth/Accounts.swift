import Foundation
import HaloContentStore

/// A user as the identified-user endpoints return it (`register_success.json`).
struct UserProfile: Sendable {
    var id: String
    var email: String
    var photoUrl: String
    var name: String
    var surname: String
    var displayName: String

    init(_ user: UserRecord) {
        id = user.id
        email = user.email ?? ""
        photoUrl = user.photoUrl
        name = user.name
        surname = user.surname
        displayName = user.displayName
    }

    var json: JSONValue {
        [
            "id": .string(id), "email": .string(email), "photoUrl": .string(photoUrl), "name": .string(name),
            "surname": .string(surname), "displayName": .string(displayName),
        ]
    }
}

/// App clients and users: creation and credential checks. Slow hashing runs outside database
/// transactions so it never holds the writer lock, and on the `HashingExecutor` so it never
/// blocks the cooperative thread pool that serves requests.
enum Accounts {
    struct NewUser: Sendable {
        var email: String?
        var password: String?
        var network: String = "halo"
        var socialSubject: String? = nil
        var name: String = ""
        var surname: String = ""
        var displayName: String = ""
        var photoUrl: String = ""
        var editor: Bool = false
        var deviceAlias: String? = nil
    }

    /// Creates an app client; returns its id and the plain secret (shown once, stored hashed).
    static func createClient(
        name: String, editor: Bool, appId: Int64 = 1, in storage: ServerStorage, hashing: HashingExecutor
    ) async throws -> (id: String, secret: String) {
        let id = Identifiers.secret(24)
        let secret = Identifiers.secret(40)
        let hash = try await hashing.run { try SecretHasher.hashPassword(secret) }
        let client = ClientRecord(
            id: id, secretHash: hash, name: name, editor: editor, appId: appId, createdAt: TokenService.nowMilliseconds())
        try await storage.write { db in try client.insert(db) }
        return (id, secret)
    }

    /// Creates a user; 400 when the email is taken. Returns the stored profile.
    static func createUser(_ user: NewUser, in storage: ServerStorage, hashing: HashingExecutor) async throws -> UserProfile {
        let password = user.password
        let hash = try await hashing.run { try password.map(SecretHasher.hashPassword) }
        let id = "identified-" + Identifiers.randomLowercase(25)
        return try await storage.write { db in
            if let email = user.email, try UserRecord.exists(email: email, in: db) {
                throw APIError.badRequest("An account with the email \(email) already exists")
            }
            let displayName =
                user.displayName.isEmpty
                ? [user.name, user.surname].filter { !$0.isEmpty }.joined(separator: " ") : user.displayName
            let record = UserRecord(
                id: id, email: user.email, passwordHash: hash, network: user.network, socialSubject: user.socialSubject,
                name: user.name, surname: user.surname, displayName: displayName, photoUrl: user.photoUrl,
                editor: user.editor, deviceAlias: user.deviceAlias, createdAt: TokenService.nowMilliseconds())
            try record.insert(db)
            return UserProfile(record)
        }
    }

    static func profile(id: String, in db: any SQLExecutor) throws -> UserProfile {
        guard let user = try UserRecord.find(id: id, in: db) else { throw APIError.notFound("User \(id) not found") }
        return UserProfile(user)
    }

    /// The user id when `password` matches the stored hash of the `halo` account `email`. The
    /// hash runs on `hashing`, in `lane`.
    static func verifyPassword(
        email: String, password: String, in storage: ServerStorage, hashing: HashingExecutor,
        lane: HashingExecutor.Lane = .untrusted
    ) async throws -> String? {
        let account = try await storage.read { db in try UserRecord.passwordAccount(email: email, in: db) }
        guard let (id, stored) = account else {
            // Same cost as a real check, so response time does not reveal which emails exist.
            _ = await hashing.run(lane) { SecretHasher.verifyPassword(password, against: SecretHasher.dummyHash) }
            return nil
        }
        return await hashing.run(lane) { SecretHasher.verifyPassword(password, against: stored) } ? id : nil
    }
}
