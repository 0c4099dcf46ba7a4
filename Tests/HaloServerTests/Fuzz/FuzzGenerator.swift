import Foundation

/// Builds one random request: a route, its seed body (often mutated), query, headers.
enum FuzzGenerator {
    static func request(_ random: inout FuzzRandom) -> FuzzRequest {
        // A few requests go where no route is, or use a method no route has.
        if random.chance(0.03) { return strayRequest(&random) }
        // Some carry one thing the server must refuse, with the status it must refuse it with.
        if random.chance(0.15) { return FuzzHostile.request(&random) }
        // Some ask for the run's device with another app client's token (404, §23.12).
        if random.chance(0.04) { return FuzzRoute.foreignDeviceRequest(&random) }
        let route = random.pick(FuzzRoute.allCases)
        var notes: [String] = []

        var path = route.path
        if path.contains("{{ID}}") {
            let id: String
            if random.chance(0.75) {
                id = route.validId(&random)
            } else {
                id = oddPathSegment(&random)
                notes.append("odd id \(id.prefix(40))")
            }
            path = path.replacingOccurrences(of: "{{ID}}", with: id)
        }
        if random.chance(0.05) {
            path = random.pick([path + "/", "/" + path, path.replacingOccurrences(of: "/api/", with: "/api//"), path + "/extra"])
            notes.append("path variant")
        }

        var query: [(String, String)] = []
        if route == .token { query.append((random.pick(["_app", "_user"]), "")) }
        if random.chance(0.35) {
            for _ in 0..<random.int(in: 1...4) {
                let key =
                    random.chance(0.8)
                    ? random.pick(route.queryKeys) : random.pick(["version", "to-cache", "", "a[b]", "%", "filterReferences[]"])
                query.append((key, queryValue(&random)))
            }
            notes.append("query")
        }
        let target =
            path + (query.isEmpty ? "" : "?" + query.map { $0.0.isEmpty && $0.1.isEmpty ? "" : "\($0.0)=\($0.1)" }.joined(separator: "&"))

        var headers: [[String]] = []
        if random.chance(0.85) {
            if route.auth != .anonymous { headers.append(["Authorization", "Bearer \(route.auth.rawValue)"]) }
        } else {
            let (value, what) = oddAuthorization(&random)
            if let value { headers.append(["Authorization", value]) }
            notes.append("auth: \(what)")
        }

        var body: Data?
        var seed = route.seed(&random)
        if seed == nil && (route.bodyKind != .empty || random.chance(0.1)) {
            seed = FuzzJSON.object([("unexpected", .string("body"))])
        }
        if var json = seed {
            if random.chance(0.65) {
                for _ in 0..<random.int(in: 1...3) { json = FuzzMutator.mutate(json, &random, notes: &notes) }
            }
            var contentType = "application/json"
            if route.bodyKind == .fields && random.chance(0.4) {
                body = Data(formBody(json, &random, notes: &notes).utf8)
                contentType = "application/x-www-form-urlencoded"
            } else {
                body = Data(json.render().utf8)
            }
            if random.chance(0.08), let current = body {
                let (damaged, what) = FuzzMutator.damage(current, &random)
                body = damaged
                notes.append(what)
            }
            if random.chance(0.1) {
                contentType = random.pick([
                    "text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=utf-16",
                    "multipart/form-data; boundary=x",
                    "application/jsonx", "APPLICATION/JSON", "application/json;;;", "json", "*/*", "application/json\u{301}",
                ])
                notes.append("content-type \(contentType.debugDescription)")
            }
            if random.chance(0.9) || !contentType.isEmpty { headers.append(["Content-Type", contentType]) }
        }
        if random.chance(0.1) {
            headers += oddHeaders(&random)
            notes.append("odd headers")
        }
        return FuzzRequest(method: route.method, target: target, headers: headers, body: body, note: notes.joined(separator: "; "))
    }

    static func strayRequest(_ random: inout FuzzRandom) -> FuzzRequest {
        let route = random.pick(FuzzRoute.allCases)
        // Only methods the HTTP parser knows: an unknown one is refused before any route runs.
        let method = random.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
        let path = random.pick([
            route.path.replacingOccurrences(of: "{{ID}}", with: "x"), "/", "/api", "/api/nothing",
            "/api/generalcontent/instance/search/extra",
            "/%2e%2e/%2e%2e/etc/passwd", "/api/" + FuzzValues.long("a", 4000),
        ])
        let body: Data? = random.chance(0.5) ? Data("{}".utf8) : nil
        let headers =
            body == nil
            ? [["Authorization", "Bearer {{APP}}"]] : [["Authorization", "Bearer {{APP}}"], ["Content-Type", "application/json"]]
        return FuzzRequest(method: method, target: path, headers: headers, body: method == "HEAD" ? nil : body, note: "stray \(method)")
    }

