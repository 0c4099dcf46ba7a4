import Foundation
import GRDB
import HaloContentStore
import Synchronization

/// Sends scheduled notifications when they fall due. It keeps the next due time in memory (read
/// at start, lowered by every new schedule, read again after each send) and compares it with the
/// clock every `interval`, so an idle server never touches the database for it; a schedule goes
/// out within `interval` of its `sendOn`, and one that fell due while the server was stopped goes
/// out at the next start.
final class PushScheduler: Sendable {
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// Epoch milliseconds of the earliest schedule not sent (nil: none). A withdrawn one may leave
    /// it early, which costs one read that finds nothing due.
    private let nextDue: Mutex<Int64?> = Mutex(nil)

    deinit { stop() }

    /// Every process sharing a PostgreSQL database runs one; each schedule still goes out once
    /// (see `sendDue`). A schedule another process stored is found by the next read after a send
    /// here, or at the latest by `rereadInterval`.
    func start(_ storage: ServerStorage, interval: Duration = .milliseconds(250)) {
        let started = Task { [weak storage, weak self] in
            let first = try? await storage?.read { try PushScheduleRecord.nextDue(in: $0) }
            self?.scheduled(at: first ?? nil)
            var lastRead = ContinuousClock.now
            while !Task.isCancelled {
                if let self, let storage, case .postgres = storage.backend, ContinuousClock.now - lastRead > Self.rereadInterval {
                    // Other processes store schedules this one was not told about.
                    lastRead = ContinuousClock.now
                    self.scheduled(at: (try? await storage.read { try PushScheduleRecord.nextDue(in: $0) }) ?? nil)
                }
                if let self, let storage, let due = self.nextDue.withLock({ $0 }), due <= MonotonicClock.systemMilliseconds() {
                    _ = try? await Self.sendDue(storage)
                    let next = try? await storage.read { try PushScheduleRecord.nextDue(in: $0) }
                    self.nextDue.withLock { $0 = next ?? due + 1_000 }  // a failed read looks again in a second
                }
                try? await Task.sleep(for: interval)
            }
        }
        task.withLock { $0 = started }
    }

    /// How often a process sharing PostgreSQL reads the next due time that others may have set.
    static let rereadInterval: Duration = .seconds(1)

    func stop() {
        task.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    /// A schedule was stored that goes out at `sendOn` (epoch milliseconds).
    func scheduled(at sendOn: Int64?) {
        guard let sendOn else { return }
        nextDue.withLock { $0 = min($0 ?? sendOn, sendOn) }
    }

    /// Sends what is due now; returns how many went out. Every process sharing a PostgreSQL
    /// database may call it: the schedules are read and marked sent inside the write lock, so
    /// each goes out once, from whichever process comes first.
    @discardableResult
    static func sendDue(_ storage: ServerStorage) async throws -> Int {
        // Events are stamped by the server's clock, like content changes, so stamps follow ids.
        let clock = storage.clock
        return try await storage.write { db in try sendDue(at: clock.next(), in: db) }
    }

    /// Sends the schedules due at `stamp`, in the caller's write transaction.
    private static func sendDue(at stamp: Int64, in db: any SQLExecutor) throws -> Int {
        var sent = 0
        for var schedule in try PushScheduleRecord.due(at: stamp, in: db) {
            try PushSchedules.send(&schedule, at: stamp, in: db)
            sent += 1
        }
        return sent
    }
}
