import Foundation
import HaloContentStore

/// The cache stores instances in the content store's wire form; callers get `ContentInstance`s.
/// Both are the §10 JSON, so the conversion goes through it (one definition of every key).
extension ContentInstance {
    init(stored: WireInstance) throws {
        let data = try JSONEncoder().encode(stored)
        try self.init(wire: JSONValue(data: data))
    }

    /// The instance in the content store's form; `id` "" when it has none yet.
    func storedForm() throws -> WireInstance {
        try JSONDecoder().decode(WireInstance.self, from: fullJSON.data(sortedKeys: false))
    }
}
