import Foundation
import HaloContentStore

/// What became of an edit made with `ContentManager.saveOrQueue` / `deleteOrQueue`.
public enum EditOutcome: Sendable, Hashable {
    /// The server applied the edit: its copy of the instance.
    case sent(ContentInstance)
    /// The edit waits in the outbox, durably, and goes out with the next `outbox().flush()`: the
    /// server could not be reached, earlier edits are still waiting (edits reach the server in the
    /// order they were made), or the instance exists only locally (a create not sent yet). `instance` is the local copy;
    /// `entry` is nil when the edit cancelled a create that was never sent.
    case pending(ContentInstance, entry: OutboxEntry?)
    /// The server applied the edit, but the offline cache could not be used (read-only or full
    /// disk, a damaged file that could not be replaced…), so the edit went to the server directly,
    /// without the outbox: had the server been unreachable, it could not have been kept.
    /// `cacheError` says what failed; `notice` is a sentence to show the user.
    case sentWithoutCache(ContentInstance, cacheError: HaloError)

    /// The server's copy when sent, else the local one.
    public var instance: ContentInstance {
        switch self {
        case .sent(let instance), .pending(let instance, _), .sentWithoutCache(let instance, _): return instance
        }
    }

    public var isPending: Bool {
        if case .pending = self { return true } else { return false }
    }

    /// Whether the server applied the edit (`.sent` or `.sentWithoutCache`).
    public var isSent: Bool { !isPending }

    /// Why the offline cache could not be used, when the edit was sent without it.
    public var cacheError: HaloError? {
        if case .sentWithoutCache(_, let error) = self { return error } else { return nil }
    }

    /// A sentence for the user when the edit was sent without the offline cache, e.g. "The offline
    /// cache is unusable (attempt to write a readonly database); the edit was sent directly."
    public var notice: String? { cacheError.map(Self.cacheNotice(for:)) }

    /// "The offline cache is unusable (<what failed>); the edit was sent directly."
    static func cacheNotice(for error: HaloError) -> String {
        "The offline cache is unusable (\(CacheProblem.detail(of: error))); the edit was sent directly."
    }
}

/// Wording shared by the notices and errors of edits made without a usable cache.
enum CacheProblem {
    /// The cache failure without its "Local cache error:" prefix, on one line.
    static func detail(of error: HaloError) -> String {
        let text: String
        if case .cache(let message) = error { text = message } else { text = error.description }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Whether `error` says the cache (not the input or the server) failed.
    static func isCacheFailure(_ error: HaloError) -> Bool {
        if case .cache = error { return true } else { return false }
    }

    /// Any error of a cache operation as a `HaloError` (database errors become `.cache`).
    static func wrap(_ error: any Error) -> HaloError {
        (error as? HaloError) ?? .cache(message: "\(error)")
    }
}

// Edits that survive the network: an edit the server cannot receive (connection refused,
// dropped, timed out) is kept in the outbox instead of failing. A refusal by the server (4xx,
// 5xx) is not queued — sending it again would be refused again — and is thrown as before.
//
// Edits that survive the cache: when the offline cache cannot be opened, read or written, the
// edit is sent directly (`EditOutcome.sentWithoutCache`, a warning in the SDK's log, and
// `offlineCacheProblem` set). Only when the server cannot be reached either does the edit fail,
// with a `.network` error saying it could not be kept.
extension ContentManager {
    /// Saves `instance` (create without id, update with one), or queues the edit in the outbox.
    public func saveOrQueue(_ instance: ContentInstance) async throws(HaloError) -> EditOutcome {
        let outbox: Outbox
        do { outbox = try self.outbox() } catch {
            return try await sendWithoutCache(because: error) { () async throws(HaloError) -> ContentInstance in
                try await sendSave(instance)
            }
        }
        if instance.id == nil { return try await create(instance, through: outbox) }
        return try await sendOrQueue(instanceId: instance.id, outbox: outbox) { () async throws(HaloError) -> ContentInstance in
            try await sendSave(instance)
        } queue: { outbox in
            let entry = try outbox.enqueueUpdate(instance)
            return .pending(entry.instance, entry: entry)
        }
    }

