import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Clients that stall, vanish or hoard connections cannot stop the server or hold what others
/// need: sync answers are spooled (no client holds a database reader), stalled writes are cut
/// off, idle connections time out, and streams are capped per token.
final class StreamRobustnessTests: XCTestCase {
    /// The time one ordinary request may take while the server is under this abuse.
    static let answerBudget: Duration = .milliseconds(100)

    private func startServer(_ adjust: (inout ServerLimits) -> Void = { _ in }) async throws -> TestServer {
        var limits = ServerLimits()
        limits.stallTimeout = .seconds(2)
        adjust(&limits)
        return try await TestServer.start(limits: limits)
    }

    /// The median time of a few searches; each must succeed.
    private func medianSearch(_ server: TestServer, token: String, moduleId: String) async throws -> Duration {
        var times: [Duration] = []
        for _ in 0..<7 {
            let start = ContinuousClock.now
            let answer = try await server.call(
                "POST", "/api/generalcontent/instance/search", token: token,
                body: .json(["moduleIds": [.string(moduleId)], "pagination": ["page": 1, "limit": 20]]))
            times.append(ContinuousClock.now - start)
            XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        }
        return times.sorted()[times.count / 2]
    }

    func testStalledSyncReadersAreDroppedAndStarveNobody() async throws {
        try skipInCluster("each process caps the syncs it holds per token and address; nginx spreads them over three")
        let server = try await startServer()
        defer { Task { await server.stop() } }
        let seeded = try await server.admin.seedBenchmark(instances: 30_000, modules: 1)
        let moduleId = try XCTUnwrap(seeded.first)
        var tokens: [String] = []
        for _ in 0..<4 { tokens.append(try await server.appToken()) }
        let probe = try await server.appToken()
        let before = try await medianSearch(server, token: probe, moduleId: moduleId)
        // How long one sync of the module takes to produce, to know when all 16 have been.
        let start = ContinuousClock.now
        do {
            let one = try RawConnection(port: server.server.port)
            try one.send(RawConnection.post("/api/generalcontent/instance/sync", json: #"{"moduleId":"\#(moduleId)"}"#, token: probe))
            // The answer is chunked: it ends with the empty chunk.
            let (whole, _) = one.readToEnd(timeout: 60, until: Data("]}\r\n0\r\n\r\n".utf8))
            XCTAssertGreaterThan(whole.count, 20_000_000, "one full sync of the module")
        }
        let oneSync = ContinuousClock.now - start
        try await Task.sleep(for: .milliseconds(200))
        let descriptorsBefore = openSocketAndSpoolCount()

        // 16 syncs of the whole module (≈ 30 MB each), 4 per token; nobody reads the answers.
        var readers: [RawConnection] = []
        for index in 0..<16 {
            let connection = try RawConnection(port: server.server.port, receiveBuffer: 4096)
            try connection.send(
                RawConnection.post(
                    "/api/generalcontent/instance/sync", json: #"{"moduleId":"\#(moduleId)"}"#, token: tokens[index % 4]))
            readers.append(connection)
        }
        // A fifth stream for a token is refused, with a time to come back.
        try await Task.sleep(for: .seconds(1))
        let extra = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: tokens[0], body: .json(["moduleId": .string(moduleId)]))
        XCTAssertEqual(extra.status, 429, "a fifth sync for one token")
        if extra.status == 429 { assertEnvelope(extra, status: 429) }
        XCTAssertNotNil(extra.headers["retry-after"])
        // So is a seventeenth from the same address, whatever its token.
        let fresh = try await server.appToken()
        let crowd = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: fresh, body: .json(["moduleId": .string(moduleId)]))
        XCTAssertEqual(crowd.status, 429, "a seventeenth sync from one address")
        if crowd.status == 429 { XCTAssertTrue(assertEnvelope(crowd, status: 429).contains("address")) }

        let during = try await medianSearch(server, token: probe, moduleId: moduleId)
        // On PostgreSQL the two admitted producers' reads run in PostgreSQL's own processes,
        // beside the server's gates, and share the two cores with the search: it may take up to
        // three times as long as idle. Starved, it would wait for all 16 answers (seconds).
        let budget = TestBackEnd.current == .sqlite ? Self.answerBudget : max(Self.answerBudget, before * 3)
        XCTAssertLessThan(during, budget, "a search while 16 syncs stall (before: \(before))")

        // Once every answer is produced and the stall timeout has passed, the server has hung up on
        // every reader: what is left to read is what the sockets' buffers held, then the end.
        // (Waited for on the server's count, not for a time: how long 16 answers take to produce
        // depends on the build and the machine's load.)
        let deadline = ContinuousClock.now + oneSync * 16 + .seconds(60)
        while server.admin.syncAnswersInProgress > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(server.admin.syncAnswersInProgress, 0, "every stalled answer is cut off")
        for (index, reader) in readers.enumerated() {
            let (data, closed) = reader.readToEnd(timeout: 10, maxBytes: 8 << 20)
            XCTAssertTrue(closed, "stalled reader \(index) is still being served (\(data.count) bytes read)")
        }
        readers.removeAll()
        let after = try await medianSearch(server, token: probe, moduleId: moduleId)
        XCTAssertLessThan(after, Self.answerBudget, "a search after the stalled syncs")

        // Everything they held is released: the token may sync again, descriptors are back.
        let again = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: tokens[0],
            body: .json(["moduleId": .string(moduleId), "fromSync": .number(Double(Date().timeIntervalSince1970 * 1000) - 1)]))
        XCTAssertEqual(again.status, 200)
        // The server closes what a dropped reader held on its own tasks: on a busy machine that
        // can take longer than a fixed wait, so wait until the count is back (a leak never is).
        var open = openSocketAndSpoolCount()
        for _ in 0..<50 where open > descriptorsBefore + 4 {
            try await Task.sleep(for: .milliseconds(200))
            open = openSocketAndSpoolCount()
        }
        XCTAssertLessThanOrEqual(open, descriptorsBefore + 4, "spool files or sockets leaked")
    }

    func testClientsThatHangUpOrTrickleDoNotStopTheServer() async throws {
        try skipInCluster("behind nginx the server's connection timeouts face nginx; nginx's own face the clients")
        let server = try await startServer()
        defer { Task { await server.stop() } }
        let seeded = try await server.admin.seedBenchmark(instances: 5_000, modules: 1)
        let moduleId = try XCTUnwrap(seeded.first)
        let token = try await server.appToken()
        let request = RawConnection.post("/api/generalcontent/instance/sync", json: #"{"moduleId":"\#(moduleId)"}"#, token: token)

        // Hang up at once, after a few bytes, and after the stall timeout: no crash either way.
        for wait in [0.0, 0.3, 2.5] {
            let connection = try RawConnection(port: server.server.port, receiveBuffer: 4096)
            try connection.send(request)
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
        }
        // A trickle reader (4 kB every 100 ms) is served at its pace without holding anything
        // others need: searches stay fast meanwhile.
        let trickle = try RawConnection(port: server.server.port, receiveBuffer: 4096)
        try trickle.send(request)
        let descriptor = trickle.descriptor
        let trickling = Task.detached {
            var buffer = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<30 {
                _ = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let during = try await medianSearch(server, token: token, moduleId: moduleId)
        XCTAssertLessThan(during, Self.answerBudget, "a search while a client trickles a sync")
        await trickling.value
        withExtendedLifetime(trickle) {}

        // One reading at 1 kB/s, below the minimum transfer rate, is disconnected within a few
        // stall windows (2 s each here) instead of holding its stream for hours. (The kernel still
        // holds megabytes the server had sent, so the client side cannot see the end soon: the
        // server's own descriptors tell.)
        try await Task.sleep(for: .milliseconds(500))
        let baseline = openSocketAndSpoolCount()
        let crawler = try RawConnection(port: server.server.port, receiveBuffer: 4096)
        try crawler.send(request)
        var crumb = [UInt8](repeating: 0, count: 256)
        var disconnected = false
        var served = false
        let crawlDeadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < crawlDeadline {
            _ = recv(crawler.descriptor, &crumb, crumb.count, Int32(MSG_DONTWAIT))
            let open = openSocketAndSpoolCount()
            if open > baseline + 1 { served = true }
            // Only the client's own socket is left once the server has let go of the connection and its spool.
            if served && open <= baseline + 1 {
                disconnected = true
                break
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        XCTAssertTrue(disconnected, "a client reading 1 kB/s was still served after 20 s")
        let full = try await server.call(
            "POST", "/api/generalcontent/instance/sync", token: token, body: .json(["moduleId": .string(moduleId)]))
        XCTAssertEqual(full.status, 200)
        XCTAssertEqual(full.json["created"]?.arrayValue?.count, 5_000, "a normal sync still reads the whole answer")
    }

    /// Reads from `connection` at `bytesPerSecond` (evenly, in 20 ms steps) for `duration`, then
    /// as fast as it can until the answer's last chunk, the server's close, or 30 s. What it read.
    private static func readPaced(_ connection: RawConnection, bytesPerSecond: Int, for duration: Duration) async -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let start = ContinuousClock.now
        while ContinuousClock.now - start < duration {
            let elapsed = (ContinuousClock.now - start) / .milliseconds(1)
            var allowance = Int(Double(bytesPerSecond) * elapsed / 1000) - data.count
            while allowance > 0 {
                let count = recv(connection.descriptor, &buffer, min(allowance, buffer.count), Int32(MSG_DONTWAIT))
                if count == 0 { return data }  // closed: the rest is what the kernel held
                if count < 0 { break }
                data.append(buffer, count: count)
                allowance -= count
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        data.append(connection.readToEnd(timeout: 30, until: Self.lastChunk).data)
        return data
    }

    /// How a whole sync answer ends: the end of its JSON, then the empty chunk.
    static let lastChunk = Data("]}\r\n0\r\n\r\n".utf8)

    /// Issue 47: the stall cut-off at its edge. A sync client reading a little in every window,
    /// but fewer than `min-transfer-rate` × `stall-timeout` bytes, is cut off; one reading a little
    /// more than the minimum is served to the end. The sync answer is written in chunks of 500
    /// instances (about half a megabyte here), and the handler counts a chunk once the socket took
    /// all of it: so the minimum is set to several chunks a window, or a reader taking a chunk or
    /// two per window (far under the minimum) would never be told from one taking a byte. (The
    /// bug: the minimum lowered to 1 byte; the crawler of the test above, at 1 kB/s, completes no
    /// chunk in a window and is cut either way.)
    func testASyncClientReadingLessThanTheMinimumInEveryWindowIsCutOffAndOneAboveIsNot() async throws {
        try skipInCluster("behind nginx the server's connection timeouts face nginx; nginx's own face the clients")
        let minimumRate = 1 << 20
        let server = try await startServer { limits in limits.minimumTransferRate = minimumRate }
        defer { Task { await server.stop() } }
        let window = 2  // seconds: `startServer`'s stall timeout
        let minimumPerWindow = minimumRate * window
        let instances = 20_000
        let seeded = try await server.admin.seedBenchmark(instances: instances, modules: 1)
        let moduleId = try XCTUnwrap(seeded.first)
        let token = try await server.appToken()
        let request = RawConnection.post("/api/generalcontent/instance/sync", json: #"{"moduleId":"\#(moduleId)"}"#, token: token)

        // The whole answer, read at once, and the size of its chunks.
        let reference = try RawConnection(port: server.server.port)
        try reference.send(request)
        let (whole, _) = reference.readToEnd(timeout: 60, until: Self.lastChunk)
        XCTAssertEqual(whole.suffix(Self.lastChunk.count), Self.lastChunk, "a whole answer")
        let chunk = whole.count / (instances / 500)
        XCTAssertGreaterThanOrEqual(minimumPerWindow, 3 * chunk, "the minimum must span several chunks (\(chunk) bytes each)")
        XCTAssertGreaterThan(whole.count, 8 * minimumPerWindow, "the answer must outlast the kernel's buffers and a few windows")

        // Both at once: 70 % of the minimum in every window, and 150 %. Small receive buffers, so
        // the answer waits in the server soon.
        let under = try RawConnection(port: server.server.port, receiveBuffer: 65_536)
        let over = try RawConnection(port: server.server.port, receiveBuffer: 65_536)
        try under.send(request)
        try over.send(request)
        async let slow = Self.readPaced(under, bytesPerSecond: minimumRate * 7 / 10, for: .seconds(12))
        async let fast = Self.readPaced(over, bytesPerSecond: minimumRate * 3 / 2, for: .seconds(12))
        let (cut, served) = await (slow, fast)

        XCTAssertNotEqual(
            cut.suffix(Self.lastChunk.count), Self.lastChunk,
            "a client reading 70 % of the minimum was served to the end (\(cut.count) of \(whole.count) bytes)")
        XCTAssertLessThan(cut.count, whole.count, "cut off before the end")
        XCTAssertEqual(
            served.suffix(Self.lastChunk.count), Self.lastChunk,
            "a client reading 150 % of the minimum was cut off (\(served.count) of \(whole.count) bytes)")
        XCTAssertEqual(served.count, whole.count, "served the whole answer")
    }

    func testAThousandIdleConnectionsLeaveRequestsAnswered() async throws {
        try skipInCluster("behind nginx the server's connection timeouts face nginx; nginx's own face the clients")
        let server = try await startServer { $0.idleTimeout = .seconds(3) }
        defer { Task { await server.stop() } }
        let moduleId = try await server.admin.addModule(ModuleSpec(name: "Notes", fields: [ModuleField("title", .text)]))
        let token = try await server.appToken()
        var idle: [RawConnection] = []
        for _ in 0..<1000 { idle.append(try RawConnection(port: server.server.port)) }
        // Half of them start a request and never finish it.
        for connection in idle.prefix(500) {
            try connection.send("POST /api/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        }
        let during = try await medianSearch(server, token: token, moduleId: moduleId)
        XCTAssertLessThan(during, Self.answerBudget, "a search with 1,000 idle connections open")
        // The idle timeout closes them.
        try await Task.sleep(for: .seconds(4))
        XCTAssertTrue(idle[0].readToEnd(timeout: 5).closed, "an idle connection outlived the idle timeout")
        XCTAssertTrue(idle[999].readToEnd(timeout: 5).closed, "an idle connection outlived the idle timeout")
        idle.removeAll()
        let after = try await medianSearch(server, token: token, moduleId: moduleId)
        XCTAssertLessThan(after, Self.answerBudget, "a search after the idle connections")
    }

    /// On a host whose open-file limit is tiny, a flood of idle connections neither makes the
    /// server spin on failing accepts nor keeps a real client out: idle connections make room.
    func testAnIdleFloodUnderATinyFileLimitNeitherSpinsNorLocksOut() async throws {
        let binary = try ChildServer.builtBinary()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-fd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try await TestBackEnd.current.admin(for: directory).addClient()
        let child = try ChildServer(binary: binary, directory: directory, openFileLimit: 64)
        defer { child.kill() }
        let port = try child.waitForPort()
        let session = URLSession(configuration: .ephemeral)
        let token = try await CrashTests.token(try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)")), client, session)

        var idle: [RawConnection] = []
        for _ in 0..<300 { idle.append(try RawConnection(port: port)) }
        let cpuBefore = try child.cpuSeconds()
        try await Task.sleep(for: .seconds(2))
        let spent = try child.cpuSeconds() - cpuBefore
        XCTAssertLessThan(spent, 0.3, "the server spent \(spent) s of CPU in 2 s with nothing to do")

        var request = URLRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)/api/authentication/version/current")))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 5
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let (_, response) = try await session.data(for: request)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(1), "a real client waited behind idle connections")
        }
        withExtendedLifetime(idle) {}
    }
}
