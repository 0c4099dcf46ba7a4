import Foundation

/// Runs blocking work (a libcurl transfer, a libsecret D-Bus round trip that may wait for an
/// unlock prompt, a cache write) on a thread of its own, so Swift's small cooperative pool is
/// never held.
///
/// Cache writes from async code go through here too: the cache has one writer, a bulk first
/// sync holds it until its answer is complete, that answer may be produced on the cooperative
/// pool (the local workspace's server runs in the app), and the pool has one thread per core —
/// two writers waiting on it would stop the sync, and themselves, for good.
enum BlockingWork {
    static func run<T: Sendable>(name: String, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = name
            thread.start()
        }
    }

    static func run<T: Sendable>(name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(name: name) { Result { try work() } }.get()
    }
}
