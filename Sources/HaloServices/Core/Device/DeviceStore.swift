import Crypto
import Foundation

/// Persists the device per environment as JSON under the data directory
/// (`device-<environment>.json`, 0600 in a 0700 folder: see `PrivateFiles`). It holds no secret: only the device and a hash of the client
/// id, so a device stored with other app credentials is discarded (as iOS did).
struct DeviceStore: Sendable {
    let directory: URL

    private func file(for environment: HaloEnvironment) -> URL {
        let name = String(environment.description.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return directory.appendingPathComponent("device-\(name).json")
    }

    static func credentialsHash(_ credentials: Credentials?) -> String {
        Data(SHA256.hash(data: Data((credentials?.username ?? "").utf8))).base64EncodedString()
    }

    func load(environment: HaloEnvironment, credentials: Credentials?) -> Device? {
        guard let data = try? Data(contentsOf: file(for: environment)),
            let stored = try? JSONValue(data: data),
            stored["credentials"]?.stringValue == Self.credentialsHash(credentials),
            let device = stored["device"]
        else { return nil }
        return try? Device(wire: device)
    }

    func save(_ device: Device, environment: HaloEnvironment, credentials: Credentials?) throws(HaloError) {
        let stored: JSONValue = .object(["credentials": .string(Self.credentialsHash(credentials)), "device": device.storedJSON()])
        do {
            try PrivateFiles.createDirectory(directory)
            try PrivateFiles.writeAtomically(stored.data(sortedKeys: true), to: file(for: environment))
        } catch {
            throw .cache(message: "Cannot store the device in \(directory.path): \(error.localizedDescription)")
        }
    }

    func remove(environment: HaloEnvironment) {
        try? FileManager.default.removeItem(at: file(for: environment))
    }
}
