import Foundation
import GRDB
import HaloContentStore
import Hummingbird

/// E5–E7 devices ("appuser", §6): create, read, update with segmentation tags and push tokens.
///
/// Our extensions (docs/protocol.md §23.8, §23.12): creating a device answers once with
/// `eventStreamSecret`, the credential that opens the device's notification stream (app tokens are
/// shared by every install and an alias is no secret); an update with
/// `"renewEventStreamSecret": true` issues a new one (the old stops working) and needs the current
/// one (`X-Halo-Device-Secret`) or an editor's token. Only its digest is stored; reads never show
/// it. A device belongs to the app client whose token registered it: other clients' tokens get 404
/// (`DeviceRecord.isReachable(by:in:)`), and its `appId` is its client's app.
enum DeviceRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/segmentation/appuser") { request, _ in
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let input = try DeviceInput(body)
            let device = try await env.write(request) { db, principal in
                guard principal.clientId != nil || principal.canEdit else {
                    throw APIError.forbidden(
                        "A user token without an app client cannot register a device: log in (identified login) with your app's token, or send client_id and client_secret with the password grant"
                    )
                }
                let appId = try requireAppId(input.appId, clientApp: principal.clientAppId, stored: nil, editor: principal.canEdit)
                let now = env.clock.next()
                let id = Identifiers.objectID()
                let alias =
                    try input.alias.map { try requireFreeAlias($0, except: nil, db) }
                    ?? "anonymous-" + Identifiers.randomLowercase(25)
                var device = DeviceRecord(
                    id: id, alias: alias, appId: appId, email: input.email,
                    devicesJson: JSONValue.array(input.devices ?? []).jsonString(),
                    tagsJson: JSONValue.array(input.tags ?? []).jsonString(), createdAt: now, updatedAt: now)
                device.clientId = principal.clientId
                device.userId = principal.clientId == nil ? principal.userId : nil
                let secret = Identifiers.secret()
                device.streamSecretDigest = SecretHasher.tokenDigest(secret)
                try device.insert(db)
                return try render(device, streamSecret: secret)
            }
            return JSONResponse.make(device)
        }

        router.get("/api/segmentation/appuser/:deviceId") { request, context in
            let id = try context.parameters.require("deviceId")
            let device = try await env.read(request) { db, principal in try render(find(id: id, for: principal, in: db)) }
            return JSONResponse.make(device)
        }

        router.put("/api/segmentation/appuser/:deviceId") { request, context in
            let id = try context.parameters.require("deviceId")
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let input = try DeviceInput(body)
            let sentSecret = try RequestInput.header(RequestStrings.deviceSecret, request)
            let device = try await env.write(request) { db, principal in
                var device = try find(id: id, for: principal, in: db)
                // A device registered before devices had owners becomes its first updater's (§23.12).
                if device.isUnclaimed, let client = principal.clientId { device.clientId = client }
                let clientApp = try device.clientId.flatMap { try clientAppId(of: $0, in: db) }
                device.appId = try requireAppId(input.appId, clientApp: clientApp, stored: device.appId, editor: principal.canEdit)
                if input.renewStreamSecret && !principal.canEdit, let digest = device.streamSecretDigest,
                    sentSecret.map({ SecretHasher.tokenDigest($0) != digest }) ?? true
                {
                    throw APIError.forbidden(
                        "Renewing the device's stream secret needs its current secret in X-Halo-Device-Secret (or an editor's token); a device that lost its secret registers again (POST /api/segmentation/appuser)"
                    )
                }
                var devices = try JSONValue(string: device.devicesJson).arrayValue ?? []
                if let sent = input.devices {
                    if input.replaceTokens {
                        devices = sent
                    } else {
                        devices += sent.filter { !devices.contains($0) }
                    }
                }
                if let alias = input.alias { device.alias = try requireFreeAlias(alias, except: id, db) }
                if let email = input.email { device.email = email }
                device.devicesJson = JSONValue.array(devices).jsonString()
                if let tags = input.tags { device.tagsJson = JSONValue.array(tags).jsonString() }
                device.updatedAt = env.clock.next()
                let secret = input.renewStreamSecret ? Identifiers.secret() : nil
                if let secret { device.streamSecretDigest = SecretHasher.tokenDigest(secret) }
                try device.update(db)
                return try render(device, streamSecret: secret)
            }
            return JSONResponse.make(device)
        }
    }

    /// The `appId` a device gets: its client's app (`clientApp`). A body naming another is a 400
    /// naming `appId` (compared as numbers: Android sends a string, §6.2). A device without a
    /// client keeps its stored app (`stored`; a new one takes the body's, else 1), which only
    /// an editor may change.
    static func requireAppId(_ sent: Int64?, clientApp: Int64?, stored: Int64?, editor: Bool) throws -> Int64 {
        let expected = clientApp ?? stored
        guard let sent else { return expected ?? 1 }
        if let expected, sent != expected, clientApp != nil || !editor {
            throw APIError.badRequest(
                "'appId' must be \(expected), the app of this device's client (got \(sent))",
                extra: ["appId": "invalid_attribute"])
        }
        return sent
    }

    /// The app of the client `clientId` (nil when that client no longer exists).
    private static func clientAppId(of clientId: String, in db: any SQLExecutor) throws -> Int64? {
        try db.fetchValue(Int64.self, "SELECT app_id FROM server_client WHERE id = ?", clientId)
    }

    /// A device body, validated. Input timestamps are ignored (§6.2); tags replace the stored set.
    struct DeviceInput: Sendable {
        var alias: String?
        var appId: Int64?
        var email: String?
        var devices: [JSONValue]?
        var tags: [JSONValue]?
        var replaceTokens = false
        var renewStreamSecret = false

        init(_ body: [String: JSONValue]) throws {
            var problems: [String: JSONValue] = [:]
            // A key that does not read is reported by name, like the rest of the validation problems.
            func attribute<T>(_ key: String, _ read: () throws -> T?) -> T? {
                do { return try read() } catch {
                    problems[key] = "invalid_attribute"
                    return nil
                }
            }
            alias = attribute("alias") { try body.optionalString("alias") }.flatMap { $0.isEmpty ? nil : $0 }
            appId = attribute("appId") { try body.optionalInteger("appId", in: 0...Int64(Int32.max)) }
            email = attribute("email") { try body.optionalString("email") }
            switch body["devices"] {
            case nil, .null?: devices = nil
            case .array(let items)?:
                devices = items.compactMap { item in
                    guard let platform = item["platform"]?.stringValue, let token = item["token"]?.stringValue else {
                        problems["devices"] = "invalid_attribute"
                        return nil
                    }
                    return ["platform": .string(platform), "token": .string(token)]
                }
            default: problems["devices"] = "invalid_attribute"
            }
            switch body["tags"] {
            case nil, .null?: tags = nil
            case .array(let items)?:
                tags = items.compactMap { item in
                    guard let tag = DeviceRoutes.normalizedTag(item) else {
                        problems["tags"] = "invalid_attribute"
                        return nil
                    }
                    return tag
                }
            default: problems["tags"] = "invalid_attribute"
            }
            switch body["replaceTokens"] {
            case .bool(let b)?: replaceTokens = b
            case .string(let s)?: replaceTokens = s == "true"
            default: replaceTokens = false
            }
            renewStreamSecret = body["renewEventStreamSecret"] == .bool(true)
            if !problems.isEmpty {
                throw APIError.badRequest("One or more fields have validation problems", extra: .object(problems))
            }
        }
    }

    /// A tag with a non-null string `value` (iOS force-casts it, §6.3) and an `id`. Ids are derived
    /// from name and value so the same tag keeps its id across devices and saves.
    static func normalizedTag(_ item: JSONValue) -> JSONValue? {
        guard case .object(let object) = item, let name = object["name"]?.stringValue, !name.isEmpty else { return nil }
        let value: String
        switch object["value"] {
        case nil, .null?: value = ""
        case .string(let s)?: value = s
        case let other?: value = other.jsonString()
        }
        let id = object["id"]?.stringValue ?? SegmentationTags.id(name: name, value: value)
        let tagType = object["tagType"]?.stringValue ?? SegmentationTags.customTagType
        return ["id": .string(id), "name": .string(name), "value": .string(value), "tagType": .string(tagType)]
    }

    private static func requireFreeAlias(_ alias: String, except id: String?, _ db: any SQLExecutor) throws -> String {
        let owner = try DeviceRecord.owner(ofAlias: alias, in: db)
        if let owner, owner != id { throw APIError.badRequest("The alias \(alias) belongs to another device") }
        return alias
    }

    /// The device `id` when `principal` may act on it; otherwise 404, as for a device that does
    /// not exist (another client's device is none of this token's business).
    private static func find(id: String, for principal: Principal, in db: any SQLExecutor) throws -> DeviceRecord {
        guard let device = try DeviceRecord.find(id: id, in: db), try device.isReachable(by: principal, in: db) else {
            throw APIError.notFound("Device \(id) not found")
        }
        return device
    }

    /// The device's wire shape (§6), with its new stream secret when one was just issued.
    static func render(_ device: DeviceRecord, streamSecret: String? = nil) throws -> JSONValue {
        var json: [String: JSONValue] = [
            "id": .string(device.id), "appId": .number(Double(device.appId)),
            "customerId": .number(Double(device.customerId)), "alias": .string(device.alias),
            "devices": try JSONValue(string: device.devicesJson), "tags": try JSONValue(string: device.tagsJson),
            "createdAt": .number(Double(device.createdAt)), "updatedAt": .number(Double(device.updatedAt)),
        ]
        if let email = device.email { json["email"] = .string(email) }
        if let streamSecret { json["eventStreamSecret"] = .string(streamSecret) }
        return .object(json)
    }
}
