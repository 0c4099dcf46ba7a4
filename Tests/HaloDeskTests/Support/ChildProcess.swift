import Foundation

/// Runs helper programs from tests (the built app, X11 tools, the AT-SPI script).
struct ChildProcess {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs a program to completion and captures its output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Starts a long-running program whose output goes to a log file.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String], log: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// Polls `body` every 200 ms until it returns a value or `timeout` seconds pass.
    static func poll<T>(timeout: Double, _ body: () throws -> T?) rethrows -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let value = try body() { return value }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        return nil
    }
}
