import Foundation
import Glibc
import HaloServer
import XCTest

@testable import HaloServices

/// The SDK's folders are 0700 and its files 0600 (the offline cache and its -wal/-shm, the
/// stored device, the log), created so and narrowed when found more open.
final class PrivateFilesTests: XCTestCase {
    private var savedMask: mode_t = 0

    override func setUp() {
        savedMask = umask(0o022)  // the usual umask, under which files would be 0644 and folders 0755
    }

    override func tearDown() {
        umask(savedMask)
    }

    private func mode(_ url: URL, file: StaticString = #filePath, line: UInt = #line) -> mode_t? {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            XCTFail("\(url.path) is missing", file: file, line: line)
            return nil
        }
        return info.st_mode & 0o7777
    }

    private func companion(_ file: URL, _ suffix: String) -> URL { URL(fileURLWithPath: file.path + suffix) }

    func testTheCacheFolderAndFilesAreCreatedPrivate() throws {
        let folder = try temporaryDirectory("modes").appendingPathComponent("nested/halo-desk")
        let file = folder.appendingPathComponent("cache.sqlite")
        let cache = try HaloCache(file: file)
        try cache.storeResponse(Data("{}".utf8), forKey: "k")  // a write: the WAL and SHM exist
        XCTAssertEqual(mode(folder), 0o700)
        XCTAssertEqual(mode(folder.deletingLastPathComponent()), 0o700, "created parents too")
        XCTAssertEqual(mode(file), 0o600)
        XCTAssertEqual(mode(companion(file, "-wal")), 0o600)
        XCTAssertEqual(mode(companion(file, "-shm")), 0o600)
        try cache.close()
    }

    func testACacheLeftOpenByAnOlderVersionIsNarrowedWhenOpened() throws {
        let root = try temporaryDirectory("modes")
        let folder = root.appendingPathComponent("halo-desk")
        let file = folder.appendingPathComponent("cache.sqlite")
        // As an older version left them: 0755 folder, 0644 files (the WAL kept by a crash).
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let old = try HaloCache(file: file)
        try old.storeResponse(Data("{}".utf8), forKey: "k")
        for url in [file, companion(file, "-wal"), companion(file, "-shm")] { XCTAssertEqual(chmod(url.path, 0o644), 0) }
        XCTAssertEqual(chmod(folder.path, 0o755), 0)
        XCTAssertEqual(chmod(root.path, 0o755), 0)

        let cache = try HaloCache(file: file)
        XCTAssertEqual(try cache.storedResponse(forKey: "k"), Data("{}".utf8))
        XCTAssertEqual(mode(folder), 0o700, "the SDK's own folder is narrowed")
        XCTAssertEqual(mode(root), 0o755, "a folder the app chose is left as it is")
        for url in [file, companion(file, "-wal"), companion(file, "-shm")] { XCTAssertEqual(mode(url), 0o600, url.lastPathComponent) }
        try cache.close()
        try old.close()
    }

    func testAnExistingFolderOfTheAppIsNotChanged() throws {
        let shared = try temporaryDirectory("shared")
        XCTAssertEqual(chmod(shared.path, 0o1777), 0)  // like /tmp
        let cache = try HaloCache(file: shared.appendingPathComponent("cache.sqlite"))
        XCTAssertEqual(mode(shared), 0o1777)
        XCTAssertEqual(mode(shared.appendingPathComponent("cache.sqlite")), 0o600)
        try cache.close()
    }

    func testTheStoredDeviceAndTheLogArePrivate() async throws {
        let server = try await FlowServer.start()
        do {
            var configuration = server.configuration()
            let data = try temporaryDirectory("modes").appendingPathComponent("data/halo-desk")
            configuration.dataDirectory = data
            configuration.cacheDirectory = try temporaryDirectory("modes").appendingPathComponent("halo-desk")
            let core = CoreManager(configuration: configuration)
            try await core.startup()  // stores the device
            XCTAssertEqual(mode(data), 0o700)
            let stored = try FileManager.default.contentsOfDirectory(at: data, includingPropertiesForKeys: nil)
            let device = try XCTUnwrap(stored.first { $0.lastPathComponent.hasPrefix("device-") }, "\(stored)")
            XCTAssertEqual(mode(device), 0o600)
            XCTAssertEqual(stored.count, 1, "no temporary file left: \(stored)")

            // Stored again (an existing file, made more open meanwhile): still 0600.
            XCTAssertEqual(chmod(device.path, 0o644), 0)
            try await core.startup()
            XCTAssertEqual(mode(device), 0o600)

            let logFile = data.appendingPathComponent("logs/halo.log")
            let logger = FileLogger(filePath: logFile)
            logger.logMessage("hello", level: .warning)
            XCTAssertEqual(mode(logFile), 0o600)
            XCTAssertEqual(mode(logFile.deletingLastPathComponent()), 0o700)
            XCTAssertEqual(chmod(logFile.path, 0o644), 0)
            _ = FileLogger(filePath: logFile)
            XCTAssertEqual(mode(logFile), 0o600, "an existing log is narrowed")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
