import HaloServices

/// A live connection the workspace windows work with: a started `CoreManager` with the user
/// signed in, plus what the window shows about where it is connected.
///
/// The shell (welcome, local workspace, sign-in) creates it; the workspace views only use it.
@MainActor
final class WorkspaceSession {
    /// The SDK entry point: `core.content` for modules and instances, `core.auth` for the user.
    let core: CoreManager
    /// Shown as the window subtitle, e.g. "Local workspace" or "halo.example.com".
    let title: String
    /// True for the in-process local workspace.
    let isLocal: Bool

    /// Follows the server's live event stream: this device's notifications and others' content
    /// changes (nil when the core was started without it).
    var notifications: NotificationsAddon? { core.getAddons(type: NotificationsAddon.self).first }

    init(core: CoreManager, title: String, isLocal: Bool) {
        self.core = core
        // The app keeps a copy of what it shows and answers from it when the server does not
        // (the SDK's default stays the seed's: network only).
        core.defaultOfflinePolicy = .loadAndStoreLocalData
        self.title = title
        self.isLocal = isLocal
    }
}
