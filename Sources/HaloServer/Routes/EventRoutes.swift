import Foundation
import HaloContentStore
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /api/events`: the live event stream (our extension, docs/protocol.md §23.3), as
/// Server-Sent Events.
///
/// Any valid token may open one: content-change events carry only what a sync with the same token
/// would show (module and instance ids, the kind of change, who and when). A client resumes with
/// the standard `Last-Event-ID` header (or `?lastEventId=`): it receives every event after that
/// id, or one `reset` event when the id is older than the retention or unknown to this server,
/// telling it to resync. Without an id the stream starts at the newest event.
enum EventRoutes {
    /// Events read from the log per database read.
    static let batchSize = 500

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.get("/api/events") { request, _ in
            let authorization = request.headers[.authorization] ?? ""
            let requested = try lastEventId(request)
            let start = try await env.read(request) { db, _ in try requested ?? EventLog.latestId(in: db) }
            let subscription = try env.events.subscribe(token: authorization)
            var headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"]
            // nginx and similar proxies would otherwise buffer the stream.
            if let name = HTTPFields.Element.Name("x-accel-buffering") { headers[name] = "no" }
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    defer { env.events.close(subscription) }
                    try await withGracefulShutdownHandler {
                        try await stream(from: start, subscription, env) { try await writer.write(ByteBuffer(string: $0)) }
                        try await writer.finish(nil)
                    } onGracefulShutdown: {
                        env.events.close(subscription)
                    }
                })
        }
    }

    /// Sends events as they commit until the subscription ends (server shutdown) or a write fails
    /// (the client went away).
    private static func stream(
        from start: Int64, _ subscription: EventBroker.Subscription, _ env: ServerEnvironment,
        write: (String) async throws -> Void
    ) async throws {
        // Reconnect after 2 s; the first wake-up sends what the client missed.
        try await write("retry: 2000\n\n")
        var last = start
        for await _ in subscription.wakeUps {
            let after = last
            let backlog: EventLog.Backlog
            if let recent = env.events.recentEvents(after: after, limit: batchSize) {
                backlog = .events(recent)
            } else {
                backlog = try await env.database.read { db in try EventLog.backlog(after: after, limit: batchSize, in: db) }
            }
            switch backlog {
            case .reset(let latest):
                let data: JSONValue = [
                    "latestId": .number(Double(latest)),
                    "reason": .string("Events after \(after) are no longer kept (or were never sent by this server): resync"),
                ]
                try await write("id: \(latest)\nevent: reset\ndata: \(data.jsonString())\n\n")
                last = latest
            case .events(let events) where events.isEmpty:
                try await write(": heartbeat\n\n")
            case .events(let events):
                var text = ""
                for event in events { text += "id: \(event.id)\nevent: \(event.kind)\ndata: \(event.data)\n\n" }
                try await write(text)
                last = events[events.count - 1].id
                if events.count == batchSize { subscription.wake() }  // more are waiting
            }
        }
    }

    /// `Last-Event-ID` (the SSE standard) or `?lastEventId=`: a whole number ≥ 0, or nil.
    private static func lastEventId(_ request: Request) throws -> Int64? {
        let header = HTTPFields.Element.Name("last-event-id").flatMap { request.headers[$0] }
        guard let text = header ?? RequestInput.query(request).string("lastEventId"), !text.isEmpty else { return nil }
        guard let id = Int64(text.trimmingCharacters(in: .whitespaces)), id >= 0 else {
            throw APIError.badRequest("Last-Event-ID must be an event id (a whole number from 0), not '\(text.prefix(40))'")
        }
        return id
    }
}
