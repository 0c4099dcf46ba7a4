import Foundation
import HaloServices

/// Offline: the copies of opened modules kept on this computer, the status area while they sync,
/// and what happens when the server stops and starts answering.
extension WorkspaceView {
    func wireOfflineCopies() {
        offlineCopies.onProgress = weakly(self) { $0.updateSyncStatus() }
        offlineCopies.onUpdated = weakly(self) { view, moduleId in
            // Rows read from the copy show its new state; rows from the server already do.
            if view.pager.moduleId == moduleId, view.pager.source.isFromCache { view.pager.refetch() }
            view.updateStatus()
        }
        offlineCopies.onFailure = weakly(self) { view, moduleName, error in
            if case .network = error {
                view.connection.record(error: error)
            } else {
                view.toast("\(moduleName) could not be kept for offline use: \(error.sentence)")
            }
        }
        syncCancelButton.onClicked(weakly(self) { $0.offlineCopies.cancel() })
        let content = session.core.content
        // Asks the server itself (never the cache) for the smallest answer it has.
        connection.probe = {
            do throws(HaloError) {
                _ = try await content.getModules(offlinePolicy: OfflinePolicy.none)
                return true
            } catch {
                if case .network = error { return false }
                return true  // an answer, even a refusal, means the server is back
            }
        }
        connection.onReconnected = weakly(self) { view in
            view.loadModules()
            view.pager.refetch()
            view.keepOfflineCopy()
        }
        reportDamagedFiles()
    }

    /// Files found damaged when the cache was opened: the copy is simply rebuilt, but pending
    /// edits that could not be read are the user's, so they are told where the file was kept.
    private func reportDamagedFiles() {
        guard let cache = try? session.core.offlineCache() else { return }
        if let aside = cache.movedAsideOutboxFile {
            toast("Edits waiting to be sent could not be read. The damaged file was kept as \(aside.path).")
        } else if cache.movedAsideFile != nil {
            toast("The offline copy was damaged and is being made again. Edits waiting to be sent are safe.")
        }
    }

    /// Brings the open module's offline copy up to date (a first copy when it has none), unless
    /// the server is known to be unreachable. Not for the local workspace: its server runs in the
    /// app and cannot be out of reach, so a copy would only cost time and disk.
    func keepOfflineCopy() {
        guard !session.isLocal, connection.isOnline, let id = pager.moduleId else { return }
        let name = sidebar.modules.first { $0.id == id }?.name ?? "this module"
        offlineCopies.update(moduleId: id, name: name)
    }

    /// The sync label and its Cancel: visible only while a copy is being made or updated.
    func updateSyncStatus() {
        let progress = offlineCopies.progress
        syncLabel.isVisible = progress != nil
        syncCancelButton.isVisible = progress != nil
        syncLabel.text = progress?.sentence ?? ""
        syncLabel.tooltip = progress?.sentence
    }

    /// "showing the copy from 14:02" while the rows come from this computer.
    var copySummary: String? {
        guard case .cache(let storedAt) = pager.source, pager.moduleId != nil else { return nil }
        let date = pager.moduleId.flatMap(offlineCopies.copyDate(moduleId:)) ?? storedAt
        return date.map { "showing the copy from \(DisplayFormat.time($0))" } ?? "showing the copy on this computer"
    }

    /// Stops what runs in the background (probes, syncs): the workspace is closing.
    func close() {
        liveFollower?.cancel()
        connection.stop()
        offlineCopies.cancel()
        forgetFilter()  // its window goes with the workspace
    }

    /// `close`, returning once no sync of this view writes the cache any more (before the
    /// offline copy is removed).
    func closeAndWait() async {
        liveFollower?.cancel()
        connection.stop()
        await offlineCopies.stop()
    }
}
