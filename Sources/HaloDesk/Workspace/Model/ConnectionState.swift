import HaloServices

/// Online/offline as the last request saw it, plus the outbox: edits waiting to be sent, in
/// conflict, or refused.
///
/// The outbox is read after every request; when a request succeeds while edits wait,
/// `onPendingEditsSendable` lets the workspace flush them.
@MainActor
final class ConnectionState {
    private(set) var isOnline = true
    private(set) var lastError: String?
    /// What the outbox held at the last refresh.
    private(set) var outbox = OutboxCounts()
    /// Edits waiting to be sent.
    var pendingEdits: Int { outbox.waiting }
    /// Called whenever the state changes (the status area re-renders).
    var onChange: (@MainActor () -> Void)?
    /// Reads the outbox's counts (set by the workspace; empty when unset).
    var readOutbox: (@MainActor () -> OutboxCounts)?
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
        outbox = readOutbox?() ?? OutboxCounts()
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

    /// The status line: "Online" or "Offline — <reason>" (the outbox has its own button).
    var summary: String {
        isOnline ? "Online" : "Offline" + (lastError.map { " — \($0)" } ?? "")
    }
}
