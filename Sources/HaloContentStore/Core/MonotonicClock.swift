import Foundation
import Synchronization

/// Epoch-millisecond timestamps that never repeat and never go backwards.
///
/// Incremental sync (§14) hands the client a `syncTimestamp` T and later returns changes with a
/// stamp in (T, now]. If a write could be stamped with a value ≤ T after T was handed out (two
/// events in the same millisecond, or the wall clock stepping back), the client would never see
/// that write. So every write stamp comes from `next()`, which is strictly greater than every
/// value this clock returned before, and sync timestamps come from `current()`, which reserves
/// its value: the next `next()` is strictly greater than it.
public final class MonotonicClock: Sendable {
    private let state: Mutex<Int64>
    private let wallClock: @Sendable () -> Int64

    /// - Parameter wallClock: the time source in ms (injectable so tests can freeze or rewind it).
    public init(wallClock: @escaping @Sendable () -> Int64 = MonotonicClock.systemMilliseconds) {
        self.wallClock = wallClock
        self.state = Mutex(0)
    }

    /// A stamp for a write: `max(now, last + 1)`, strictly greater than any value returned before.
    public func next() -> Int64 {
        let now = wallClock()
        return state.withLock { last in
            let value = max(now, last + 1)
            last = value
            return value
        }
    }

    /// A stamp for a sync answer: `max(now, last)`. Never below a stamp already handed out (so a
    /// window ending here includes every write made so far), and remembered, so writes made after
    /// it get a strictly larger stamp from `next()`.
    public func current() -> Int64 {
        let now = wallClock()
        return state.withLock { last in
            let value = max(now, last)
            last = value
            return value
        }
    }

    /// Makes every later stamp greater than `stamp` (one stored by another process that shares
    /// the database): `next()` then returns at least `stamp + 1`.
    public func advance(past stamp: Int64) {
        state.withLock { last in last = max(last, stamp) }
    }

    /// Milliseconds since 1970 from the system clock.
    @Sendable public static func systemMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
