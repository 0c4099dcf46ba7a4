import Foundation

/// Requests that carry exactly one thing the server must refuse, with the status it must answer
/// (`FuzzRequest.expected`; issue 45): U+0000 or invalid UTF-8 in any string position of any
/// route (a JSON value or name, a form field, a query parameter, a path id, a header the server
/// reads) is 400; a body whose Content-Type is neither JSON nor, where the route takes one, a
/// form (or has none) is 415; an `Origin` the server does not allow is 403. Everything else about
/// the request is valid, so another status (a 200 that stored the string, a 500 or a 503 from a
/// database that could not take it) is a finding.
enum FuzzHostile {
    /// U+F8FF (private use): where a generated body gets its hostile bytes.
    private static let marker = "\u{F8FF}"

    /// Byte sequences a string must not hold, as they would appear inside a JSON string.
    static let badJSONBytes: [(bytes: [UInt8], what: String)] = [
        (Array(#"\u0000"#.utf8), "escaped U+0000"), ([0x00], "raw NUL"), ([0xFF], "0xFF"), ([0x80], "lone continuation"),
        ([0xC0, 0xAF], "overlong"), ([0xED, 0xA0, 0x80], "surrogate"), ([0xF4, 0x90, 0x80, 0x80], "above U+10FFFF"),
        ([0xE2, 0x82], "cut short"), ([0xF8, 0x88, 0x80, 0x80, 0x80], "5-byte form"),
    ]

    /// The same as percent escapes (form fields, query parameters, path ids).
    static let badEscapes = ["%00", "a%00b", "%FF", "%C0%AF", "%ED%A0%80", "%F4%90%80%80", "%E2%82", "%80", "%C3%28"]

    /// Header values that are not printable ASCII (the server reads these headers as ids).
    /// Control characters are the HTTP parser's to refuse (a bare 400 before any route).
    static let badHeaderValues = ["é", "id\u{FFFD}", "\u{301}", "😀"]

    /// Types a body must not be read as: none, and ones that only mention JSON.
    static let badContentTypes: [String?] = [
        nil, "", "text/plain;a=json", "text/json", "application/jsonp", "text/plain", "application/x-json", "json",
        "application/json-patch+json", "multipart/form-data; boundary=x", "application/json; charset=iso-8859-1", "*/*",
    ]

    static let badOrigins = ["https://evil.example", "null", "http://127.0.0.1", "https://halo-db.com", "file://"]

    /// A route to send a hostile request to: `path` has `{{ID}}` where its id goes.
    struct Target {
        var method: String
        var path: String
        var id: String
        var token: String?
        var json: FuzzJSON?
        var takesForm = false
        var takesJSON: Bool { json != nil }
        var queryKeys = ["limit", "page", "skip"]
    }

    /// Routes `FuzzRoute` does not list (module design, imports, scheduled notifications, the
    /// live events), with valid bodies: each hostile request must be refused before it acts.
    static let extraTargets: [Target] = [
        Target(
            method: "POST", path: "/api/generalcontent/module", id: "", token: "{{EDITOR}}",
            json: .object([("name", .string("Fuzz module")), ("isSingle", .bool(false))])),
        Target(
            method: "PUT", path: "/api/generalcontent/module/{{ID}}", id: "{{MOD:Authors}}", token: "{{EDITOR}}",
            json: .object([("name", .string("Authors")), ("description", .string("People"))])),
        Target(
            method: "POST", path: "/api/generalcontent/module/{{ID}}/field", id: "{{MOD:Authors}}", token: "{{EDITOR}}",
            json: .object([("name", .string("fuzzField")), ("type", .string("text"))])),
        Target(
            method: "PUT", path: "/api/generalcontent/module/{{ID}}/field-order", id: "{{MOD:Authors}}", token: "{{EDITOR}}",
            json: .object([("fieldIds", .array([.string("a"), .string("b")]))])),
        Target(
            method: "DELETE", path: "/api/generalcontent/module/{{ID}}/field/none", id: "{{MOD:Authors}}", token: "{{EDITOR}}",
            json: nil, queryKeys: ["dryRun"]),
        Target(
            method: "POST", path: "/api/generalcontent/import/{{ID}}/rows", id: "000000000000000000000000", token: "{{EDITOR}}",
            json: .object([
                ("rows", .array([.object([("line", .number("2")), ("instance", .object([("name", .string("Row"))]))])]))
            ])),
        Target(
            method: "DELETE", path: "/api/generalcontent/import/{{ID}}", id: "000000000000000000000000", token: "{{EDITOR}}",
            json: nil),
        Target(
            method: "POST", path: "/api/push/schedule", id: "", token: "{{EDITOR}}",
            json: .object([
                ("appId", .number("1")), ("name", .string("Fuzz")),
                ("payload", .object([("notification", .object([("title", .string("T")), ("body", .string("B"))]))])),
            ])),
        Target(method: "DELETE", path: "/api/push/schedule/{{ID}}", id: "000000000000000000000000", token: "{{EDITOR}}", json: nil),
        Target(
            method: "GET", path: "/api/events", id: "", token: "{{APP}}", json: nil, queryKeys: ["lastEventId", "modules"]),
    ]

    static func target(_ random: inout FuzzRandom) -> Target {
        if random.chance(0.3) { return random.pick(extraTargets) }
        let route = random.pick(FuzzRoute.allCases)
        let json = route.seed(&random) ?? (route.bodyKind == .empty ? nil : FuzzJSON.object([("unexpected", .string("body"))]))
        return Target(
            method: route.method, path: route.path + (route == .token ? "?_app" : ""), id: route.validId(&random),
            token: route.auth == .anonymous ? nil : route.auth.rawValue, json: json, takesForm: route.bodyKind == .fields,
            queryKeys: route.queryKeys)
    }

    static func request(_ random: inout FuzzRandom) -> FuzzRequest {
        let route = target(&random)
        let pathTemplate = String(route.path.prefix { $0 != "?" })
        var path = pathTemplate.replacingOccurrences(of: "{{ID}}", with: route.id)
        var query = route.path.contains("?") ? String(route.path.drop { $0 != "?" }) : ""
        var headers: [[String]] = route.token.map { [["Authorization", "Bearer \($0)"]] } ?? []
        let json = route.json
        var body = json.map { Data($0.render().utf8) }
        var contentType: String? = body == nil ? nil : "application/json"

        var kinds = ["query", "header", "origin"]
        if route.path.contains("{{ID}}") { kinds.append("path") }
        if json != nil { kinds += ["json", "json", "type"] }
        if route.takesForm { kinds.append("form") }
        let kind = random.pick(kinds)
        let note: String
        let expected: Int
        switch kind {
        case "json":
            let (bytes, what) = random.pick(badJSONBytes)
            let (marked, position) = mark(json ?? .object([]), &random)
            body = Data(replace(Array(marked.render().utf8), marker: Array(marker.utf8), with: bytes))
            note = "hostile: \(what) in the JSON \(position)"
            expected = 400
        case "form":
            var pairs: [(String, FuzzJSON)] = [("x", .string("y"))]
            if case .object(let seedPairs)? = json, !seedPairs.isEmpty { pairs = seedPairs }
            let index = random.int(pairs.count)
            let bad = random.pick(badEscapes)
            let inName = random.chance(0.2)
            body = Data(
                pairs.enumerated().map { offset, pair in
                    let name = FuzzGenerator.percentEncode(pair.0) + (offset == index && inName ? bad : "")
                    return name + "=" + FuzzGenerator.percentEncode(pair.1.formText) + (offset == index && !inName ? bad : "")
                }.joined(separator: "&").utf8)
            contentType = "application/x-www-form-urlencoded"
            note = "hostile: \(bad) in form field \(inName ? "name" : "") \(pairs[index].0)"
            expected = 400
        case "query":
            let bad = random.pick(badEscapes)
            let key = random.pick(route.queryKeys + ["x"])
            query += (query.isEmpty ? "?" : "&") + (random.chance(0.2) ? "\(bad)=1" : "\(key)=\(bad)")
            note = "hostile: \(bad) in the query"
            expected = 400
        case "path":
            let bad = random.pick(badEscapes)
            path = pathTemplate.replacingOccurrences(of: "{{ID}}", with: random.chance(0.5) ? bad : "ab\(bad)cd")
            note = "hostile: \(bad) in the path id"
            expected = 400
        case "header":
            let name = random.pick(["X-Halo-Device", "X-Halo-Device-Secret", "Last-Event-ID", "If-Match"])
            let value = random.pick(badHeaderValues)
            headers.append([name, value])
            note = "hostile: \(value.debugDescription) in \(name)"
            expected = 400
        case "type":
            var types = badContentTypes
            if !route.takesForm { types.append("application/x-www-form-urlencoded") }
            contentType = random.pick(types)
            note = "hostile: Content-Type \(contentType?.debugDescription ?? "none")"
            expected = 415
        default:
            let origin = random.pick(badOrigins)
            headers.append(["Origin", origin])
            note = "hostile: Origin \(origin)"
            expected = 403
        }
        if let contentType { headers.append(["Content-Type", contentType]) }
        return FuzzRequest(method: route.method, target: path + query, headers: headers, body: body, note: note, expected: expected)
    }

    /// `json` with the marker added to one of its strings or member names, chosen at random;
    /// and which one, for the note.
    static func mark(_ json: FuzzJSON, _ random: inout FuzzRandom) -> (FuzzJSON, String) {
        let count = stringCount(json)
        guard count > 0 else { return (.object([(marker, .null)]), "member name") }
        var target = random.int(count)
        var position = ""
        let marked = mark(json, target: &target, position: &position, path: "$")
        return (marked, position)
    }

    private static func stringCount(_ json: FuzzJSON) -> Int {
        switch json {
        case .string: return 1
        case .array(let items): return items.map(stringCount).reduce(0, +)
        case .object(let pairs): return pairs.map { 1 + stringCount($0.1) }.reduce(0, +)
        default: return 0
        }
    }

    private static func mark(_ json: FuzzJSON, target: inout Int, position: inout String, path: String) -> FuzzJSON {
        switch json {
        case .string(let text):
            if target == 0 { position = "value at \(path)" }
            target -= 1
            return target == -1 ? .string(text + marker) : json
        case .array(let items):
            return .array(items.enumerated().map { mark($0.1, target: &target, position: &position, path: "\(path)[\($0.0)]") })
        case .object(let pairs):
            return .object(
                pairs.map { pair in
                    var name = pair.0
                    if target == 0 {
                        position = "member name in \(path)"
                        name += marker
                    }
                    target -= 1
                    return (name, mark(pair.1, target: &target, position: &position, path: "\(path).\(pair.0)"))
                })
        default:
            return json
        }
    }

    /// `bytes` with the first `marker` replaced by `replacement`.
    static func replace(_ bytes: [UInt8], marker: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        guard let range = bytes.firstRange(of: marker) else { return bytes }
        return Array(bytes[..<range.lowerBound]) + replacement + Array(bytes[range.upperBound...])
    }
}
