import Foundation

/// Every route of Sources/HaloServer/Routes, with valid seed bodies and the query keys it reads.
///
/// Placeholders the harness fills in per run: `{{APP}}`, `{{EDITOR}}`, `{{USER}}` (access tokens),
/// `{{REFRESH}}` (the app's refresh token), `{{CLIENT_ID}}`, `{{CLIENT_SECRET}}`, `{{EDITOR_EMAIL}}`,
/// `{{EDITOR_PASSWORD}}`, `{{USER_EMAIL}}`, `{{MOD:<name>}}` (module ids of the demo workspace),
/// `{{INST:<module name>}}` (an instance of it), `{{DEV}}` (a device id), `{{FOREIGN}}` (a token of
/// another app client).
enum FuzzRoute: CaseIterable {
    case token, version, versionCurrent, deviceCreate, deviceGet, deviceUpdate, register, login, pocketGet, pocketPut
    case push, moduleList, moduleGet, search, instanceCreate, instanceUpdate, instanceDelete, batch, sync

    enum BodyKind { case empty, json, fields }
    enum Auth: String { case app = "{{APP}}", editor = "{{EDITOR}}", user = "{{USER}}", anonymous = "" }

    static let moduleNames = ["Articles", "Authors", "Events", "Products", "Translations"]

    var method: String {
        switch self {
        case .version, .versionCurrent, .deviceGet, .pocketGet, .moduleList, .moduleGet: return "GET"
        case .deviceUpdate, .pocketPut, .instanceUpdate: return "PUT"
        case .instanceDelete: return "DELETE"
        default: return "POST"
        }
    }

    /// The path; `{{ID}}` marks the path parameter.
    var path: String {
        switch self {
        case .token: return "/api/oauth/token"
        case .version: return "/api/authentication/version"
        case .versionCurrent: return "/api/authentication/version/current"
        case .deviceCreate: return "/api/segmentation/appuser"
        case .deviceGet, .deviceUpdate: return "/api/segmentation/appuser/{{ID}}"
        case .register: return "/api/segmentation/identified/register"
        case .login: return "/api/segmentation/identified/login"
        case .pocketGet: return "/api/segmentation/identified-pocket/self"
        case .pocketPut: return "/api/segmentation/identified-pocket"
        case .push: return "/api/push/schedule/activity"
        case .moduleList: return "/api/generalcontent/module"
        case .moduleGet: return "/api/generalcontent/module/{{ID}}"
        case .search: return "/api/generalcontent/instance/search"
        case .instanceCreate: return "/api/generalcontent/instance"
        case .instanceUpdate, .instanceDelete: return "/api/generalcontent/instance/{{ID}}"
        case .batch: return "/api/generalcontent/instance/batch"
        case .sync: return "/api/generalcontent/instance/sync"
        }
    }

    var bodyKind: BodyKind {
        switch self {
        case .token, .login, .push: return .fields
        case .deviceCreate, .deviceUpdate, .register, .pocketPut, .search, .instanceCreate, .instanceUpdate, .batch, .sync:
            return .json
        default: return .empty
        }
    }

    var auth: Auth {
        switch self {
        case .token, .login: return .anonymous
        case .pocketGet, .pocketPut: return .user
        case .instanceCreate, .instanceUpdate, .instanceDelete, .batch: return .editor
        default: return .app
        }
    }

    var queryKeys: [String] {
        switch self {
        case .token: return ["_app", "_user"]
        case .moduleList: return ["skip", "withFields", "page", "limit"]
        case .pocketGet: return ["filterReferences[]", "filterReferences%5B%5D", "filterReferences"]
        default: return ["limit", "page", "skip"]
        }
    }

    func validId(_ random: inout FuzzRandom) -> String {
        switch self {
        case .deviceGet, .deviceUpdate: return "{{DEV}}"
        case .moduleGet: return "{{MOD:\(random.pick(Self.moduleNames))}}"
        default: return "{{INST:\(random.pick(Self.moduleNames))}}"
        }
    }

