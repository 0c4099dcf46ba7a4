import Foundation
import HaloServices

/// Whether the server answers, as real requests found it, plus the outbox: edits waiting to be
/// sent, in conflict, or refused.
///
/// A network failure (or an answer the SDK had to take from the offline cache) means offline;
/// any answer from the server, even a refusal, means online. While offline, `probe` is tried
/// with a growing delay (1 s, 2 s, 4 s … at most `maximumProbeDelay`), so the app notices the
/// server's return within seconds without the user pressing F5. When the server answers while
/// edits wait, `onPendingEditsSendable` lets the workspace send them.
@MainActor
final class ConnectionState {
    enum Reachability: Equatable {
        case online
        /// No answer since `since`; `reason` is the last failure, in words.
        case offline(since: Date, reason: String)
        /// Offline, and a probe is on its way.
        case reconnecting(since: Date, reason: String)
    }

    private(set) var reachability = Reachability.online
    var isOnline: Bool { reachability == .online }
    /// The policy for reads: the session's own while online; known to be offline, straight to
    /// the copy on this computer, with no network wait per request. (The probe finds the server.)
    var readPolicy: OfflinePolicy? { isOnline ? nil : .returnLocalDataDontLoad }
    /// When the server stopped answering (nil while online).
    var offlineSince: Date? {
        switch reachability {
        case .online: return nil
        case .offline(let since, _), .reconnecting(let since, _): return since
        }
    }
    /// Why the server is taken as unreachable, in words (nil while online).
    var offlineReason: String? {
        switch reachability {
        case .online: return nil
        case .offline(_, let reason), .reconnecting(_, let reason): return reason
        }
    }
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
    /// The server answers again after an outage (the workspace reloads what it shows).
    var onReconnected: (@MainActor () -> Void)?
    /// A cheap request that tells whether the server answers (true) or not (false).
    var probe: (@MainActor () async -> Bool)?
    /// The longest wait between two probes.
    private let maximumProbeDelay: Duration = .seconds(15)
    /// Why an answer taken from the cache, or an edit kept for later, means offline.
    private static let noAnswer = "The server does not answer"
    private var probeTask: Task<Void, Never>?

    /// The server answered.
    func record(success: Bool) {
        guard success else { return }
        let wasOffline = !isOnline
        reachability = .online
        probeTask?.cancel()
        probeTask = nil
        refreshPendingEdits()
        onChange?()
        if pendingEdits > 0 { onPendingEditsSendable?() }
        if wasOffline { onReconnected?() }
    }

    /// An answer arrived from `source`: from the cache under the app's policy means the network
    /// failed and the SDK fell back to the local copy.
    func record(answerFrom source: AnswerSource) {
        if source.isFromCache {
            recordUnreachable(reason: Self.noAnswer)
        } else {
            record(success: true)
        }
    }

    /// An edit either reached the server or waits in the outbox because it could not.
    func record(outcome: EditOutcome) { record(editWaits: outcome.isPending) }

    /// A pocket save reached the server, or waits: because the server could not be reached, or
    /// behind an earlier save in conflict or refused (which says nothing about the server).
    func record(pocketOutcome outcome: PocketSaveOutcome) {
        if case .pending(_, let entry) = outcome, entry.state != .pending {
            refreshPendingEdits()
            onChange?()
            return
        }
        record(editWaits: outcome.isPending)
    }

    private func record(editWaits: Bool) {
        if editWaits {
            if isOnline { recordUnreachable(reason: Self.noAnswer) }
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
            recordUnreachable(reason: message)
        } else if case .cache = error {
            // The local copy failed, which says nothing about the server.
            refreshPendingEdits()
            onChange?()
        } else {
            record(success: true)
        }
    }

    private func recordUnreachable(reason: String) {
        let since = offlineSince ?? Date()
        if case .reconnecting = reachability {
            // The probe decides when to try again.
        } else {
            reachability = .offline(since: since, reason: reason)
        }
        refreshPendingEdits()
        onChange?()
        startProbing()
    }

    /// Probes with a growing delay until the server answers (at most one probe loop at a time).
    private func startProbing() {
        guard probeTask == nil, probe != nil else { return }
        probeTask = Task { @MainActor [weak self] in
            var delay = Duration.seconds(1)
            while !Task.isCancelled {
                try? await Task.sleep(for: delay)
                guard let self, !Task.isCancelled, let since = self.offlineSince else { return }
                guard case .offline(_, let reason) = self.reachability else { return }
                self.reachability = .reconnecting(since: since, reason: reason)
                self.onChange?()
                let answered = await self.probe?() ?? false
                guard !Task.isCancelled else { return }
                if answered {
                    self.probeTask = nil
                    self.record(success: true)
                    return
                }
                if case .reconnecting = self.reachability { self.reachability = .offline(since: since, reason: reason) }
                self.onChange?()
                delay = min(delay * 2, self.maximumProbeDelay)
            }
        }
    }

    /// Stops probing (the workspace is closing).
    func stop() {
        probeTask?.cancel()
        probeTask = nil
    }

    /// The status line: "Online", "Offline since 14:02" or "Reconnecting…" (the outbox has its
    /// own button; the reason is in `explanation`).
    var summary: String {
        switch reachability {
        case .online: return "Online"
        case .offline(let since, _): return "Offline since \(DisplayFormat.time(since))"
        case .reconnecting: return "Reconnecting…"
        }
    }

    /// The status line's tooltip: the summary with why, and what happens next.
    var explanation: String {
        switch reachability {
        case .online: return "The server answers"
        case .offline(let since, let reason), .reconnecting(let since, let reason):
            return "Offline since \(DisplayFormat.time(since)): \(reason). Trying again automatically."
        }
    }
}
