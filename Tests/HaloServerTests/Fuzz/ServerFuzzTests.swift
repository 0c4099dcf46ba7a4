import Foundation
import HaloServer
import HaloTestSupport
import XCTest

/// Bounded fuzzing of every route of a real `halo-server` process (a child process, so a crash
/// is observed, recorded and reported instead of taking the tests down with it).
///
/// First every input of the corpus (Tests/FuzzCorpus) is replayed, then random and mutated
/// requests are sent for `HALO_FUZZ_SECONDS` (default 5; `make fuzz` uses 120). A failure is a
/// 5xx answer (503 and 507 are allowed when they carry HALO's error envelope), an answer ≥ 400
/// that is not the envelope `{"error":{"status":…,"message":…}}`, or the server dying or no
/// longer answering. Every new failure is written to the corpus (one file per route, kind and
/// error) so it stays a regression test.
///
/// Environment: HALO_FUZZ_SECONDS, HALO_FUZZ_SEED (a number, or `random`; default 1, so `make
/// test` is reproducible), HALO_FUZZ_TIMEOUT (seconds per request, default 5),
/// HALO_FUZZ_RECORD=0 (do not write new corpus files).
final class ServerFuzzTests: XCTestCase {
    func testFuzzEveryRoute() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["HALO_FUZZ_SECONDS"].flatMap(Double.init) ?? 5
        let timeout = environment["HALO_FUZZ_TIMEOUT"].flatMap(Double.init) ?? 5
        let seed: UInt64
        switch environment["HALO_FUZZ_SEED"] {
        case "random"?: seed = UInt64.random(in: 1...UInt64(UInt32.max))
        case let text?: seed = UInt64(text) ?? 1
        case nil: seed = 1
        }
        let record = environment["HALO_FUZZ_RECORD"] != "0"

        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("halo-server")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("halo-server is not built next to the tests (\(binary.path)); run `swift build --build-tests`")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-fuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        // The demo workspace, an identified (non-editor) user, through the admin API.
        let admin = try await TestBackEnd.current.admin(for: directory)
        let demo = try await admin.seedDemo()
        let userEmail = "fuzz-user@example.com"
        try await admin.addUser(email: userEmail, password: "secret-password", name: "Fuzz", surname: "User")
        // Another app client, whose token must find none of the demo app's devices (§23.12).
        let foreign = try await admin.addClient(name: "Foreign app")

        let harness = FuzzHarness(
            child: FuzzChildServer(binary: binary, directory: directory), timeout: timeout, seed: seed, record: record)
        defer { harness.child.kill() }
        try harness.child.start()
        try harness.bootstrap(demo: demo, userEmail: userEmail, foreign: foreign)

        print("fuzz: seed \(seed), \(Int(seconds)) s, timeout \(timeout) s, server port \(harness.child.port)")
        // Replay without backtraces: known crashes end in milliseconds instead of seconds.
        let corpus = FuzzCorpus.load()
        if !corpus.isEmpty {
            harness.child.kill()
            harness.child.backtraces = false
            try harness.child.start()
            for entry in corpus {
                harness.send(entry.request, fromCorpus: true)
                if harness.stopped { break }
            }
            print("fuzz: replayed \(corpus.count) corpus entries")
            harness.child.kill()
            harness.child.backtraces = true
            try harness.child.start()
        }

        var random = FuzzRandom(seed: seed)
        let start = Date()
        var lastReport = start
        while Date().timeIntervalSince(start) < seconds && !harness.stopped {
            harness.send(FuzzGenerator.request(&random), fromCorpus: false)
            if Date().timeIntervalSince(lastReport) > 15 {
                lastReport = Date()
                print(
                    "fuzz: \(Int(lastReport.timeIntervalSince(start))) s, \(harness.sent) requests, \(harness.findings.count) distinct findings"
                )
            }
        }
        harness.child.kill()
        try? harness.keepServerLog()

