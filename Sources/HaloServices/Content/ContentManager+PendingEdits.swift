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

    /// The server's copy when sent, else the local one.
    public var instance: ContentInstance {
        switch self {
        case .sent(let instance), .pending(let instance, _): return instance
        }
    }

    public var isPending: Bool {
        if case .pending = self { return true } else { return false }
    }
}

// Edits that survive the network: an edit the server cannot receive (connection refused,
// dropped, timed out) is kept in the outbox instead of failing. A refusal by the server (4xx,
// 5xx) is not queued — sending it again would be refused again — and is thrown as before.
extension ContentManager {
    /// Saves `instance` (create without id, update with one), or queues the edit in the outbox.
    public func saveOrQueue(_ instance: ContentInstance) async throws(HaloError) -> EditOutcome {
        if instance.id == nil, let outbox = try? outbox() { return try await create(instance, through: outbox) }
        return try await sendOrQueue(instanceId: instance.id) { () async throws(HaloError) -> ContentInstance in
            try await sendSave(instance)
        } queue: { outbox in
            let entry = instance.id == nil ? try outbox.enqueueCreate(instance) : try outbox.enqueueUpdate(instance)
            return .pending(entry.instance, entry: entry)
        }
    }

    /// Deletes the instance, or queues the deletion in the outbox. Queued, the local copy is the
    /// synced one when the cache has it (else only the id is known) with `deletedAt` set.
    public func deleteOrQueue(instanceId: String) async throws(HaloError) -> EditOutcome {
        try await sendOrQueue(instanceId: instanceId) { () async throws(HaloError) -> ContentInstance in
            try await sendDelete(instanceId: instanceId)
        } queue: { outbox in
            var local = try outbox.cache.read { db in try ContentTables.instance(id: instanceId, in: db) }
                .map(ContentInstance.init(stored:)) ?? ContentInstance(id: instanceId, moduleId: "", name: "")
            local.deletedAt = Date()
            return .pending(local, entry: try outbox.enqueueDelete(local))
        }
    }

    /// Sends the edit — after the older edits still waiting, which it tries to send first — or
    /// queues it when they could not all be sent, when the instance exists only locally, or when
    /// the network fails. Without a usable cache the edit is sent, and a network failure is thrown.
    private func sendOrQueue(
        instanceId: String?,
        send: () async throws(HaloError) -> ContentInstance,
        queue: (Outbox) throws -> EditOutcome
    ) async throws(HaloError) -> EditOutcome {
        guard let outbox = try? outbox() else { return .sent(try await send()) }
        var mustWait = instanceId.map(Outbox.isLocalId) ?? false
        if !mustWait, (try? outbox.hasPending()) ?? false {
            _ = try? await outbox.flush()  // the older edits first, so the server sees them in order
            mustWait = (try? outbox.hasPending()) ?? true
        }
        if !mustWait {
            do {
                return .sent(try await send())
            } catch {
                guard case .network(let message) = error else { throw error }
                (try? core())?.log.warning("Edit kept in the outbox, the server could not be reached: \(message)")
            }
        }
        return try keep(in: outbox, queue)
    }

    /// A create goes through the outbox even online: queued first with the server id it asks for,
    /// then sent behind the older edits. So when the server applies it but the answer is lost,
    /// the resend finds the instance under that id instead of creating a duplicate. A refusal by
    /// the server is thrown (and the create dropped), as for a direct request.
    private func create(_ instance: ContentInstance, through outbox: Outbox) async throws(HaloError) -> EditOutcome {
        let entry: OutboxEntry
        do { entry = try outbox.enqueueCreate(instance) } catch let error as HaloError { throw error } catch {
            throw .cache(message: "The new instance could not be kept for sending: \(error)")
        }
        let report: OutboxFlushReport
        do {
            report = try await outbox.flush()
        } catch {
            // The whole batch was refused (e.g. no edit rights): like a direct create, nothing is kept.
            try? outbox.discard(entry)
            throw (error as? HaloError) ?? .cache(message: "\(error)")
        }
        if let refusal = report.refusals[entry.id] {
            try? outbox.discard(entry)
            throw refusal
        }
        let serverId = entry.instance.id.flatMap(Outbox.serverId(forLocalId:))
        if let sent = report.sent.first(where: { $0.id != nil && $0.id == serverId }) { return .sent(sent) }
        if let message = report.networkError?.description {
            (try? core())?.log.warning("New instance kept in the outbox, the server could not be reached: \(message)")
        }
        return .pending(entry.instance, entry: entry)
    }

    private func keep(in outbox: Outbox, _ queue: (Outbox) throws -> EditOutcome) throws(HaloError) -> EditOutcome {
        do { return try queue(outbox) } catch let error as HaloError { throw error } catch {
            throw .cache(message: "The edit could not be kept for later: \(error)")
        }
    }
}
