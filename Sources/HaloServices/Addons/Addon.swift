import Foundation

/// An add-on extends the SDK and is told about each step of its lifecycle (the seed's `Addon`).
/// Register add-ons with `CoreManager.registerAddon(_:)` before `startup`.
///
/// Order: `willRegisterAddon`, `didRegisterAddon` (at registration); then during `startup`:
/// `setup`, `startup`, `willRegisterDevice`, `didRegisterDevice`. The iOS UIApplication hooks
/// become `applicationDidStart` / `applicationWillTerminate` / `applicationDidBecomeActive`,
/// which the host app calls through the `CoreManager` methods of the same names.
public protocol Addon: AnyObject, Sendable {
    var addonName: String { get }
    func setup(core: CoreManager) async -> Bool
    func startup(core: CoreManager) async -> Bool
    func willRegisterAddon(core: CoreManager)
    func didRegisterAddon(core: CoreManager)
    func willRegisterDevice(core: CoreManager)
    func didRegisterDevice(core: CoreManager)
    func applicationDidStart(core: CoreManager)
    func applicationDidBecomeActive(core: CoreManager)
    func applicationWillTerminate(core: CoreManager)
}

extension Addon {
    public func setup(core: CoreManager) async -> Bool { true }
    public func startup(core: CoreManager) async -> Bool { true }
    public func willRegisterAddon(core: CoreManager) {}
    public func didRegisterAddon(core: CoreManager) {}
    public func willRegisterDevice(core: CoreManager) {}
    public func didRegisterDevice(core: CoreManager) {}
    public func applicationDidStart(core: CoreManager) {}
    public func applicationDidBecomeActive(core: CoreManager) {}
    public func applicationWillTerminate(core: CoreManager) {}
}

/// An add-on that sees every HTTP request the SDK sends (the seed's `NetworkAddon`).
public protocol NetworkAddon: Addon {
    /// Called just before `request` is sent (with its final headers, `Authorization` included).
    func willPerformRequest(request: HTTPRequest)
    /// Called after the request finished: `time` is the elapsed time in seconds, `response`
    /// nil when no response was received (network error).
    func didPerformRequest(request: HTTPRequest, time: TimeInterval, response: HTTPResponse?)
}
