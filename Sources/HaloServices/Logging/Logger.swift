import Foundation
import Logging
import Synchronization

/// How much the SDK logs. Each level includes the less verbose ones (info ⊃ warning ⊃ error).
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case none = 0, error, warning, info

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The swift-log level a message of this level is emitted at.
    var swiftLogLevel: Logging.Logger.Level {
        switch self {
        case .none, .info: return .info
        case .error: return .error
        case .warning: return .warning
        }
    }
}

/// A destination for the SDK's log messages (the seed's `Logger` protocol).
/// Register loggers with `CoreManager.addLogger(_:)` before `startup`.
public protocol Logger: Sendable {
    func logMessage(_ message: String, level: LogLevel)
}

/// Prints every message to standard error.
public struct ConsoleLogger: Logger {
    public init() {}
    public func logMessage(_ message: String, level: LogLevel) {
        FileHandle.standardError.write(Data(LogLine.format(message, level: level).utf8))
    }
}

/// Appends every message to a file (`filePath`), creating it (0600) and its folder (0700) as needed.
/// Default place: `$XDG_DATA_HOME/halo-desk/halo.log`.
public final class FileLogger: Logger {
    /// The file being written.
    public let filePath: URL
    private let handle: Mutex<FileHandle?>

    public init(filePath: URL = XDGDirectories.data.appendingPathComponent("halo.log")) {
        self.filePath = filePath
        try? PrivateFiles.createDirectory(filePath.deletingLastPathComponent())
        PrivateFiles.prepareFile(filePath)  // 0600: the log shows requests
        let handle = try? FileHandle(forWritingTo: filePath)
        _ = try? handle?.seekToEnd()
        self.handle = Mutex(handle)
    }

    public func logMessage(_ message: String, level: LogLevel) {
        let line = Data(LogLine.format(message, level: level).utf8)
        handle.withLock { $0?.write(line) }
    }
}

enum LogLine {
    static func format(_ message: String, level: LogLevel) -> String {
        let stamp = ISO8601DateFormatter.string(
            from: Date(), timeZone: .current, formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        return "\(stamp) [HALO] [\(String(describing: level).uppercased())] \(message)\n"
    }
}

/// Bridges swift-log to the SDK's loggers, so the SDK's own code logs through a standard
/// `Logging.Logger` and every registered `Logger` receives messages at or below `logLevel`.
struct HaloLogHandler: LogHandler {
    let core: WeakBox<CoreManager>
    var metadata: Logging.Logger.Metadata = [:]
    var logLevel: Logging.Logger.Level = .trace

    subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let haloLevel: LogLevel
        switch event.level {
        case .critical, .error: haloLevel = .error
        case .warning: haloLevel = .warning
        default: haloLevel = .info
        }
        core.value?.logMessage(event.message.description, level: haloLevel)
    }
}
