import Foundation
import HaloServices

/// The pocket window of the signed-in user (main menu → Pocket) and the Send Notification window,
/// and what they ask of the workspace: instance search for the reference lists and the link,
/// names of instance ids, opening one.
extension WorkspaceView {
    func showPocket() {
        if let pocketWindow, pocketWindow.window.isVisible {
            pocketWindow.present()
            return
        }
        guard session.core.auth.currentUser != nil else {
            toast("The pocket belongs to a signed-in account: sign in to edit it.")
            return
        }
        let services = PocketWindow.Services(
            auth: session.core.auth, search: instanceSearch(),
            lookUp: { [weak self] ids in await self?.instanceChoices(ids: ids) ?? [:] },
            openInstance: weakly(self) { view, id in view.openInstance(id: id) },
            isOffline: { [weak self] in self.map { !$0.session.isLocal && !$0.connection.isOnline } ?? false },
            onSaved: weakly(self) { view, outcome in
                view.connection.record(pocketOutcome: outcome)
                view.showFavoriteIds(in: outcome.pocket)
            })
        do {
            let window = try PocketWindow(parent: widget, services: services)
            pocketWindow = window
            window.present()
        } catch {
            toast("Could not open the pocket: \(error)")
        }
    }

    /// The Send Notification window (main menu → Send Notification), one per workspace.
    func showSendNotification() {
        if let sendNotificationWindow, sendNotificationWindow.window.isVisible {
            sendNotificationWindow.present()
            return
        }
        do {
            let window = try SendNotificationWindow(parent: widget, core: session.core, search: instanceSearch())
            sendNotificationWindow = window
            window.present()
        } catch {
            toast("Could not open Send Notification: \(error)")
        }
    }

    /// The name and module of each of `ids` that is an instance (from the offline copy when offline).
    func instanceChoices(ids: [String]) async -> [String: InstanceChoice] {
        guard !ids.isEmpty,
            let found = try? await session.core.content.search(
                query: SearchQuery().instanceIds(ids).skipPagination(), offlinePolicy: connection.readPolicy)
        else { return [:] }
        let modules = sidebar.moduleNames
        return Dictionary(
            found.instances.compactMap { InstanceChoice($0, moduleNames: modules).map { ($0.id, $0) } },
            uniquingKeysWith: { first, _ in first })
    }
}
