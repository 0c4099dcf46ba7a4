import Foundation
import GRDB
import HaloContentStore
import Synchronization

/// Sends scheduled notifications when they fall due. It looks every `interval` (a read; a write
/// only when something is due), so a schedule goes out within that time of its `sendOn`, and one
/// that fell due while the server was stopped goes out at the next start.
final class PushScheduler: Sendable {
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    deinit { task.withLock { $0?.cancel() } }

    func start(_ database: DatabasePool, clock: MonotonicClock, interval: Duration = .milliseconds(250)) {
        task.withLock {
            $0 = Task { [weak database] in
                while !Task.isCancelled {
                    if let database { _ = try? await Self.sendDue(database, clock: clock) }
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Sends what is due now; returns how many went out.
    @discardableResult
    static func sendDue(_ database: DatabasePool, clock: MonotonicClock) async throws -> Int {
        guard try await database.read({ try PushScheduleRecord.anyDue(at: MonotonicClock.systemMilliseconds(), in: $0) }) else {
            return 0
        }
        // Events are stamped by the server's clock, like content changes, so stamps follow ids.
        return try await database.write { db in
            let stamp = clock.next()
            var sent = 0
            for var schedule in try PushScheduleRecord.due(at: stamp, in: db) {
                try PushSchedules.send(&schedule, at: stamp, in: db)
                sent += 1
            }
            return sent
        }
    }
}
