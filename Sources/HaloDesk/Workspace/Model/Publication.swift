import Foundation
import HaloServices

/// An instance's publication as the instance editor changes it: the three dates of PROTOCOL §10
/// and its segmentation tags. Changes stay in the edit until the user saves the instance (then
/// they go out with it, through the pending-edits outbox when offline) and go away when the
/// edit is discarded.
///
/// The buttons write exactly these fields (docs/protocol.md §10, "Publishing from HaloDesk"):
/// - **Publish**: `publishedAt` = the publish date picked in this edit, else now; `removedAt`
///   and `archivedAt` cleared. A future `publishedAt` is a scheduled publication.
/// - **Unpublish**: `publishedAt` cleared (a draft again). Nothing else.
/// - **Archive**: `archivedAt` = now. Nothing else. Issue 14 worded it "Archive sets
///   `removedAt`"; the protocol's states define archived by `archivedAt` and expired by
///   `removedAt`, and we follow the protocol.
/// - **Publish date**: picking one sets `publishedAt` (and is what Publish uses).
/// - **Expiry date**: sets `removedAt` (a future one schedules the expiry); Never clears it.
///
/// A date not picked keeps its stored millisecond: nothing is rewritten through text, so an
/// instance opened under another time zone is saved with the same instants.
struct Publication: Equatable {
    private(set) var publishedAt: Date?
    private(set) var removedAt: Date?
    private(set) var archivedAt: Date?
    private(set) var tags: [Tag]
    /// The publish date picked in this edit; Publish uses it instead of now.
    private(set) var chosenPublishDate: Date?

    init(_ instance: ContentInstance) {
        publishedAt = instance.publishedAt
        removedAt = instance.removedAt
        archivedAt = instance.archivedAt
        tags = instance.tagList
    }

    /// `instance` with these dates and tags (its other fields untouched).
    func applied(to instance: ContentInstance) -> ContentInstance {
        var edited = instance
        edited.publishedAt = publishedAt
        edited.removedAt = removedAt
        edited.archivedAt = archivedAt
        edited.tagList = tags
        return edited
    }

    /// The state these dates give `instance` at `now` (draft, scheduled, published, …).
    func state(of instance: ContentInstance, now: Date = Date()) -> InstanceState {
        InstanceState(instance: applied(to: instance), now: now)
    }

    // MARK: The buttons

    mutating func publish(now: Date = Date()) {
        publishedAt = chosenPublishDate ?? Self.wholeMillisecond(now)
        removedAt = nil
        archivedAt = nil
    }

    mutating func unpublish() {
        publishedAt = nil
        chosenPublishDate = nil
    }

    mutating func archive(now: Date = Date()) {
        archivedAt = Self.wholeMillisecond(now)
    }

    mutating func choosePublishDate(_ date: Date) {
        chosenPublishDate = date
        publishedAt = date
    }

    mutating func setExpiry(_ date: Date?) {
        removedAt = date
    }

    // MARK: Tags

    /// Adds the tag written as `name = value` (or a bare `name`, a tag without a value).
    mutating func addTag(typed text: String) throws(FieldValueError) {
        let tag = try Self.tag(typed: text)
        guard !tags.contains(where: { $0.name == tag.name && $0.value == tag.value }) else {
            throw FieldValueError("The instance already has the tag “\(Self.text(of: tag))”.", field: Self.tagsField)
        }
        tags.append(tag)
    }

    mutating func removeTag(at index: Int) {
        guard tags.indices.contains(index) else { return }
        tags.remove(at: index)
    }

    /// What the edit's problems name as their field: the editor shows them under the section.
    static let publishDateField = "meta.publishedAt"
    static let expiryDateField = "meta.removedAt"
    static let tagsField = "meta.tags"

    /// A tag typed as `name = value`: both trimmed; the name is required, the value may be absent.
    static func tag(typed text: String) throws(FieldValueError) -> Tag {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard !name.isEmpty else {
            throw FieldValueError("Write a tag as name = value, like platform = ios.", field: tagsField)
        }
        return Tag(name: name, value: value.isEmpty ? nil : value)
    }

    /// "name = value", or the name of a tag without a value.
    static func text(of tag: Tag) -> String {
        tag.value.map { "\(tag.name) = \($0)" } ?? tag.name
    }

    /// HALO keeps whole milliseconds: "now" is cut to one, so what is shown is what is stored
    /// (down, not to the nearest: rounded up it would be a moment in the future, "scheduled").
    private static func wholeMillisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
