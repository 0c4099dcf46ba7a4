import Foundation

/// What became of a pocket save made with `savePocketOrQueue` or `changePocket`.
public enum PocketSaveOutcome: Sendable {
    /// The server saved it: the pocket it holds now.
    case sent(Pocket)
    /// It waits in the outbox (`Outbox+Pocket`), durably, and goes out with the next flush: the
    /// server could not be reached, or an earlier save of this user still waits. `pocket` is the
    /// pocket as this computer shows it now.
    case pending(Pocket, entry: OutboxPocketEntry)

    /// The server's pocket when sent, else the one shown here.
    public var pocket: Pocket {
        switch self {
        case .sent(let pocket), .pending(let pocket, _): return pocket
        }
    }

    public var isPending: Bool {
        if case .pending = self { return true } else { return false }
    }
}

// Pocket saves that survive the network, as instance edits do (`saveOrQueue`): a save the
// server cannot receive waits in the outbox with the revision it was made on, and a save made
// while another waits joins it, so they reach the server in the order they were made.
extension AuthManager {
    /// The pocket as this computer shows it: as `getPocket()` reads it (offline, the copy kept
    /// here), with the signed-in user's waiting save laid over it, and that save. With no copy
    /// to read, a waiting save shows over the pocket it was made on.
    public func getPocketWithPendingSave() async throws(HaloError) -> (pocket: Pocket, pendingSave: OutboxPocketEntry?) {
        try await getPocketWithPendingSave(offlinePolicy: nil)
    }

    func getPocketWithPendingSave(offlinePolicy: OfflinePolicy?) async throws(HaloError) -> (
        pocket: Pocket, pendingSave: OutboxPocketEntry?
    ) {
        let waiting = pocketOutbox().flatMap { try? $0.outbox.pocketEntry(owner: $0.account) }
        do {
            let read = try await getPocket(filterReferences: nil, offlinePolicy: offlinePolicy)
            return (waiting.map { read.applying($0.save) } ?? read, waiting)
        } catch {
            guard let waiting, case .network = error else { throw error }
            return (waiting.result, waiting)
        }
    }

    /// Saves `save` (all of `data`, the lists it changes) made on `base` with `If-Match` of
    /// `base.revision`, or queues it when the server cannot be reached or an earlier save of this
    /// user still waits (it then joins that one, which is tried first). A save refused because the
    /// pocket moved on throws (`conflictingPocket`), as `savePocket` does.
    public func savePocketOrQueue(_ save: Pocket, basedOn base: Pocket) async throws(HaloError) -> PocketSaveOutcome {
        guard let (outbox, account) = pocketOutbox().map({ ($0.outbox, $0.account) }) else {
            return .sent(try await savePocket(save, ifRevision: base.revision, basedOn: base))
        }
        if (try? outbox.pocketEntry(owner: account)) != nil {
            return try await queue(save, basedOn: base, in: outbox, owner: account, sending: true)
        }
        do {
            return .sent(try await savePocket(save, ifRevision: base.revision, basedOn: base))
        } catch {
            guard case .network = error else { throw error }
            return try await queue(save, basedOn: base, in: outbox, owner: account, sending: false)
        }
    }

    /// Read, change, save: `change` gets the pocket and returns the save to send (a save replaces
    /// all of `data`). Saved with `If-Match`; when someone saved in between, the change is redone
    /// on their pocket (up to `attempts` times), never saved over it. With `queueWhenUnreachable`,
    /// a change the server cannot receive (or made while a save of this user waits) is made on
    /// the pocket as this computer shows it and queued; otherwise the network error is thrown.
    public func changePocket(
        filterReferences: [String]? = nil, attempts: Int = 4, queueWhenUnreachable: Bool = false,
        _ change: @escaping @Sendable (Pocket) throws -> Pocket
    ) async throws -> PocketSaveOutcome {
        let queueing = queueWhenUnreachable ? pocketOutbox() : nil
        if let (outbox, account) = queueing, (try? outbox.pocketEntry(owner: account)) != nil {
            _ = try? await outbox.flush()  // the waiting save first
            if try outbox.pocketEntry(owner: account) != nil { return try await queue(change, in: outbox, owner: account) }
        }
        var attempt = 1
        do {
            // Queueing, a read answered by the copy would be taken for the server's pocket.
            var pocket = try await getPocket(filterReferences: filterReferences, offlinePolicy: queueing == nil ? nil : OfflinePolicy.none)
            while true {
                let save = try change(pocket)
                do {
                    return .sent(
                        try await savePocket(save, ifRevision: pocket.revision, basedOn: filterReferences == nil ? pocket : nil))
                } catch {
                    guard let current = error.conflictingPocket, attempt < attempts else { throw error }
                    pocket = current
                    attempt += 1
                }
            }
        } catch HaloError.network(let message) {
            guard let (outbox, account) = queueing else { throw HaloError.network(message: message) }
            return try await queue(change, in: outbox, owner: account)
        }
    }

    /// The outbox of the signed-in user's offline cache; nil without an identified user, or
    /// when the cache cannot be opened (saves are then only sent).
    private func pocketOutbox() -> (outbox: Outbox, account: String)? {
        guard let account = currentUser?.account, let outbox = try? requireCore().content.outbox() else { return nil }
        return (outbox, account)
    }

    /// `change` made on the pocket as this computer shows it, queued.
    private func queue(_ change: @Sendable (Pocket) throws -> Pocket, in outbox: Outbox, owner: String) async throws
        -> PocketSaveOutcome
    {
        let shown: Pocket
        do {
            shown = try await getPocketWithPendingSave(offlinePolicy: .returnLocalDataDontLoad).pocket
        } catch {
            guard case .cache = error else { throw error }
            throw HaloError.network(
                message: "The server cannot be reached, and this computer has no copy of your pocket to change yet. "
                    + "Open the pocket once while the server answers.")
        }
        return try await queue(try change(shown), basedOn: shown, in: outbox, owner: owner, sending: false)
    }

    /// Queues `save` (joining a waiting one), then, with `sending`, tries to send the outbox.
    private func queue(_ save: Pocket, basedOn base: Pocket, in outbox: Outbox, owner: String, sending: Bool) async throws(HaloError)
        -> PocketSaveOutcome
    {
        let entry: OutboxPocketEntry
        do {
            entry = try await BlockingWork.run(name: "halo-cache-write") { try outbox.enqueuePocket(save, basedOn: base, owner: owner) }
        } catch {
            throw CacheProblem.wrap(error)
        }
        if sending {
            _ = try? await outbox.flush()
            guard let waiting = try? outbox.pocketEntry(owner: owner) else { return .sent(try await getPocket()) }
            return .pending(waiting.result, entry: waiting)
        }
        return .pending(base.applying(entry.save), entry: entry)
    }
}
