import Foundation
import Synchronization

/// Runs the slow password hashes (PBKDF2, see `SecretHasher`) off Swift's cooperative thread pool,
/// at most `width` at a time.
///
/// Every route handler runs on the cooperative pool, which has one thread per core: a handler that
/// spends 50 ms in PBKDF2 holds a whole core's worth of request handling. With a few concurrent
/// password guessers every other request queued behind them. Here a hash is a job on a thread of
/// its own, at most `width` of them at once (default: all cores but one, so one core is always
/// left for the rest of the server), and the awaiting handler is suspended, not blocking, meanwhile.
///
/// The threads are plain `Thread`s, not GCD's global queues: on Linux those share their
/// CPU-count-wide thread pool with Swift's cooperative executor, so blocking them would starve
/// the requests just the same.
///
/// Two lanes: `.trusted` jobs (an address checking the password of an account it logged into
/// before, see `LoginThrottle`) run before `.untrusted` ones, so guessers queueing hashes for
/// accounts that are not theirs do not delay a real user's own login.
final class HashingExecutor: Sendable {
    enum Lane: Sendable { case trusted, untrusted }

    typealias Job = @Sendable () -> Void

    private struct State {
        var trusted: [Job] = []
        var trustedHead = 0
        var untrusted: [Job] = []
        var untrustedHead = 0
        var running = 0

        mutating func pop() -> Job? {
            if trustedHead < trusted.count {
                defer { trustedHead += 1; if trustedHead == trusted.count { trusted.removeAll(keepingCapacity: true); trustedHead = 0 } }
                return trusted[trustedHead]
            }
            if untrustedHead < untrusted.count {
                defer {
                    untrustedHead += 1
                    if untrustedHead == untrusted.count { untrusted.removeAll(keepingCapacity: true); untrustedHead = 0 }
                }
                return untrusted[untrustedHead]
            }
            return nil
        }
    }

    /// How many hashes may run at once.
    let width: Int
    private let state = Mutex(State())

    /// The default width: every core but one, at least one.
    static var defaultWidth: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }

    init(width: Int = HashingExecutor.defaultWidth) {
        self.width = max(1, width)
    }

    /// Runs `work` on a hashing thread and returns its result; the caller suspends meanwhile.
    func run<T: Sendable>(_ lane: Lane = .untrusted, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            enqueue(lane) { continuation.resume(with: Result { try work() }) }
        }
    }

    /// `run` for work that cannot fail.
    func run<T: Sendable>(_ lane: Lane = .untrusted, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            enqueue(lane) { continuation.resume(returning: work()) }
        }
    }

    /// Jobs waiting for a thread (not counting the running ones).
    var queuedCount: Int {
        state.withLock { ($0.trusted.count - $0.trustedHead) + ($0.untrusted.count - $0.untrustedHead) }
    }

    private func enqueue(_ lane: Lane, _ job: @escaping Job) {
        let startWorker = state.withLock { state -> Bool in
            switch lane {
            case .trusted: state.trusted.append(job)
            case .untrusted: state.untrusted.append(job)
            }
            guard state.running < width else { return false }
            state.running += 1
            return true
        }
        if startWorker {
            let thread = Thread { self.drain() }
            thread.name = "halo-server password hashing"
            thread.start()
        }
    }

    /// A worker: runs queued jobs until none is left, then retires (a hash costs far more than
    /// starting a thread).
    private func drain() {
        while let job = state.withLock({ state -> Job? in
            if let job = state.pop() { return job }
            state.running -= 1
            return nil
        }) {
            job()
        }
    }
}
