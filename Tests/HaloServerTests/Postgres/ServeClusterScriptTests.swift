import Foundation
import HaloContentStore
import HaloServer
import HaloTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `scripts/serve-cluster.sh`, as docs/deploy.md tells an operator to run it: three processes on
/// one PostgreSQL database behind nginx, answering through nginx, and all gone after SIGTERM.
final class ServeClusterScriptTests: XCTestCase {
    func testTheScriptServesThroughNginxAndStopsEverything() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-script-\(UUID().uuidString)")
        let address = try PostgresDatabases.address(for: directory)
        let (fd, port) = try listenOnLoopback()
        close(fd)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/serve-cluster.sh")
        let process = Process()
        // Started as from a shell: the test process's threads block SIGTERM, and a child
        // inherits that mask, so a Python shim unblocks every signal before it execs the script.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
            script.path, "--database", address, "--port", String(port), "--binary", try ChildServer.builtBinary().path,
        ]
        process.environment = TestBackEnd.postgres.childEnvironment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // "cluster ready on http://127.0.0.1:PORT (processes: PID:PORT …)"
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("cluster ready"), Date() < deadline, process.isRunning {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("cluster ready on http://127.0.0.1:\(port)"), text)
        let pids =
            text.split(separator: "processes:").last.map { $0.split(separator: " ").compactMap { Int32($0.split(separator: ":")[0]) } }
            ?? []
        XCTAssertEqual(pids.count, 3, text)

        let answer = try await TestServer.call(
            "GET", "/api/authentication/version", baseURL: URL(string: "http://127.0.0.1:\(port)")!,
            session: URLSession(configuration: .ephemeral))
        // halo-server's own answer, through nginx: the version check wants a token.
        XCTAssertEqual(answer.status, 401, String(decoding: answer.data, as: UTF8.self))
        XCTAssertEqual(answer.json["error"]?["type"], "HaloError")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        for pid in pids { XCTAssertNotEqual(kill(pid, 0), 0, "process \(pid) outlived the script") }
        let afterStop = try? await TestServer.call(
            "GET", "/api/authentication/version", baseURL: URL(string: "http://127.0.0.1:\(port)")!,
            session: URLSession(configuration: .ephemeral))
        XCTAssertNil(afterStop, "nginx outlived the script")
    }
}
