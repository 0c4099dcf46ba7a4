import Foundation
import Glibc
import HaloTestSupport
import Synchronization

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
