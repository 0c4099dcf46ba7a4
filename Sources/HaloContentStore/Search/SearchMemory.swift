import Foundation
import GRDB
import Synchronization

/// What a search may keep in memory for the next ones: a copy of what it would otherwise read
/// from SQLite again, valid for one `ContentGeneration`.
protocol MemoryCopy: Sendable {
    /// Memory it holds, for the budget.
    var byteCount: Int { get }
}

/// In-memory copies of what searches of one database read again and again, valid for one
/// `ContentGeneration`: a field's values (`FieldColumn`), a metadata column
/// (`DateColumn`), the names `like` reads (`NameTexts`), the instances in an order (`OrderedKeys`).
/// The first write after they were read makes them all stale, and they are read again as
/// searches need them. Elasticsearch's field data works alike: loaded for a whole field the
/// first time a query needs it, then shared by every query on that field, whatever it asks.
///
/// - A copy is made from the second time a search of one generation needs it: the first time,
///   the search reads SQLite as it would without copies, so a server that writes between most of
///   its searches pays no extra reads.
/// - Copies are made in the background on a reader of the database, one set at a time, and
///   searches read SQLite meanwhile: no search waits for a copy (with a save every second,
///   searches that made copies themselves set the slowest hundredth).
/// - Copies made from one snapshot are never used by a search of another generation.
/// - `maxBytes` bounds the memory; the least recently used copies go first. 0 turns it off.
/// - Only SQLite, and only read-only transactions (`ContentGeneration.current`).
public final class SearchMemory: Sendable {
    public let maxBytes: Int
    /// Where copies are made, in the background.
    private let background: any DatabaseReader
    private let state = Mutex(State())

    enum Key: Hashable, Sendable {
        case field(Int64)
        case metadata(String)
        case names
        case order(String)
    }

    private struct State {
        var generation: Int64 = -1
        var copies: [Key: (copy: any MemoryCopy, lastUse: UInt64)] = [:]
        /// Needed once in this generation, not copied yet.
        var seen: Set<Key> = []
        /// Being copied now: searches read SQLite meanwhile rather than copy it too.
        var copying: Set<Key> = []
        /// The background copy running now (one at a time, so it never takes both cores).
        var backgroundCopy: UInt64? = nil
        var bytes = 0
        var uses: UInt64 = 0

        /// Forgets the copies of the previous generation; a background copy still running stays
        /// counted until it ends (its copies are then of no use and are not kept).
        mutating func start(_ next: Int64) {
            self = State(generation: next, backgroundCopy: backgroundCopy, uses: uses)
        }
    }

    /// `copyingFrom`: a pool of the database searched, on whose readers copies are made in the
    /// background (its snapshots carry the generation they copy).
    public init(maxBytes: Int, copyingFrom background: any DatabaseReader) {
        self.maxBytes = maxBytes
        self.background = background
    }

