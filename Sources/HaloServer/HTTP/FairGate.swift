import Synchronization

/// Lets at most `width` holders in at once; the others wait, suspended (no thread blocked), and
/// enter in arrival order.
///
/// Work that only needs the CPU goes faster through a narrow gate than all at once: with one
/// running per core, each finishes in its own time, where a crowd sharing the cores makes every
/// one of them, the long ones most, wait for all the others.
final class FairGate: Sendable {
    private struct State {
        var holders = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var head = 0
    }

    let width: Int
    private let state = Mutex(State())

    init(width: Int) { self.width = max(1, width) }

    /// How many wait to enter.
    var waitingCount: Int { state.withLock { $0.waiting.count - $0.head } }

    /// Waits until fewer than `width` hold the gate, and holds it; `leave()` must follow.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                if state.holders < width {
                    state.holders += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Gives the place to the longest-waiting one (it inherits it), or frees it.
    func leave() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard state.head < state.waiting.count else {
                state.holders -= 1
                return nil
            }
            defer {
                state.head += 1
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                }
            }
            return state.waiting[state.head]
        }
        next?.resume()
    }

    /// Runs `body` while holding the gate.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }
}
