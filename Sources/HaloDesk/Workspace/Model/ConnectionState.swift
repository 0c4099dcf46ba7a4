import HaloServices

/// Online/offline as the last request saw it, plus pending (not yet sent) edits.
///
/// Pending edits are read from the SDK's outbox after every request; when a request succeeds
/// while edits wait, `onPendingEditsSendable` lets the workspace flush them.
@MainActor
final class ConnectionState {
    private(set) var isOnline = true
    private(set) var lastError: String?
    private(set) var pendingEdits = 0
    /// Called whenever the state changes (the status area re-renders).
    var onChange: (@MainActor () -> Void)?
    /// Counts the edits waiting in the outbox (set by the workspace; 0 when unset).
    var countPendingEdits: (@MainActor () -> Int)?
    /// The server answered while edits wait: time to send them.
    var onPendingEditsSendable: (@MainActor () -> Void)?

    func record(success: Bool) {
        guard success else { return }
        isOnline = true
        lastError = nil
        refreshPendingEdits()
        onChange?()
        if pendingEdits > 0 { onPendingEditsSendable?() }
    }

    /// An edit either reached the server or waits in the outbox because it could not.
    func record(outcome: EditOutcome) {
        if outcome.isPending {
            isOnline = false
            refreshPendingEdits()
            onChange?()
        } else {
            record(success: true)
        }
    }

    func refreshPendingEdits() {
        pendingEdits = countPendingEdits?() ?? 0
    }

    /// A network failure means offline; a server answer (even an error) means the server is reachable.
    func record(error: HaloError) {
        if case .network(let message) = error {
            isOnline = false
            lastError = message
        } else {
            isOnline = true
        }
        refreshPendingEdits()
        onChange?()
    }

    /// The status line: "Online", "Offline — <reason>", plus pending edits when there are some.
    var summary: String {
        var text = isOnline ? "Online" : "Offline" + (lastError.map { " — \($0)" } ?? "")
        if pendingEdits > 0 { text += " · \(pendingEdits) pending edit\(pendingEdits == 1 ? "" : "s")" }
        return text
    }
}
