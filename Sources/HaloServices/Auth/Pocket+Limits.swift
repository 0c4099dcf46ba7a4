import Foundation
import HaloContentStore
import Synchronization

/// The pocket limits a server enforces (`PocketLimits.Values`: HALO's 2,000 characters of
/// `data`, and ours on the reference lists and the whole pocket), as the server announced them.
public typealias PocketLimitValues = PocketLimits.Values

// The limits in force, as each pocket answer announces them (`X-Halo-Pocket-Limits`, ours,
// PROTOCOL §23.9): the SDK's pre-check and the app's meters count against those numbers, and
// against the defaults before any answer was seen (or from a server that announces none).
extension Pocket {
    /// The last announcement of each server, by its environment.
    private static let announced = Mutex<[String: PocketLimitValues]>([:])

    /// Remembers the limits `response` announces (a response without the header changes nothing).
    static func noteLimits(of response: HTTPResponse, core: CoreManager) {
        guard let value = response.headers[PocketLimits.header.lowercased()], let limits = PocketLimitValues(headerValue: value)
        else { return }
        announced.withLock { $0[core.environment.description] = limits }
    }

    static func limits(of core: CoreManager) -> PocketLimitValues {
        announced.withLock { $0[core.environment.description] } ?? .defaults
    }

    /// The size of a whole pocket against `PocketLimitValues.wholePocketBytes`, as the server
    /// counts it: the UTF-8 bytes of `{"data":…,"references":…}` as compact JSON with sorted keys.
    public static func wholeBytes(references: [String: [String]], data: [String: JSONValue]) -> Int {
        PocketLimits.pocketBytes(references: references, data: data)
    }

    /// This pocket's size as `wholeBytes` counts it (lists marked for removal left out).
    public var wholeBytes: Int { Self.wholeBytes(references: references, data: data) }
}

extension AuthManager {
    /// The pocket limits of this server as its last pocket answer announced them; the defaults
    /// before any answer was seen.
    public var pocketLimits: PocketLimitValues {
        guard let core = try? requireCore() else { return .defaults }
        return Pocket.limits(of: core)
    }
}
