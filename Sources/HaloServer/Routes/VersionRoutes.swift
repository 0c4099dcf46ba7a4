import HaloContentStore
import Hummingbird

/// E3/E4 version check in both shapes (§5): iOS reads an array, Android an object.
enum VersionRoutes {
    /// Numeric-dotted minimum versions: Android's comparator throws on other segments.
    static let version: JSONValue = [
        "id": 1, "server": .string(HaloServerInstance.version),
        "serverChangeLog": "https://github.com/halodesk/halodesk/blob/main/CHANGELOG.md",
        "minAndroid": "2.0.0", "androidChangeLog": "", "minIOS": "2.0.0", "iosChangeLog": "",
        "current": true, "createdAt": 1_700_000_000_000, "updatedAt": 1_700_000_000_000,
    ]

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.get("/api/authentication/version") { request, _ in
            _ = try await env.read(request) { _, principal in principal }
            return JSONResponse.make([version])
        }
        router.get("/api/authentication/version/current") { request, _ in
            _ = try await env.read(request) { _, principal in principal }
            return JSONResponse.make(version)
        }
    }
}
