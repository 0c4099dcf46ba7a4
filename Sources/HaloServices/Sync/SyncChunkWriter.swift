import Foundation
import GRDB
import HaloContentStore

/// Writes sync chunks into the cache on a thread of its own, so the transfer keeps reading (and
/// the server keeps producing) while the cache writes: parsing and storing overlap instead of
/// taking turns. At most `capacity` items wait besides the one being written, which keeps memory
/// bounded and, when the cache is the slower side, pushes back on the socket. The answer's last
/// chunk, with the new sync point, is written by the same thread (`finish`).
///
/// Two ways of writing:
/// - chunked (incremental syncs, small first syncs): one transaction per chunk, so progress is
///   committed as it goes and other writers (other modules, the outbox) interleave;
/// - bulk (a first sync at least as large as what the cache holds): ONE transaction from the
///   first chunk to the sync point, with the content indexes built once at the end
///   (`ContentTables.withSecondaryIndexesDeferred`). Readers see the last commit meanwhile (WAL),
///   and a cancelled, cut or killed bulk sync leaves the state `beginSync` committed (module empty,
///   first sync in progress) — never a cache without its indexes. Other writes wait for it.
final class SyncChunkWriter: @unchecked Sendable {
    /// What the answer's last transaction writes besides its chunk.
    struct Completion {
        let locale: String
        let entry: SyncLogEntry
        /// Asked again just before the commit: a cancel that came while earlier chunks were
        /// still being written stops the sync point from moving.
        let isCancelled: @Sendable () -> Bool
    }

    private enum Item {
        case chunk(upserts: [WireInstance], deletions: [String])
        case finish(upserts: [WireInstance], deletions: [String], Completion)
    }

    /// Raised inside a bulk transaction when the writer is closed before `finish`: rolls it back.
    private struct Abandoned: Error {}

    private let cache: HaloCache
    private let key: String
    /// Whether this answer may be written in bulk (a first sync), and its announced size.
    private let bulkCandidate: Bool
    private let announcedTotal: @Sendable () -> Int?
    private let onApplied: @Sendable (Int) -> Void
    private let slots: DispatchSemaphore
    private let available = DispatchSemaphore(value: 0)
    private let drained = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    // Guarded by `lock`.
    private var queue: [Item] = []
    private var failure: (any Error)?
    private var closed = false

    init(
        cache: HaloCache, key: String, bulkCandidate: Bool, announcedTotal: @escaping @Sendable () -> Int?,
        capacity: Int = 1, onApplied: @escaping @Sendable (Int) -> Void
    ) {
        self.cache = cache
        self.key = key
        self.bulkCandidate = bulkCandidate
        self.announcedTotal = announcedTotal
        self.onApplied = onApplied
        slots = DispatchSemaphore(value: capacity)
        let thread = Thread { [self] in run() }
        thread.name = "halo-sync-writer"
        thread.start()
    }

    /// Queues a chunk (waits while `capacity` items wait already); throws the writer's failure, if any.
    func submit(upserts: [WireInstance], deletions: [String]) throws {
        try enqueue(.chunk(upserts: upserts, deletions: deletions))
    }

    /// Writes the last chunk with the sync point and log entry, waits until everything is
    /// committed and stops the thread; throws the first write failure.
    func finish(upserts: [WireInstance], deletions: [String], completion: Completion) throws {
        try enqueue(.finish(upserts: upserts, deletions: deletions, completion))
        try close()
    }

    /// Waits until every queued item is written (or abandoned after a failure) and stops the
    /// thread; throws the first write failure. Without a `finish` before it, a bulk transaction
    /// is rolled back. Safe to call more than once.
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

    private func enqueue(_ item: Item) throws {
        if let failure = lock.withLock({ failure }) { throw failure }
        slots.wait()
        lock.withLock { queue.append(item) }
        available.signal()
    }

    /// The next queued item, waiting for one; nil once closed and empty (at once on every call
    /// after that). Frees the item's slot. A wake-up may find its item already taken: it looks again.
    private func next() -> Item? {
        while true {
            let next = lock.withLock { () -> Item?? in
                if !queue.isEmpty { return queue.removeFirst() }
                return closed ? .some(nil) : nil
            }
            switch next {
            case .some(.some(let item)):
                slots.signal()
                return item
            case .some(.none):
                return nil
            case .none:
                available.wait()
            }
        }
    }

    private func run() {
        defer { drained.signal() }
        guard let first = next() else { return }
        do {
            if case .chunk = first, bulkCandidate, try cache.prefersBulkFirstSync(announcedTotal: announcedTotal()) {
                try writeInOneTransaction(first)
            } else {
                var item: Item? = first
                while let current = item {
                    try writeInItsOwnTransaction(current)
                    item = next()
                }
            }
        } catch {
            if !(error is Abandoned) { lock.withLock { failure = error } }
            // Unblock the submitter: the rest is abandoned.
            while next() != nil {}
        }
    }

    private func writeInItsOwnTransaction(_ item: Item) throws {
        switch item {
        case .chunk(let upserts, let deletions):
            try cache.applySyncChunk(key: key, upserts: upserts, deletions: deletions)
            onApplied(upserts.count + deletions.count)
        case .finish(let upserts, let deletions, let completion):
            if completion.isCancelled() { throw HaloError.cancelled }
            try cache.finishSync(key: key, locale: completion.locale, entry: completion.entry, upserts: upserts, deletions: deletions)
        }
    }

    private func writeInOneTransaction(_ first: Item) throws {
        cache.bulkSyncWriting.withLock { $0 = true }
        defer { cache.bulkSyncWriting.withLock { $0 = false } }
        // `pool.write` directly (not `cache.write`): `Abandoned` must come out as it is.
        try cache.pool.write { db in
            try ContentTables.withSecondaryIndexesDeferred(in: db) {
                var item = first
                while true {
                    switch item {
                    case .chunk(let upserts, let deletions):
                        try HaloCache.apply(key: key, upserts: upserts, deletions: deletions, in: db)
                        onApplied(upserts.count + deletions.count)
                    case .finish(let upserts, let deletions, let completion):
                        if completion.isCancelled() { throw HaloError.cancelled }
                        try HaloCache.apply(key: key, upserts: upserts, deletions: deletions, in: db)
                        try HaloCache.recordSyncPoint(key: key, locale: completion.locale, entry: completion.entry, in: db)
                        return
                    }
                    guard let following = next() else { throw Abandoned() }
                    item = following
                }
            }
        }
    }
}
