import Foundation

/// `halo-server serve` as a child process (the server tests kill it; the GUI tests take it away from
/// a running app); reads the bound port from its stderr.
public final class ChildServer: @unchecked Sendable {
    private let process = Process()
    private let errors = Pipe()

    /// The `halo-server` built next to the test bundle.
    public static func builtBinary(named name: String = "halo-server") throws -> URL {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw NSError(
                domain: "ChildServer", code: 2,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "\(name) is not built next to the tests (\(binary.path)); run `swift build --build-tests`"
                ])
        }
        return binary
    }

    /// `port` 0 takes any free port; a server restarted after a kill passes the one it had.
    /// `openFileLimit` starts it under `ulimit -n` (soft and hard), as a tightly set-up host would.
    /// `options` go to `serve` as well (e.g. `--social-config FILE`). The data is on
    /// `TestBackEnd.current` (on PostgreSQL, the database of `directory`), or in the PostgreSQL
    /// `database` (an address of the tests' cluster) when given.
    public init(
        binary: URL, directory: URL, database: String? = nil, port: Int = 0, openFileLimit: Int? = nil, options: [String] = []
    ) throws {
        let backEnd = database == nil ? TestBackEnd.current : .postgres
        let data = try database.map { ["--data", directory.path, "--database", $0] } ?? backEnd.dataOptions(for: directory)
        let arguments = ["serve", "--port", String(port)] + data + ["--quiet"] + options
        process.environment = backEnd.childEnvironment
        if let openFileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    public func waitForPort(timeout: TimeInterval = 20) throws -> Int {
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return port }
            }
        }
        throw NSError(domain: "ChildServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no port in: \(text)"])
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// User plus system CPU time the process has used so far, in seconds.
    public func cpuSeconds() throws -> Double {
        let fields =
            try String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8)
            .split(separator: ")").last.map { $0.split(separator: " ") } ?? []
        // After the ")" of the command name, utime and stime are the 12th and 13th fields.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
