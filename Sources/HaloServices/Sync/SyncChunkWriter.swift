import Foundation
import HaloContentStore

/// Writes sync chunks into the cache on a thread of its own, so the transfer keeps reading (and
/// the server keeps producing) while the cache writes: parsing and storing overlap instead of
/// taking turns. At most `capacity` chunks wait, which keeps memory bounded and, when the cache
/// is the slower side, pushes back on the socket.
final class SyncChunkWriter: @unchecked Sendable {
    private let cache: HaloCache
    private let key: String
    private let onApplied: @Sendable (Int) -> Void
    private let slots: DispatchSemaphore
    private let available = DispatchSemaphore(value: 0)
    private let drained = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    // Guarded by `lock`.
    private var queue: [(upserts: [WireInstance], deletions: [String])] = []
    private var failure: (any Error)?
    private var closed = false

    init(cache: HaloCache, key: String, capacity: Int = 2, onApplied: @escaping @Sendable (Int) -> Void) {
        self.cache = cache
        self.key = key
        self.onApplied = onApplied
        slots = DispatchSemaphore(value: capacity)
        let thread = Thread { [self] in run() }
        thread.name = "halo-sync-writer"
        thread.start()
    }

    /// Queues a chunk (waits while `capacity` chunks are pending); throws the writer's failure, if any.
    func submit(upserts: [WireInstance], deletions: [String]) throws {
        if let failure = lock.withLock({ failure }) { throw failure }
        slots.wait()
        lock.withLock { queue.append((upserts, deletions)) }
        available.signal()
    }

    /// Waits until every queued chunk is written (or abandoned after a failure) and stops the
    /// thread; throws the first write failure. Safe to call more than once.
    func close() throws {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        if first {
            available.signal()
            drained.wait()
        }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    private func run() {
        while true {
            available.wait()
            let next = lock.withLock { () -> (upserts: [WireInstance], deletions: [String])?? in
                if !queue.isEmpty { return queue.removeFirst() }
                return closed ? .some(nil) : nil
            }
            switch next {
            case .some(.some(let chunk)):
                if lock.withLock({ failure == nil }) {
                    do {
                        try cache.applySyncChunk(key: key, upserts: chunk.upserts, deletions: chunk.deletions)
                        onApplied(chunk.upserts.count + chunk.deletions.count)
                    } catch {
                        lock.withLock { failure = error }
                    }
                }
                slots.signal()
            case .some(.none):
                drained.signal()
                return
            case .none:
                continue
            }
        }
    }
}
