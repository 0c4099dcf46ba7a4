import Foundation
import HaloContentStore

/// How far a module's sync has come.
public struct SyncProgress: Sendable, Hashable {
    /// The module id or name of the query.
    public var moduleKey: String
    /// Created, updated and deleted items applied so far (both requests of a first sync count).
    /// A large first sync writes them in one transaction, committed when its answer is complete.
    public var itemsDone: Int
    /// Items the server announced for the current request (`x-halo-sync-total`), when it did.
    public var totalItems: Int?
    /// 1 for the main request, 2 for the incremental one that follows a first sync.
    public var request: Int
}

/// A sync under way: its progress is reported to the callback given at start; `cancel()` stops
/// it (as does cancelling the awaiting task). Either way the cache keeps its last consistent state.
public final class SyncHandle: Sendable {
    public let query: SyncQuery
    let flag: CancellationFlag
    private let task: Task<[SyncLogEntry], any Error>

    init(query: SyncQuery, start: @escaping @Sendable (CancellationFlag) async throws -> [SyncLogEntry]) {
        self.query = query
        let flag = CancellationFlag()
        self.flag = flag
        task = Task { try await start(flag) }
    }

    /// Stops the sync; `result` then throws `HaloError.cancelled`.
    public func cancel() {
        flag.set()
        task.cancel()
    }

    /// The log entries the sync appended (two for a first sync: the full answer and the
    /// immediate incremental one, as iOS records them).
    public var result: [SyncLogEntry] {
        get async throws { try await task.value }
    }
}

/// Runs syncs (§14) of a server into a `HaloCache`, streaming each answer: the bytes are parsed
/// as they arrive, one instance at a time, and stored chunk by chunk (see `SyncChunkWriter`), so
/// a module of any size syncs in flat memory. Several modules may sync at once (each on its own thread).
///
/// The requests go through `core` (`CoreManager.perform(_:streamingTo:)`): its environment, SSL
/// pinning, http-only-for-loopback rule and token renewal on 401 apply to syncs as to any call.
public final class SyncEngine: Sendable {
    /// Instances per chunk handed to the cache (one transaction each, except in a bulk first
    /// sync): large enough to amortise commits, small enough for flat memory.
    public static let chunkSize = 2_000

    public let cache: HaloCache
    /// Sends the sync requests to its environment's server.
    public let core: CoreManager

    public init(cache: HaloCache, core: CoreManager) {
        self.cache = cache
        self.core = core
    }

