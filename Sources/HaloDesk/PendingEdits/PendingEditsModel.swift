import HaloServices

/// The outbox as the app shows it: its entries, sending them, and settling conflicts and refusals.
/// The workspace (status button, rows) and the Pending Edits window both use this one model and
/// observe it, instead of reaching into each other.
@MainActor
final class PendingEditsModel {
    /// Online or not, and the outbox counts the status area shows.
    let connection: ConnectionState
    private let content: ContentManager
    /// Whether a send is under way (one at a time).
    private(set) var isSending = false
    private var observers: [@MainActor () -> Void] = []
    /// Sentences for the user (the workspace shows them as toasts).
    var onMessage: @MainActor (String) -> Void = { _ in }
    /// The cache's copies changed: edits reached the server, or an entry was settled or
    /// discarded (the workspace shows its rows again).
    var onCopiesChanged: @MainActor () -> Void = {}
    /// A waiting pocket save was sent, refused, or settled (the workspace reads the favorites again).
    var onPocketChanged: @MainActor () -> Void = {}

    /// Instances with an edit not yet on the server (any state), as of the last read: the list
    /// marks their rows.
    private(set) var unsentInstanceIds: Set<String> = []

    init(content: ContentManager, connection: ConnectionState) {
        self.content = content
        self.connection = connection
        connection.readOutbox = { [weak self] in
            guard let counts = try? content.outbox().stateCounts() else { return OutboxCounts() }
            let outbox = OutboxCounts(waiting: counts.pending, conflicts: counts.conflicts, failed: counts.failed)
            self?.unsentInstanceIds = outbox.total == 0 ? [] : (try? content.outbox().instanceIds()) ?? []
            return outbox
        }
    }

    /// Whether the instance has an edit that has not reached the server.
    func isUnsent(_ instance: ContentInstance) -> Bool {
        guard let id = instance.id else { return false }
        return Outbox.isLocalId(id) || unsentInstanceIds.contains(id)
    }

    /// Calls `handler` whenever the outbox or the sending state changed.
    func observe(_ handler: @escaping @MainActor () -> Void) { observers.append(handler) }

    /// Every instance edit, in queue order, and the waiting pocket saves (none, with a message,
    /// when the outbox cannot be read).
    func entries() -> (edits: [OutboxEntry], pockets: [OutboxPocketEntry]) {
        do {
            let outbox = try content.outbox()
            return (try outbox.entries(), try outbox.pocketEntries())
        } catch {
            onMessage("Could not read the pending edits: \(error)")
            return ([], [])
        }
    }

    /// Sends the outbox, once at a time, and says how it went.
    func send() {
        guard !isSending else { return }
        isSending = true
        changed()
        Task { @MainActor in
            defer {
                isSending = false
                changed()
            }
            do {
                let report = try await content.outbox().flush()
                if let networkError = report.networkError {
                    connection.record(error: networkError)
                    return
                }
                let sent = report.sent.count + report.sentPockets.count
                let conflicts = report.conflicts.count + report.pocketConflicts.count
                let failed = report.failed.count + report.failedPockets.count
                var parts: [String] = []
                if sent > 0 { parts.append("\(sent) pending edit\(sent == 1 ? "" : "s") sent") }
                if conflicts > 0 { parts.append("\(conflicts) in conflict with newer server copies (both kept, see Pending Edits)") }
                if failed > 0 { parts.append("\(failed) refused by the server") }
                if !parts.isEmpty { onMessage(parts.joined(separator: ", ") + ".") }
                onCopiesChanged()
                if report.sentPockets.count + report.pocketConflicts.count + report.failedPockets.count > 0 { onPocketChanged() }
            } catch {
                connection.record(error: (error as? HaloError) ?? .cache(message: "\(error)"))
            }
        }
    }

    /// Settles a conflict; keeping mine sends it at once when online.
    func resolve(_ entry: OutboxEntry, keeping resolution: ConflictResolution) {
        settle("Could not settle the conflict", sending: resolution == .keepMine) { try $0.resolve(entry, keeping: resolution) }
    }

    /// Queues a refused edit again and sends it when online.
    func retry(_ entry: OutboxEntry) {
        settle("Could not queue the edit again", sending: true) { try $0.retry(entry) }
    }

    /// Drops an edit for good (the caller asked the user first).
    func discard(_ entry: OutboxEntry) {
        settle("Could not discard the edit", sending: false) { try $0.discard(entry) }
    }

    /// The same for a pocket save; the workspace then reads the favorites again.
    func resolve(_ entry: OutboxPocketEntry, keeping resolution: ConflictResolution) {
        settle("Could not settle the conflict", sending: resolution == .keepMine, pocket: true) {
            try $0.resolve(entry, keeping: resolution)
        }
    }

    func retry(_ entry: OutboxPocketEntry) {
        settle("Could not queue the edit again", sending: true, pocket: true) { try $0.retry(entry) }
    }

    func discard(_ entry: OutboxPocketEntry) {
        settle("Could not discard the edit", sending: false, pocket: true) { try $0.discard(entry) }
    }

    /// Applies a user's decision on an entry, then, with `sending`, sends the outbox when online.
    private func settle(_ failure: String, sending: Bool, pocket: Bool = false, _ change: (Outbox) throws -> Void) {
        perform(failure, change)
        if pocket { onPocketChanged() }
        if sending, connection.isOnline { send() }
    }

    private func perform(_ failure: String, _ change: (Outbox) throws -> Void) {
        do { try change(content.outbox()) } catch { onMessage("\(failure): \(error)") }
        changed()
        onCopiesChanged()
    }

    /// The outbox changed: counts are read again and observers follow.
    private func changed() {
        connection.refreshPendingEdits()
        observers.forEach { $0() }
    }
}
