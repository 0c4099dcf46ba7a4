import Foundation
import HaloTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request of the fuzzer, as sent on the wire. `target` is the path plus query string.
/// Header values and the body may hold placeholders (`{{APP}}`, `{{M0}}`, …) that the harness
/// replaces with this run's tokens and ids just before sending, so corpus entries replay on
/// any fresh server.
struct FuzzRequest: Sendable, Hashable {
    var method: String
    var target: String
    var headers: [[String]]
    var body: Data?
    /// What the generator did, for humans (e.g. "mutated: grant_type ← 1e300").
    var note: String
    /// The status the server must answer, for a request built to be refused (`FuzzHostile`);
    /// nil: any answer but a 5xx or one without the envelope.
    var expected: Int? = nil

    /// `METHOD /route/pattern` with path ids replaced by `:id`, for de-duplication and reports.
    var route: String {
        let path = String(target.prefix { $0 != "?" })
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var shaped: [String] = []
        for (index, part) in parts.enumerated() {
            let previous = index > 0 ? parts[index - 1] : ""
            let isId =
                ["appuser", "instance", "module"].contains(previous)
                && !["search", "batch", "sync"].contains(part)
            shaped.append(isId ? ":id" : part.count > 40 ? ":long" : part)
        }
        return "\(method) /" + shaped.joined(separator: "/")
    }
}

/// A parsed HTTP answer.
struct FuzzAnswer: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: Data
}

/// Why a request got no answer.
enum FuzzTransportError: Error, CustomStringConvertible {
    case connect(Int32)
    case timeout(received: Int)
    case closedWithoutAnswer(received: Int)
    case unparsable(String)

    var description: String {
        switch self {
        case .connect(let code): return "connect failed (errno \(code))"
        case .timeout(let received): return "timed out (\(received) bytes received)"
        case .closedWithoutAnswer(let received): return "connection closed without a complete answer (\(received) bytes)"
        case .unparsable(let why): return "unparsable answer: \(why)"
        }
    }
}

