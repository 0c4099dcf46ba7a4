import HaloContentStore
import Hummingbird

/// Push notifications (§17): E20 `POST /api/push/schedule/activity` (iOS sends JSON, Android a
/// form; stored and echoed, 404 unless the notification went to that device), and for editors
/// `POST /api/push/schedule/` to send or schedule one (§17.3; delivered on the live event stream,
/// docs/protocol.md §23.8), `GET` for the history with activity counts,
/// `DELETE /api/push/schedule/:id` to withdraw one not yet sent.
enum PushRoutes {
    static let actions: Set<String> = ["receipt", "open", "dismiss"]
    /// Newest schedules listed by the history.
    static let historyLimit = 200

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/push/schedule") { request, _ in
            let input = try PushSchedules.Input(try await RequestInput.jsonObject(request, limit: env.maxBodyBytes))
            let schedule = try await env.write(request, requiresEditRights: true) { db, principal in
                let now = env.clock.next()
                var schedule = PushScheduleRecord(
                    id: Identifiers.objectID(), appId: input.appId, name: input.name, sendOn: max(input.sendOn ?? now, now),
                    audienceJson: input.audience.json, payloadJson: input.payload.jsonString(), createdBy: principal.displayName,
                    createdAt: now)
                try schedule.insert(db)
                if schedule.sendOn <= now { try PushSchedules.send(&schedule, at: now, in: db) }
                return schedule
            }
            if schedule.sentAt == nil { env.pushScheduler.scheduled(at: schedule.sendOn) }
            return JSONResponse.make(try PushSchedules.render(schedule, activity: [:]))
        }

        router.get("/api/push/schedule") { request, _ in
            let history = try await env.read(request) { db, principal in
                guard principal.canEdit else { throw APIError.forbidden("Only editors see the notifications sent") }
                let schedules = try PushScheduleRecord.fetchAll(
                    db, sql: "SELECT * FROM server_push_schedule ORDER BY created_at DESC, id DESC LIMIT ?", historyLimit)
                let counts = try PushSchedules.activityCounts(of: schedules.map(\.id), in: db)
                return JSONValue.array(try schedules.map { try PushSchedules.render($0, activity: counts[$0.id] ?? [:]) })
            }
            return JSONResponse.make(history)
        }

        router.delete("/api/push/schedule/:scheduleId") { request, context in
            let id = try context.parameters.require("scheduleId")
            let schedule = try await env.write(request, requiresEditRights: true) { db, _ in
                guard var schedule = try PushScheduleRecord.fetchOne(db, key: id) else {
                    throw APIError.notFound("Notification \(id) not found")
                }
                guard schedule.sentAt == nil else { throw APIError.badRequest("Notification \(id) was already sent") }
                if schedule.cancelledAt == nil {
                    schedule.cancelledAt = env.clock.next()
                    try schedule.update(db)
                }
                return try PushSchedules.render(schedule, activity: [:])
            }
            return JSONResponse.make(schedule)
        }

        router.post("/api/push/schedule/activity") { request, _ in
            let fields = try await RequestInput.fields(request, limit: env.maxBodyBytes)
            let device = try fields.requiredString("device")
            let schedule = try fields.requiredString("schedule")
            let action = try fields.requiredString("action")
            guard actions.contains(action) else {
                throw APIError.badRequest("'action' must be one of receipt, open, dismiss (got '\(action)')")
            }
            let platform = try fields.optionalString("platform")
            try await env.write(request) { db, principal in
                // Only what happened counts (§17.2): a sent notification, reported for a device of
                // its audience when it went out, that this token may act on (§23.12).
                guard let sent = try PushScheduleRecord.fetchOne(db, key: schedule), sent.sentAt != nil else {
                    throw APIError.notFound("Notification \(schedule) not found (or not sent yet)")
                }
                guard let reporter = try DeviceRecord.find(alias: device, in: db), try reporter.isReachable(by: principal, in: db)
                else { throw APIError.notFound("Device \(device) not found") }
                guard try PushRecipients.includes(schedule: schedule, deviceId: reporter.id, in: db) else {
                    throw APIError.notFound("Notification \(schedule) was not sent to device \(device)")
                }
                try PushActivityRecord(
                    device: device, schedule: schedule, action: action, platform: platform,
                    createdAt: TokenService.nowMilliseconds()
                ).insert(db)
            }
            return JSONResponse.make(["device": .string(device), "schedule": .string(schedule), "action": .string(action)])
        }
    }
}
