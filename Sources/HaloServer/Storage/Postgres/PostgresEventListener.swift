import HaloContentStore
import Logging
import PostgresNIO
import Synchronization

/// Carries the events every server process commits to this process's event streams: a connection
/// of its own LISTENs on `EventLog.notificationChannel`, whose notifications carry event ids only
/// (PostgreSQL's payloads are small, and its queue is not a store); the events are read from the
/// table and published to the broker, which wakes the streams.
///
/// A notification lost while the connection was down costs nothing but latency: on every
/// (re)connection the broker wakes every stream, and each reads what it has not sent from the
/// event table after its last id, as a client resuming with `Last-Event-ID` does.
final class PostgresEventListener: Sendable {
    private let storage: PostgresStorage
    private let broker: EventBroker
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// How long to wait before connecting again after the connection dropped.
    private let reconnectDelay: Duration

    init(storage: PostgresStorage, broker: EventBroker, reconnectDelay: Duration = .milliseconds(500), logger: Logger) {
        self.storage = storage
        self.broker = broker
        self.reconnectDelay = reconnectDelay
        self.logger = logger
    }

    deinit { stop() }

    func start() {
        let (storage, broker, logger, delay) = (storage, broker, logger, reconnectDelay)
        task.withLock {
            $0 = Task {
                while !Task.isCancelled {
                    do {
                        try await Self.listen(storage, broker, logger)
                    } catch {
                        if Task.isCancelled { return }
                        logger.warning("event notifications from PostgreSQL stopped (\(PostgresStorageError(error))); reconnecting")
                    }
                    try? await Task.sleep(for: delay)
                }
            }
        }
    }

    func stop() {
        task.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    private static func listen(_ storage: PostgresStorage, _ broker: EventBroker, _ logger: Logger) async throws {
        let connection = try await storage.dedicatedConnection()
        do {
            try await connection.listen(on: EventLog.notificationChannel) { notifications in
                // Listening now: whatever was committed while not, the streams read from the table.
                broker.signal()
                for try await notification in notifications {
                    guard let id = Int64(notification.payload) else { continue }
                    let events = try await storage.read { db in try EventLog.events(ids: [id], in: db) }
                    if events.isEmpty { broker.signal() } else { broker.publish(events) }
                }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
