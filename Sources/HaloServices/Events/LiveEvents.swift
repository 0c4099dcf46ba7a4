import Foundation
import Synchronization

/// A change to content reported by the server's live event stream (docs/protocol.md §23.8).
public struct ContentChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case created, updated, deleted
        /// Every instance of the module was deleted at once.
        case moduleCleared = "module-cleared"
        /// The module's name or fields changed (§23.10): read it, and its instances, again.
        case moduleChanged = "module-changed"
        /// The module was deleted, and its instances with it.
        case moduleDeleted = "module-deleted"
    }

    /// The event's id on the server: increases in commit order; resume after it.
    public let eventId: Int64
    public let kind: Kind
    public let moduleId: String
    /// Nil for the module-wide kinds (`moduleCleared`, `moduleChanged`, `moduleDeleted`).
    public let instanceId: String?
    /// Display name of who made the change.
    public let author: String
    public let date: Date
}

/// What the live event stream delivers.
public enum LiveEvent: Sendable, Equatable {
    case content(ContentChange)
    /// A notification addressed to this device (only on a stream opened with the device's
    /// credential, which the core holds once the device is saved).
    case notification(eventId: Int64, HaloNotification)
    /// The events since the last one seen are no longer kept on the server (the client was away
    /// longer than the retention, or the server is another one): resync what you show. Events after
    /// `latestId` follow.
    case reset(latestId: Int64)
}

extension CoreManager {
    /// Follows the server's live events (`GET /api/events`) until the consumer stops iterating.
    ///
    /// Reconnects after a dropped connection or a restarted server with backoff (0.5 s doubling to
    /// 30 s), resuming after the last event delivered, so every event arrives exactly once and in
    /// order. Throws only what retrying cannot fix: no valid credentials, or a server without the
    /// stream (404).
    ///
    /// - Parameter lastEventId: resume after this event (e.g. one stored before quitting); nil
    ///   starts with the events that happen from now on.
    public func liveEvents(after lastEventId: Int64? = nil) -> AsyncThrowingStream<LiveEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LiveEvent, any Error>.makeStream(bufferingPolicy: .unbounded)
        let follower = Task { [self] in
            let cursor = LiveEventCursor(lastEventId)
            var delay: Duration = .milliseconds(500)
            while !Task.isCancelled {
                let parser = ServerSentEventParser(cursor: cursor) { continuation.yield($0) }
                do throws(HaloError) {
                    let device = deviceStreamCredential.flatMap { $0.deviceId == self.device?.id ? $0 : nil }
                    _ = try await perform(Self.eventStreamCall(after: cursor.lastId, device: device), streamingTo: parser)
                    // The server ended the stream (it is shutting down): reconnect.
                } catch .cancelled {
                    break
                } catch .notAuthenticated(let message) {
                    continuation.finish(throwing: HaloError.notAuthenticated(message: message))
                    return
                } catch .server(let status, let message, let extra) where status != 429 && status < 500 {
                    continuation.finish(throwing: HaloError.server(status: status, message: message, extra: extra))
                    return
                } catch {
                    log.info("Live events: \(error); reconnecting in \(delay)")
                }
                if parser.receivedAnything { delay = .milliseconds(500) }
                do { try await Task.sleep(for: delay) } catch { break }
                delay = min(delay * 2, .seconds(30))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in follower.cancel() }
        return stream
    }

    private static func eventStreamCall(after lastId: Int64?, device: DeviceStreamCredential?) -> APIRequest {
        var headers = ["Accept": "text/event-stream"].merging(device?.headers ?? [:]) { $1 }
        if let lastId { headers["Last-Event-ID"] = String(lastId) }
        var call = APIRequest(.get, "api/events", headers: headers)
        // A stream lasts as long as it is followed; the server's heartbeats (every 15 s) keep the
        // idle check (no byte for the request timeout) from firing on a quiet one.
        call.timeoutIntervalForResource = 24 * 3600
        return call
    }
}

/// The id after which the stream resumes: moved only by events actually delivered.
final class LiveEventCursor: Sendable {
    private let value: Mutex<Int64?>
    init(_ start: Int64?) { value = Mutex(start) }
    var lastId: Int64? { value.withLock { $0 } }

    /// Records `id` as delivered; false when it was delivered before (a replay after reconnecting).
    func advance(to id: Int64) -> Bool {
        value.withLock { last in
            if let current = last, id <= current { return false }
            last = id
            return true
        }
    }

    func reset(to id: Int64) { value.withLock { $0 = id } }
}

/// Splits a `text/event-stream` body into events as its blocks arrive (on the transfer's thread).
final class ServerSentEventParser: HTTPBodySink, @unchecked Sendable {
    // Touched only by the transfer thread.
    private var pending: [UInt8] = []
    private(set) var receivedAnything = false
    private let cursor: LiveEventCursor
    private let deliver: @Sendable (LiveEvent) -> Void

    init(cursor: LiveEventCursor, deliver: @escaping @Sendable (LiveEvent) -> Void) {
        self.cursor = cursor
        self.deliver = deliver
    }

    func receiveHead(status: Int, headers: [String: String]) throws(HaloError) {
        guard headers["content-type"]?.hasPrefix("text/event-stream") == true else {
            throw .invalidResponse(status: status, message: "The live event stream answered with something else than events")
        }
    }

    func receive(_ block: UnsafeRawBufferPointer) throws(HaloError) {
        receivedAnything = true
        pending.append(contentsOf: block)
        // Events end with a blank line; a CR before a LF is dropped when a line is read.
        var start = 0
        var index = 0
        while index + 1 < pending.count {
            if pending[index] == 0x0A
                && (pending[index + 1] == 0x0A || (pending[index + 1] == 0x0D && index + 2 < pending.count && pending[index + 2] == 0x0A))
            {
                handle(pending[start..<index])
                index += pending[index + 1] == 0x0D ? 3 : 2
                start = index
            } else {
                index += 1
            }
        }
        pending.removeFirst(start)
    }

    private func handle(_ block: ArraySlice<UInt8>) {
        var id: Int64?
        var name = "message"
        var data: [String] = []
        for rawLine in String(decoding: block, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.isEmpty || line.hasPrefix(":") { continue }  // comments are heartbeats
            let field = line.prefix { $0 != ":" }
            var value = line.dropFirst(field.count).dropFirst()
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch field {
            case "id": id = Int64(value)
            case "event": name = String(value)
            case "data": data.append(String(value))
            default: continue
            }
        }
        // An id alone moves the stream past events meant for others.
        if data.isEmpty, let id {
            _ = cursor.advance(to: id)
            return
        }
        let payload = (try? JSONValue(data: Data(data.joined(separator: "\n").utf8))) ?? .null
        switch name {
        case "reset":
            guard let id else { return }
            cursor.reset(to: id)
            deliver(.reset(latestId: id))
        case "content":
            guard let id, let kind = payload["change"]?.stringValue.flatMap(ContentChange.Kind.init(rawValue:)),
                let module = payload["module"]?.stringValue, cursor.advance(to: id)
            else { return }
            deliver(
                .content(
                    ContentChange(
                        eventId: id, kind: kind, moduleId: module, instanceId: payload["instance"]?.stringValue,
                        author: payload["by"]?.stringValue ?? "",
                        date: Date(timeIntervalSince1970: (payload["at"]?.doubleValue ?? 0) / 1000))))
        case "notification":
            guard let id, case .object(let fields) = payload, cursor.advance(to: id) else { return }
            deliver(.notification(eventId: id, HaloNotification(payload: fields)))
        default:
            return  // kinds of a newer server are skipped
        }
    }
}
