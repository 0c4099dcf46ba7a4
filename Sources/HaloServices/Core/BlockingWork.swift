import Foundation

/// Runs blocking C calls (a libcurl transfer, a libsecret D-Bus round trip that may wait for an
/// unlock prompt) on a thread of their own, so Swift's small cooperative pool is never held.
enum BlockingWork {
    static func run<T: Sendable>(name: String, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = name
            thread.start()
        }
    }
}