        print(harness.summary(elapsed: Date().timeIntervalSince(start)))
        if harness.stopped { XCTFail("fuzz: the server could not be restarted; see test-artifacts/fuzz/") }
        if !harness.findings.isEmpty {
            let list = harness.findings.values.sorted { $0.route + $0.kind < $1.route + $1.kind }.map { finding in
                "  [\(finding.kind)] \(finding.route) ×\(finding.count)\(finding.fromCorpus ? " (corpus)" : ""): \(finding.signature)\n      input: \(finding.example.note.isEmpty ? "seed body" : finding.example.note)"
            }
            XCTFail(
                """
                fuzz found \(harness.findings.count) distinct problem(s) (seed \(seed); reproduce with HALO_FUZZ_SEED=\(seed) \
                HALO_FUZZ_SECONDS=\(Int(seconds))); inputs are in Tests/FuzzCorpus:
                \(list.joined(separator: "\n"))
                """)
        }
    }
}

/// The state of one fuzzing run: the child server, placeholder values, findings.
final class FuzzHarness {
    struct Finding {
        var kind: String
        var route: String
        var signature: String
        var example: FuzzRequest
        var count: Int
        var fromCorpus: Bool
    }

    let child: FuzzChildServer
    let timeout: TimeInterval
    let seed: UInt64
    let record: Bool
    /// HALO_FUZZ_VERBOSE=1: print every refusal (to see what the generator gets wrong).
    let verbose = ProcessInfo.processInfo.environment["HALO_FUZZ_VERBOSE"] == "1"
    private(set) var placeholders: [String: String] = [:]
    private(set) var findings: [String: Finding] = [:]
    private(set) var sent = 0
    private(set) var transportErrors = 0
    private(set) var restarts = 0
    private(set) var stopped = false
    private var statusCounts: [String: [Int: Int]] = [:]
    private var corpusKeys: Set<String>
    private var savedPerRouteKind: [String: Int] = [:]
    private var newFiles: [String] = []

    init(child: FuzzChildServer, timeout: TimeInterval, seed: UInt64, record: Bool) {
        self.child = child
        self.timeout = timeout
        self.seed = seed
        self.record = record
        let corpus = FuzzCorpus.load()
        corpusKeys = Set(corpus.map(\.key))
        for entry in corpus { savedPerRouteKind[entry.route + " " + entry.kind, default: 0] += 1 }
    }

    // MARK: Set-up

