/// Everything the content store can reject or fail at, each with a sentence a user can read.
///
/// The server maps these onto HTTP errors (`invalidFilter`/`invalidSort`/`invalidRequest` → 400,
/// `instanceNotFound` → 404); the SDK's offline cache surfaces them as they are.
public enum ContentStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A search filter tree (`searchValues` / `metaSearch`) is malformed.
    case invalidFilter(String)
    /// The `sort` string names an unknown field or direction.
    case invalidSort(String)
    /// Some other part of a search or sync request is malformed (pagination, segmentMode, …).
    case invalidRequest(String)
    /// An instance is not in the store.
    case instanceNotFound(String)
    /// An instance given to the store cannot be stored as it is (e.g. an empty id).
    case invalidInstance(String)
    /// Stored data could not be read back (a damaged or foreign database).
    case corruptData(String)

    public var description: String {
        switch self {
        case .invalidFilter(let message): return "Invalid search filter: \(message)"
        case .invalidSort(let message): return "Invalid sort: \(message)"
        case .invalidRequest(let message): return "Invalid search request: \(message)"
        case .instanceNotFound(let id): return "Instance not found: \(id)"
        case .invalidInstance(let message): return "Invalid instance: \(message)"
        case .corruptData(let message): return "Corrupt content data: \(message)"
        }
    }
}
