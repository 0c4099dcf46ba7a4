import Foundation
import HaloServices

/// Keeps a copy on this computer of every module the user opens, so that the workspace can still
/// show, search and edit it when the server cannot be reached.
///
/// Opening a module for the first time syncs it into the offline cache in the background (the
/// status area shows progress and Cancel); later opens, edits and reconnections bring the copy up
/// to date incrementally. One sync runs at a time; others wait their turn in order. A cancelled or
/// failed sync leaves the copy as it was (the SDK's sync point only moves with complete data).
@MainActor
final class OfflineCopies {
    /// A sync under way, for the status area.
    struct Progress: Equatable {
        var moduleId: String
        var moduleName: String
        var itemsDone: Int
        var totalItems: Int?
        /// True for a module without any copy yet (a first sync).
        var isFirstCopy: Bool

        /// "Keeping Products for offline use: 1,200 of 10,000"
        var sentence: String {
            let verb = isFirstCopy ? "Keeping \(moduleName) for offline use" : "Updating the offline copy of \(moduleName)"
            guard let totalItems, totalItems > 0 else { return verb + "…" }
            return "\(verb): \(DisplayFormat.count(min(itemsDone, totalItems))) of \(DisplayFormat.count(totalItems))"
        }
    }

    private let content: ContentManager
    private var queue: [(id: String, name: String)] = []
    private var running: (id: String, task: Task<Void, Never>)?
    /// The sync under way, nil when none.
    private(set) var progress: Progress?
    /// The status area follows (progress changed, a sync started or ended).
    var onProgress: @MainActor () -> Void = {}
    /// A module's copy changed (rows shown from it are read again).
    var onUpdated: @MainActor (_ moduleId: String) -> Void = { _ in }
    /// A sync failed (not cancelled): the module and why, in words.
    var onFailure: @MainActor (_ moduleName: String, _ error: HaloError) -> Void = { _, _ in }
    /// Completed syncs since start (tests wait on it).
    private(set) var completedSyncs = 0
    /// Each module's copy date as last read from the cache: the status line asks on every
    /// update, and only a completed sync of ours changes it.
    private var knownCopyDates: [String: Date?] = [:]

    init(content: ContentManager) {
        self.content = content
    }

    /// When the module's copy was last brought up to date (nil: no copy).
    func copyDate(moduleId: String) -> Date? {
        if let known = knownCopyDates[moduleId] { return known }
        let date = content.lastSyncDate(moduleId: moduleId)
        knownCopyDates[moduleId] = date
        return date
    }

    /// Brings the module's copy up to date (a first copy when there is none), after the syncs
    /// already waiting. Asking again for a module that waits or syncs changes nothing.
    func update(moduleId: String, name: String) {
        guard running?.id != moduleId, !queue.contains(where: { $0.id == moduleId }) else { return }
        queue.append((moduleId, name))
        startNext()
    }

    /// Stops the sync under way (its module keeps the copy it had) and forgets the waiting ones.
    func cancel() {
        queue.removeAll()
        running?.task.cancel()
    }

    /// Stops as `cancel` does, and returns once the sync under way has let go of the cache.
    func stop() async {
        let task = running?.task
        cancel()
        await task?.value
    }

    private func startNext() {
        guard running == nil, !queue.isEmpty else { return }
        let (id, name) = queue.removeFirst()
        let isFirst = copyDate(moduleId: id) == nil
        progress = Progress(moduleId: id, moduleName: name, itemsDone: 0, totalItems: nil, isFirstCopy: isFirst)
        onProgress()
        let content = content
        let report: @Sendable (SyncProgress) -> Void = { [weak self] update in
            Task { @MainActor [weak self] in self?.show(update, moduleId: id) }
        }
        let task = Task { @MainActor [weak self] in
            var failure: HaloError?
            do throws(HaloError) {
                _ = try await content.syncToCache(query: SyncQuery(moduleId: id).locale(.allLocales), progress: report)
            } catch {
                failure = error
            }
            self?.finish(moduleId: id, name: name, failure: failure)
        }
        running = (id, task)
    }

    private func show(_ update: SyncProgress, moduleId: String) {
        guard progress?.moduleId == moduleId else { return }
        progress?.itemsDone = update.itemsDone
        progress?.totalItems = update.totalItems
        onProgress()
    }

    private func finish(moduleId: String, name: String, failure: HaloError?) {
        switch failure {
        case nil:
            knownCopyDates[moduleId] = nil  // read again
            completedSyncs += 1
            onUpdated(moduleId)
        case .cancelled?: break
        case let error?: if running?.task.isCancelled != true { onFailure(name, error) }
        }
        running = nil
        progress = nil
        onProgress()
        startNext()
    }
}