    /// Tokens and ids of this run, obtained over HTTP like any client would.
    func bootstrap(demo: DemoCredentials, userEmail: String, foreign: ClientCredentials? = nil) throws {
        placeholders["CLIENT_ID"] = demo.clientId
        placeholders["CLIENT_SECRET"] = demo.clientSecret
        placeholders["EDITOR_EMAIL"] = demo.editorEmail
        placeholders["EDITOR_PASSWORD"] = demo.editorPassword
        placeholders["USER_EMAIL"] = userEmail

        let form = [["Content-Type", "application/x-www-form-urlencoded"]]
        let credentials = "grant_type=client_credentials&client_id=\(demo.clientId)&client_secret=\(demo.clientSecret)"
        placeholders["APP"] = try string(json(call("POST", "/api/oauth/token?_app", form, credentials))["access_token"], "app token")
        if let foreign {
            let grant = "grant_type=client_credentials&client_id=\(foreign.clientId)&client_secret=\(foreign.clientSecret)"
            placeholders["FOREIGN"] = try string(json(call("POST", "/api/oauth/token?_app", form, grant))["access_token"], "foreign token")
        }
        // A token of its own: refreshing revokes the access token it was issued with.
        placeholders["REFRESH"] = try string(
            json(call("POST", "/api/oauth/token?_app", form, credentials))["refresh_token"], "refresh token")
        let editor = try json(
            call(
                "POST", "/api/oauth/token?_user", [["Content-Type", "application/x-www-form-urlencoded"]],
                "grant_type=password&username=\(FuzzGenerator.percentEncode(demo.editorEmail))&password=\(FuzzGenerator.percentEncode(demo.editorPassword))"
            ))
        placeholders["EDITOR"] = try string(editor["access_token"], "editor token")
        let login = try json(
            call(
                "POST", "/api/segmentation/identified/login", [["Content-Type", "application/json"]],
                #"{"email":"\#(userEmail)","password":"secret-password","network":"halo","deviceId":""}"#))
        placeholders["USER"] = try string((login["token"] as? [String: Any])?["access_token"], "user token")

        let bearer = [["Authorization", "Bearer \(placeholders["APP"] ?? "")"], ["Content-Type", "application/json"]]
        let modules =
            try JSONSerialization.jsonObject(with: call("GET", "/api/generalcontent/module?skip=true", bearer, nil).body)
            as? [[String: Any]] ?? []
        for module in modules {
            guard let id = module["id"] as? String, let name = module["name"] as? String else { continue }
            placeholders["MOD:\(name)"] = id
            let page = try json(
                call(
                    "POST", "/api/generalcontent/instance/search", bearer,
                    #"{"moduleIds":["\#(id)"],"pagination":{"page":1,"limit":1}}"#))
            let items = page["items"] as? [[String: Any]] ?? []
            placeholders["INST:\(name)"] = items.first?["id"] as? String ?? "000000000000000000000000"
        }
        for name in FuzzRoute.moduleNames where placeholders["MOD:\(name)"] == nil {
            throw NSError(domain: "fuzz", code: 2, userInfo: [NSLocalizedDescriptionKey: "demo module \(name) missing: \(modules)"])
        }
        let device = try json(call("POST", "/api/segmentation/appuser", bearer, #"{"alias":"fuzz-device"}"#))
        placeholders["DEV"] = try string(device["id"], "device id")
    }

    private func call(_ method: String, _ target: String, _ headers: [[String]], _ body: String?) throws -> FuzzAnswer {
        try RawHTTP.send(port: child.port, method: method, target: target, headers: headers, body: body.map { Data($0.utf8) }, timeout: 30)
            .get()
    }

    private func json(_ answer: FuzzAnswer) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
            throw NSError(
                domain: "fuzz", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "not an object: \(String(decoding: answer.body, as: UTF8.self))"])
        }
        return object
    }

    private func string(_ value: Any?, _ what: String) throws -> String {
        guard let text = value as? String, !text.isEmpty else {
            throw NSError(domain: "fuzz", code: 1, userInfo: [NSLocalizedDescriptionKey: "no \(what)"])
        }
        return text
    }

    // MARK: One request

    func send(_ template: FuzzRequest, fromCorpus: Bool) {
        let request = substituted(template)
        FuzzCorpus.writeLastRequest(template, sent: request)
        sent += 1
        let result = RawHTTP.send(
            port: child.port, method: request.method, target: request.target, headers: request.headers, body: request.body, timeout: timeout
        )
        switch result {
        case .success(let answer):
            statusCounts[template.route, default: [:]][answer.status, default: 0] += 1
            if verbose && answer.status >= 400 {
                print("fuzz: \(template.route) \(answer.status) \(String(decoding: answer.body.prefix(160), as: UTF8.self))")
            }
            if let expected = template.expected, answer.status != expected, answer.status < 500 || answer.status == 503 {
                let message =
                    ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])
                    .flatMap { ($0["error"] as? [String: Any])?["message"] as? String } ?? ""
                found(
                    "wrong-status", signature: "expected \(expected), got \(answer.status): " + Self.normalized(message), template,
                    observed: "HTTP \(answer.status): \(String(decoding: answer.body.prefix(600), as: UTF8.self))", fromCorpus: fromCorpus)
            } else if let problem = Self.problem(answer, method: request.method) {
                let (kind, signature) = problem
                let log = child.takeLog()
                let logged = Self.loggedError(log)
                let observed =
                    "HTTP \(answer.status): \(String(decoding: answer.body.prefix(600), as: UTF8.self))"
                    + (logged.map { "\nserver log: \($0)" } ?? "")
                found(kind, signature: logged.map(Self.normalized) ?? signature, template, observed: observed, fromCorpus: fromCorpus)
            }
        case .failure(let error):
            transportErrors += 1
            statusCounts[template.route, default: [:]][0, default: 0] += 1
            // A trapping server first prints its fatal error, then the runtime's backtracer
            // symbolicates for a few seconds before the process ends: wait for it.
            let dying = child.peekLog().contains("Fatal error") || child.peekLog().contains("Backtracing")
            if !child.isRunning(grace: dying ? 60 : 1) {
                let log = child.takeLog()
                let fatal = Self.fatalLine(log)
                let frame = Self.firstOwnFrame(log)
                // The frame is only known with backtraces on (not during replay): kept out of the key.
                let signature = Self.normalized(fatal ?? child.terminationDescription)
                let observed =
                    "\(error); server \(child.terminationDescription)\n\(fatal ?? "")\n\(frame.map { "first frame of ours: \($0)" } ?? "")"
                found("crash", signature: signature, template, observed: observed, fromCorpus: fromCorpus, detail: frame.map { "in \($0)" })
                restart()
            } else if !isAlive() {
                found(
                    "hang", signature: "no answer to the version check after: \(error)", template, observed: "\(error)",
                    fromCorpus: fromCorpus)
                child.kill()
                restart()
            }
        }
    }

    /// The version endpoint still answers (any HTTP answer will do), with one retry.
    func isAlive() -> Bool {
        for _ in 0..<2 {
            let probe = RawHTTP.send(
                port: child.port, method: "GET", target: "/api/authentication/version?version=fuzz",
                headers: [["Authorization", "Bearer \(placeholders["APP"] ?? "")"]], body: nil, timeout: timeout)
            if case .success = probe { return true }
            if !child.isRunning() { return false }
        }
        return false
    }

    private func restart() {
        restarts += 1
        do {
            try child.start()
        } catch {
            print("fuzz: restart failed: \(error)")
            stopped = true
        }
    }

    private func found(
        _ kind: String, signature: String, _ request: FuzzRequest, observed: String, fromCorpus: Bool, detail: String? = nil
    ) {
        let key = "\(request.route) \(kind) \(signature)"
        if var existing = findings[key] {
            existing.count += 1
            findings[key] = existing
            return
        }
        findings[key] = Finding(kind: kind, route: request.route, signature: signature, example: request, count: 1, fromCorpus: fromCorpus)
        print("fuzz: [\(kind)] \(request.route): \(signature)\(detail.map { " " + $0 } ?? "")\n      input: \(request.note)")
        // Replayed entries are in the corpus already; at most 5 distinct problems per route and kind.
        let routeKind = request.route + " " + kind
        guard record, !fromCorpus, !corpusKeys.contains(key), savedPerRouteKind[routeKind, default: 0] < 5 else { return }
        do {
            let file = try FuzzCorpus.save(FuzzCorpus.entry(for: request, key: key, kind: kind, observed: observed, seed: String(seed)))
            corpusKeys.insert(key)
            savedPerRouteKind[routeKind, default: 0] += 1
            newFiles.append(file.lastPathComponent)
        } catch {
            print("fuzz: could not save a corpus entry: \(error)")
        }
    }

    // MARK: Judging answers

    /// nil when the answer is acceptable; otherwise the kind of problem and a signature.
    static func problem(_ answer: FuzzAnswer, method: String) -> (String, String)? {
        guard answer.status >= 400 else { return nil }
        // An answer to HEAD never has a body, so it cannot carry the envelope.
        guard method == "HEAD" || isEnvelope(answer.body, status: answer.status) else {
            let text = String(decoding: answer.body.prefix(80), as: UTF8.self)
            return ("non-envelope", "status \(answer.status): " + normalized(text))
        }
        if answer.status >= 500 && answer.status != 503 && answer.status != 507 {
            let message =
                ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])
                .flatMap { ($0["error"] as? [String: Any])?["message"] as? String } ?? ""
            return (String(answer.status), normalized(message))
        }
        return nil
    }

    /// `{"error":{"status":<the HTTP status>,"message":"…",…}}`.
    static func isEnvelope(_ body: Data, status: Int) -> Bool {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let error = object["error"] as? [String: Any], let message = error["message"] as? String, !message.isEmpty,
            let code = error["status"] as? NSNumber
        else { return false }
        return code.intValue == status
    }

    /// The runtime's fatal error line, e.g. `Fatal error: Double value cannot be converted to Int64…`.
    static func fatalLine(_ log: String) -> String? {
        let lines = log.split(separator: "\n").map(String.init)
        if let line = lines.first(where: { $0.contains("Fatal error") || $0.contains("fatal error") || $0.contains("Precondition failed") })
        {
            // Drop the leading source location (`Swift/Integers.swift:3048: `).
            if let range = line.range(of: "Fatal error") ?? line.range(of: "fatal error") ?? line.range(of: "Precondition failed") {
                let location = line[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
                return String(line[range.lowerBound...])
                    + (location.isEmpty ? "" : " (at \(location.trimmingCharacters(in: CharacterSet(charactersIn: ": "))))")
            }
            return line
        }
        return lines.first { $0.contains("Crash") || $0.contains("Segmentation") || $0.contains("Illegal") }
    }

    /// `optionalString(_:) (RequestInput.swift)`: the first backtrace frame in Sources/ (not a dependency).
    static func firstOwnFrame(_ log: String) -> String? {
        for line in log.split(separator: "\n") where line.contains("/Sources/") && !line.contains("/.build/") {
            guard let at = line.range(of: " at /", options: .backwards) else { continue }
            let location = line[at.upperBound...]
            let file = location.split(separator: "/").last.map { last in String(last.prefix { $0 != ":" }) } ?? ""
            // "  2 [ra]   0x… Dictionary<>.optionalString(_:) + 1789 in halo-server at …"
            var symbol = String(line[..<at.lowerBound])
            if let address = symbol.range(of: "0x") {
                symbol = String(symbol[address.upperBound...].drop { $0.isHexDigit }).trimmingCharacters(in: .whitespaces)
            }
            if let plus = symbol.range(of: " + ", options: .backwards) { symbol = String(symbol[..<plus.lowerBound]) }
            if let inRange = symbol.range(of: " in ", options: .backwards), symbol[inRange.upperBound...].contains("halo-server") {
                symbol = String(symbol[..<inRange.lowerBound])
            }
            return "\(symbol) (\(file))"
        }
        return nil
    }

    /// What the server logged for a 5xx (`… failed: <error>`).
    static func loggedError(_ log: String) -> String? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains(" failed: ") }),
            let range = line.range(of: " failed: ")
        else { return nil }
        return String(line[range.upperBound...])
    }

    /// Digits and long hex ids collapsed, so one problem gets one signature whatever the input.
    static func normalized(_ text: String) -> String {
        var out = ""
        var lastWasDigit = false
        for character in text.prefix(400) {
            if character.isNumber {
                if !lastWasDigit { out.append("#") }
                lastWasDigit = true
            } else {
                out.append(character)
                lastWasDigit = false
            }
        }
        return String(out.prefix(160))
    }

    // MARK: Placeholders

    func substituted(_ request: FuzzRequest) -> FuzzRequest {
        var copy = request
        copy.target = substitute(request.target)
        copy.headers = request.headers.map { header in header.map { self.substitute($0) } }
        if let body = request.body, body.range(of: Data("{{".utf8)) != nil {
            copy.body = Data(substituteBytes(Array(body)))
        }
        return copy
    }

    func substitute(_ text: String) -> String {
        guard text.contains("{{") else { return text }
        return String(decoding: substituteBytes(Array(text.utf8)), as: UTF8.self)
    }

    /// Replaces every known `{{NAME}}`; unknown ones stay as they are.
    func substituteBytes(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 123, index + 1 < bytes.count, bytes[index + 1] == 123,
                let end = RawHTTP.find([125, 125], in: bytes, from: index + 2), end - index < 64
            {
                let name = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
                if let value = placeholders[name] {
                    out += Array(value.utf8)
                    index = end + 2
                    continue
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }

    // MARK: Reporting

    func keepServerLog() throws {
        let target = FuzzCorpus.lastRequestFile.deletingLastPathComponent().appendingPathComponent("server-stderr.log")
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: child.logFile, to: target)
    }

    func summary(elapsed: TimeInterval) -> String {
        var lines = [
            "fuzz: \(sent) requests in \(String(format: "%.1f", elapsed)) s (seed \(seed)), \(transportErrors) without answer, \(restarts) restarts, \(findings.count) distinct findings"
        ]
        for (route, counts) in statusCounts.sorted(by: { $0.key < $1.key }) {
            let text = counts.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "none" : String($0.key))×\($0.value)" }.joined(
                separator: " ")
            lines.append("  \(route): \(text)")
        }
        if !newFiles.isEmpty { lines.append("fuzz: new corpus entries: \(newFiles.joined(separator: ", "))") }
        return lines.joined(separator: "\n")
    }
}