    // MARK: Seeds

    func seed(_ random: inout FuzzRandom) -> FuzzJSON? {
        switch self {
        case .token:
            switch random.int(3) {
            case 0:
                return .object([
                    ("grant_type", .string("client_credentials")), ("client_id", .string("{{CLIENT_ID}}")),
                    ("client_secret", .string("{{CLIENT_SECRET}}")),
                ])
            case 1:
                return .object([
                    ("grant_type", .string("refresh_token")), ("client_id", .string("{{CLIENT_ID}}")),
                    ("client_secret", .string("{{CLIENT_SECRET}}")), ("refresh_token", .string("{{REFRESH}}")),
                ])
            default:
                return .object([
                    ("grant_type", .string("password")), ("username", .string("{{EDITOR_EMAIL}}")),
                    ("password", .string("{{EDITOR_PASSWORD}}")),
                ])
            }
        case .deviceCreate, .deviceUpdate:
            var pairs: [(String, FuzzJSON)] = []
            if random.chance(0.7) { pairs.append(("alias", .string("fuzz-\(random.int(1_000_000))"))) }
            if random.chance(0.5) { pairs.append(("appId", .number("1"))) }
            if random.chance(0.5) { pairs.append(("email", .string("device\(random.int(1000))@example.com"))) }
            if random.chance(0.6) {
                pairs.append(
                    (
                        "devices",
                        .array([
                            .object([
                                ("platform", .string(random.pick(["android", "ios", "web"]))),
                                ("token", .string("token-\(random.int(1000))")),
                            ])
                        ])
                    ))
            }
            if random.chance(0.6) { pairs.append(("tags", .array([Self.tag(&random), Self.tag(&random)]))) }
            if random.chance(0.3) { pairs.append(("replaceTokens", .bool(random.chance(0.5)))) }
            if random.chance(0.2) { pairs.append(("createdAt", .number("1700000000000"))) }
            return .object(pairs)
        case .register:
            let email = FuzzJSON.string("fuzz\(random.int(1_000_000_000))@example.com")
            return .object([
                (
                    "auth",
                    .object([
                        ("email", email), ("password", .string("secret-password")),
                        ("network", .string(random.pick(["halo", "halo", "google", "facebook", ""]))), ("deviceId", .string("")),
                        ("token", .string("social")),
                    ])
                ),
                (
                    "profile",
                    .object([
                        ("name", .string("Fuzz")), ("surname", .string("Er")), ("displayName", .string("Fuzz Er")),
                        ("photoUrl", .string("")), ("email", email),
                    ])
                ),
            ])
        case .login:
            return .object([
                ("email", .string("{{USER_EMAIL}}")), ("password", .string("secret-password")),
                ("network", .string(random.pick(["halo", "halo", "google", "facebook", "", "myspace"]))),
                ("deviceId", .string(random.chance(0.5) ? "" : "fuzz-alias")),
                ("token", .string("social-token")),
            ])
        case .pocketPut:
            var pairs: [(String, FuzzJSON)] = []
            if random.chance(0.8) {
                pairs.append(
                    (
                        "references",
                        .object([
                            ("favourites", .array([.string("{{INST:Articles}}"), .string("{{INST:Products}}")])), ("gone", .null),
                            ("empty", .array([])),
                        ])
                    ))
            }
            if random.chance(0.8) {
                pairs.append(
                    (
                        "data",
                        .object([("theme", .string("dark")), ("count", .number("3")), ("nested", .object([("a", .array([.number("1")]))]))])
                    ))
            }
            return .object(pairs)
        case .push:
            return .object([
                ("device", .string("{{DEV}}")), ("schedule", .string("schedule-\(random.int(100))")),
                ("action", .string(random.pick(["receipt", "open", "dismiss", "click"]))),
                ("platform", .string(random.pick(["android", "ios"]))),
            ])
        case .search: return Self.searchSeed(&random)
        case .instanceCreate, .instanceUpdate: return Self.instanceSeed(&random, withId: false)
        case .batch:
            var pairs: [(String, FuzzJSON)] = []
            if random.chance(0.6) {
                pairs.append(("created", .array((0..<random.int(in: 1...3)).map { _ in Self.instanceSeed(&random, withId: false) })))
            }
            if random.chance(0.4) { pairs.append(("updated", .array([Self.instanceSeed(&random, withId: true)]))) }
            if random.chance(0.4) { pairs.append(("createdOrUpdated", .array([Self.instanceSeed(&random, withId: random.chance(0.5))]))) }
            if random.chance(0.3) {
                pairs.append(
                    (
                        "deleted",
                        .array([.object([("id", .string(random.chance(0.2) ? "{{INST:Translations}}" : "0123456789abcdef01234567"))])])
                    ))
            }
            if random.chance(0.1) {
                // Truncating a real module empties it for the rest of the run: only the small one, rarely.
                let module = random.chance(0.2) ? "{{MOD:Translations}}" : "0123456789abcdef01234567"
                pairs.append((random.chance(0.5) ? "truncate" : "truncated", .array([.object([("module", .string(module))])])))
            }
            return .object(pairs)
        case .sync: return Self.syncSeed(&random)
        default: return nil
        }
    }

