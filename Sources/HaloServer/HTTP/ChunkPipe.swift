import Dispatch
import NIOCore
import Synchronization

/// A bounded hand-over of response chunks from a blocking producer (a GRDB reader thread walking
/// a large result) to the async response writer. The producer blocks when `capacity` chunks are
/// waiting, so a slow client keeps server memory flat instead of buffering the whole answer.
final class ChunkPipe: Sendable {
    enum Item: Sendable {
        /// Everything checked; the response can start.
        case ready
        case chunk(ByteBuffer)
        case end
        case failure(any Error)
    }

    private struct State {
        var queue: [Item] = []
        var waiter: CheckedContinuation<Item, Never>?
        var consumerGone = false
    }

    private let state = Mutex(State())
    private let spaces: DispatchSemaphore
    private let capacity: Int
    private let stallTimeout: DispatchTimeInterval

    init(capacity: Int = 4, stallTimeout: DispatchTimeInterval = .seconds(120)) {
        self.capacity = capacity
        self.stallTimeout = stallTimeout
        spaces = DispatchSemaphore(value: capacity)
    }

    /// Producer side (blocking). Returns false once the consumer has gone: stop producing.
    @discardableResult
    func send(_ item: Item) -> Bool {
        // A consumer that never starts (the connection died before the body was written) must not
        // pin a database reader forever: give up after a generous stall.
        if spaces.wait(timeout: .now() + stallTimeout) == .timedOut {
            state.withLock { $0.consumerGone = true }
            return false
        }
        let waiter: CheckedContinuation<Item, Never>? = state.withLock { state in
            if state.consumerGone { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.queue.append(item)
            return nil
        }
        if let waiter {
            spaces.signal()
            waiter.resume(returning: item)
        }
        return !state.withLock { $0.consumerGone }
    }

    /// Consumer side: the next item (waits for the producer).
    func next() async -> Item {
        await withCheckedContinuation { continuation in
            let ready: Item? = state.withLock { state in
                if state.queue.isEmpty {
                    state.waiter = continuation
                    return nil
                }
                return state.queue.removeFirst()
            }
            if let ready {
                spaces.signal()
                continuation.resume(returning: ready)
            }
        }
    }

    /// The consumer stops reading (client gone or answer complete): unblocks the producer.
    func close() {
        let alreadyGone = state.withLock { state in
            defer { state.consumerGone = true }
            return state.consumerGone
        }
        if !alreadyGone { for _ in 0...capacity { spaces.signal() } }
    }
}
