import Foundation

/// Where a PostgreSQL database is and how to sign in to it: `postgres://USER@HOST[:PORT]/DATABASE`
/// (`postgresql://` too), with `?sslmode=disable|prefer|require` (libpq's default, `prefer`).
///
/// The password never comes from the address: a command line is visible to every user of the
/// machine (`ps`). It comes, as libpq's tools do it, from `PGPASSWORD`, else from the password file
/// (`PGPASSFILE`, else `~/.pgpass`: lines of `host:port:database:user:password`, `*` matching
/// anything, which is ignored when other users may read it), else there is none (trust or peer
/// authentication).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    public var tls: TLSMode
    public var password: String?

    /// Reads `address`, taking the password from `environment` and the password file.
    public init(_ address: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: address),
            let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme)
        else {
            throw PostgresLocationError(
                "\(Self.redacted(address)) is not a PostgreSQL address: expected postgres://USER@HOST:PORT/DATABASE")
        }
        if components.password != nil {
            throw PostgresLocationError(
                "Do not put the password in the database address (anyone on this machine can read a command line): "
                    + "set PGPASSWORD or write it to a password file (PGPASSFILE or ~/.pgpass)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresLocationError("The database address \(address) names no host: postgres://USER@HOST:PORT/DATABASE")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresLocationError("The database address \(address) names no user: postgres://USER@HOST:PORT/DATABASE")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresLocationError(
                "The database address \(address) names no database: postgres://USER@HOST:PORT/DATABASE")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.database = database
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? TLSMode.prefer.rawValue
        guard let tls = TLSMode(rawValue: mode) else {
            throw PostgresLocationError("sslmode=\(mode) is not one of disable, prefer, require")
        }
        self.tls = tls
        if let password = environment["PGPASSWORD"] {
            self.password = password
        } else {
            let file = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
            self.password = try file.flatMap { try Self.password(inFile: $0, host: host, port: port, database: database, user: user) }
        }
    }

    /// The address without any password, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// `address` with the password of a `user:password@` part replaced, for messages.
    static func redacted(_ address: String) -> String {
        guard var components = URLComponents(string: address), components.password != nil else { return address }
        components.password = "…"
        return components.string ?? "the address"
    }

    /// The password the file at `path` gives (host, port, database, user), as libpq reads it.
    static func password(inFile path: String, host: String, port: Int, database: String, user: String) throws -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // libpq ignores a password file that the group or others may read; say so rather than fail later.
        if info.st_mode & 0o077 != 0 {
            throw PostgresLocationError(
                "The password file \(path) may be read by other users: run `chmod 600 \(path)`")
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = splitPassfileLine(line)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// Splits a password-file line at unescaped colons; `\:` and `\\` are a colon and a backslash.
    private static func splitPassfileLine(_ line: Substring) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}

public struct PostgresLocationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
