import Foundation
import HaloTestSupport

/// A real nginx in front of a test server, as a deployment puts it: it listens on `listenHost`
/// (a loopback address of its own, so the server sees it as a different peer than the clients)
/// and appends the address it saw to `X-Forwarded-For`.
final class ReverseProxy {
    static let executable = "/usr/sbin/nginx"
    let baseURL: URL
    private let process: Process
    private let directory: URL

    init(upstream: URL, listenHost: String = "127.0.0.2") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw ToolFailure("nginx is not installed (scripts/setup.sh installs it)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (socket, port) = try listenOnLoopback(host: listenHost)
        close(socket)  // nginx binds the port next
        let path = directory.path
        let config = """
            daemon off;
            master_process off;
            error_log stderr warn;
            pid \(path)/nginx.pid;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                server {
                    listen \(listenHost):\(port);
                    location = /nginx-ready { return 204; }
                    location / {
                        proxy_pass \(upstream.absoluteString);
                        proxy_http_version 1.1;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                    }
                }
            }
            """
        try config.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-p", path, "-c", "\(path)/nginx.conf", "-e", "stderr"]
        try process.run()
        baseURL = URL(string: "http://\(listenHost):\(port)")!
        // Ready when it answers by itself (not through the server: this blocks the calling thread).
        for _ in 0..<100 {
            if (try? Self.curl(["-o", "/dev/null", baseURL.absoluteString + "/nginx-ready"])) != nil { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw ToolFailure("nginx did not start on \(baseURL)")
    }

    func stop() {
        if process.isRunning {
            // SIGKILL: Foundation starts it with SIGTERM blocked (seen here), and it has nothing to save.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A password grant sent through the proxy from the loopback address `from`; the HTTP status.
    /// curl runs on a thread of its own: waiting for it must not hold one of the few threads the
    /// server's own tasks need.
    func passwordGrant(from source: String, _ username: String, _ password: String, forwardedFor: String? = nil) async throws
        -> Int
    {
        var arguments = [
            "--interface", source, "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
            baseURL.absoluteString + "/api/oauth/token?_user", "--data-urlencode", "grant_type=password",
            "--data-urlencode", "username=\(username)", "--data-urlencode", "password=\(password)",
        ]
        if let forwardedFor { arguments += ["-H", "X-Forwarded-For: \(forwardedFor)"] }
        let request = arguments
        let output = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try Self.curl(request) }) }
        }
        return Int(output) ?? 0
    }

    /// Runs curl; its standard output, or an error when it could not connect.
    @discardableResult
    static func curl(_ arguments: [String]) throws -> String {
        String(decoding: try runTool("/usr/bin/curl", ["-s", "--max-time", "10"] + arguments), as: UTF8.self)
    }
}
