import Foundation
import GRDB
import HaloContentStore
import Logging
import Synchronization

/// Wakes the open event streams when events commit, and counts the streams against their limits.
///
/// The broker observes commits that inserted into the event table, whichever code path wrote
/// them, reads those events once on the writer's connection, keeps the latest ones in memory and
/// wakes every subscriber. A stream then takes what it has not sent from memory, so a commit
/// costs one read however many streams listen; a stream further behind (a client resuming after
/// a while) reads `EventLog` instead. A wake-up carries no data, so a missed one costs nothing
/// but latency.
final class EventBroker: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<Void>.Continuation] = [:]
        var streamsByToken: [String: Int] = [:]
        var streamsByDevice: [String: Int] = [:]
        /// The latest events, contiguous by id, oldest first.
        var recent: [EventLog.Event] = []
        /// The newest id published (nil until the first commit observed).
        var latestPublished: Int64?
    }

    /// Events kept in memory for streams that are nearly caught up.
    static let recentCapacity = 4096

    private let state = Mutex(State())
    private let limits: ServerLimits
    private let timer: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// On PostgreSQL: carries the events other processes commit (nil on SQLite).
    private let listener: Mutex<PostgresEventListener?> = Mutex(nil)

    init(limits: ServerLimits) { self.limits = limits }

    deinit { stop() }

    /// Starts publishing the events committed to `storage`: on SQLite by observing this process's
    /// commits, on PostgreSQL by listening to every process's (`PostgresEventListener`). Starts one
    /// timer too, that wakes every stream each heartbeat (a stream with nothing new then sends a
    /// heartbeat) and prunes events older than the retention.
    func start(_ storage: ServerStorage, logger: Logger) {
        switch storage.backend {
        case .sqlite(let pool):
            pool.add(transactionObserver: CommitObserver(broker: self), extent: .databaseLifetime)
        case .postgres(let postgres):
            let listener = PostgresEventListener(storage: postgres, broker: self, logger: logger)
            listener.start()
            self.listener.withLock { $0 = listener }
        }
        let limits = self.limits
        let retention = Int64(limits.eventRetention.components.seconds) * 1000
        timer.withLock {
            $0 = Task { [weak self, weak storage] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: limits.eventHeartbeat)
                    self?.signal()
                    let cutoff = MonotonicClock.systemMilliseconds() - retention
                    self?.forget(before: cutoff)
                    if let storage, (try? await storage.read({ try EventLog.hasEvents(before: cutoff, in: $0) })) == true {
                        _ = try? await storage.write { try EventLog.prune(before: cutoff, in: $0) }
                    }
                }
            }
        }
    }

    /// Stops the timer and the listener.
    func stop() {
        timer.withLock {
            $0?.cancel()
            $0 = nil
        }
        listener.withLock {
            $0?.stop()
            $0 = nil
        }
    }

    /// A stream's place: its wake-ups, and the slots it holds until `close`.
    struct Subscription: Sendable {
        let id: UUID
        let wakeUps: AsyncStream<Void>
        let token: String
        let device: String?
        fileprivate let continuation: AsyncStream<Void>.Continuation

        /// Wakes this stream alone (it has more to read).
        func wake() { continuation.yield() }
    }

    /// Admits a stream for `token` (and `device`, when opened with a device credential), or throws
    /// 429 past the per-token or per-device limit and 503 past the overall one.
    func subscribe(token: String, device: String? = nil) throws -> Subscription {
        let id = UUID()
        let (wakeUps, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try state.withLock { state in
            if state.subscribers.count >= limits.eventStreams {
                throw APIError(
                    .serviceUnavailable, "The server holds as many event streams as it allows (\(limits.eventStreams)); try again later",
                    retryAfterSeconds: 30)
            }
            // Both checked before either is counted, so a refusal holds no slot.
            try Self.checkRoom(for: token, in: state.streamsByToken, limit: limits.eventStreamsPerToken, holder: "This token")
            if let device {
                try Self.checkRoom(for: device, in: state.streamsByDevice, limit: limits.eventStreamsPerDevice, holder: "This device")
                state.streamsByDevice[device, default: 0] += 1
            }
            state.streamsByToken[token, default: 0] += 1
            state.subscribers[id] = continuation
        }
        continuation.yield()  // the first wake-up sends what the client missed
        return Subscription(id: id, wakeUps: wakeUps, token: token, device: device, continuation: continuation)
    }

    /// Frees the stream's slots (once, however often it is called).
    func close(_ subscription: Subscription) {
        let continuation = state.withLock { state -> AsyncStream<Void>.Continuation? in
            guard let continuation = state.subscribers.removeValue(forKey: subscription.id) else { return nil }
            Self.release(subscription.token, in: &state.streamsByToken)
            if let device = subscription.device { Self.release(device, in: &state.streamsByDevice) }
            return continuation
        }
        continuation?.finish()
    }

    /// 429 when `key` already holds `limit` streams.
    private static func checkRoom(for key: String, in counts: [String: Int], limit: Int, holder: String) throws {
        let held = counts[key, default: 0]
        guard held >= limit else { return }
        throw APIError(
            .tooManyRequests, "\(holder) already has \(held) event streams open, the most allowed (\(limit)); close one first",
            retryAfterSeconds: 30)
    }

    private static func release(_ key: String, in counts: inout [String: Int]) {
        if let held = counts[key] { counts[key] = held > 1 ? held - 1 : nil }
    }

    /// Open streams (for tests and limits).
    var openStreams: Int { state.withLock { $0.subscribers.count } }

    /// The events after `lastId` (at most `limit`) when memory holds all of them; nil when the
    /// stream must read `EventLog` (it is further behind, or nothing was published yet).
    func recentEvents(after lastId: Int64, limit: Int) -> [EventLog.Event]? {
        state.withLock { state in
            guard let latest = state.latestPublished, lastId <= latest else { return nil }
            if lastId == latest { return [] }
            guard let first = state.recent.first, first.id <= lastId + 1 else { return nil }
            let start = Int(lastId + 1 - first.id)
            return Array(state.recent[start..<min(state.recent.count, start + limit)])
        }
    }

    /// Keeps committed events (oldest first) for the streams and wakes them.
    func publish(_ events: [EventLog.Event]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            // A gap (should a commit's events be unreadable) restarts the window, so it stays contiguous.
            if let last = state.recent.last, last.id + 1 != events[0].id { state.recent.removeAll() }
            state.recent.append(contentsOf: events)
            if state.recent.count > Self.recentCapacity { state.recent.removeFirst(state.recent.count - Self.recentCapacity) }
            state.latestPublished = events[events.count - 1].id
        }
        signal()
    }

    /// Drops kept events older than the retention, as `EventLog.prune` does on disk.
    private func forget(before cutoff: Int64) {
        state.withLock { state in state.recent.removeAll { $0.createdAt < cutoff } }
    }

    /// Wakes every stream: new events may be there.
    func signal() {
        for continuation in state.withLock({ Array($0.subscribers.values) }) { continuation.yield() }
    }

    /// Publishes the events each commit inserted.
    private final class CommitObserver: TransactionObserver, @unchecked Sendable {
        // Touched only on the database's writer queue.
        private var inserted: [Int64] = []
        private let broker: EventBroker

        init(broker: EventBroker) { self.broker = broker }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            if case .insert(let table) = eventKind { return table == EventLog.table }
            return false
        }

        func databaseDidChange(with event: DatabaseEvent) { inserted.append(event.rowID) }

        func databaseDidCommit(_ db: Database) {
            guard !inserted.isEmpty else { return }
            let ids = inserted
            inserted = []
            // Committed and still on the writer's connection: one read serves every stream.
            if let events = try? EventLog.events(ids: ids, in: db) {
                broker.publish(events)
            } else {
                broker.signal()  // streams read the log themselves
            }
        }

        func databaseDidRollback(_ db: Database) { inserted = [] }
    }
}
