import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import Synchronization
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Three `halo-server` processes on one PostgreSQL database behind nginx (docs/deploy.md), and
/// the faults a deployment meets: a process killed with SIGKILL, PostgreSQL restarted, both under
/// load. Nothing acknowledged may be lost, and clients that retry get consistent answers.
final class ClusterFaultTests: XCTestCase {
    /// The processes, nginx in front, an editor token, and a module to write into.
    private struct Cluster {
        let processes: [ChildServer]
        let ports: [Int]
        let balancer: NginxBalancer
        let token: String
        let moduleId: String
        let session: URLSession
        /// The processes' data directories (their sync spill files).
        let directory: URL

        static func start() async throws -> Cluster {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-cluster-\(UUID().uuidString)")
            let address = try PostgresDatabases.address(for: directory)
            let admin = try await HaloServerAdmin.open(postgres: try PostgresDatabases.location(for: directory))
            defer { admin.close() }
            let moduleId = try await admin.addModule(ModuleSpec(name: "Orders", fields: [ModuleField("n", .number)]))
            let client = try await admin.addClient(editor: true)
            let binary = try ChildServer.builtBinary()
            var processes: [ChildServer] = []
            var ports: [Int] = []
            for index in 0..<3 {
                let process = try ChildServer(
                    binary: binary, directory: directory.appendingPathComponent("process-\(index)"), database: address)
                processes.append(process)
                ports.append(try process.waitForPort())
            }
            let balancer = try NginxBalancer(upstreamPorts: ports)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 20
            let session = URLSession(configuration: configuration)
            let token = try await CrashTests.token(balancer.baseURL, client, session)
            return Cluster(
                processes: processes, ports: ports, balancer: balancer, token: token, moduleId: moduleId, session: session,
                directory: directory)
        }

        func stop() {
            balancer.stop()
            for process in processes { process.kill() }
            try? FileManager.default.removeItem(at: directory)
        }

        func call(_ method: String, _ path: String, body: HTTPBody? = nil, port: Int? = nil) async throws -> HTTPAnswer {
            let base = port.map { URL(string: "http://127.0.0.1:\($0)")! } ?? balancer.baseURL
            return try await TestServer.call(method, path, baseURL: base, session: session, token: token, body: body)
        }

        /// Creates one instance; its id when the server acknowledged it (200), else nil.
        func create(_ name: String, port: Int? = nil) async -> (id: String?, status: Int) {
            let body: JSONValue = ["module": .string(moduleId), "name": .string(name), "values": ["n": 1]]
            guard let answer = try? await call("POST", "/api/generalcontent/instance", body: .json(body), port: port) else {
                return (nil, 0)
            }
            return (answer.status == 200 ? answer.json["id"]?.stringValue : nil, answer.status)
        }

        /// The ids a full sync through nginx returns.
        func syncedIds() async throws -> Set<String> {
            let answer = try await call("POST", "/api/generalcontent/instance/sync", body: .json(["moduleId": .string(moduleId)]))
            XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
            return Set(answer.json["created"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        }
    }

    /// Writers create instances through nginx, retrying what fails, while one process is killed.
    private final class Load: Sendable {
        let acknowledged = Mutex<Set<String>>([])
        let failures = Mutex<[Int: Int]>([:])
        let stop = Atomic(false)

        /// `writers` writers until `writes` are acknowledged, then `fault`, then until `writes`
        /// more are (or 30 s pass: a busy machine writes slowly, a broken cluster not at all);
        /// returns how many were acknowledged before the fault.
        static func around(
            _ cluster: Cluster, writers: Int, writes: Int = 20, _ fault: () throws -> Void
        ) async throws -> (load: Load, acknowledgedBefore: Int) {
            let load = Load()
            let running = load.run(cluster, writers: writers)
            try await load.wait(until: writes)
            let before = load.acknowledged.withLock { $0.count }
            try fault()
            try await load.wait(until: before + writes)
            load.stop.store(true, ordering: .relaxed)
            await running.value
            return (load, before)
        }

        private func wait(until count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while acknowledged.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        private func run(_ cluster: Cluster, writers: Int) -> Task<Void, Never> {
            Task {
                await withTaskGroup(of: Void.self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            var n = 0
                            while !self.stop.load(ordering: .relaxed) {
                                n += 1
                                let (id, status) = await cluster.create("w\(writer)-\(n)")
                                if let id {
                                    self.acknowledged.withLock { _ = $0.insert(id) }
                                } else {
                                    self.failures.withLock { $0[status, default: 0] += 1 }
                                    try? await Task.sleep(for: .milliseconds(50))  // then retry, as a client would
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    func testKillingOneOfThreeProcessesUnderLoadLosesNoAcknowledgedWrite() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        // SIGKILL, with requests in flight.
        let (load, before) = try await Load.around(cluster, writers: 6) { cluster.processes[1].kill() }

        let acknowledged = load.acknowledged.withLock { $0 }
        let failures = load.failures.withLock { $0 }
        XCTAssertGreaterThan(before, 10, "writes went through before the kill")
        XCTAssertGreaterThan(acknowledged.count, before + 10, "writes went on through the two processes left (failures: \(failures))")
        // Only what was in flight on the killed process may fail (nginx passes on the requests
        // it could not send to it); the clients retried those.
        XCTAssertLessThanOrEqual(failures.values.reduce(0, +), 12, "failed requests by status: \(failures)")
        // Every acknowledged write is there, whichever process a client reads from.
        let synced = try await cluster.syncedIds()
        XCTAssertTrue(acknowledged.isSubset(of: synced), "\(acknowledged.subtracting(synced).count) acknowledged writes are missing")
        for port in [cluster.ports[0], cluster.ports[2]] {
            let id = try XCTUnwrap(acknowledged.randomElement())
            let read = try await cluster.call(
                "POST", "/api/generalcontent/instance/search",
                body: .json(["moduleIds": [.string(cluster.moduleId)], "instanceIds": [.string(id)], "pagination": ["skip": true]]),
                port: port)
            XCTAssertEqual(read.json.arrayValue?.first?["id"]?.stringValue, id, "process on \(port) reads \(id)")
        }
    }

    func testPostgreSQLRestartedUnderLoadProcessesAnswerAgainWithoutARestart() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        // Every connection of every process is cut.
        let (load, _) = try await Load.around(cluster, writers: 4) { try PostgresCluster.shared().restart() }

        // While PostgreSQL was away the processes said so (503, Retry-After), never 500.
        let failures = load.failures.withLock { $0 }
        XCTAssertNil(failures[500], "failed requests by status: \(failures)")
        // Each process answers again, reads and writes, on the connections it made anew.
        for port in cluster.ports {
            let (id, status) = await cluster.create("after restart on \(port)", port: port)
            XCTAssertNotNil(id, "a write on the process on \(port) after the restart: \(status)")
            let search = try await cluster.call(
                "POST", "/api/generalcontent/instance/search", body: .json(["moduleIds": [.string(cluster.moduleId)]]), port: port)
            XCTAssertEqual(search.status, 200)
        }
        let acknowledged = load.acknowledged.withLock { $0 }
        let synced = try await cluster.syncedIds()
        XCTAssertTrue(acknowledged.isSubset(of: synced), "\(acknowledged.subtracting(synced).count) acknowledged writes are missing")
    }
}
