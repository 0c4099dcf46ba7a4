import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One check for every string a request carries (issue 45, holes 4 and 5), against a
/// `halo-server` child process on the tests' back end (`HALO_TEST_BACKEND`: SQLite, or PostgreSQL
/// in the second pass): U+0000 and invalid UTF-8 anywhere (JSON values and names, form fields,
/// query parameters, path ids, the headers the server reads) are a 400 naming where, never a
/// 5xx, a dropped database connection or a string stored altered.
final class RequestStringsTests: XCTestCase {
    var server: ChildFixture!

    override func setUp() async throws {
        server = try await ChildFixture.start()
    }

    override func tearDown() async throws { server.stop() }

    /// Hole 4: on PostgreSQL a U+0000 in a search string dropped the database connection (503,
    /// 08P01) or answered 500 (22P05); SQLite answered 200. Every position of a search is now a
    /// 400 naming the key path, the same on both, 200 times in a row (no connection lost), and
    /// the server answers normally after.
    func testNULInEverySearchStringIsA400OnEveryBackEnd() async throws {
        let module = #""moduleName":"Strings""#
        let cases: [(body: String, keyPath: String)] = [
            (#"{\#(module),"searchValues":{"property":"title","operation":"=","value":"a\u0000"}}"#, "$.searchValues.value"),
            (#"{\#(module),"searchValues":{"property":"title","operation":"!=","value":"\u0000"}}"#, "$.searchValues.value"),
            (#"{\#(module),"searchValues":{"property":"title","operation":"like","value":"ab\u0000c"}}"#, "$.searchValues.value"),
            (#"{\#(module),"searchValues":{"property":"title","operation":"in","value":["x","\u0000"]}}"#, "$.searchValues.value[1]"),
            (#"{\#(module),"searchValues":{"property":"title","operation":"!in","value":["\u0000"]}}"#, "$.searchValues.value[0]"),
            (#"{\#(module),"searchValues":{"property":"title","operation":">","value":"\u0000"}}"#, "$.searchValues.value"),
            (#"{\#(module),"searchValues":{"property":"ti\u0000tle","operation":"=","value":"x"}}"#, "$.searchValues.property"),
            (#"{\#(module),"instanceIds":["a\u0000b"]}"#, "$.instanceIds[0]"),
            (#"{\#(module),"sort":"name\u0000 asc"}"#, "$.sort"),
            (#"{\#(module),"metaSearch":{"property":"name","operation":"=","value":"\u0000"}}"#, "$.metaSearch.value"),
            (#"{\#(module),"metaSearch":{"property":"createdBy","operation":"like","value":"bo\u0000"}}"#, "$.metaSearch.value"),
            (#"{"moduleName":"Str\u0000ings"}"#, "$.moduleName"),
            (#"{\#(module),"segmentTags":[{"name":"country","value":"\u0000"}]}"#, "$.segmentTags[0].value"),
            (#"{\#(module),"relatedTo":[{"fieldName":"title","instanceIds":["\u0000"]}]}"#, "$.relatedTo[0].instanceIds[0]"),
            (
                #"{\#(module),"searchValues":{"condition":"and","operands":[{"property":"title","operation":"=","value":"\u0000"}]}}"#,
                "$.searchValues.operands[0].value"
            ),
            (#"{\#(module),"a\u0000":1}"#, "$"),
        ]
        for round in 0..<13 {
            for (body, keyPath) in cases {
                let answer = try await server.raw("POST", "/api/generalcontent/instance/search", json: Array(body.utf8))
                let message = assertEnvelope(answer.http, status: 400)
                if round == 0 {
                    XCTAssertTrue(message.contains("U+0000"), "\(body): \(message)")
                    XCTAssertEqual(answer.http.json["error"]?["extra"]?["keyPath"]?.stringValue, keyPath, body)
                    let offset = Array(body.utf8).firstRange(of: Array(#"\u0000"#.utf8))?.lowerBound
                    XCTAssertEqual(answer.http.json["error"]?["extra"]?["byteOffset"]?.int64Value, offset.map(Int64.init), body)
                }
            }
        }
        // Still answering, from every connection of its pool.
        for _ in 0..<10 {
            let search = try await server.raw(
                "POST", "/api/generalcontent/instance/search", json: Array(#"{"moduleName":"Strings"}"#.utf8))
            assertStatus(search.http, 200)
        }
    }

    /// Hole 5: invalid UTF-8 inside a JSON string was stored as U+FFFD (it was a 400 before
    /// the fast parser); U+0000 was stored by SQLite. Both are a 400 naming the byte and the key
    /// path now, and nothing is stored. Valid text of every length of UTF-8 is stored as sent.
    func testNULAndInvalidUTF8InJSONAreRefusedNeverStoredAltered() async throws {
        func body(_ title: [UInt8]) -> [UInt8] {
            Array(#"{"module":"\#(server.moduleId)","name":"n","values":{"title":""#.utf8) + title + Array(#""}}"#.utf8)
        }
        let prefix = body([]).count - 3
        let invalid: [(String, [UInt8], Int)] = [
            ("a lone 0xFF", Array("ab".utf8) + [0xFF] + Array("c".utf8), 2),
            ("a continuation byte alone", [0x80], 0),
            ("an overlong slash", [0xC0, 0xAF], 0),
            ("a surrogate", [0xED, 0xA0, 0x80], 0),
            ("a sequence cut short", Array("é".utf8) + [0xE2, 0x82], 2),
            ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80], 0),
        ]
        for (name, title, at) in invalid {
            let answer = try await server.raw("POST", "/api/generalcontent/instance", json: body(title))
            let message = assertEnvelope(answer.http, status: 400)
            XCTAssertTrue(message.contains("invalid UTF-8"), "\(name): \(message)")
            XCTAssertEqual(answer.http.json["error"]?["extra"]?["byteOffset"]?.int64Value, Int64(prefix + at), "\(name): \(message)")
            XCTAssertTrue(message.contains("byte \(prefix + at)"), "\(name): \(message)")
            XCTAssertEqual(answer.http.json["error"]?["extra"]?["keyPath"]?.stringValue, "$.values.title", name)
        }
        // In a member name, and in a batch item deep down.
        let name = try await server.raw(
            "POST", "/api/generalcontent/instance",
            json: Array(#"{"module":"\#(server.moduleId)","name":"n","values":{"ti"#.utf8) + [0xFF] + Array(#"tle":"x"}}"#.utf8))
        XCTAssertTrue(assertEnvelope(name.http, status: 400).contains("a member name in $.values"))
        let batch = try await server.raw(
            "POST", "/api/generalcontent/instance/batch",
            json: Array(#"{"created":[{"module":"\#(server.moduleId)","name":"n","values":{"title":"x"}},"#.utf8)
                + Array(#"{"module":"\#(server.moduleId)","name":"n\u0000","values":{}}]}"#.utf8))
        assertEnvelope(batch.http, status: 400)
        XCTAssertEqual(batch.http.json["error"]?["extra"]?["keyPath"]?.stringValue, "$.created[1].name")
        // U+0000 raw or escaped, in a value and in a name.
        for title in [Array(#"a\u0000b"#.utf8), [0x61, 0x00]] {
            let answer = try await server.raw("POST", "/api/generalcontent/instance", json: body(title))
            XCTAssertTrue(assertEnvelope(answer.http, status: 400).contains("U+0000"))
        }
        let nothing = try await server.raw(
            "POST", "/api/generalcontent/instance/search", json: Array(#"{"moduleName":"Strings","pagination":{"skip":true}}"#.utf8))
        XCTAssertEqual(
            nothing.http.json.arrayValue?.count, 0, "nothing refused was stored: \(String(decoding: nothing.http.data, as: UTF8.self))")

        // Every length of valid UTF-8 (and an escaped astral character, and U+FFFD itself) is kept byte for byte.
        let valid = "a é € 😀 \u{FFFD} 𝄞"
        let created = try await server.raw(
            "POST", "/api/generalcontent/instance", json: body(Array(valid.utf8) + Array(#" \ud83d\ude00"#.utf8)))
        assertStatus(created.http, 200)
        let id = try XCTUnwrap(created.http.json["id"]?.stringValue)
        let read = try await server.raw(
            "POST", "/api/generalcontent/instance/search", json: Array(#"{"instanceIds":["\#(id)"],"pagination":{"skip":true}}"#.utf8))
        XCTAssertEqual(read.http.json.arrayValue?.first?["values"]?["title"]?.stringValue, valid + " 😀")
    }

    /// Form fields, query parameters, path ids and the headers the server reads: the same rule.
    func testFormQueryPathAndHeaderStrings() async throws {
        func form(_ bytes: [UInt8]) async throws -> RawAnswer {
            try await server.raw(
                "POST", "/api/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: bytes, token: nil)
        }
        let grant = "grant_type=client_credentials&client_secret=\(server.client.clientSecret)&client_id="
        for (value, words) in [
            ("%00", ["client_id", "U+0000"]), ("%FF", ["client_id", "invalid UTF-8"]), ("a%C3", ["client_id", "byte 1"]),
        ] {
            let answer = try await form(Array((grant + value).utf8))
            let message = assertEnvelope(answer.http, status: 400)
            for word in words { XCTAssertTrue(message.contains(word), "\(value): \(message)") }
        }
        let rawByte = try await form(Array(grant.utf8) + [0xFF])
        XCTAssertTrue(assertEnvelope(rawByte.http, status: 400).contains("'client_id' holds invalid UTF-8 at byte 0"))
        let badName = try await form(Array("gr%00ant=x&".utf8) + Array(grant.utf8) + Array(server.client.clientId.utf8))
        XCTAssertTrue(assertEnvelope(badName.http, status: 400).contains("The name of a form field"))
        assertStatus(try await form(Array((grant + server.client.clientId).utf8)).http, 200)

        for query in ["page=%00", "limit=%FF", "x%00=1", "withFields=%ED%A0%80"] {
            let answer = try await server.raw("GET", "/api/generalcontent/module?\(query)")
            XCTAssertTrue(assertEnvelope(answer.http, status: 400).contains("query parameter"), query)
        }
        for (method, path) in [
            ("DELETE", "/api/generalcontent/instance/%00"), ("PUT", "/api/generalcontent/instance/ab%FFcd"),
            ("GET", "/api/generalcontent/module/%C0%AF"),
        ] {
            let answer = try await server.raw(method, path, json: method == "PUT" ? Array("{}".utf8) : nil)
            XCTAssertTrue(assertEnvelope(answer.http, status: 400).contains("path segment"), path)
        }
        let rawPath = try await server.raw("GET", Array("/api/generalcontent/module/ab".utf8) + [0xFF])
        XCTAssertTrue((400..<500).contains(rawPath.http.status), "a raw byte in the path: \(rawPath.http.status)")

        for (header, value) in [
            ("X-Halo-Device", Array("dev".utf8) + [0xFF]), ("X-Halo-Device-Secret", Array("é".utf8)),
            ("Last-Event-ID", Array("1\u{00E9}".utf8)),
            ("If-Match", Array("\"r1\u{FFFD}\"".utf8)),
        ] {
            let method = header == "If-Match" ? "PUT" : "GET"
            let path = header == "If-Match" ? "/api/segmentation/identified-pocket" : "/api/events"
            let answer = try await server.raw(
                method, Array(path.utf8), headers: [(header, value)], json: header == "If-Match" ? Array("{}".utf8) : nil)
            let message = assertEnvelope(answer.http, status: 400)
            XCTAssertTrue(message.contains(header), "\(header): \(message)")
        }
        // Percent-encoded text in the query and path is decoded and accepted.
        assertStatus(try await server.raw("GET", "/api/generalcontent/module?page=1&x=%C3%A9%F0%9F%98%80").http, 200)
    }
}

/// What a raw request answered.
struct RawAnswer {
    var http: HTTPAnswer
}

/// A `halo-server serve` child process on the tests' back end with a module "Strings" (one text
/// field `title`), an editor app client and its token; requests are sent as raw bytes, so
/// nothing between the test and the server repairs or adds anything.
final class ChildFixture: @unchecked Sendable {
    let child: ChildServer
    let directory: URL
    let port: Int
    let moduleId: String
    let client: ClientCredentials
    var token = ""

    private init(child: ChildServer, directory: URL, port: Int, moduleId: String, client: ClientCredentials) {
        self.child = child
        self.directory = directory
        self.port = port
        self.moduleId = moduleId
        self.client = client
    }

    static func start(options: [String] = []) async throws -> ChildFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-strings-\(UUID().uuidString)")
        let setup = try await TestBackEnd.current.admin(for: directory)
        let moduleId = try await setup.addModule(ModuleSpec(name: "Strings", fields: [ModuleField("title", .text)]))
        let client = try await setup.addClient(editor: true)
        let child = try ChildServer(binary: try ChildServer.builtBinary(), directory: directory, options: options)
        let fixture = ChildFixture(child: child, directory: directory, port: try child.waitForPort(), moduleId: moduleId, client: client)
        let grant = try await fixture.raw(
            "POST", "/api/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(
                TestServer.formEncode([
                    ("grant_type", "client_credentials"), ("client_id", client.clientId), ("client_secret", client.clientSecret),
                ]).utf8), token: nil)
        fixture.token = try XCTUnwrap(grant.http.json["access_token"]?.stringValue, String(decoding: grant.http.data, as: UTF8.self))
        return fixture
    }

    func stop() {
        child.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    func raw(_ method: String, _ path: String, headers: [(String, String)] = [], json: [UInt8]? = nil) async throws -> RawAnswer {
        try await raw(method, Array(path.utf8), headers: headers.map { ($0.0, Array($0.1.utf8)) }, json: json)
    }

    func raw(_ method: String, _ path: [UInt8], headers: [(String, [UInt8])] = [], json: [UInt8]? = nil) async throws -> RawAnswer {
        try await raw(
            method, path, headers: headers + (json == nil ? [] : [("Content-Type", Array("application/json".utf8))]), body: json,
            token: token)
    }

    func raw(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, token: String?) async throws -> RawAnswer {
        try await raw(method, Array(path.utf8), headers: headers.map { ($0.0, Array($0.1.utf8)) }, body: body, token: token)
    }

    /// One request on its own connection, exactly these bytes: no header is added but `Host`,
    /// `Connection: close`, `Authorization` (with `token`) and `Content-Length` (with `body`).
    func raw(_ method: String, _ path: [UInt8], headers: [(String, [UInt8])], body: [UInt8]?, token: String?) async throws -> RawAnswer {
        var head = Array("\(method) ".utf8) + path + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".utf8)
        if let token { head += Array("Authorization: Bearer \(token)\r\n".utf8) }
        for (name, value) in headers { head += Array("\(name): ".utf8) + value + Array("\r\n".utf8) }
        if let body { head += Array("Content-Length: \(body.count)\r\n".utf8) }
        head += Array("\r\n".utf8) + (body ?? [])
        let port = self.port
        let data = try await Task.detached {
            let connection = try RawConnection(port: port)
            try connection.send(Data(head))
            return connection.readToEnd(timeout: 30).data
        }.value
        return RawAnswer(http: try Self.parse(data))
    }

    /// Status, headers and body of an HTTP/1.1 answer (a `Content-Length` or chunked body).
    static func parse(_ data: Data) throws -> HTTPAnswer {
        let bytes = [UInt8](data)
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw TestSupportError("no complete answer: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var decoded: [UInt8] = []
            var rest = body[...]
            while let lineEnd = rest.firstRange(of: Array("\r\n".utf8)),
                let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0
            {
                let start = lineEnd.upperBound
                decoded += rest[start..<min(start + size, rest.endIndex)]
                rest = rest[min(start + size + 2, rest.endIndex)...]
            }
            body = decoded
        } else if let length = headers["content-length"].flatMap(Int.init) {
            body = Array(body.prefix(length))
        }
        return HTTPAnswer(status: status, headers: headers, data: Data(body))
    }
}
