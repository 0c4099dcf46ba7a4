import Foundation
import Glibc
import Synchronization

/// A listening TCP socket on 127.0.0.1 at a port the kernel picks: (descriptor, port). Shared by
/// the test servers and proxies of both test targets.
func listenOnLoopback(backlog: Int32 = 16) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "no socket for a test server"]) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    guard bound == 0, listen(fd, backlog) == 0 else {
        close(fd)
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "test server cannot listen on 127.0.0.1"])
    }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A tiny HTTP/1.1 server on 127.0.0.1 (ephemeral port) that answers fixed routes: real bytes
/// over a real socket, for image downloads. It records the headers of every request, so tests
/// can check what a client sent. (Also compiled into HaloDeskTests through a symlink.)
final class StaticHTTPServer: @unchecked Sendable {
    /// What one path answers.
    struct Route: Sendable {
        var status = 200
        var contentType = "application/octet-stream"
        var body = Data()
        /// Waits this long before answering (a stalled host).
        var delay: TimeInterval = 0
        /// Sent as the `Location` header (for 3xx answers).
        var location: String?
    }

    private let routes: Mutex<[String: Route]>
    private let socketFD: Int32
    let port: Int
    /// Request path → lower-cased header names and values of each request, in arrival order.
    let requests = Mutex<[(path: String, headers: [String: String])]>([])

    init(routes: [String: Route]) throws {
        self.routes = Mutex(routes)
        let (fd, port) = try listenOnLoopback()
        self.port = port
        socketFD = fd
        Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                Thread { self.serve(client) }.start()
            }
        }.start()
    }

    /// The address of `path` on this server.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    func setRoute(_ path: String, _ route: Route) { routes.withLock { $0[path] = route } }

    /// How many requests asked for `path`.
    func requestCount(_ path: String) -> Int { requests.withLock { $0.filter { $0.path == path }.count } }

    func stop() { shutdown(socketFD, Int32(SHUT_RDWR)); close(socketFD) }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            guard let range = buffer.range(of: Data("\r\n\r\n".utf8)) else {
                let count = recv(client, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
                continue
            }
            let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
            buffer = Data(buffer[range.upperBound...])  // GET requests carry no body
            let lines = head.split(separator: "\r\n")
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            requests.withLock { $0.append((path, headers)) }
            let route = routes.withLock { $0[path] } ?? Route(status: 404, contentType: "text/html", body: Data("<h1>Not found</h1>".utf8))
            if route.delay > 0 { Thread.sleep(forTimeInterval: route.delay) }
            let reason = route.status == 200 ? "OK" : "Status"
            let location = route.location.map { "Location: \($0)\r\n" } ?? ""
            let bytes =
                Data(
                    "HTTP/1.1 \(route.status) \(reason)\r\nContent-Type: \(route.contentType)\r\n\(location)Content-Length: \(route.body.count)\r\n\r\n"
                        .utf8) + route.body
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { return }
        }
    }
}

/// Image files from the repository, as real test bytes.
enum TestImages {
    /// The package root: the nearest folder above this file holding Package.swift (the file is
    /// compiled from two places, so a fixed number of levels would not do).
    private static var repository: URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }

    /// A 1190×750 PNG screenshot.
    static let screenshotSize = (width: 1190, height: 750)
    static func screenshotPNG() throws -> Data {
        try Data(contentsOf: repository.appendingPathComponent("docs/screenshots/main-window.png"))
    }

    /// The 128×128 app icon (PNG).
    static func iconPNG() throws -> Data {
        try Data(contentsOf: repository.appendingPathComponent("data/icons/hicolor/128x128/apps/io.github.halodesk.HaloDesk.png"))
    }
}
