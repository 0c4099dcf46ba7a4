import HaloContentStore

/// Every limit the server enforces, with its default; `HaloServerConfiguration.limits` holds the
/// values in force and `halo-server serve --limit name=value` sets them. docs/limits.md lists
/// them all with the reasons for their defaults.
public struct ServerLimits: Sendable {
    // MARK: Requests

    /// Largest accepted request body in bytes; bigger bodies get 413.
    public var bodyBytes = 8 * 1024 * 1024
    /// How big a search may be (page size, sort keys, filter size, `like` length…).
    public var search = SearchLimits()

    // MARK: The pocket (PROTOCOL §8)

    /// HALO's limit of `data`, counted as `PocketLimits.dataLength` counts it.
    public var pocketDataCharacters = PocketLimits.dataCharacters
    /// Ours: named reference lists per pocket.
    public var pocketReferenceLists = PocketLimits.referenceLists
    /// Ours: entries per reference list.
    public var pocketEntriesPerList = PocketLimits.entriesPerList
    /// Ours: longest list name or entry.
    public var pocketReferenceLength = PocketLimits.referenceLength

    // MARK: Sync streams

    /// Syncs answered at once by the whole server; more get 503 with `Retry-After`.
    public var syncStreams = 64
    /// Syncs answered at once for one access token; more get 429 with `Retry-After`.
    public var syncStreamsPerToken = 4
    /// Syncs answered at once for one client address; more get 429 with `Retry-After`.
    public var syncStreamsPerAddress = 16
    /// Syncs reading the database at once. A sync reads its whole answer in one snapshot, spools
    /// it to a temporary file and frees its reader, so clients never hold readers; this keeps
    /// database readers and cores free for other requests while many syncs start together.
    public var syncReaders = 2
    /// Bytes of one sync answer kept in memory before the rest is spooled to disk.
    public var syncMemoryBytes = 1024 * 1024

    // MARK: Connections

    /// Open client connections; past this the server stops accepting until some close.
    public var connections = 4096
    /// A connection with no request in progress is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// A connection whose client accepts no response bytes for this long is closed.
    public var stallTimeout: Duration = .seconds(30)

    public init() {}
}

extension ServerLimits {
    /// The settable limits by the name `halo-server serve --limit NAME=VALUE` uses (whole numbers;
    /// timeouts in seconds).
    public static var settingNames: [String: WritableKeyPath<ServerLimits, Int>] {
        [
        "body-bytes": \.bodyBytes,
        "search-page-size": \.search.pageSize, "search-page": \.search.page,
        "search-filter-depth": \.search.filterDepth, "search-filter-nodes": \.search.filterNodes,
        "search-list-entries": \.search.listEntries, "search-like-pattern": \.search.likePattern,
        "search-string": \.search.string,
        "pocket-data-characters": \.pocketDataCharacters, "pocket-reference-lists": \.pocketReferenceLists,
        "pocket-entries-per-list": \.pocketEntriesPerList, "pocket-reference-length": \.pocketReferenceLength,
        "sync-streams": \.syncStreams, "sync-streams-per-token": \.syncStreamsPerToken,
        "sync-streams-per-address": \.syncStreamsPerAddress, "sync-readers": \.syncReaders,
        "sync-memory-bytes": \.syncMemoryBytes, "connections": \.connections,
        "idle-timeout": \.idleTimeoutSeconds, "stall-timeout": \.stallTimeoutSeconds,
        ]
    }

    /// Sets one limit from `NAME=VALUE`; the error names what is wrong.
    public mutating func set(_ assignment: String) throws(ServerLimitError) {
        let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let path = Self.settingNames[parts[0]] else {
            throw ServerLimitError(
                "Unknown limit '\(parts.first ?? "")'; known: \(Self.settingNames.keys.sorted().joined(separator: ", "))")
        }
        guard let value = Int(parts[1]), value >= 1 else {
            throw ServerLimitError("The limit \(parts[0]) needs a whole number of at least 1 (got '\(parts[1])')")
        }
        self[keyPath: path] = value
    }

    var idleTimeoutSeconds: Int {
        get { Int(idleTimeout.components.seconds) }
        set { idleTimeout = .seconds(newValue) }
    }

    var stallTimeoutSeconds: Int {
        get { Int(stallTimeout.components.seconds) }
        set { stallTimeout = .seconds(newValue) }
    }
}

public struct ServerLimitError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Fixed bounds of the request decoding layer (`RequestInput`): sanity caps on single values,
/// far above any real value and far below what could hurt; the body size limit bounds the rest.
enum RequestLimits {
    /// Longest string accepted in a plain request field (an email, a name, an id, a grant type).
    static let fieldLength = 10_000
    /// Largest timestamp magnitude in milliseconds: 2^53, the last whole number a JSON double
    /// holds exactly (the year 285,000 or so).
    static let milliseconds: Int64 = 1 << 53
}
