import Foundation

/// Where an answer came from: the server, or the offline cache — kept from an earlier answer
/// (with when it was stored) or computed over synced instances (`storedAt` nil; the module's
/// sync log says how fresh those are). Lets a list say "Offline — showing the copy from 14:02".
public enum AnswerSource: Sendable, Hashable {
    case server
    case cache(storedAt: Date?)

    /// Headers an answer served from the cache carries inside the SDK (never sent over the wire).
    static let cacheHeader = "x-halo-offline"
    static let storedAtHeader = "x-halo-stored-at"

    init(_ response: HTTPResponse) {
        guard response.headers[Self.cacheHeader] == "cache" else {
            self = .server
            return
        }
        let storedAt = response.headers[Self.storedAtHeader].flatMap(Double.init).map(HaloTimestamp.date(fromMilliseconds:))
        self = .cache(storedAt: storedAt)
    }

    /// Whether the answer came from the cache.
    public var isFromCache: Bool { self != .server }
}

/// An answer that records where it came from.
protocol SourcedAnswer {
    var source: AnswerSource { get set }
}
