import Foundation
import HaloServer
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the server and SDK tests run against, chosen by `HALO_TEST_BACKEND`:
/// - `sqlite` (the default): one server on `halo.sqlite` in its data directory;
/// - `postgres`: one server on a fresh database of the tests' PostgreSQL cluster;
/// - `postgres-cluster`: three servers on one fresh database, behind nginx
///   (`scripts/nginx-balancer.sh`), as docs/deploy.md runs them.
///
/// `make test-postgres` runs the server and SDK flow suites on the last two.
public enum TestBackEnd: String, Sendable {
    case sqlite
    case postgres
    case postgresCluster = "postgres-cluster"

    public static let current: TestBackEnd = {
        let name = ProcessInfo.processInfo.environment["HALO_TEST_BACKEND"] ?? "sqlite"
        guard let backEnd = TestBackEnd(rawValue: name) else {
            fatalError("HALO_TEST_BACKEND=\(name): expected sqlite, postgres or postgres-cluster")
        }
        return backEnd
    }()

    /// Whether several processes serve the requests (a test that needs one process skips).
    public var isCluster: Bool { self == .postgresCluster }

    /// The `halo-server` options that name the data of a deployment started on `directory`.
    public func dataOptions(for directory: URL) throws -> [String] {
        guard self != .sqlite else { return ["--data", directory.path] }
        return ["--data", directory.path, "--database", try PostgresDatabases.address(for: directory)]
    }

    /// The data of a deployment started on `directory`, opened for administration (as
    /// `halo-server` commands do), whether or not a server runs on it.
    public func admin(for directory: URL) async throws -> HaloServerAdmin {
        guard self != .sqlite else { return try HaloServerAdmin.open(dataDirectory: directory) }
        return try await HaloServerAdmin.open(postgres: try PostgresDatabases.location(for: directory))
    }

    /// The environment of a `halo-server` child process (PostgreSQL's password).
    public var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if self != .sqlite { environment["PGPASSWORD"] = PostgresCluster.password }
        return environment
    }
}

/// The servers of one test, on `TestBackEnd.current`: one in-process `HaloServerInstance`, or
/// three behind nginx. `baseURL` is where clients go; `admin` reaches the shared data.
public final class TestDeployment: Sendable {
    public let instances: [HaloServerInstance]
    public let baseURL: URL
    private let balancer: NginxBalancer?

    public var admin: HaloServerAdmin { instances[0].admin }
    /// The port clients connect to.
    public var port: Int { baseURL.port ?? 0 }

    private init(instances: [HaloServerInstance], baseURL: URL, balancer: NginxBalancer?) {
        self.instances = instances
        self.baseURL = baseURL
        self.balancer = balancer
    }

    /// Starts the servers of `configuration` on the current back end. On PostgreSQL the data
    /// directory names the database: a deployment started again on the same directory (a
    /// restart) finds the data it left.
    public static func start(_ configuration: HaloServerConfiguration) async throws -> TestDeployment {
        var configuration = configuration
        let backEnd = TestBackEnd.current
        if backEnd != .sqlite, configuration.postgres == nil {
            configuration.postgres = try PostgresDatabases.location(for: configuration.dataDirectory)
        }
        guard backEnd.isCluster else {
            let instance = try await HaloServerInstance.start(configuration)
            return TestDeployment(instances: [instance], baseURL: instance.baseURL, balancer: nil)
        }
        let listenPort = configuration.port
        configuration.port = 0
        var instances: [HaloServerInstance] = []
        do {
            for _ in 0..<3 { instances.append(try await HaloServerInstance.start(configuration)) }
            let balancer = try NginxBalancer(listenPort: listenPort, upstreamPorts: instances.map(\.port))
            return TestDeployment(instances: instances, baseURL: balancer.baseURL, balancer: balancer)
        } catch {
            for instance in instances { await instance.stop() }
            throw error
        }
    }

    /// Stops every server (their streams end), then nginx.
    public func stop() async {
        for instance in instances { await instance.stop() }
        balancer?.stop()
    }
}

/// One PostgreSQL database per test data directory, in the shared test cluster.
public enum PostgresDatabases {
    private static let byDirectory = Mutex<[String: String]>([:])

    /// The database for `directory` (made on first use), signed in with the cluster's password.
    public static func location(for directory: URL) throws -> PostgresLocation {
        try PostgresLocation(try address(for: directory), environment: ["PGPASSWORD": PostgresCluster.password])
    }

    /// Runs `sql` in the database of `directory` (psql, unaligned: columns joined by `|`).
    public static func psql(_ sql: String, for directory: URL) throws -> String {
        try PostgresCluster.shared().psql(sql, database: try name(for: directory))
    }

    /// Whether a write transaction holds the write lock of `directory`'s database now.
    public static func writeInProgress(for directory: URL) throws -> Bool {
        let held = try psql(
            """
            SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND l.mode = 'ExclusiveLock' AND l.granted AND d.datname = current_database()
            """, for: directory)
        return held != "0"
    }

    /// The address (`--database`) of the database for `directory`, made on first use.
    public static func address(for directory: URL) throws -> String {
        try PostgresCluster.shared().address(database: try name(for: directory))
    }

    /// The name of the database for `directory`, made on first use.
    private static func name(for directory: URL) throws -> String {
        let cluster = try PostgresCluster.shared()
        return try byDirectory.withLock { names in
            if let name = names[directory.standardizedFileURL.path] { return name }
            let name = try cluster.makeDatabase()
            names[directory.standardizedFileURL.path] = name
            return name
        }
    }
}

/// nginx balancing requests over servers on loopback (`scripts/nginx-balancer.sh` with
/// `deploy/nginx.conf.in`), in a temporary directory of its own.
public final class NginxBalancer: Sendable {
    public let baseURL: URL
    private let process: Mutex<Process?>
    private let directory: URL

    /// `listenPort` 0 takes a free port.
    public init(listenPort: Int = 0, upstreamPorts: [Int]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-nginx-\(UUID().uuidString.prefix(8))")
        var port = listenPort
        if port == 0 {
            let (fd, free) = try listenOnLoopback()
            close(fd)
            port = free
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/nginx-balancer.sh")
        let process = Process()
        process.executableURL = script
        process.arguments = [directory.path, String(port)] + upstreamPorts.map(String.init)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = Mutex(process)
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if Self.accepts(port: port) { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        stop()
        throw ToolFailure("nginx did not start on port \(port): \(log)")
    }

    deinit { stop() }

    /// Stops nginx (SIGTERM: open connections are closed, as a graceful stop would wait for
    /// event streams forever) and removes its directory.
    public func stop() {
        let running = process.withLock { state -> Process? in
            defer { state = nil }
            return state
        }
        guard let running else { return }
        if running.isRunning {
            kill(running.processIdentifier, SIGTERM)
            running.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
