import Foundation
import HTTPTypes
import HaloContentStore
import Hummingbird

/// E10/E11: the identified user's pocket (§8): named reference lists plus a small JSON `data` object.
enum PocketRoutes {
    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.get("/api/segmentation/identified-pocket/self") { request, _ in
            let filter = referenceFilter(RequestInput.query(request))
            let pocket = try await env.read(request) { db, principal in
                try PocketRecord.pocket(userId: try requireUser(principal), in: db)
            }
            return respond(pocket, filter: filter, limits: env.limits)
        }

        router.put("/api/segmentation/identified-pocket") { request, _ in
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let change = try PocketChange(body, limits: env.limits)
            let expected = try RequestInput.header(.ifMatch, request)
            let pocket = try await env.write(request) { db, principal in
                let userId = try requireUser(principal)
                var pocket = try PocketRecord.pocket(userId: userId, in: db)
                // Checked in the writing transaction: no other save can slip in between.
                if let expected, !matches(expected, pocket) { throw conflict(pocket) }
                let before = pocket.bytes
                change.apply(to: &pocket)
                // Each PUT replaces some lists: the sum of them must stay within the caps too.
                guard pocket.references.count <= env.limits.pocketReferenceLists else {
                    throw APIError.badRequest(
                        "The pocket holds at most \(env.limits.pocketReferenceLists) reference lists; delete one first")
                }
                // A pocket stored under a higher limit stays as it is until it is made smaller.
                let after = pocket.bytes
                if after > env.limits.pocketBytes, after > before { throw tooBig(after, before: before, limit: env.limits.pocketBytes) }
                return try PocketRecord.save(pocket, userId: userId, at: TokenService.nowMilliseconds(), in: db)
            }
            return respond(pocket, filter: nil, limits: env.limits)
        }
    }

    typealias Pocket = PocketRecord.Pocket

    /// A PUT body per §8.2: an absent part is untouched; a reference list is replaced, emptied
    /// by `[]` or deleted by `null`; `data` replaces the whole object.
    struct PocketChange: Sendable {
        var references: [String: JSONValue]?
        var data: [String: JSONValue]?

        init(_ body: [String: JSONValue], limits: ServerLimits) throws {
            switch body["references"] {
            case nil, .null?: references = nil
            case .object(let object)?:
                guard object.count <= limits.pocketReferenceLists else {
                    throw APIError.badRequest(
                        "The pocket holds at most \(limits.pocketReferenceLists) reference lists (got \(object.count))")
                }
                for (key, list) in object {
                    guard key.unicodeScalars.count <= limits.pocketReferenceLength else {
                        throw APIError.badRequest(
                            "A reference list name is longer than \(limits.pocketReferenceLength) characters")
                    }
                    switch list {
                    case .null: continue
                    case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
                        guard items.count <= limits.pocketEntriesPerList else {
                            throw APIError.badRequest(
                                "'references.\(key)' has \(items.count) entries; a list holds at most \(limits.pocketEntriesPerList)")
                        }
                        for case .string(let item) in items where item.unicodeScalars.count > limits.pocketReferenceLength {
                            throw APIError.badRequest(
                                "An entry of 'references.\(key)' is longer than \(limits.pocketReferenceLength) characters")
                        }
                    default: throw APIError.badRequest("'references.\(key)' must be an array of strings or null")
                    }
                }
                references = object
            default: throw APIError.badRequest("'references' must be an object")
            }
            switch body["data"] {
            case nil, .null?: data = nil
            case .object(let object)?:
                let size = PocketLimits.dataLength(object)
                guard size <= limits.pocketDataCharacters else {
                    throw APIError.badRequest(
                        "Pocket 'data' is limited to \(limits.pocketDataCharacters) characters of serialized JSON (got \(size))")
                }
                data = object
            default: throw APIError.badRequest("'data' must be an object")
            }
        }

        func apply(to pocket: inout Pocket) {
            for (key, list) in references ?? [:] {
                if list.isNull { pocket.references[key] = nil } else { pocket.references[key] = list }
            }
            if let data { pocket.data = data }
        }
    }

    private static func requireUser(_ principal: Principal) throws -> String {
        guard let userId = principal.userId else {
            throw APIError.unauthorized("The pocket needs an identified user's token (log in first)")
        }
        return userId
    }

    /// `filterReferences[]` values (raw or %5B%5D-encoded brackets, both decoded by now); nil = no
    /// filter. A single empty value means "data only" (Android, §8.1).
    static func referenceFilter(_ query: QueryParameters) -> Set<String>? {
        let values = query.all("filterReferences[]", "filterReferences")
        if values.isEmpty { return nil }
        return Set(values.filter { !$0.isEmpty })
    }

    private static func render(_ pocket: Pocket, filter: Set<String>?) -> JSONValue {
        let references = filter.map { keep in pocket.references.filter { keep.contains($0.key) } } ?? pocket.references
        return ["references": .object(references), "data": .object(pocket.data)]
    }

    /// The pocket in HALO's shape, its revision as the ETag and the limits in force in
    /// `X-Halo-Pocket-Limits` (ours, §23.9; HALO clients ignore both).
    private static func respond(_ pocket: Pocket, filter: Set<String>?, limits: ServerLimits) -> Response {
        var response = JSONResponse.make(render(pocket, filter: filter))
        response.headers[.eTag] = pocket.entityTag
        response.headers[limitsHeader] = limits.pocketLimits.headerValue
        return response
    }

    static let limitsHeader = HTTPField.Name(PocketLimits.header)!

    /// 262144 → "262,144".
    private static func count(_ n: Int) -> String {
        var digits = String(n)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return digits
    }

    /// 400 for a save that makes the pocket bigger than `limit` bytes (`PocketLimits.pocketBytes`).
    private static func tooBig(_ size: Int, before: Int, limit: Int) -> APIError {
        return APIError.badRequest(
            "The whole pocket (data and references together) is limited to \(count(limit)) bytes of JSON; this save would make it \(count(size)) bytes (it is \(count(before)) now). Remove something first"
        )
    }

    /// `If-Match` (RFC 9110 §13.1.1): `*` or a list of entity tags, compared strongly.
    static func matches(_ ifMatch: String, _ pocket: Pocket) -> Bool {
        ifMatch.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == pocket.entityTag
        }
    }

    /// 409 when the pocket moved on since the client read it: the current pocket and its revision
    /// ride in `extra`, so the client can show both versions without another request.
    private static func conflict(_ pocket: Pocket) -> APIError {
        APIError(
            .conflict, "The pocket changed since it was read (now at revision \(pocket.revision)); read it again and redo the change",
            extra: ["pocket": render(pocket, filter: nil), "revision": .string(pocket.entityTag)])
    }
}
