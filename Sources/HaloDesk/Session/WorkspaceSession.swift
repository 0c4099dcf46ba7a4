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

    init(core: CoreManager, title: String, isLocal: Bool) {
        self.core = core
        self.title = title
        self.isLocal = isLocal
    }
}
