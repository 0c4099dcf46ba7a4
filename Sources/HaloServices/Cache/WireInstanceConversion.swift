import Foundation
import HaloContentStore

/// The cache stores instances in the content store's form (`WireInstance`); callers get
/// `ContentInstance`s. Field by field, with what reading the §10 JSON would give: dates are epoch
/// milliseconds rounded to whole ones, an absent tag value is "", and a tag whose `tagType` came
/// as an object has no `tagType` in the SDK (`ContentInstance(wire:)` reads strings only).
/// `WireInstanceConversionTests` checks both directions against the JSON round trip.
extension ContentInstance {
    init(stored: WireInstance) throws(HaloError) {
        guard let createdAt = stored.createdAt else { throw Self.noCreatedAt(id: stored.id) }
        func date(_ milliseconds: Int64?) -> Date? { milliseconds.map { HaloTimestamp.date(fromMilliseconds: Double($0)) } }
        self.init(
            id: stored.id, moduleId: stored.module, name: stored.name, values: stored.values,
            tags: stored.tags.map { Tag(id: $0.id, name: $0.name, value: $0.value, tagType: $0.tagTypeObject == nil ? $0.tagType : nil) },
            createdAt: HaloTimestamp.date(fromMilliseconds: Double(createdAt)), updatedAt: date(stored.updatedAt),
            publishedAt: date(stored.publishedAt), removedAt: date(stored.removedAt), archivedAt: date(stored.archivedAt),
            deletedAt: date(stored.deletedAt), createdBy: stored.createdBy, updatedBy: stored.updatedBy,
            deletedBy: stored.deletedBy, customerId: stored.customerId, revision: stored.revision)
    }

    /// The instance in the content store's form; `id` "" when it has none yet.
    func storedForm() -> WireInstance {
        func milliseconds(_ date: Date?) -> Int64? { date.map(HaloTimestamp.milliseconds(from:)) }
        return WireInstance(
            id: id ?? "", module: moduleId, name: name, values: values,
            tags: tagList.map { WireTag(id: $0.id, name: $0.name, value: $0.value ?? "", tagType: $0.tagType) },
            createdAt: HaloTimestamp.milliseconds(from: createdAt), updatedAt: milliseconds(updatedAt),
            publishedAt: milliseconds(publishedAt), removedAt: milliseconds(removedAt), archivedAt: milliseconds(archivedAt),
            deletedAt: milliseconds(deletedAt), createdBy: createdBy, updatedBy: updatedBy, deletedBy: deletedBy,
            customerId: customerId, revision: revision)
    }
}
