import Foundation

/// The secret that opens a device's notification stream (our extension: the server issues it
/// when the device registers). Kept in memory for the session and in the keyring across launches.
/// Renewing it needs the current one (docs/protocol.md §23.12), so where it is lost (no keyring
/// reachable, keyring emptied) a start that wants the device's notifications registers the device
/// again (`CoreManager.saveDevice()`).
struct DeviceStreamCredential: Sendable, Equatable {
    var deviceId: String
    var secret: String

    /// The headers that open the device's stream (docs/protocol.md §23.8).
    var headers: [String: String] { ["X-Halo-Device": deviceId, "X-Halo-Device-Secret": secret] }

    private static func keyring(deviceId: String, environment: HaloEnvironment) -> Keyring {
        Keyring(server: "halo-device-stream:\(environment.description)", account: deviceId)
    }

    /// The credential of `deviceId`: the session's, else the keyring's.
    static func load(deviceId: String, environment: HaloEnvironment, core: CoreManager) async -> DeviceStreamCredential? {
        if let known = core.deviceStreamCredential, known.deviceId == deviceId { return known }
        guard let stored = (try? await keyring(deviceId: deviceId, environment: environment).lookup()) ?? nil else { return nil }
        let credential = DeviceStreamCredential(deviceId: deviceId, secret: stored)
        core.deviceStreamCredential = credential
        return credential
    }

    /// Keeps a newly issued secret (the keyring may be unavailable: the session still has it).
    static func store(_ secret: String, deviceId: String, environment: HaloEnvironment, core: CoreManager) async {
        core.deviceStreamCredential = DeviceStreamCredential(deviceId: deviceId, secret: secret)
        do {
            try await keyring(deviceId: deviceId, environment: environment).store(secret, label: "HALO device notification stream")
        } catch {
            core.log.info("The device's stream credential stays in memory only: \(error)")
        }
    }
}
