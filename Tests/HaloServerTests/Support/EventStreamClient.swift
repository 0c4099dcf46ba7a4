import Foundation
import HaloContentStore

/// One Server-Sent Event as a client sees it.
struct StreamedEvent: Equatable {
    var id: String?
    var event: String?
    var data: String
    var json: JSONValue { (try? JSONValue(data: Data(data.utf8))) ?? .null }
}

/// A Server-Sent Events client over a plain socket: sends the GET, reads the status and headers,
/// undoes the chunked transfer coding, and splits the stream into events and comments.
///
/// Reads block, so the async forms run them on a thread of their own: the in-process server
/// shares the test's small cooperative pool. Used by one caller at a time.
final class EventStreamClient: @unchecked Sendable {
    let status: Int
    let headers: [String: String]
    private let connection: RawConnection
    /// Body bytes not yet split into events (after de-chunking).
    private var body = Data()
    /// Raw bytes not yet de-chunked.
    private var raw = Data()
    private(set) var closed = false
    /// The last id the server sent (with an event or alone), as a client would resume from.
    private(set) var lastEventId: String?
    /// Comment lines seen (`: heartbeat`), in order.
    private(set) var comments: [String] = []

    init(port: Int, token: String?, lastEventId: String? = nil, path: String = "/api/events", headers: [String: String] = [:]) throws {
        connection = try RawConnection(port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        if let lastEventId { request += "Last-Event-ID: \(lastEventId)\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        try connection.send(request + "\r\n")
        let head = Data("\r\n\r\n".utf8)
        var received = Data()
        let deadline = Date().addingTimeInterval(10)
        while received.range(of: head) == nil, Date() < deadline {
            let (data, closed) = connection.readToEnd(timeout: 0.2, maxBytes: 1)
            received.append(data)
            if closed { break }
        }
        guard let end = received.range(of: head) else { throw TestSupportError("no response head: \(received.count) bytes") }
        let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        raw = Data(received[end.upperBound...])
    }

    /// The next event (comments are collected in `comments`), or nil after `timeout` or when the
    /// server closed the stream.
    func next(timeout: TimeInterval = 10) -> StreamedEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let event = takeEvent() { return event }
            if closed || Date() >= deadline { return nil }
            let (data, closedNow) = connection.readToEnd(timeout: min(0.2, max(0.01, deadline.timeIntervalSinceNow)), maxBytes: 1)
            raw.append(data)
            dechunk()
            if closedNow { closed = true }
        }
    }

    /// `next(timeout:)` off the cooperative pool.
    func nextEvent(timeout: TimeInterval = 10) async -> StreamedEvent? {
        await Self.onThread { self.next(timeout: timeout) }
    }

    /// `drain(for:)` off the cooperative pool.
    func events(for timeout: TimeInterval) async -> [StreamedEvent] {
        await Self.onThread { self.drain(for: timeout) }
    }

    /// Connects (and reads the response head) off the cooperative pool.
    static func open(port: Int, token: String?, lastEventId: String? = nil, headers: [String: String] = [:]) async throws
        -> EventStreamClient
    {
        let result: Result<EventStreamClient, any Error> = await onThread {
            Result { try EventStreamClient(port: port, token: token, lastEventId: lastEventId, headers: headers) }
        }
        return try result.get()
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }

    /// Reads until `timeout` passes or the stream closes; returns the events that came.
    func drain(for timeout: TimeInterval) -> [StreamedEvent] {
        var events: [StreamedEvent] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, let event = next(timeout: deadline.timeIntervalSinceNow) { events.append(event) }
        return events
    }

    /// Moves complete chunks from `raw` to `body`.
    private func dechunk() {
        let crlf = Data("\r\n".utf8)
        while let lineEnd = raw.range(of: crlf) {
            let sizeText = String(decoding: raw[raw.startIndex..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return }
            let start = lineEnd.upperBound
            guard raw.distance(from: start, to: raw.endIndex) >= size + 2 else { return }
            let chunkEnd = raw.index(start, offsetBy: size)
            body.append(raw[start..<chunkEnd])
            raw = Data(raw[raw.index(chunkEnd, offsetBy: 2)...])
            if size == 0 { closed = true }
        }
    }

    /// Splits one event (lines up to a blank line) off `body`.
    private func takeEvent() -> StreamedEvent? {
        let separator = Data("\n\n".utf8)
        while let end = body.range(of: separator) {
            let block = String(decoding: body[body.startIndex..<end.lowerBound], as: UTF8.self)
            body = Data(body[end.upperBound...])
            var event = StreamedEvent(data: "")
            var dataLines: [String] = []
            var isEvent = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                    continue
                }
                guard let colon = line.firstIndex(of: ":") else { continue }
                let value = line[line.index(after: colon)...].drop { $0 == " " }
                switch line[..<colon] {
                case "id":
                    event.id = String(value)
                    lastEventId = event.id
                    isEvent = true
                case "event": event.event = String(value); isEvent = true
                case "data": dataLines.append(String(value)); isEvent = true
                default: continue  // retry:
                }
            }
            event.data = dataLines.joined(separator: "\n")
            if isEvent { return event }
        }
        return nil
    }
}
