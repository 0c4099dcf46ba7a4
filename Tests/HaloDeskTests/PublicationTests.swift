import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The publishing buttons' exact field writes, tags typed as `name = value`, and dates that do
/// not move between time zones (no GUI: the model and the conversions the date input uses).
final class PublicationTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_790_000_000.1234)
    private func date(_ milliseconds: Int64) -> Date { HaloTimestamp.date(fromMilliseconds: Double(milliseconds)) }

    private func instance(published: Int64? = nil, removed: Int64? = nil, archived: Int64? = nil) -> ContentInstance {
        ContentInstance(
            id: "58fa0e8173c4f5001031c5a8", moduleId: "m", name: "N", tags: [Tag(name: "Spain", value: "ES")],
            createdAt: date(1_700_000_000_000), publishedAt: published.map(date), removedAt: removed.map(date),
            archivedAt: archived.map(date))
    }

    func testButtonsWriteExactlyTheirFields() {
        // Publish on an expired and archived instance: publishedAt = now, removedAt and archivedAt cleared.
        let expired = instance(published: 1_700_000_000_000, removed: 1_750_000_000_000, archived: 1_760_000_000_000)
        var publication = Publication(expired)
        XCTAssertEqual(publication.state(of: expired, now: now), .archived)
        publication.publish(now: now)
        var edited = publication.applied(to: expired)
        XCTAssertEqual(edited.publishedAt.map(HaloTimestamp.milliseconds), 1_790_000_000_123, "now, to the whole millisecond")
        XCTAssertNil(edited.removedAt)
        XCTAssertNil(edited.archivedAt)
        XCTAssertEqual(edited.tagList, expired.tagList, "tags untouched")
        XCTAssertEqual(publication.state(of: expired, now: now), .published)

        // Publish with a date chosen in the future: scheduled.
        let draft = instance()
        publication = Publication(draft)
        XCTAssertEqual(publication.state(of: draft, now: now), .draft)
        publication.choosePublishDate(date(1_800_000_000_000))
        XCTAssertEqual(publication.state(of: draft, now: now), .scheduled, "a future publish date is a scheduled publication")
        publication.publish(now: now)
        XCTAssertEqual(publication.applied(to: draft).publishedAt, date(1_800_000_000_000), "Publish uses the chosen date")

        // Unpublish clears publishedAt only.
        let published = instance(published: 1_700_000_000_000, removed: 1_850_000_000_000)
        publication = Publication(published)
        publication.unpublish()
        edited = publication.applied(to: published)
        XCTAssertNil(edited.publishedAt)
        XCTAssertEqual(edited.removedAt, published.removedAt)
        XCTAssertEqual(publication.state(of: published, now: now), .draft)

        // Archive sets archivedAt = now, nothing else (removedAt is the expiry, PROTOCOL §10).
        publication = Publication(published)
        publication.archive(now: now)
        edited = publication.applied(to: published)
        XCTAssertEqual(edited.archivedAt.map(HaloTimestamp.milliseconds), 1_790_000_000_123)
        XCTAssertEqual(edited.publishedAt, published.publishedAt)
        XCTAssertEqual(edited.removedAt, published.removedAt)
        XCTAssertEqual(publication.state(of: published, now: now), .archived)

        // The expiry date is removedAt; a past one is expired.
        publication = Publication(published)
        publication.setExpiry(date(1_780_000_000_000))
        XCTAssertEqual(publication.state(of: published, now: now), .expired)
        publication.setExpiry(nil)
        XCTAssertNil(publication.applied(to: published).removedAt)

        // Nothing touched: the instance is given back equal, to the millisecond.
        XCTAssertEqual(Publication(published).applied(to: published), published)
    }

    func testTagsTypedAsNameEqualsValue() throws {
        var publication = Publication(instance())
        try publication.addTag(typed: "  Platform Name =  ios ")
        try publication.addTag(typed: "beta")
        try publication.addTag(typed: "url = https://x.test/?a=b")
        XCTAssertEqual(
            publication.tags.map(Publication.text(of:)), ["Spain = ES", "Platform Name = ios", "beta", "url = https://x.test/?a=b"])
        XCTAssertThrowsError(try publication.addTag(typed: " = ios")) { error in
            XCTAssertEqual(
                error as? FieldValueError, FieldValueError("Write a tag as name = value, like platform = ios.", field: "meta.tags"))
        }
        XCTAssertThrowsError(try publication.addTag(typed: "Spain=ES")) { error in
            XCTAssertEqual((error as? FieldValueError)?.description, "The instance already has the tag “Spain = ES”.")
        }
        publication.removeTag(at: 0)
        let tags = publication.applied(to: instance()).tagList
        XCTAssertEqual(tags.map(\.name), ["Platform Name", "beta", "url"])
        XCTAssertEqual(tags.first?.tagType, Tag.customType)
    }

    /// A publish date picked under New York's time zone and read back under Kolkata's is the same
    /// instant, including one on the day New York moves its clocks; and a stored date opened and
    /// left alone under another zone keeps its millisecond.
    func testPublishDateDoesNotMoveBetweenTimeZones() throws {
        let zones = TimeZoneSwitch()
        defer { zones.restore() }
        func zone(_ name: String) { zones.use(name) }

        zone("America/New_York")
        // 2026-03-08 03:30 EDT (the clocks went from 02:00 EST to 03:00 EDT that night) = 07:30 UTC;
        // 2026-01-15 09:00 EST = 14:00 UTC.
        let afterChange = try XCTUnwrap(DisplayFormat.localDate(year: 2026, month: 3, day: 8, time: "03:30"))
        let winter = try XCTUnwrap(DisplayFormat.localDate(year: 2026, month: 1, day: 15, time: "09:00"))
        let beforeChange = try XCTUnwrap(DisplayFormat.localDate(year: 2026, month: 3, day: 8, time: "01:30"))
        XCTAssertEqual(HaloTimestamp.milliseconds(from: afterChange), 1_772_955_000_000)
        XCTAssertEqual(HaloTimestamp.milliseconds(from: winter), 1_768_485_600_000)
        XCTAssertEqual(afterChange.timeIntervalSince(beforeChange), 3600, "02:00–03:00 does not exist that night")
        var publication = Publication(instance())
        publication.choosePublishDate(afterChange)
        let edited = publication.applied(to: instance())
        let wire = edited.wireJSON

        zone("Asia/Kolkata")
        let read = try ContentInstance(wire: wire)
        XCTAssertEqual(read.publishedAt.map(HaloTimestamp.milliseconds), 1_772_955_000_000, "the same instant")
        XCTAssertEqual(DisplayFormat.minute(try XCTUnwrap(read.publishedAt)), "2026-03-08 13:00", "07:30 UTC is 13:00 in Kolkata")
        let parts = DisplayFormat.localParts(try XCTUnwrap(read.publishedAt))
        XCTAssertEqual([parts.year, parts.month, parts.day, parts.hour, parts.minute], [2026, 3, 8, 13, 0], "what the calendar shows")
        // Picking what is shown again, in Kolkata, gives back the same instant.
        XCTAssertEqual(DisplayFormat.localDate(year: 2026, month: 3, day: 8, time: "13:00"), afterChange)
        XCTAssertEqual(DisplayFormat.minute(winter), "2026-01-15 19:30")
        // Opened and saved without touching the date: not moved, not even rounded to the minute.
        let stored = instance(published: 1_772_955_042_321)
        XCTAssertEqual(Publication(stored).applied(to: stored).wireJSON.objectValue?["publishedAt"], 1_772_955_042_321)

        zone("America/New_York")
        XCTAssertEqual(DisplayFormat.minute(try XCTUnwrap(read.publishedAt)), "2026-03-08 03:30", "and back in New York")
    }
}
