import Foundation
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
    /// Searches run at once; the others wait their turn (`FairGate`). One per core: a search only
    /// needs the CPU, and more at once only makes every one of them slower.
    public var searches = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// Memory for in-memory copies of what searches read (`SearchMemory`: fields' values, dates,
    /// names, orders; SQLite only); 0 turns them off. 100,000 instances of 8 fields, 78-word
    /// descriptions included, take about 85 MB.
    public var searchMemoryBytes = 256 * 1024 * 1024

    // MARK: The pocket (PROTOCOL §8)

    /// HALO's limit of `data`, counted as `PocketLimits.dataLength` counts it.
    public var pocketDataCharacters = PocketLimits.dataCharacters
    /// Ours: named reference lists per pocket.
    public var pocketReferenceLists = PocketLimits.referenceLists
    /// Ours: entries per reference list.
    public var pocketEntriesPerList = PocketLimits.entriesPerList
    /// Ours: longest list name or entry.
    public var pocketReferenceLength = PocketLimits.referenceLength
    /// Ours: the whole pocket, data and references together, in UTF-8 bytes as
    /// `PocketLimits.pocketBytes` counts them. A pocket already past it (stored under a higher
    /// limit) stays readable and may be made smaller.
    public var pocketBytes = PocketLimits.wholePocketBytes

    /// The pocket limits in force, as the pocket answers announce them (`PocketLimits.header`).
    var pocketLimits: PocketLimits.Values {
        var values = PocketLimits.Values()
        values.dataCharacters = pocketDataCharacters
        values.referenceLists = pocketReferenceLists
        values.entriesPerList = pocketEntriesPerList
        values.referenceLength = pocketReferenceLength
        values.wholePocketBytes = pocketBytes
        return values
    }

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

    // MARK: Event streams (our extension, docs/protocol.md §23.3)

    /// Event streams held open by the whole server; more get 503 with `Retry-After`.
    public var eventStreams = 2048
    /// Event streams held open for one access token; more get 429 with `Retry-After`.
    public var eventStreamsPerToken = 8
    /// Event streams held open with one device's credential; more get 429 with `Retry-After`. A few,
    /// not one: a stream cut by a dropped network may linger until its next heartbeat fails.
    public var eventStreamsPerDevice = 4
    /// How long events are kept for clients that reconnect; an older `Last-Event-ID` gets `reset`.
    public var eventRetention: Duration = .seconds(7 * 24 * 3600)
    /// A comment line is sent on an otherwise quiet stream this often, so proxies keep it open
    /// and a dead client is noticed.
    public var eventHeartbeat: Duration = .seconds(15)

    // MARK: Connections

    /// Open client connections; past this the server stops accepting until some close.
    public var connections = 4096
    /// A connection with no request in progress is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// While a response waits for its client, the client must take `minimumTransferRate` bytes a
    /// second on average over each `stallTimeout`; a client that stops reading, or trickles, is
    /// disconnected.
    public var stallTimeout: Duration = .seconds(30)
    /// Bytes a second (see `stallTimeout`).
    public var minimumTransferRate = 2048

    public init() {}
}

extension ServerLimits {
    /// The request, stream and connection limits by the name `halo-server serve --limit NAME=VALUE`
    /// uses (whole numbers; timeouts in seconds). `HaloServerConfiguration.setLimit` also knows
    /// the login throttle's.
    public static var settingNames: [String: WritableKeyPath<ServerLimits, Int>] {
        [
            "body-bytes": \.bodyBytes,
            "search-page-size": \.search.pageSize, "search-page": \.search.page,
            "search-filter-depth": \.search.filterDepth, "search-filter-nodes": \.search.filterNodes,
            "search-list-entries": \.search.listEntries, "search-like-pattern": \.search.likePattern,
            "search-string": \.search.string, "searches": \.searches,
            "search-memory-bytes": \.searchMemoryBytes,
            "pocket-data-characters": \.pocketDataCharacters, "pocket-reference-lists": \.pocketReferenceLists,
            "pocket-entries-per-list": \.pocketEntriesPerList, "pocket-reference-length": \.pocketReferenceLength,
            "pocket-bytes": \.pocketBytes,
            "sync-streams": \.syncStreams, "sync-streams-per-token": \.syncStreamsPerToken,
            "sync-streams-per-address": \.syncStreamsPerAddress, "sync-readers": \.syncReaders,
            "sync-memory-bytes": \.syncMemoryBytes, "connections": \.connections,
            "idle-timeout": \.idleTimeoutSeconds, "stall-timeout": \.stallTimeoutSeconds,
            "min-transfer-rate": \.minimumTransferRate, "event-streams": \.eventStreams,
            "event-streams-per-token": \.eventStreamsPerToken,
            "event-streams-per-device": \.eventStreamsPerDevice, "event-retention": \.eventRetentionSeconds,
            "event-heartbeat": \.eventHeartbeatSeconds,
        ]
    }

    /// The limits that 0 turns off instead of being refused.
    static let offWhenZero: Set<String> = ["search-memory-bytes"]

    var idleTimeoutSeconds: Int {
        get { Int(idleTimeout.components.seconds) }
        set { idleTimeout = .seconds(newValue) }
    }

    var eventRetentionSeconds: Int {
        get { Int(eventRetention.components.seconds) }
        set { eventRetention = .seconds(newValue) }
    }

    var eventHeartbeatSeconds: Int {
        get { Int(eventHeartbeat.components.seconds) }
        set { eventHeartbeat = .seconds(newValue) }
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

extension HaloServerConfiguration {
    /// The login throttle's settings by their `--limit` names (durations in seconds).
    private static let throttleSettingNames: [String: @Sendable (inout LoginThrottle.Settings, Int) -> Void] = [
        "login-account-failures": { $0.accountFailureLimit = $1 },
        "login-account-window": { $0.accountWindow = TimeInterval($1) },
        "login-lock": { $0.lockDuration = TimeInterval($1) },
        "login-max-lock": { $0.maxLockDuration = TimeInterval($1) },
        "login-address-failures": { $0.addressFailureLimit = $1 },
        "login-address-window": { $0.addressWindow = TimeInterval($1) },
        "login-known-device": { $0.knownDeviceLifetime = TimeInterval($1) },
        "login-tracked-entries": { $0.maxTrackedEntries = $1 },
        "registrations-per-address": { $0.registrationLimit = $1 },
        "registration-window": { $0.registrationWindow = TimeInterval($1) },
    ]

    /// Every name `setLimit` accepts.
    public static var limitNames: [String] {
        (Array(ServerLimits.settingNames.keys) + Array(throttleSettingNames.keys) + ["password-hashing"]).sorted()
    }

    /// Sets one limit from `NAME=VALUE` (`halo-server serve --limit`); the error names what is wrong.
    public mutating func setLimit(_ assignment: String) throws(ServerLimitError) {
        let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
        let name = parts.first ?? ""
        guard parts.count == 2, Self.limitNames.contains(name) else {
            throw ServerLimitError("Unknown limit '\(name)'; known: \(Self.limitNames.joined(separator: ", "))")
        }
        let minimum = ServerLimits.offWhenZero.contains(name) ? 0 : 1
        guard let value = Int(parts[1]), value >= minimum else {
            throw ServerLimitError("The limit \(name) needs a whole number of at least \(minimum) (got '\(parts[1])')")
        }
        if let path = ServerLimits.settingNames[name] {
            limits[keyPath: path] = value
        } else if let set = Self.throttleSettingNames[name] {
            set(&loginThrottle, value)
        } else {
            passwordHashingConcurrency = value
        }
    }
}
