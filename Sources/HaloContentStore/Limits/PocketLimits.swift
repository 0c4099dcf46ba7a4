/// The pocket's size rules, one definition for the server's check and the SDK's pre-check
/// (docs/limits.md). The 2,000 characters of `data` are HALO's (PROTOCOL §8.1); the caps on
/// `references` are ours: HALO stated none, and an unbounded list is a way to fill the disk.
public enum PocketLimits {
    /// HALO's documented limit of `data`, in characters of its serialized JSON.
    public static let dataCharacters = 2000
    /// Ours: at most this many named reference lists per pocket.
    public static let referenceLists = 100
    /// Ours: at most this many entries in one reference list.
    public static let entriesPerList = 1000
    /// Ours: the longest name of a list and the longest entry, in Unicode scalars.
    public static let referenceLength = 256

    /// How `data` is measured against `dataCharacters`: the Unicode scalars of its compact JSON
    /// with sorted keys. Scalars, not grapheme clusters: a letter followed by a million combining
    /// accents is one grapheme but a million scalars, and it is the bytes that must stay small.
    public static func dataLength(_ data: [String: JSONValue]) -> Int {
        JSONValue.object(data).jsonString(sortedKeys: true).unicodeScalars.count
    }
}
