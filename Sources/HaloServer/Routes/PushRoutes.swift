import HaloContentStore
import Hummingbird

/// E20 `POST /api/push/schedule/activity` (§17.2): iOS sends JSON, Android a form. Stored and echoed.
enum PushRoutes {
    static let actions: Set<String> = ["receipt", "open", "dismiss"]

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/push/schedule/activity") { request, _ in
            let fields = try await RequestInput.fields(request, limit: env.maxBodyBytes)
            let device = try fields.requiredString("device")
            let schedule = try fields.requiredString("schedule")
            let action = try fields.requiredString("action")
            guard actions.contains(action) else {
                throw APIError.badRequest("'action' must be one of receipt, open, dismiss (got '\(action)')")
            }
            let platform = try fields.optionalString("platform")
            try await env.write(request) { db, _ in
                try PushActivityRecord(
                    device: device, schedule: schedule, action: action, platform: platform,
                    createdAt: TokenService.nowMilliseconds()
                ).insert(db)
            }
            return JSONResponse.make(["device": .string(device), "schedule": .string(schedule), "action": .string(action)])
        }
    }
}
