import Foundation
import GRDB
import HaloContentStore
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /api/events`: the live event stream (our extension, docs/protocol.md §23.3), as
/// Server-Sent Events.
///
/// Any valid token may open one. A content-change event (module and instance ids, the kind of
/// change, who and when) reaches only streams that could read the instance: drafts reach editor
/// tokens only, and a segmented instance reaches a device's stream only when the device carries
/// one of its tags (`EventLog.ContentReaders`). A client resumes with
/// the standard `Last-Event-ID` header (or `?lastEventId=`): it receives every event after that
/// id, or one `reset` event when the id is older than the retention or unknown to this server,
/// telling it to resync. Without an id the stream starts at the newest event.
///
/// A device's notifications (`notification` events) come only on a stream opened with that
/// device's credential, `X-Halo-Device` (its id) and `X-Halo-Device-Secret` (issued when it
/// registered), and only those addressed to it: by alias, by segmentation tags, or to every device
/// of its app. Events a stream skips still move its id forward (an `id:` line alone).
enum EventRoutes {
    /// Events read from the log per database read.
    static let batchSize = 500

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.get("/api/events") { request, _ in
            let authorization = request.headers[.authorization] ?? ""
            let requested = try lastEventId(request)
            let credential = try deviceCredential(request)
            let (start, canEdit) = try await env.read(request) { db, principal in
                if let credential { _ = try credential.device(in: db) }
                return (try requested ?? EventLog.latestId(in: db), principal.canEdit)
            }
            let subscription = try env.events.subscribe(token: authorization, device: credential?.deviceId)
            var headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"]
            // nginx and similar proxies would otherwise buffer the stream.
            if let name = HTTPFields.Element.Name("x-accel-buffering") { headers[name] = "no" }
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    defer { env.events.close(subscription) }
                    try await withGracefulShutdownHandler {
                        try await stream(from: start, subscription, credential, canEdit: canEdit, env) {
                            try await writer.write(ByteBuffer(string: $0))
                        }
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
        from start: Int64, _ subscription: EventBroker.Subscription, _ credential: DeviceCredential?, canEdit: Bool,
        _ env: ServerEnvironment, write: (String) async throws -> Void
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
                backlog = try await env.storage.read { db in try EventLog.backlog(after: after, limit: batchSize, in: db) }
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
                // The device as it is now (its tags may have changed); a renewed secret ends the stream.
                let device: Recipient? =
                    if let credential, events.contains(where: { $0.audience != nil || (!canEdit && $0.readers != nil) }) {
                        Recipient(try await env.storage.read { db in try credential.device(in: db) })
                    } else { nil }
                let reader = Reader(canEdit: canEdit, hasDevice: credential != nil, device: device)
                var text = ""
                for event in events where reader.receives(event) {
                    text += "id: \(event.id)\nevent: \(event.kind)\ndata: \(event.data)\n\n"
                }
                last = events[events.count - 1].id
                try await write(text.isEmpty ? "id: \(last)\n\n" : text)
                if events.count == batchSize { subscription.wake() }  // more are waiting
            }
        }
    }

    /// What decides whether a notification is for the stream's device, read once per batch.
    private struct Recipient {
        let alias: String
        let appId: Int64
        let tagIds: Set<String>

        init(_ device: DeviceRecord) {
            alias = device.alias
            appId = device.appId
            tagIds = device.tagIds
        }
    }

    /// Who holds the stream: the token's rights, and the device it was opened for (read when a batch
    /// has events addressed or restricted).
    private struct Reader {
        let canEdit: Bool
        let hasDevice: Bool
        let device: Recipient?

        func receives(_ event: EventLog.Event) -> Bool {
            if let audienceJSON = event.audience {
                guard let device, let audience = try? NotificationAudience(json: audienceJSON) else { return false }
                return audience.includes(alias: device.alias, appId: device.appId, tagIds: device.tagIds)
            }
            guard !canEdit, let readersJSON = event.readers else { return true }
            guard let readers = try? EventLog.ContentReaders(json: readersJSON) else { return false }
            return readers.admit(deviceTags: hasDevice ? device?.tagIds ?? [] : nil)
        }
    }

    /// The device a stream is opened for, as its headers name it.
    struct DeviceCredential: Sendable {
        var deviceId: String
        var secret: String

        /// The device, when the secret is its current one; otherwise 401.
        func device(in db: any SQLExecutor) throws -> DeviceRecord {
            guard let device = try DeviceRecord.find(id: deviceId, in: db), let digest = device.streamSecretDigest,
                digest == SecretHasher.tokenDigest(secret)
            else {
                throw APIError.unauthorized(
                    "The device's stream credential is not valid (register the device again for a new one)")
            }
            return device
        }
    }

    private static func deviceCredential(_ request: Request) throws -> DeviceCredential? {
        let id = try RequestInput.header(RequestStrings.device, request)
        let secret = try RequestInput.header(RequestStrings.deviceSecret, request)
        switch (id, secret) {
        case (nil, nil): return nil
        case (let id?, let secret?) where !id.isEmpty && !secret.isEmpty: return DeviceCredential(deviceId: id, secret: secret)
        default: throw APIError.badRequest("A device's stream needs both X-Halo-Device and X-Halo-Device-Secret")
        }
    }

    /// `Last-Event-ID` (the SSE standard) or `?lastEventId=`: a whole number ≥ 0, or nil.
    private static func lastEventId(_ request: Request) throws -> Int64? {
        let header = try RequestInput.header(RequestStrings.lastEventId, request)
        guard let text = header ?? RequestInput.query(request).string("lastEventId"), !text.isEmpty else { return nil }
        guard let id = Int64(text.trimmingCharacters(in: .whitespaces)), id >= 0 else {
            throw APIError.badRequest("Last-Event-ID must be an event id (a whole number from 0), not '\(text.prefix(40))'")
        }
        return id
    }
}
