import Foundation
import NIOCore
import Synchronization

/// Carries one streamed answer from the database reader that produces it to the response that
/// sends it, without letting the client's pace reach the reader: the producer never waits.
///
/// The first `memoryBytes` of unsent chunks stay in memory; past that, chunks go to an unlinked
/// temporary file in the data directory and are read back as the client takes them. So however
/// slow, stalled or vanished a client is, its sync reads the database at disk speed and frees the
/// reader; what the client has not taken yet costs disk, not memory, and goes away with the spool
/// (the file is closed when both sides have let go of it). Nothing here blocks a thread.
final class SyncSpool: Sendable {
    enum Item: Sendable {
        /// Everything checked; the response can start.
        case ready
        case chunk(ByteBuffer)
        case end
        case failure(any Error)
    }

    private enum Entry {
        case item(Item)
        case spooled(offset: Int64, length: Int)
    }

    private struct State {
        var entries: [Entry] = []
        var head = 0
        /// Bytes of chunks waiting in `entries` as `.item`.
        var memoryBytes = 0
        var waiter: CheckedContinuation<Void, Never>?
        var consumerGone = false
        /// The spool file, once the first chunk overflowed memory (-1 before).
        var file: Int32 = -1
        var fileEnd: Int64 = 0

        mutating func popFirst() -> Entry? {
            guard head < entries.count else { return nil }
            let entry = entries[head]
            head += 1
            if head > 64 && head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return entry
        }
    }

    private let state = Mutex(State())
    private let memoryBytes: Int
    private let directory: URL
    /// Runs once when the spool is released by both sides (frees the stream's admission ticket).
    private let onRelease: @Sendable () -> Void

    init(memoryBytes: Int, directory: URL, onRelease: @escaping @Sendable () -> Void = {}) {
        self.memoryBytes = memoryBytes
        self.directory = directory
        self.onRelease = onRelease
    }

    deinit {
        let file = state.withLock { $0.file }
        if file >= 0 { close(file) }
        onRelease()
    }

    // MARK: Producer (any thread, never blocks on the consumer)

    /// Queues `item`. Returns false once the consumer has gone, or when the spool file cannot be
    /// written (the consumer then receives a failure): stop producing.
    @discardableResult
    func send(_ item: Item) -> Bool {
        if case .chunk(let buffer) = item, !fitsInMemory(buffer.readableBytes) {
            return spool(buffer)
        }
        let size: Int
        if case .chunk(let buffer) = item { size = buffer.readableBytes } else { size = 0 }
        return publish(.item(item), memory: size)
    }

    private func fitsInMemory(_ size: Int) -> Bool {
        state.withLock { $0.memoryBytes + size <= memoryBytes }
    }

    private func publish(_ entry: Entry, memory: Int) -> Bool {
        let (waiter, gone): (CheckedContinuation<Void, Never>?, Bool) = state.withLock { state in
            if state.consumerGone { return (nil, true) }
            state.entries.append(entry)
            state.memoryBytes += memory
            defer { state.waiter = nil }
            return (state.waiter, false)
        }
        waiter?.resume()
        return !gone
    }

    /// Appends the chunk to the spool file (creating it on first use) and queues its place.
    private func spool(_ buffer: ByteBuffer) -> Bool {
        let (file, offset) = state.withLock { ($0.file, $0.fileEnd) }
        var descriptor = file
        do {
            if descriptor < 0 { descriptor = try Self.makeSpoolFile(in: directory) }
            try buffer.withUnsafeReadableBytes { bytes in
                var written = 0
                while written < bytes.count {
                    let result = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
                    if result < 0 {
                        if errno == EINTR { continue }
                        throw SpoolError(errno: errno)
                    }
                    written += result
                }
            }
        } catch {
            if file < 0, descriptor >= 0 { close(descriptor) }
            _ = publish(.item(.failure(error)), memory: 0)
            return false
        }
        state.withLock {
            $0.file = descriptor
            $0.fileEnd = offset + Int64(buffer.readableBytes)
        }
        return publish(.spooled(offset: offset, length: buffer.readableBytes), memory: 0)
    }

    /// An anonymous file: created, then unlinked at once, so it vanishes with its descriptor
    /// even if the process is killed.
    private static func makeSpoolFile(in directory: URL) throws -> Int32 {
        var template = Array(directory.appendingPathComponent(".sync-spool-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw SpoolError(errno: errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return descriptor
    }

    // MARK: Consumer

    /// The next item, waiting for the producer when nothing is queued.
    func next() async -> Item {
        while true {
            let taken: (Entry, Int32)? = state.withLock { state in
                guard let entry = state.popFirst() else { return nil }
                if case .item(.chunk(let buffer)) = entry { state.memoryBytes -= buffer.readableBytes }
                return (entry, state.file)
            }
            if let (entry, file) = taken {
                switch entry {
                case .item(let item): return item
                case .spooled(let offset, let length): return Self.read(file, offset: offset, length: length)
                }
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state in
                    guard state.head >= state.entries.count else { return false }
                    state.waiter = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        }
    }

    private static func read(_ file: Int32, offset: Int64, length: Int) -> Item {
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        do {
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { bytes in
                var done = 0
                while done < length {
                    let result = pread(file, bytes.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                    if result < 0 {
                        if errno == EINTR { continue }
                        throw SpoolError(errno: errno)
                    }
                    if result == 0 { throw SpoolError(errno: EIO) }
                    done += result
                }
                return length
            }
        } catch {
            return .failure(error)
        }
        return .chunk(buffer)
    }

    /// The consumer stops reading (client gone or answer complete): the producer's next `send`
    /// returns false, and queued chunks are dropped.
    func stopConsuming() {
        state.withLock { state in
            state.consumerGone = true
            state.entries.removeAll()
            state.head = 0
            state.memoryBytes = 0
        }
    }
}

/// The spool file could not be created, written or read (most often: the disk is full).
struct SpoolError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "sync spool file: \(String(cString: strerror(errno)))" }
    var isDiskFull: Bool { errno == ENOSPC || errno == EDQUOT }
}