    /// A query value: extreme numbers, odd text, raw and percent-encoded bytes.
    static func queryValue(_ random: inout FuzzRandom) -> String {
        switch random.int(6) {
        case 0:
            return random.pick([
                "-1", "0", "1", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "4611686018427387904",
                "99999999999999999999", "1e300", "2147483648", "3037000500",
            ])
        case 1: return random.pick(["true", "false", "TRUE", "1", "yes", "", "null"])
        case 2: return random.pick(["%", "%zz", "%00", "%C3%28", "%ED%A0%80", "%FF%FE", "a%20b", "[]", "%5B%5D", "+", "=", "==", ";"])
        // Capped: a request head over the HTTP parser's limit (80 KB) is refused before any route runs.
        case 3: return percentEncode(String(FuzzValues.randomText(&random).prefix(2000)))
        case 4: return FuzzValues.long("9", random.pick([20, 400, 5000]))
        default: return percentEncode(random.pick(["{{INST:Articles}}", "favourites", "gone", "é", "\u{0}"]))
        }
    }

    static func percentEncode(_ text: String) -> String {
        // ASCII only: a raw non-ASCII byte in the request line is an HTTP parser matter, not a route's.
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~{}:")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func oddPathSegment(_ random: inout FuzzRandom) -> String {
        random.pick([
            "x", "0", "-1", "null", "%00", "%zz", "%20", "%2F", "..", "%2e%2e", FuzzValues.long("a", 5000), FuzzValues.long("0", 24),
            "ffffffffffffffffffffffff", "%F0%9F%98%80", "%ED%A0%80", "%C3%28", "'", "%27%3B--", "{{MOD:Articles}}", "{{INST:Articles}}",
            "{{DEV}}",
        ])
    }

    static func oddAuthorization(_ random: inout FuzzRandom) -> (String?, String) {
        let value: String? = random.pick([
            nil, "", "Bearer", "Bearer ", "Bearer  ", "bearer {{APP}}", "BEARER {{EDITOR}}", "Bearer {{APP}} extra", "Bearer {{APP}}x",
            "Basic ", "Basic !!!", "Basic " + Data("a:b".utf8).base64EncodedString(),
            "Basic " + Data("{{EDITOR_EMAIL}}:{{EDITOR_PASSWORD}}".utf8).base64EncodedString(),
            "Basic " + Data([0xFF, 0xFE, 0x3A]).base64EncodedString(), "Token abc", "Bearer " + FuzzValues.long("x", 8000),
            "Bearer " + FuzzValues.long("x", 40_000), "Bearer é", "Bearer \u{301}", "Bearer {{USER}}", "Bearer {{EDITOR}}",
            "Bearer {{APP}}",
            "Bearer null", "Digest x", " ", "\t", "Bearer \t{{APP}}", "Bearer %00",
        ])
        return (value, value.map { String($0.prefix(30)).debugDescription } ?? "none")
    }

    static func oddHeaders(_ random: inout FuzzRandom) -> [[String]] {
        switch random.int(6) {
        case 0: return [["X-Fuzz", FuzzValues.long("h", random.pick([1000, 16_000]))]]
        case 1: return (0..<random.int(in: 10...150)).map { ["X-Fuzz-\($0)", "v"] }
        case 2: return [["Authorization", "Bearer {{APP}}"], ["Authorization", "Bearer {{EDITOR}}"]]
        case 3: return [["to-cache", "true"], ["Accept", "text/html"], ["Accept-Encoding", "gzip, br"]]
        case 4: return [["Content-Type", "application/json"], ["Content-Type", "text/plain"]]
        default: return [["X-Forwarded-For", "1.2.3.4"], ["Expect", "100-continue"], ["Accept-Language", "é"]]
        }
    }

    /// The seed's top-level pairs as a form body, sometimes with form-level oddities.
    static func formBody(_ json: FuzzJSON, _ random: inout FuzzRandom, notes: inout [String]) -> String {
        guard case .object(let pairs) = json else { return json.render() }
        var parts = pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1.formText))" }
        if random.chance(0.3) {
            let odd = random.pick([
                "%zz", "&&&", "=", "key", "=value", "a=%", "a=%00", "grant_type=%ED%A0%80", "a=" + FuzzValues.long("b", 60_000), "+=+",
            ])
            parts.insert(odd, at: random.int(parts.count + 1))
            notes.append("form oddity \(odd.prefix(20))")
        }
        return parts.joined(separator: "&")
    }
}