    static func tag(_ random: inout FuzzRandom) -> FuzzJSON {
        var pairs: [(String, FuzzJSON)] = [
            ("name", .string(random.pick(["Platform Name", "Spain", "fuzz"]))), ("value", .string(random.pick(["ios", "ES", "x", ""]))),
        ]
        if random.chance(0.5) { pairs.append(("tagType", .string("000000000000000000000001"))) }
        if random.chance(0.3) { pairs.append(("id", .string("tag-\(random.int(100))"))) }
        return .object(pairs)
    }

    static func values(module: String, _ random: inout FuzzRandom) -> FuzzJSON {
        let stamp = FuzzJSON.number(String(1_700_000_000_000 + Int64(random.int(100_000_000))))
        // Products.releaseDate is date-only: 00:00 UTC of a day.
        let day = FuzzJSON.number(String((19_700 + Int64(random.int(1000))) * 86_400_000))
        switch module {
        case "Articles":
            return .object([
                ("title", .object([("en-US", .string("Hello")), ("es-ES", .string("Hola"))])), ("summary", .string("s")),
                ("body", .string("<p>b</p>")),
                ("cover", .string("https://example.com/a.png")), ("link", .string("https://example.com")),
                ("video", .string("https://youtube.com/watch?v=x")),
                ("author", .string("{{INST:Authors}}")), ("related", .array([.string("{{INST:Articles}}")])),
                ("topics", .array([.string("design")])),
                ("category", .string("news")), ("featured", .bool(true)),
            ])
        case "Authors":
            return .object([("name", .string("A B")), ("bio", .string("<p>x</p>")), ("photo", .string("https://example.com/p.jpg"))])
        case "Events":
            return .object([
                ("name", .string("Meetup")), ("starts", stamp), ("doors", stamp), ("venue", .string("Hall")),
                ("poster", .string("https://example.com/e.png")),
                ("description", .object([("en-US", .string("d"))])), ("speakers", .array([.string("{{INST:Authors}}")])),
            ])
        case "Products":
            return .object([
                ("title", .string("Lamp")), ("price", .number("12.5")), ("inStock", .bool(true)), ("color", .string("#ff0000")),
                ("specs", .object([("w", .number("3"))])), ("sizes", .array([.string("a")])), ("size", .string("M")),
                ("features", .array([.string("wireless")])), ("manual", .string("https://example.com/m.mp4")),
                ("jingle", .string("https://example.com/j.mp3")), ("releaseDate", day),
            ])
        default:
            return .object([("key", .string("k\(random.int(1000))")), ("value", .object([("en-US", .string("v"))]))])
        }
    }

