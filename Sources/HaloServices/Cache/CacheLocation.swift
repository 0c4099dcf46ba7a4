import Crypto
import Foundation

/// Where the offline cache of a server lives: `$XDG_CACHE_HOME/halo-desk/<host>-<port>-<hash>.sqlite`
/// (`XDGDirectories.cache`), and its pending edits: the same name under
/// `$XDG_DATA_HOME/halo-desk/outbox/`. One file per server, so switching servers never mixes their content.
public enum CacheLocation {
    /// The cache file of the server at `baseURL`. The readable prefix helps a person find it; the
    /// hash of the whole URL keeps two servers on one host apart.
    public static func file(for baseURL: URL, in directory: URL = XDGDirectories.cache) -> URL {
        directory.appendingPathComponent(fileName(for: baseURL))
    }

    /// The pending edits of that cache: user data, under `$XDG_DATA_HOME/halo-desk/outbox/` with
    /// the cache's file name, so that clearing caches never loses an edit.
    public static func outboxFile(for baseURL: URL, in dataDirectory: URL = XDGDirectories.data) -> URL {
        dataDirectory.appendingPathComponent("outbox", isDirectory: true).appendingPathComponent(fileName(for: baseURL))
    }

    private static func fileName(for baseURL: URL) -> String {
        let readable = "\(baseURL.host ?? "server")-\(baseURL.port.map(String.init) ?? "default")"
            .map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        let digest = SHA256.hash(data: Data(baseURL.absoluteString.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        return "\(String(readable))-\(digest).sqlite"
    }
}
