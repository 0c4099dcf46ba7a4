import Foundation
import HaloServer
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private PostgreSQL cluster for the tests: `initdb` in a temporary directory, `postgres` on a
/// free loopback port, password (SCRAM) authentication over TCP. One per test process, started by
/// the first test that asks (`PostgresCluster.shared()`) and stopped when the process exits; each
/// test makes its own database in it (`makeDatabase`).
///
/// PostgreSQL refuses to run as root: when the tests do, the cluster's files belong to the
/// `postgres` user the Debian package creates and its programs run as that user (setpriv).
///
/// Each cluster's directory names the test process that owns it (`owner`). Stopping removes it;
/// a process that died without stopping (a crash, kill -9) leaves one behind, which the next
/// cluster started on this machine stops and removes.
public final class PostgresCluster: Sendable {
    /// The superuser and its password (TCP connections must give it).
    public static let user = "halo"
    public static let password = "halo-test-password"

    public let port: Int
    public let directory: URL
    private let binaries: URL
    private let server = Mutex<Process?>(nil)

    private static let sharedCluster = Mutex<PostgresCluster?>(nil)

    /// The process's cluster, started on first use.
    public static func shared() throws -> PostgresCluster {
        try sharedCluster.withLock { cluster in
            if let cluster { return cluster }
            removeClustersOfDeadProcesses()
            let started = try PostgresCluster()
            cluster = started
            atexit { PostgresCluster.sharedCluster.withLock { $0?.stop() } }
            return started
        }
    }

    private init() throws {
        guard let binaries = Self.findBinaries() else {
            throw ToolFailure("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run `make setup`")
        }
        self.binaries = binaries
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try String(getpid()).write(to: directory.appendingPathComponent("owner"), atomically: true, encoding: .utf8)
        let passwordFile = directory.appendingPathComponent("superuser-password")
        try Self.password.write(to: passwordFile, atomically: true, encoding: .utf8)
        // The port: a free one the kernel picks, released just before PostgreSQL binds it.
        let (fd, port) = try listenOnLoopback()
        close(fd)
        self.port = port
        if geteuid() == 0 { try runTool("/bin/chown", ["-R", "postgres:postgres", directory.path]) }
        try Self.runAsOwner(
            binaries.appendingPathComponent("initdb").path,
            [
                "-D", dataDirectory, "-U", Self.user, "--pwfile", passwordFile.path, "--auth-local=trust",
                "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync",
            ])
        try start()
    }

    private var dataDirectory: String { directory.appendingPathComponent("data").path }

    /// Starts `postgres` and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: geteuid() == 0 ? "/usr/bin/setpriv" : binaries.appendingPathComponent("postgres").path)
        var arguments = [
            "-D", dataDirectory, "-p", String(port), "-k", directory.path, "-c", "listen_addresses=127.0.0.1",
            // Test data only: no fsync (a crash of the machine loses nothing a test needs).
            "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=200",
        ]
        if geteuid() == 0 {
            arguments =
                ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", binaries.appendingPathComponent("postgres").path]
                + arguments
        }
        process.arguments = arguments
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        server.withLock { $0 = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? runTool(binaries.appendingPathComponent("pg_isready").path, ["-h", "127.0.0.1", "-p", String(port), "-q"])) != nil {
                return
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw ToolFailure("PostgreSQL did not start on port \(port); its log: \(logPath)")
    }

    /// Stops PostgreSQL and removes the cluster's directory.
    public func stop() {
        stopServer()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops and starts PostgreSQL again on the same port and data: every connection is cut.
    public func restart() throws {
        stopServer()
        try start()
    }

    /// Stops PostgreSQL the way a crash or `pg_ctl stop -m immediate` does (SIGQUIT), and waits.
    private func stopServer() {
        let running = server.withLock { state -> Process? in
            defer { state = nil }
            return state
        }
        guard let process = running else { return }
        kill(process.processIdentifier, SIGQUIT)
        process.waitUntilExit()
    }

    /// Stops the clusters whose owning test process is gone, and removes their directories.
    private static func removeClustersOfDeadProcesses() {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("halo-pg-") {
            let directory = temporary.appendingPathComponent(name)
            let owner = (try? String(contentsOf: directory.appendingPathComponent("owner"), encoding: .utf8)).flatMap { Int32($0) }
            if let owner, kill(owner, 0) == 0 || errno != ESRCH { continue }  // its test process still runs
            // The postmaster's pid is the first line of postmaster.pid.
            let postmaster = (try? String(contentsOf: directory.appendingPathComponent("data/postmaster.pid"), encoding: .utf8))
                .flatMap { $0.split(separator: "\n").first }.flatMap { Int32($0) }
            if let postmaster, kill(postmaster, SIGQUIT) == 0 {
                for _ in 0..<50 where kill(postmaster, 0) == 0 { usleep(20_000) }
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    private var logPath: String { directory.appendingPathComponent("postgres.log").path }

    /// A new, empty database; its name is returned (`test_…`).
    public func makeDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try psql("CREATE DATABASE \(name)")
        return name
    }

    /// The address of `database` for `halo-server --database` (the password goes by PGPASSWORD).
    public func address(database: String) -> String {
        "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// The server's storage on a new, empty database of the cluster (signing in with the password).
    public func storageOnNewDatabase(maximumConnections: Int = 4) throws -> PostgresStorage {
        try storageOnExistingDatabase(try makeDatabase(), maximumConnections: maximumConnections)
    }

    /// Another storage (as another server process has) on `database`.
    public func storageOnExistingDatabase(_ database: String, maximumConnections: Int = 4) throws -> PostgresStorage {
        try PostgresStorage(
            location: PostgresLocation(address(database: database), environment: ["PGPASSWORD": Self.password]),
            maximumConnections: maximumConnections)
    }

    /// Runs SQL with psql over the Unix socket (trusted, no password) and returns its output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let output = try runTool(
            binaries.appendingPathComponent("psql").path,
            ["-h", directory.path, "-p", String(port), "-U", Self.user, "-d", database, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func findBinaries() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().reversed()
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }

    /// Runs a PostgreSQL program as the cluster's owner.
    private static func runAsOwner(_ program: String, _ arguments: [String]) throws {
        if geteuid() == 0 {
            try runTool("/usr/bin/setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", program] + arguments)
        } else {
            try runTool(program, arguments)
        }
    }
}