    static func instanceSeed(_ random: inout FuzzRandom, withId: Bool) -> FuzzJSON {
        let module = random.pick(moduleNames)
        var pairs: [(String, FuzzJSON)] = [
            ("module", .string("{{MOD:\(module)}}")), ("name", .string("fuzz \(random.int(10_000))")),
            ("values", values(module: module, &random)),
        ]
        if withId { pairs.insert(("id", .string("{{INST:\(module)}}")), at: 0) }
        if random.chance(0.4) { pairs.append(("tags", .array([tag(&random)]))) }
        if random.chance(0.4) { pairs.append(("publishedAt", .number("1700000000000"))) }
        if random.chance(0.2) {
            pairs.append((random.pick(["removedAt", "archivedAt", "deletedAt", "createdAt", "updatedAt"]), .number("1700000000000.7")))
        }
        if random.chance(0.2) { pairs.append(("customerId", .number("1"))) }
        if random.chance(0.2) { pairs.append(("revision", .number("0"))) }
        if random.chance(0.1) { pairs.append(("pushSchedule", .object([]))) }
        return .object(pairs)
    }

    static let sorts: [String] = [
        ",", ",,", " , ", " ", "name", "name asc", "name asc,", ",name asc", "name asc desc", "bogus", "NAME ASC", "createdAt DESC",
        "name  desc", "name\tasc", "updatedAt desc,name asc", "values.title asc", "id asc", "name sideways", "name asc,,createdAt desc",
    ]

    static func sort(_ random: inout FuzzRandom) -> String {
        switch random.int(6) {
        case 0: return Array(repeating: "name asc", count: 5000).joined(separator: ",")
        case 1: return String(repeating: ",", count: random.pick([2, 100, 5000]))
        case 2:
            return (0..<random.int(in: 2...40)).map { _ in
                random.pick(["name", "createdAt", "updatedAt", "publishedAt", "createdBy"]) + random.pick([" asc", " desc", ""])
            }.joined(separator: ",")
        default: return random.pick(sorts)
        }
    }

    static let metaProperties = [
        "name", "id", "module", "createdAt", "updatedAt", "publishedAt", "removedAt", "archivedAt", "deletedAt", "createdBy", "updatedBy",
        "deletedBy", "bogus", "",
    ]
    static let valueProperties = [
        "title", "price", "name", "starts", "featured", "topics", "category", "author", "related", "values.title", "specs", "", "x.y",
    ]
    static let operations = ["=", "!=", ">", "<", ">=", "<=", "in", "!in", "like"]
    static let oddOperations = ["LIKE", "==", "", "contains"]

    static func likeValue(_ random: inout FuzzRandom) -> FuzzJSON {
        .string(
            random.pick([
                "%", "_", "%a%", "a%b_c", "\\%", "%%", FuzzValues.long("%", 60_000), FuzzValues.long("%_", 30_000),
                FuzzValues.long("a", 60_000),
                FuzzValues.long("%a", 25_000) + "b", "[a-z]*", "é%", "",
            ]))
    }

    static func filterLeaf(meta: Bool, _ random: inout FuzzRandom) -> FuzzJSON {
        let operation = random.chance(0.9) ? random.pick(operations) : random.pick(oddOperations)
        let value: FuzzJSON
        switch operation {
        case "like", "LIKE": value = likeValue(&random)
        case "in", "!in":
            let count = random.pick([0, 1, 3, 1000, 40_000])
            value = .array((0..<count).map { FuzzJSON.string("v\($0)") })
        default:
            value = random.pick([
                .string("Hello"), .number("12"), .number("1e300"), .number("1700000000000"), .bool(true), .null,
                .string("2024-01-01T00:00:00Z"), .array([.string("a")]), .string("{{INST:Authors}}"),
            ])
        }
        var pairs: [(String, FuzzJSON)] = [
            ("operation", .string(operation)), ("property", .string(random.pick(meta ? metaProperties : valueProperties))),
            ("value", value),
        ]
        if random.chance(0.7) {
            let types = random.chance(0.9) ? ["string", "number", "date", "null"] : ["boolean", "array", "", "object"]
            pairs.append(("type", .string(random.pick(types))))
        }
        return .object(pairs)
    }

