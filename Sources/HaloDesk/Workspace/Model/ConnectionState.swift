import HaloServices

/// Online/offline as the last request saw it, plus pending (not yet sent) edits.
///
/// Pending edits stay 0 until the SDK queues offline edits; the status area already shows them.
@MainActor
final class ConnectionState {
    private(set) var isOnline = true
    private(set) var lastError: String?
    private(set) var pendingEdits = 0
    /// Called whenever the state changes (the status area re-renders).
    var onChange: (@MainActor () -> Void)?

    func record(success: Bool) {
        guard success else { return }
        isOnline = true
        lastError = nil
        onChange?()
    }

    /// A network failure means offline; a server answer (even an error) means the server is reachable.
    func record(error: HaloError) {
        if case .network(let message) = error {
            isOnline = false
            lastError = message
        } else {
            isOnline = true
        }
        onChange?()
    }

    /// The status line: "Online", "Offline — <reason>", plus pending edits when there are some.
    var summary: String {
        var text = isOnline ? "Online" : "Offline" + (lastError.map { " — \($0)" } ?? "")
        if pendingEdits > 0 { text += " · \(pendingEdits) pending edit\(pendingEdits == 1 ? "" : "s")" }
        return text
    }
}