    /// Deletes the instance, or queues the deletion in the outbox. Queued, the local copy is the
    /// synced one when the cache has it (else only the id is known) with `deletedAt` set.
    public func deleteOrQueue(instanceId: String) async throws(HaloError) -> EditOutcome {
        let send = { () async throws(HaloError) -> ContentInstance in try await self.sendDelete(instanceId: instanceId) }
        let outbox: Outbox
        do { outbox = try self.outbox() } catch { return try await sendWithoutCache(because: error, send) }
        return try await sendOrQueue(instanceId: instanceId, outbox: outbox, send: send) { outbox in
            var local =
                try outbox.cache.read { db in try ContentTables.instance(id: instanceId, in: db) }
                .map(ContentInstance.init(stored:)) ?? ContentInstance(id: instanceId, moduleId: "", name: "")
            local.deletedAt = Date()
            return .pending(local, entry: try outbox.enqueueDelete(local))
        }
    }

    /// Why the last edit could not use the offline cache (it was sent directly, or failed for
    /// want of it); nil once an edit was written to the cache again (kept or created through the
    /// outbox). For an app's "offline edits are off"
    /// banner; each edit's own answer is in its `EditOutcome`.
    public var offlineCacheProblem: HaloError? { cacheProblemState.withLock { $0 } }

    /// Sends the edit — after the older edits still waiting, which it tries to send first — or
    /// queues it when they could not all be sent, when the instance exists only locally, or when
    /// the network fails. When the outbox cannot be read or written the edit is sent directly.
    private func sendOrQueue(
        instanceId: String?,
        outbox: Outbox,
        send: () async throws(HaloError) -> ContentInstance,
        queue: @escaping @Sendable (Outbox) throws -> EditOutcome
    ) async throws(HaloError) -> EditOutcome {
        let isLocal = instanceId.map(Outbox.isLocalId) ?? false
        var mustWait = isLocal
        if !mustWait {
            do {
                if try outbox.hasPending() {
                    _ = try? await outbox.flush()  // the older edits first, so the server sees them in order
                    mustWait = try outbox.hasPending()
                }
            } catch {
                return try await sendWithoutCache(because: CacheProblem.wrap(error), send)  // the outbox cannot be read
            }
        }
        if !mustWait {
            do {
                return .sent(try await send())
            } catch {
                guard case .network(let message) = error else { throw error }
                (try? core())?.log.warning("Edit kept in the outbox, the server could not be reached: \(message)")
                do { return try await keep(in: outbox, queue) } catch let cacheError {
                    guard CacheProblem.isCacheFailure(cacheError) else { throw cacheError }
                    throw lost(error, cacheError: cacheError)
                }
            }
        }
        do { return try await keep(in: outbox, queue) } catch let cacheError {
            // It cannot wait its turn: the outbox cannot be written. Sent now, ahead of the older
            // edits stuck in the cache — unless the instance exists only locally (its create is
            // among them), which the server cannot know.
            guard CacheProblem.isCacheFailure(cacheError), !isLocal else { throw cacheError }
            return try await sendWithoutCache(because: cacheError, send)
        }
    }

    /// A create goes through the outbox even online: queued first with the server id it asks for,
    /// then sent behind the older edits. So when the server applies it but the answer is lost,
    /// the resend finds the instance under that id instead of creating a duplicate. A refusal by
    /// the server is thrown (and the create dropped), as for a direct request. When the outbox
    /// cannot be written, the create is sent directly.
    private func create(_ instance: ContentInstance, through outbox: Outbox) async throws(HaloError) -> EditOutcome {
        let entry: OutboxEntry
        do { entry = try await BlockingWork.run(name: "halo-cache-write") { try outbox.enqueueCreate(instance) } } catch {
            let failure = CacheProblem.wrap(error)
            guard CacheProblem.isCacheFailure(failure) else { throw failure }
            return try await sendWithoutCache(because: failure) { () async throws(HaloError) -> ContentInstance in
                try await sendSave(instance)
            }
        }
        let report: OutboxFlushReport
        do {
            report = try await outbox.flush()
        } catch {
            let failure = CacheProblem.wrap(error)
            if CacheProblem.isCacheFailure(failure) { return try await createWithoutCache(entry, in: outbox, because: failure) }
            // The whole batch was refused (e.g. no edit rights): like a direct create, nothing is kept.
            try? outbox.discard(entry)
            throw failure
        }
        if let refusal = report.refusals[entry.id] {
            try? outbox.discard(entry)
            throw refusal
        }
        let serverId = entry.instance.id.flatMap(Outbox.serverId(forLocalId:))
        if let sent = report.sent.first(where: { $0.id != nil && $0.id == serverId }) {
            cacheProblemState.withLock { $0 = nil }
            return .sent(sent)
        }
        if let message = report.networkError?.description {
            (try? core())?.log.warning("New instance kept in the outbox, the server could not be reached: \(message)")
        }
        return .pending(entry.instance, entry: entry)
    }

