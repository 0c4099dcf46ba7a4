import Foundation
import GRDB
import HaloContentStore
import Synchronization

/// Wakes the open event streams when events commit, and counts the streams against their limits.
///
/// Streams read the events themselves from `EventLog` (so a wake-up carries no data and a missed
/// one costs nothing but latency): the broker observes commits that inserted into the event
/// table, whichever code path wrote them, and signals every subscriber.
final class EventBroker: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<Void>.Continuation] = [:]
        var streamsByToken: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let limits: ServerLimits
    private let timer: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(limits: ServerLimits) { self.limits = limits }

    deinit { timer.withLock { $0?.cancel() } }

    /// Starts observing `database`'s commits, and one timer that wakes every stream each
    /// heartbeat (a stream with nothing new then sends a heartbeat) and prunes events older than
    /// the retention.
    func start(_ database: DatabasePool) {
        database.add(transactionObserver: CommitObserver(broker: self), extent: .databaseLifetime)
        let limits = self.limits
        let retention = Int64(limits.eventRetention.components.seconds) * 1000
        timer.withLock {
            $0 = Task { [weak self, weak database] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: limits.eventHeartbeat)
                    self?.signal()
                    let cutoff = MonotonicClock.systemMilliseconds() - retention
                    if let database, (try? await database.read({ try EventLog.hasEvents(before: cutoff, in: $0) })) == true {
                        _ = try? await database.write { try EventLog.prune(before: cutoff, in: $0) }
                    }
                }
            }
        }
    }

    /// A stream's place: its wake-ups, and the slot it holds until `close`.
    struct Subscription: Sendable {
        let id: UUID
        let wakeUps: AsyncStream<Void>
        let token: String
        fileprivate let continuation: AsyncStream<Void>.Continuation

        /// Wakes this stream alone (it has more to read).
        func wake() { continuation.yield() }
    }

    /// Admits a stream for `token`, or throws 429 / 503 past the per-token / overall limits.
    func subscribe(token: String) throws -> Subscription {
        let id = UUID()
        let (wakeUps, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try state.withLock { state in
            if state.subscribers.count >= limits.eventStreams {
                throw APIError(
                    .serviceUnavailable, "The server holds as many event streams as it allows (\(limits.eventStreams)); try again later",
                    retryAfterSeconds: 30)
            }
            let held = state.streamsByToken[token, default: 0]
            if held >= limits.eventStreamsPerToken {
                throw APIError(
                    .tooManyRequests,
                    "This token already has \(held) event streams open, the most allowed (\(limits.eventStreamsPerToken)); close one first",
                    retryAfterSeconds: 30)
            }
            state.streamsByToken[token] = held + 1
            state.subscribers[id] = continuation
        }
        continuation.yield()  // the first wake-up sends what the client missed
        return Subscription(id: id, wakeUps: wakeUps, token: token, continuation: continuation)
    }

    /// Frees the stream's slot.
    func close(_ subscription: Subscription) {
        let continuation = state.withLock { state -> AsyncStream<Void>.Continuation? in
            if let held = state.streamsByToken[subscription.token] {
                state.streamsByToken[subscription.token] = held > 1 ? held - 1 : nil
            }
            return state.subscribers.removeValue(forKey: subscription.id)
        }
        continuation?.finish()
    }

    /// Open streams (for tests and limits).
    var openStreams: Int { state.withLock { $0.subscribers.count } }

    /// Wakes every stream: new events may be there.
    func signal() {
        for continuation in state.withLock({ Array($0.subscribers.values) }) { continuation.yield() }
    }

    /// Signals after each commit that inserted events.
    private final class CommitObserver: TransactionObserver, @unchecked Sendable {
        // Touched only on the database's writer queue.
        private var inserted = false
        private let broker: EventBroker

        init(broker: EventBroker) { self.broker = broker }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            if case .insert(let table) = eventKind { return table == EventLog.table }
            return false
        }

        func databaseDidChange(with event: DatabaseEvent) { inserted = true }

        func databaseDidCommit(_ db: Database) {
            guard inserted else { return }
            inserted = false
            broker.signal()
        }

        func databaseDidRollback(_ db: Database) { inserted = false }
    }
}