/// A minimal HTTP/1.1 client over a blocking loopback socket: one connection per request
/// (`Connection: close`), a hard deadline, no normalization of what is sent (so odd headers,
/// raw bytes and any body reach the server exactly as generated).
enum RawHTTP {
    static func send(
        port: Int, method: String, target: String, headers: [[String]], body: Data?, timeout: TimeInterval
    ) -> Result<FuzzAnswer, FuzzTransportError> {
        let deadline = Date().addingTimeInterval(timeout)
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return .failure(.connect(errno)) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return .failure(.connect(errno)) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        var bytes = [UInt8]()
        let setsLength = headers.contains { $0.first?.lowercased() == "content-length" || $0.first?.lowercased() == "transfer-encoding" }
        if let body, !setsLength { head += "Content-Length: \(body.count)\r\n" }
        bytes += Array(head.utf8)
        for header in headers where header.count == 2 {
            // Header values go out byte for byte (UTF-8), CR/LF stripped so one header stays one header.
            let value = header[1].utf8.filter { $0 != 13 && $0 != 10 }
            bytes += Array(header[0].utf8) + Array(": ".utf8) + value + [13, 10]
        }
        bytes += [13, 10]
        if let body { bytes += body }

        // Send everything, reading meanwhile: the server may answer (413, 415) and close early.
        var received = [UInt8]()
        var sent = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var sendFailed = false
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .failure(.timeout(received: received.count)) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN) | (sent < bytes.count && !sendFailed ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { return .failure(.closedWithoutAnswer(received: received.count)) }
            if ready <= 0 { continue }
            if poller.revents & Int16(POLLOUT) != 0 && sent < bytes.count && !sendFailed {
                let count = bytes.withUnsafeBytes { raw in
                    sendNoSignal(fd, raw.baseAddress! + sent, min(bytes.count - sent, 262_144))
                }
                if count > 0 { sent += count } else if errno != EAGAIN && errno != EINTR { sendFailed = true }
            }
            if poller.revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 {
                    received += buffer[0..<count]
                    if let answer = try? parse(received, complete: false, headOnly: method == "HEAD") { return .success(answer) }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    // EOF (or reset): the answer is whatever arrived.
                    if received.isEmpty { return .failure(.closedWithoutAnswer(received: 0)) }
                    do { return .success(try parse(received, complete: true, headOnly: method == "HEAD")) } catch let error
                        as FuzzTransportError
                    {
                        return .failure(error)
                    } catch {
                        return .failure(.unparsable("\(error)"))
                    }
                }
            }
        }
    }

    /// `send` that cannot raise SIGPIPE (a server that closed early must not kill the tests).
    private static func sendNoSignal(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            return Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
        #else
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            return Darwin.send(fd, pointer, count, 0)
        #endif
    }

    private struct Incomplete: Error {}

    /// Parses a full answer; with `complete: false` throws `Incomplete` until the body is all there.
    static func parse(_ bytes: [UInt8], complete: Bool, headOnly: Bool = false) throws -> FuzzAnswer {
        guard let end = find([13, 10, 13, 10], in: bytes, from: 0) else {
            if complete { throw FuzzTransportError.unparsable("no end of headers in \(bytes.count) bytes") }
            throw Incomplete()
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let words = statusLine.split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let status = Int(words[1]) else {
            throw FuzzTransportError.unparsable("status line \(statusLine.debugDescription)")
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let rest = Array(bytes[(end + 4)...])
        // An answer to HEAD has headers only, whatever Content-Length says.
        if headOnly { return FuzzAnswer(status: status, headers: headers, body: Data()) }
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        if header("transfer-encoding")?.lowercased().contains("chunked") == true {
            var body = [UInt8]()
            var index = 0
            while true {
                guard let lineEnd = find([13, 10], in: rest, from: index) else {
                    if complete { throw FuzzTransportError.unparsable("chunked body cut short after \(body.count) bytes") }
                    throw Incomplete()
                }
                let sizeText = String(decoding: rest[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw FuzzTransportError.unparsable("bad chunk size \(sizeText.debugDescription)")
                }
                if size == 0 { return FuzzAnswer(status: status, headers: headers, body: Data(body)) }
                let start = lineEnd + 2
                guard rest.count >= start + size + 2 else {
                    if complete { throw FuzzTransportError.unparsable("chunked body cut short after \(body.count) bytes") }
                    throw Incomplete()
                }
                body += rest[start..<(start + size)]
                index = start + size + 2
            }
        }
        if let lengthText = header("content-length"), let length = Int(lengthText) {
            guard rest.count >= length else {
                if complete { throw FuzzTransportError.unparsable("body has \(rest.count) of \(length) bytes") }
                throw Incomplete()
            }
            return FuzzAnswer(status: status, headers: headers, body: Data(rest[0..<length]))
        }
        if !complete { throw Incomplete() }
        return FuzzAnswer(status: status, headers: headers, body: Data(rest))
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}

/// `halo-server serve` as a child process whose stderr goes to a file (read for the port, and
/// for the fatal error or logged error behind a finding). Restartable on the same data directory.
final class FuzzChildServer: @unchecked Sendable {
    let binary: URL
    let directory: URL
    let logFile: URL
    private var process: Process?
    private(set) var port = 0
    /// Whether a trap prints a symbolicated backtrace (names the culprit, but takes seconds).
    var backtraces = true
    private var logOffset: UInt64 = 0

    init(binary: URL, directory: URL) {
        self.binary = binary
        self.directory = directory
        logFile = directory.appendingPathComponent("fuzz-server-stderr.log")
    }

    func start(timeout: TimeInterval = 30) throws {
        if !FileManager.default.fileExists(atPath: logFile.path) {
            // On PostgreSQL nothing else makes the directory before the server starts.
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: logFile)
        let before = try handle.seekToEnd()
        let process = Process()
        process.executableURL = binary
        // Registrations unlimited per address: the fuzzer registers from one address all run long.
        process.arguments =
            ["serve", "--port", "0"] + (try TestBackEnd.current.dataOptions(for: directory))
            + ["--quiet", "--limit", "registrations-per-address=1000000"]
        process.standardError = handle
        process.standardOutput = FileHandle.nullDevice
        // A trap prints the crashed thread's frames only (the first one in Sources/ names the culprit).
        var environment = TestBackEnd.current.childEnvironment
        environment["SWIFT_BACKTRACE"] =
            backtraces
            ? "enable=yes,interactive=no,threads=crashed,registers=none,images=none,limit=40" : "enable=no"
        process.environment = environment
        try process.run()
        try? handle.close()
        self.process = process
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = newLog(from: before)
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) {
                    self.port = port
                    logOffset = fileSize()
                    return
                }
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        throw NSError(domain: "FuzzChildServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no port in: \(newLog(from: before))"])
    }

    /// Whether the process is still alive, waiting up to `grace` for a dying one to finish.
    func isRunning(grace: TimeInterval = 0) -> Bool {
        guard let process else { return false }
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning
    }

    var terminationDescription: String {
        guard let process, !process.isRunning else { return "running" }
        return process.terminationReason == .uncaughtSignal
            ? "killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
    }

    /// stderr written since the last call (what the server logged about the last request).
    func takeLog() -> String {
        let text = newLog(from: logOffset)
        logOffset = fileSize()
        return text
    }

    /// stderr written since the last `takeLog()`, left in place.
    func peekLog() -> String { newLog(from: logOffset) }

    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private func fileSize() -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: logFile.path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    private func newLog(from offset: UInt64) -> String {
        guard let handle = try? FileHandle(forReadingFrom: logFile) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }
}
