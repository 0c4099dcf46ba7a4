import Foundation
import GRDB
import Logging

/// Decides, before a database of the SDK is opened for real, whether its file is ours and intact.
///
/// A cache is disposable (the server holds the truth), so a damaged or foreign file is never
/// "repaired": it is renamed aside (kept for inspection) and an empty cache takes its place; the
/// next sync refills it. The pending-edits file (`OutboxSchema`) is checked the same way; it is
/// user data, so a damaged one is kept aside for the user rather than deleted. Checks, cheapest
/// first: the 16-byte SQLite header, then opening it, `PRAGMA application_id` (a fresh database
/// has 0 and no tables), then `PRAGMA quick_check`.
enum CacheFileGuard {
    /// `PRAGMA application_id` of every HaloDesk cache: "HDC1" in ASCII.
    static let applicationID: Int32 = 0x4844_4331

    enum Verdict: Equatable {
        case missing
        case usable
        case rejected(reason: String)
    }

    static func inspect(_ file: URL, applicationID: Int32 = applicationID) -> Verdict {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            return FileManager.default.fileExists(atPath: file.path) ? .rejected(reason: "the file cannot be read") : .missing
        }
        let header = try? handle.read(upToCount: 16)
        try? handle.close()
        guard let header, !header.isEmpty else { return .missing }  // 0 bytes: SQLite treats it as new
        guard header == Data("SQLite format 3\0".utf8) else { return .rejected(reason: "it is not an SQLite database") }
        do {
            // Not read-only: a WAL database without its -shm file cannot be opened read-only.
            let queue = try DatabaseQueue(path: file.path)
            defer { try? queue.close() }
            return try queue.read { db -> Verdict in
                let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                if id != applicationID {
                    let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                    if id != 0 || tables > 0 { return .rejected(reason: "it belongs to another application (application_id \(id))") }
                }
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    return .rejected(reason: "integrity check failed: \(check.prefix(3).joined(separator: "; "))")
                }
                return .usable
            }
        } catch {
            return .rejected(reason: "it cannot be opened: \(error)")
        }
    }

    /// Renames the file (and its WAL/SHM companions) to `<name>.corrupt-<UTC timestamp>`; returns the new path.
    @discardableResult
    static func moveAside(_ file: URL, reason: String, logger: Logging.Logger, what: String = "Offline cache") throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        let stamp = formatter.string(from: Date())
        let aside = file.appendingPathExtension("corrupt-\(stamp)")
        let manager = FileManager.default
        try manager.moveItem(at: file, to: aside)
        for suffix in ["-wal", "-shm"] {
            let companion = URL(fileURLWithPath: file.path + suffix)
            if manager.fileExists(atPath: companion.path) {
                try manager.moveItem(at: companion, to: URL(fileURLWithPath: aside.path + suffix))
            }
        }
        logger.warning("\(what) \(file.path) was unusable (\(reason)); moved it to \(aside.lastPathComponent) and started an empty one.")
        return aside
    }
}