    /// Syncs one module and returns the log entries it appended. A first sync (none stored, or
    /// a locale change) is followed at once by an incremental one from its timestamp (§14.3).
    /// Cancelling the calling task cancels the sync.
    public func sync(_ query: SyncQuery, progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws -> [SyncLogEntry] {
        let handle = start(query, progress: progress)
        return try await withTaskCancellationHandler {
            try await handle.result
        } onCancel: {
            handle.cancel()
        }
    }

    /// Starts a sync and returns its handle at once.
    public func start(_ query: SyncQuery, progress: (@Sendable (SyncProgress) -> Void)? = nil) -> SyncHandle {
        SyncHandle(query: query) { [self] flag in
            try await withTaskCancellationHandler {
                try await self.run(query, flag: flag, progress: progress)
            } onCancel: {
                flag.set()
            }
        }
    }

    /// Syncs several modules concurrently; each query's outcome is reported separately.
    public func sync(
        _ queries: [SyncQuery], progress: (@Sendable (SyncProgress) -> Void)? = nil
    ) async -> [String: Result<[SyncLogEntry], HaloError>] {
        let handles = queries.map { start($0, progress: progress) }
        return await withTaskCancellationHandler {
            var outcomes: [String: Result<[SyncLogEntry], HaloError>] = [:]
            for handle in handles {
                do { outcomes[handle.query.moduleKey] = .success(try await handle.result) } catch {
                    outcomes[handle.query.moduleKey] = .failure(Self.haloError(error))
                }
            }
            return outcomes
        } onCancel: {
            for handle in handles { handle.cancel() }
        }
    }

    // MARK: Running

    private func run(_ query: SyncQuery, flag: CancellationFlag, progress: (@Sendable (SyncProgress) -> Void)?) async throws
        -> [SyncLogEntry]
    {
        do {
            let from = try await BlockingWork.run(name: "halo-cache-write") { [cache] in try cache.beginSync(query) }
            let counter = ProgressCounter()
            let first = try await request(query, from: from, number: 1, flag: flag, counter: counter, progress: progress)
            guard from == nil && query.fromSync == nil else { return [first] }
            let second = try await request(
                query, from: HaloTimestamp.milliseconds(from: first.syncDate), number: 2, flag: flag, counter: counter, progress: progress)
            return [first, second]
        } catch {
            throw Self.haloError(error)
        }
    }

    /// One sync request, streamed into the cache on a transport thread.
    private func request(
        _ query: SyncQuery, from: Int64?, number: Int, flag: CancellationFlag, counter: ProgressCounter,
        progress: (@Sendable (SyncProgress) -> Void)?
    ) async throws -> SyncLogEntry {
        let windowed = query.fromSync(from.map { HaloTimestamp.date(fromMilliseconds: Double($0)) })
        var headers: [String: String] = [:]
        if let seconds = windowed.serverCacheSeconds { headers["to-cache"] = String(seconds) }
        let call = APIRequest(.post, "api/generalcontent/instance/sync", body: .json(windowed.wireJSON), headers: headers)
        let key = query.moduleKey
        let report: @Sendable () -> Void = {
            progress?(SyncProgress(moduleKey: key, itemsDone: counter.value, totalItems: counter.total, request: number))
        }
        // A first sync (no window start) may go in bulk: see `SyncChunkWriter`.
        let writer = SyncChunkWriter(cache: cache, key: key, bulkCandidate: from == nil, announcedTotal: { counter.total }) { applied in
            counter.add(applied)
            report()
        }
        let sink = SyncSink(applier: SyncApplier(writer: writer), flag: flag, counter: counter, report: report)
        do {
            _ = try await core.perform(call, streamingTo: sink)
        } catch {
            try? writer.close()  // no chunk is written after this request has returned
            throw error
        }
        // The last chunk and the sync point are a blocking SQLite write: not on the cooperative pool.
        return try await BlockingWork.run(name: "halo-sync-finish") { () -> Result<SyncLogEntry, any Error> in
            defer { try? writer.close() }
            return Result {
                let entry = try sink.finish(query: query)
                report()
                return entry
            }
        }.get()
    }

    /// The response header in which a HaloServer announces how many items a sync answer holds.
    public static let totalHeader = "x-halo-sync-total"

    static func haloError(_ error: any Error) -> HaloError {
        switch error {
        case let error as HaloError: return error
        case is CancellationError: return .cancelled
        case let error as SyncStreamError: return .invalidResponse(status: 200, message: error.description)
        case let error as DecodingError: return .invalidResponse(status: 200, message: "A synced instance could not be read: \(error)")
        default: return .cache(message: "\(error)")
        }
    }
}

/// A thread-safe "cancelled" bit shared between a task's cancellation handler and the transfer thread.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    func isSet() -> Bool { lock.withLock { value } }
}

/// Streams one sync answer into the cache. Used by the transfer thread only, then (after the
/// transfer) by the thread that commits the rest.
private final class SyncSink: HTTPBodySink, @unchecked Sendable {
    private var applier: SyncApplier
    private let flag: CancellationFlag
    private let counter: ProgressCounter
    private let report: @Sendable () -> Void

    init(applier: SyncApplier, flag: CancellationFlag, counter: ProgressCounter, report: @escaping @Sendable () -> Void) {
        self.applier = applier
        self.flag = flag
        self.counter = counter
        self.report = report
    }

