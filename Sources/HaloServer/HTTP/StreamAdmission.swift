import Synchronization

/// Admits long-lived answers (syncs) within the caps of `ServerLimits` — overall, per access
/// token and per client address — and lets at most `syncReaders` of them read the database at
/// once, so a crowd of syncs can neither exhaust readers nor starve ordinary requests of cores.
final class StreamAdmission: Sendable {
    private struct State {
        var total = 0
        var perToken: [String: Int] = [:]
        var perAddress: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let limits: ServerLimits
    private let readers: FairGate

    init(limits: ServerLimits) {
        self.limits = limits
        readers = FairGate(width: limits.syncReaders)
    }

    /// The streams counted now (admitted and not yet ended).
    var count: Int { state.withLock { $0.total } }

    /// Counts a new stream, or refuses it with 503 (server full) or 429 (this token or address
    /// has too many). The returned closure ends the stream's count; calling it again does nothing.
    func admit(token: String?, address: String?) throws(APIError) -> @Sendable () -> Void {
        let refusal: APIError? = state.withLock { state in
            if state.total >= limits.syncStreams {
                return APIError(
                    .serviceUnavailable, "The server is answering \(limits.syncStreams) syncs already; try again shortly",
                    retryAfterSeconds: 5)
            }
            if let token, state.perToken[token, default: 0] >= limits.syncStreamsPerToken {
                return APIError(
                    .tooManyRequests, "This token has \(limits.syncStreamsPerToken) syncs running already; wait for one to finish",
                    retryAfterSeconds: 5)
            }
            if let address, state.perAddress[address, default: 0] >= limits.syncStreamsPerAddress {
                return APIError(
                    .tooManyRequests,
                    "This address has \(limits.syncStreamsPerAddress) syncs running already; wait for one to finish",
                    retryAfterSeconds: 5)
            }
            state.total += 1
            if let token { state.perToken[token, default: 0] += 1 }
            if let address { state.perAddress[address, default: 0] += 1 }
            return nil
        }
        if let refusal { throw refusal }
        let released = Mutex(false)
        return { [self] in
            let first = released.withLock { done in
                defer { done = true }
                return !done
            }
            guard first else { return }
            state.withLock { state in
                state.total -= 1
                if let token { state.perToken[token] = Self.decrement(state.perToken[token]) }
                if let address { state.perAddress[address] = Self.decrement(state.perAddress[address]) }
            }
        }
    }

    private static func decrement(_ count: Int?) -> Int? {
        guard let count, count > 1 else { return nil }
        return count - 1
    }

    /// Waits (without blocking a thread) until fewer than `syncReaders` syncs read the database.
    func enterReader() async { await readers.enter() }

    /// A sync is done reading: the longest-waiting one goes next (it inherits the slot).
    func leaveReader() { readers.leave() }
}
