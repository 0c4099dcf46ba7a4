import Foundation

/// A real TLS server on loopback: `openssl s_server -www` with a self-signed certificate made
/// for the test. `-www` answers any GET with an HTML status page.
public final class LocalTLSServer {
    public let folder: URL
    public let certificate: URL
    public let port: Int
    private let process: Process

    /// Creates a self-signed certificate for 127.0.0.1 in `folder`.
    public static func makeCertificate(in folder: URL, name: String) throws -> (certificate: URL, key: URL) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("\(name).pem")
        let key = folder.appendingPathComponent("\(name).key")
        try runTool(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
            ])
        return (certificate, key)
    }

    /// A server with a new self-signed certificate for 127.0.0.1, made in `folder`.
    public convenience init(folder: URL) throws {
        let (certificate, key) = try Self.makeCertificate(in: folder, name: "server")
        try self.init(certificate: certificate, key: key)
    }

    /// A server presenting `certificate` (PEM), whose private key is `key`.
    public init(certificate: URL, key: URL) throws {
        self.folder = certificate.deletingLastPathComponent()
        self.certificate = certificate
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["s_server", "-www", "-accept", "0", "-cert", certificate.path, "-key", key.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // s_server prints "ACCEPT [::]:<port>" once listening.
        var buffer = ""
        var found: Int?
        let deadline = Date().addingTimeInterval(10)
        while found == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            if let line = buffer.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                found = port
            }
        }
        guard let found else {
            process.terminate();
            throw NSError(
                domain: "LocalTLSServer", code: 2, userInfo: [NSLocalizedDescriptionKey: "openssl s_server did not start: \(buffer)"])
        }
        port = found
    }

    public var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// SIGKILL: the child may inherit a blocked SIGTERM from the test process's threads.
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
