import Foundation
import Glibc

/// The SDK's files are the user's alone: folders it creates are 0700 and files 0600 (the XDG
/// base directory spec asks 0700 for created folders; the cache holds content the user may
/// read only with their credentials, the device file identifies the machine, the log shows
/// requests). Created with these modes from the start — never open, then narrowed — and
/// narrowed when found more open (e.g. written by an older version under a 022 umask).
///
/// Every step is best effort: a file system that refuses (read-only, not ours) is left as it
/// is and the operation that needs the file reports its own error.
enum PrivateFiles {
    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600
    /// The name of the SDK's own folders (`XDGDirectories`): those are narrowed when found open.
    static let ownFolderName = "halo-desk"

    /// Creates `directory` and its missing parents with mode 0700. An existing folder is narrowed
    /// to 0700 only when it is the SDK's own (named `halo-desk`, as `XDGDirectories` makes them):
    /// a folder the app chose may be shared (think `/tmp`) and is never chmod-ed.
    static func createDirectory(_ directory: URL) throws {
        let path = directory.standardizedFileURL.path
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/", !exists(current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for component in missing.reversed() where mkdir(component, directoryMode) != 0 && errno != EEXIST {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, path: component)
        }
        if missing.isEmpty, directory.lastPathComponent == ownFolderName { narrow(path, to: directoryMode) }
        guard isDirectory(path) else { throw POSIXError(.ENOTDIR, path: path) }
    }

    /// Creates the empty file `file` with mode 0600 when missing (so what opens it next — SQLite,
    /// a log handle — keeps that mode); narrows it to 0600 when it exists with a more open mode.
    static func prepareFile(_ file: URL) {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if fd >= 0 { close(fd); return }
        narrow(file.path, to: fileMode)
    }

    /// Narrows an existing regular file or folder at `path` to `mode` if it grants more (group or
    /// others bits). Symbolic links are left alone (chmod would change their target).
    static func narrow(_ path: String, to mode: mode_t) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR else { return }
        if info.st_mode & 0o7777 & ~mode != 0 { _ = chmod(path, mode) }
    }

    /// Writes `data` to `file` atomically (a temporary file in the same folder, renamed over it),
    /// the file being 0600 from its creation.
    static func writeAtomically(_ data: Data, to file: URL) throws {
        var template = Array((file.deletingLastPathComponent().path + "/.\(file.lastPathComponent).XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // mkstemp: mode 0600
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, path: file.path) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temporary, file.path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO, path: file.path)
        }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}

extension POSIXError {
    init(_ code: POSIXErrorCode, path: String) {
        self.init(
            code, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(path): \(String(cString: strerror(code.rawValue)))"])
    }
}