    /// Waits until no copy is being made in the background (for tests), at most `timeout` seconds.
    func waitForBackgroundCopies(timeout: Double = 10) {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while state.withLock({ $0.backgroundCopy != nil }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Memory held now.
    public var heldBytes: Int { state.withLock { $0.bytes } }

    /// The copies of `keys` as of `generation`, or nil when the search should read SQLite this
    /// time: a key needed for the first time in this generation or being copied, an old snapshot,
    /// or copies turned off. A second need of keys not copied yet starts copying them with `load`
    /// in the background, unless a copy is running already.
    func copies<Copy: MemoryCopy>(
        of keys: [Key], as type: Copy.Type, generation: Int64, load: @escaping @Sendable (Key, Database) throws -> Copy
    ) -> [Copy]? {
        guard maxBytes > 0, !keys.isEmpty else { return nil }
        var missing: [Key] = []
        var token: UInt64? = nil
        let found: [Copy]? = state.withLock { state in
            if generation > state.generation { state.start(generation) }
            guard generation == state.generation else { return nil }
            state.uses += 1
            var found: [Copy] = []
            var secondNeed = true
            for key in keys {
                if let entry = state.copies[key], let copy = entry.copy as? Copy {
                    found.append(copy)
                    state.copies[key]?.lastUse = state.uses
                } else {
                    missing.append(key)
                    if state.seen.insert(key).inserted || state.copying.contains(key) { secondNeed = false }
                }
            }
            if missing.isEmpty { return found }
            if secondNeed, state.backgroundCopy == nil {
                state.copying.formUnion(missing)
                state.backgroundCopy = state.uses
                token = state.uses
            }
            return nil
        }
        if let token { copyInBackground(missing, generation: generation, token: token, load: load) }
        return found
    }

    /// Makes the copies of `keys` on a reader of `background`, when its snapshot is still of
    /// `generation` (a write since makes them useless).
    private func copyInBackground<Copy: MemoryCopy>(
        _ keys: [Key], generation: Int64, token: UInt64, load: @escaping @Sendable (Key, Database) throws -> Copy
    ) {
        background.asyncRead { [self] result in
            defer {
                state.withLock { state in
                    if state.generation == generation { state.copying.subtract(keys) }
                    if state.backgroundCopy == token { state.backgroundCopy = nil }
                }
            }
            guard let db = try? result.get(), (try? ContentGeneration.current(in: db)) == generation else { return }
            for key in keys {
                guard let copy = try? load(key, db) else { return }
                keep(copy, as: key, generation: generation)
            }
        }
    }

    private func keep(_ copy: any MemoryCopy, as key: Key, generation: Int64) {
        state.withLock { state in
            guard state.generation == generation, state.copies[key] == nil, copy.byteCount <= maxBytes else { return }
            while state.bytes + copy.byteCount > maxBytes, let oldest = state.copies.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.bytes -= oldest.value.copy.byteCount
                state.copies[oldest.key] = nil
            }
            state.uses += 1
            state.copies[key] = (copy, state.uses)
            state.bytes += copy.byteCount
        }
    }

    /// What one search uses: the copies, and the generation its snapshot reads.
    struct View {
        let memory: SearchMemory
        let generation: Int64

        /// The view of a search on `db`, or nil when copies cannot serve it (see
        /// `ContentGeneration.current`).
        init?(_ memory: SearchMemory?, in db: any SQLExecutor) throws {
            guard let memory, memory.maxBytes > 0, let sqlite = db as? Database,
                let generation = try ContentGeneration.current(in: sqlite)
            else { return nil }
            (self.memory, self.generation) = (memory, generation)
        }

        /// Every field's values, or nil to read SQLite.
        func columns(of fields: [Int64]) -> [FieldColumn]? {
            memory.copies(of: fields.map(Key.field), as: FieldColumn.self, generation: generation, load: Self.field)
        }

        private static func field(_ key: Key, _ db: Database) throws -> FieldColumn {
            guard case .field(let field) = key else { preconditionFailure("a field key") }
            return try FieldColumn(field: field, in: db)
        }

        /// A date column of `content_instance`, or nil to read SQLite.
        func dates(_ column: String) -> DateColumn? {
            memory.copies(of: [.metadata(column)], as: DateColumn.self, generation: generation) { _, db in try DateColumn(column, in: db) }?
                .first
        }

        /// Every instance's lowercased name, or nil to read SQLite.
        func names() -> NameTexts? {
            memory.copies(of: [.names], as: NameTexts.self, generation: generation) { _, db in try NameTexts(in: db) }?.first
        }

        /// Every instance in the order `orderBy` (an ORDER BY list ending in a unique column), or nil
        /// to sort in SQLite.
        func ordered(_ orderBy: String) -> OrderedKeys? {
            memory.copies(of: [.order(orderBy)], as: OrderedKeys.self, generation: generation) { _, db in try OrderedKeys(orderBy, in: db)
            }?
            .first
        }
    }
}