    func receiveHead(status: Int, headers: [String: String]) throws(HaloError) {
        counter.total = headers[SyncEngine.totalHeader].flatMap { Int($0) }
        report()
    }

    func receive(_ block: UnsafeRawBufferPointer) throws(HaloError) {
        if flag.isSet() { throw .cancelled }
        do { try applier.feed(block) } catch { throw SyncEngine.haloError(error) }
    }

    /// Checks the answer was complete and commits what is left with the new sync point.
    func finish(query: SyncQuery) throws -> SyncLogEntry {
        let entry = try applier.finish(query: query, isCancelled: flag.isSet)
        counter.add(applier.pendingCount)
        return entry
    }
}

/// Items applied across the requests of one sync, and the current request's announced total
/// (read by the progress callback).
private final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var announced: Int?
    var value: Int { lock.withLock { count } }
    var total: Int? {
        get { lock.withLock { announced } }
        set { lock.withLock { announced = newValue } }
    }
    @discardableResult
    func add(_ n: Int) -> Int {
        lock.withLock {
            count += n; return count
        }
    }
}

/// Turns the streamed answer into chunked cache writes: decodes each element as the parser cuts
/// it out and hands every `SyncEngine.chunkSize` items to the writer thread; the last chunk
/// goes to the same thread, which commits it with the sync point.
private struct SyncApplier {
    let writer: SyncChunkWriter
    private var parser = SyncStreamParser()
    private var upserts: [WireInstance] = []
    private var deletions: [String] = []
    private var timestamp: Int64?
    private var counts = (created: 0, updated: 0, deleted: 0)

    init(writer: SyncChunkWriter) {
        self.writer = writer
    }

    var pendingCount: Int { upserts.count + deletions.count }

    /// Feeds bytes; full chunks go to the writer.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws {
        var events: [SyncStreamParser.Event] = []
        try parser.feed(bytes) { events.append($0) }
        for event in events {
            switch event {
            case .syncTimestamp(let value): timestamp = value
            case .element(.deleted, let data):
                guard let id = try JSONValue(data: Data(data))["id"]?.stringValue else {
                    throw HaloError.invalidResponse(status: 200, message: "A deleted sync item has no string \"id\".")
                }
                deletions.append(id)
                counts.deleted += 1
            case .element(let section, let data):
                let instance = try WireInstance(syncElement: data)
                guard !instance.id.isEmpty, instance.createdAt != nil else {
                    throw HaloError.invalidResponse(status: 200, message: "A synced instance has no id or no createdAt.")
                }
                upserts.append(instance)
                if section == .created { counts.created += 1 } else { counts.updated += 1 }
            }
        }
        guard pendingCount >= SyncEngine.chunkSize else { return }
        try writer.submit(upserts: upserts, deletions: deletions)
        upserts = []
        deletions = []
    }

    /// Checks the answer was complete, then commits the rest with the new sync point and log entry.
    /// A sync cancelled by then stops short of the commit (earlier chunks written one transaction
    /// each stay, as after a cut; a bulk first sync rolls back whole).
    mutating func finish(query: SyncQuery, isCancelled: @escaping @Sendable () -> Bool) throws -> SyncLogEntry {
        try parser.finish()
        guard let timestamp else {
            throw HaloError.invalidResponse(status: 200, message: "The sync answer has no numeric \"syncTimestamp\".")
        }
        let entry = SyncLogEntry(
            moduleId: query.moduleId, moduleName: query.moduleName,
            syncDate: HaloTimestamp.date(fromMilliseconds: Double(timestamp)), locale: query.locale,
            creations: counts.created, updates: counts.updated, deletions: counts.deleted)
        if isCancelled() { throw HaloError.cancelled }
        try writer.finish(
            upserts: upserts, deletions: deletions,
            completion: SyncChunkWriter.Completion(
                locale: query.locale.rawValue, entry: entry, isCancelled: isCancelled))
        return entry
    }
}
