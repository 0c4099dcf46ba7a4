import Crypto
import Foundation

/// Where the offline cache of a server and account lives:
/// `$XDG_CACHE_HOME/halo-desk/<host>-<port>-<hash>.sqlite` (`XDGDirectories.cache`), and its
/// pending edits: the same name under `$XDG_DATA_HOME/halo-desk/outbox/`. One file per server and
/// account, so switching servers or users never mixes their content; `account` nil is the app's
/// own token (content every install sees), and the name files had before accounts were kept apart.
public enum CacheLocation {
    /// The cache file of the server at `baseURL` for `account`. The readable prefix helps a person
    /// find it; the hash of the URL and the account keeps two servers on one host, and two
    /// users, apart (without writing an email into a file name).
    public static func file(for baseURL: URL, account: String? = nil, in directory: URL = XDGDirectories.cache) -> URL {
        directory.appendingPathComponent(fileName(for: baseURL, account: account))
    }

    /// The pending edits of that cache: user data, under `$XDG_DATA_HOME/halo-desk/outbox/` with
    /// the cache's file name, so that clearing caches never loses an edit.
    public static func outboxFile(for baseURL: URL, account: String? = nil, in dataDirectory: URL = XDGDirectories.data) -> URL {
        dataDirectory.appendingPathComponent("outbox", isDirectory: true).appendingPathComponent(fileName(for: baseURL, account: account))
    }

    private static func fileName(for baseURL: URL, account: String?) -> String {
        let readable = "\(baseURL.host ?? "server")-\(baseURL.port.map(String.init) ?? "default")"
            .map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        let identity = baseURL.absoluteString + (account.map { "\n" + $0 } ?? "")
        let digest = SHA256.hash(data: Data(identity.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        return "\(String(readable))-\(digest).sqlite"
    }
}