    static func filter(meta: Bool, depth: Int, _ random: inout FuzzRandom) -> FuzzJSON {
        if depth <= 0 || random.chance(0.3) { return filterLeaf(meta: meta, &random) }
        let operands = (0..<random.int(in: 0...3)).map { _ in filter(meta: meta, depth: depth - 1, &random) }
        return .object([
            ("condition", .string(random.chance(0.95) ? random.pick(["and", "or"]) : random.pick(["xor", "", "AND"]))),
            ("operands", .array(operands)),
        ])
    }

    /// A condition chain `depth` deep (rendered as text: fast at any depth).
    static func deepFilter(depth: Int, _ random: inout FuzzRandom) -> FuzzJSON {
        let leaf = filterLeaf(meta: false, &random).render()
        let open = String(repeating: "{\"condition\":\"and\",\"operands\":[", count: depth)
        return .raw(open + leaf + String(repeating: "]}", count: depth))
    }

    static func searchSeed(_ random: inout FuzzRandom) -> FuzzJSON {
        var pairs: [(String, FuzzJSON)] = []
        let module = random.pick(moduleNames)
        switch random.int(4) {
        case 0: pairs.append(("moduleName", .string(module)))
        case 1: pairs.append(("moduleIds", .array([.string("{{MOD:\(module)}}")])))
        case 2: pairs.append(("moduleNames", .array([.string(module), .string(random.pick(moduleNames))])))
        default: break
        }
        if random.chance(0.5) {
            pairs.append(
                (
                    "searchValues",
                    random.chance(0.1)
                        ? deepFilter(depth: random.pick([50, 200, 400, 511, 600]), &random) : filter(meta: false, depth: 3, &random)
                ))
        }
        if random.chance(0.4) { pairs.append(("metaSearch", filter(meta: true, depth: 3, &random))) }
        if random.chance(0.3) { pairs.append(("fields", .array([.string("title"), .string("values.price"), .string("")]))) }
        if random.chance(0.3) { pairs.append(("include", .array([.string(random.pick(["all", "author", "related", "bogus"]))]))) }
        if random.chance(0.6) {
            pairs.append(
                (
                    "pagination",
                    .object([
                        (
                            "page",
                            .number(
                                random.chance(0.7)
                                    ? random.pick(["1", "2", "3"])
                                    : random.pick(["0", "-1", "1000000", "99999999999", "4611686018427387904"]))
                        ),
                        (
                            "limit",
                            .number(
                                random.chance(0.7)
                                    ? random.pick(["10", "1", "100"]) : random.pick(["0", "-5", "999999999999", "4611686018427387904"]))
                        ),
                        ("skip", .bool(random.chance(0.2))),
                    ])
                ))
        }
        if random.chance(0.3) { pairs.append(("segmentTags", .array([tag(&random)]))) }
        if random.chance(0.3) {
            pairs.append(("segmentMode", .string(random.chance(0.9) ? random.pick(["partial", "total"]) : random.pick(["bogus", ""]))))
        }
        if random.chance(0.5) {
            pairs.append(
                (
                    "sort",
                    .string(random.chance(0.5) ? random.pick(["name asc", "createdAt desc", "updatedAt desc,name asc"]) : sort(&random))
                ))
        }
        if random.chance(0.3) {
            pairs.append(("locale", .string(random.pick(["en-US", "es-ES", "xx", "", FuzzValues.long("e", 10_000)]))))
        }
        if random.chance(0.2) { pairs.append(("instanceIds", .array([.string("{{INST:\(module)}}"), .string("nope")]))) }
        if random.chance(0.2) {
            pairs.append(
                (
                    "relatedTo",
                    .array([
                        .object([
                            ("fieldName", .string(random.pick(["author", "related", "speakers", "author", "bogus"]))),
                            ("instanceIds", .array([.string(random.pick(["*", "{{INST:Authors}}"]))])),
                        ])
                    ])
                ))
        }
        return .object(pairs)
    }

