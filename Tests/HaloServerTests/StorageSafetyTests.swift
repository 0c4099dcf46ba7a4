import Foundation
import HaloContentStore
import HaloServer
import XCTest

/// A full disk answers 507 with a sentence, and the server recovers once space is freed; the
/// data directory and database files are private to their owner.
final class StorageSafetyTests: XCTestCase {
    var server: TestServer?
    var mountPoint: URL?

    override func tearDown() async throws {
        await server?.stop(removeData: false)
        server = nil
        if let mountPoint {
            // The server process may still be closing its files when stop returns (seen under
            // load): a busy mount (status 32) is retried for a few seconds.
            var status = Self.run("/bin/umount", [mountPoint.path]).status
            for _ in 0..<50 where status == 32 {
                try await Task.sleep(for: .milliseconds(100))
                status = Self.run("/bin/umount", [mountPoint.path]).status
            }
            XCTAssertEqual(status, 0, "umount \(mountPoint.path)")
            try? FileManager.default.removeItem(at: mountPoint)
        }
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    // MARK: Full disk

    func testFullDiskAnswers507AndTheServerRecovers() async throws {
        try skipUnlessSQLite("a full disk under halo.sqlite (PostgreSQL's full disk: ErrorMappingTests)")
        let mount = FileManager.default.temporaryDirectory.appendingPathComponent("halo-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", mount.path])
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(at: mount)
            let reason = geteuid() == 0 ? "mount failed even as root" : "not root (euid \(geteuid()))"
            print("StorageSafetyTests: no size-limited tmpfs (\(reason)): \(mounted.output)")
            throw XCTSkip("cannot mount a size-limited tmpfs (\(reason)): \(mounted.output)")
        }
        mountPoint = mount
        let server = try await TestServer.start(directory: mount.appendingPathComponent("data")) { _ in }
        self.server = server
        let editor = try await server.appToken(editor: true)
        let module = try await server.admin.addModule(ModuleSpec(name: "Notes", fields: [ModuleField("text", .longText)]))
        func save(_ name: String, bytes: Int) async throws -> HTTPAnswer {
            try await server.call(
                "POST", "/api/generalcontent/instance", token: editor,
                body: .json([
                    "module": .string(module), "name": .string(name),
                    "values": ["text": .string(String(String(repeating: "lorem ipsum dolor ", count: bytes / 18 + 1).prefix(bytes)))],
                    "tags": [],
                ]))
        }
        assertStatus(try await save("small", bytes: 100), 200)

        // Fill the disk to the last block with a dummy file.
        let filler = mount.appendingPathComponent("filler")
        XCTAssertTrue(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        let chunk = Data(repeating: 0, count: 4096)
        var written = 0
        do {
            while true {
                try handle.write(contentsOf: chunk)
                written += chunk.count
            }
        } catch {}
        try? handle.close()
        XCTAssertGreaterThan(written, 0)

        let full = try await save("big", bytes: 200_000)
        let message = assertEnvelope(full, status: 507)
        XCTAssertTrue(message.contains("disk is full"), message)
        // Reads still work.
        let search = try await server.call(
            "POST", "/api/generalcontent/instance/search", token: editor,
            body: .json(["moduleIds": [.string(module)]]))
        XCTAssertEqual(search.status, 200, String(decoding: search.data, as: UTF8.self))

        // Free the space: writes work again, without a restart.
        try FileManager.default.removeItem(at: filler)
        let recovered = try await save("big", bytes: 200_000)
        XCTAssertEqual(recovered.status, 200, String(decoding: recovered.data, as: UTF8.self))
        assertStatus(try await save("after", bytes: 100), 200)
    }

    // MARK: Private files

    private func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try XCTUnwrap(attributes[.posixPermissions] as? Int) & 0o777
    }

    private func assertPrivate(_ directory: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try mode(directory), 0o700, "data directory", file: file, line: line)
        for name in ["halo.sqlite", "halo.sqlite-wal", "halo.sqlite-shm"] {
            let url = directory.appendingPathComponent(name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), name, file: file, line: line)
            XCTAssertEqual(try mode(url), 0o600, name, file: file, line: line)
        }
    }

    func testDataDirectoryAndDatabaseFilesArePrivateAndRepairedOnStart() async throws {
        try skipUnlessSQLite("the modes of halo.sqlite and its WAL files")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("halo-private-\(UUID().uuidString)/data", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        // A wide umask must not matter.
        let previous = umask(0)
        defer { umask(previous) }
        var server = try await TestServer.start(directory: directory) { _ in }
        self.server = server
        _ = try await server.appToken()
        try assertPrivate(directory)
        await server.stop(removeData: false)
        self.server = nil

        // Loosened by hand (or by an older version): the next start narrows them again.
        XCTAssertEqual(chmod(directory.path, 0o755), 0)
        for name in ["halo.sqlite", "halo.sqlite-wal", "halo.sqlite-shm"] {
            let path = directory.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path) { XCTAssertEqual(chmod(path, 0o644), 0) }
        }
        XCTAssertEqual(try mode(directory), 0o755)
        server = try await TestServer.start(directory: directory) { _ in }
        self.server = server
        _ = try await server.appToken()
        try assertPrivate(directory)
    }

    func testAStickySharedDirectoryIsLeftAlone() async throws {
        try skipUnlessSQLite("the modes of halo.sqlite and its WAL files")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-sticky-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertEqual(chmod(directory.path, 0o1777), 0)
        let server = try await TestServer.start(directory: directory) { _ in }
        self.server = server
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
        XCTAssertEqual((attributes[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o777)
        XCTAssertEqual(try mode(directory.appendingPathComponent("halo.sqlite")), 0o600)
    }
}