    /// The cache failed while the outbox sent a queued create: before the batch went out, or
    /// after the server applied it (its answer could not be recorded). Sent again directly as a
    /// create-or-update of the server id the entry asked for, which cannot duplicate it. When the
    /// entry cannot be dropped from the outbox either, it stays there: a later flush sends the
    /// same create-or-update again, and if the server cannot be reached now, the edit still waits.
    private func createWithoutCache(_ entry: OutboxEntry, in outbox: Outbox, because cacheError: HaloError) async throws(HaloError)
        -> EditOutcome
    {
        let stillQueued = (try? outbox.discard(entry)) == nil
        let send = { () async throws(HaloError) -> ContentInstance in
            try await self.sendCreate(entry.instance, serverId: entry.instance.id.flatMap(Outbox.serverId(forLocalId:)))
        }
        do {
            return try await sendWithoutCache(because: cacheError, send)
        } catch {
            guard stillQueued, case .network = error else { throw error }
            return .pending(entry.instance, entry: entry)
        }
    }

    /// Sends the edit without the outbox, because `cacheError` made the cache unusable: success
    /// is `.sentWithoutCache`, with a warning logged; a network failure is thrown, saying the edit
    /// could not be kept. Errors that are not the cache's (e.g. configuration) send as before.
    private func sendWithoutCache(
        because cacheError: HaloError, _ send: () async throws(HaloError) -> ContentInstance
    ) async throws(HaloError) -> EditOutcome {
        guard CacheProblem.isCacheFailure(cacheError) else { return .sent(try await send()) }
        cacheProblemState.withLock { $0 = cacheError }
        do {
            let sent = try await send()
            (try? core())?.log.warning("\(EditOutcome.cacheNotice(for: cacheError))")
            return .sentWithoutCache(sent, cacheError: cacheError)
        } catch {
            guard case .network = error else { throw error }
            let lostError = lost(error, cacheError: cacheError)
            (try? core())?.log.error("\(lostError)")
            throw lostError
        }
    }

    /// The network error of an edit that could not be sent nor kept.
    private func lost(_ networkError: HaloError, cacheError: HaloError) -> HaloError {
        cacheProblemState.withLock { $0 = cacheError }
        let sentence = networkError.description.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        return .network(
            message: "\(sentence). The edit was not made and could not be kept for later: "
                + "the offline cache is unusable (\(CacheProblem.detail(of: cacheError))).")
    }

    /// A create sent directly as a create-or-update of `serverId` (idempotent: a create already
    /// applied is found, not duplicated); without a server id, a plain create.
    private func sendCreate(_ instance: ContentInstance, serverId: String?) async throws(HaloError) -> ContentInstance {
        var fresh = instance
        fresh.id = serverId
        guard serverId != nil else { return try await sendSave(fresh) }
        fresh.updatedAt = nil
        var operations = BatchOperations()
        operations.createOrUpdate(fresh)
        let result = try await batch(operations: operations)
        guard let outcome = result.operations.first else {
            throw .invalidResponse(status: 200, message: "The batch answer did not mention the create")
        }
        if outcome.success, let created = outcome.instance { return created }
        throw outcome.error?.haloError ?? .server(status: 400, message: "The server refused the edit.", extra: nil)
    }

    private func keep(in outbox: Outbox, _ queue: @escaping @Sendable (Outbox) throws -> EditOutcome) async throws(HaloError)
        -> EditOutcome
    {
        let outcome: EditOutcome
        do { outcome = try await BlockingWork.run(name: "halo-cache-write") { try queue(outbox) } } catch let error as HaloError {
            throw error
        } catch {
            throw .cache(message: "The edit could not be kept for later: \(error)")
        }
        cacheProblemState.withLock { $0 = nil }
        return outcome
    }
}