    static func syncSeed(_ random: inout FuzzRandom) -> FuzzJSON {
        var pairs: [(String, FuzzJSON)] = []
        let module = random.pick(moduleNames)
        if random.chance(0.6) { pairs.append(("moduleName", .string(random.chance(0.9) ? module : FuzzValues.randomText(&random)))) }
        if pairs.isEmpty || random.chance(0.3) { pairs.append(("moduleId", .string("{{MOD:\(module)}}"))) }
        if random.chance(0.5) {
            pairs.append(("locale", .string(random.pick(["en-US", "es-ES", "nl-NL", "xx", "", "en_US", FuzzValues.long("x", 60_000)]))))
        }
        let stamps: [FuzzJSON] = [
            .number("0"), .number("1700000000000"), .number("1700000000000.5"), .number("-1"), .number("1e300"), .number("9.3e18"),
            .number("-1e308"), .number("9223372036854775808"), .string("1700000000000"), .string("9.3e18"), .string("NaN"), .string(""),
            .null,
        ]
        // Mostly valid windows, so the streaming path runs; odd stamps otherwise.
        if random.chance(0.6) {
            pairs.append(("fromSync", random.chance(0.6) ? random.pick(Array(stamps.prefix(3))) : random.pick(stamps)))
        }
        if random.chance(0.3) { pairs.append(("toSync", random.chance(0.5) ? .number("4102444800000") : random.pick(stamps))) }
        return .object(pairs)
    }
}

extension FuzzRoute {
    /// The run's device (`{{DEV}}`, registered with `{{APP}}`) asked for with `{{FOREIGN}}`, a
    /// token of another app client: every read, update (a stream-secret renewal, with or without
    /// a secret header, a new alias, tags, push tokens, `appId`) and activity report is a 404
    /// (issue 45, docs/protocol.md §23.12).
    static func foreignDeviceRequest(_ random: inout FuzzRandom) -> FuzzRequest {
        let auth = ["Authorization", "Bearer {{FOREIGN}}"]
        let json = ["Content-Type", "application/json"]
        switch random.int(3) {
        case 0:
            return FuzzRequest(
                method: "GET", target: "/api/segmentation/appuser/{{DEV}}", headers: [auth], body: nil,
                note: "foreign client reads the device", expected: 404)
        case 1:
            var body = FuzzRoute.deviceUpdate.seed(&random) ?? .object([])
            if case .object(var pairs) = body {
                pairs.append(("renewEventStreamSecret", .bool(random.chance(0.7))))
                body = .object(pairs)
            }
            var headers = [auth, json]
            if random.chance(0.5) { headers.append(["X-Halo-Device-Secret", "guess-\(random.int(1000))"]) }
            return FuzzRequest(
                method: "PUT", target: "/api/segmentation/appuser/{{DEV}}", headers: headers, body: Data(body.render().utf8),
                note: "foreign client updates the device", expected: 404)
        default:
            let body = FuzzJSON.object([
                ("device", .string("fuzz-device")), ("schedule", .string("schedule-\(random.int(100))")),
                ("action", .string(random.pick(["receipt", "open", "dismiss"]))),
            ])
            return FuzzRequest(
                method: "POST", target: "/api/push/schedule/activity", headers: [auth, json], body: Data(body.render().utf8),
                note: "foreign client reports activity for the device", expected: 404)
        }
    }
}
