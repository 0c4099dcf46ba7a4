import Foundation

/// The metadata filters the SDKs shipped as helpers (PROTOCOL §11.2 presets), for `metaFilter`.
/// `now` is a parameter so results are reproducible; it defaults to the current time.
extension SearchFilter {
    /// Never published, archived, removed or deleted.
    public static func drafts() -> SearchFilter {
        and(
            eq(property: "publishedAt", value: nil), eq(property: "archivedAt", value: nil),
            eq(property: "removedAt", value: nil), eq(property: "deletedAt", value: nil))
    }

    /// Updated between `since` and now, and not deleted.
    public static func lastUpdated(since: Date, now: Date = Date()) -> SearchFilter {
        and(
            gte(property: "updatedAt", value: since), lte(property: "updatedAt", value: now),
            eq(property: "deletedAt", value: nil))
    }

    /// Archived by now, not removed, not deleted.
    public static func archived(now: Date = Date()) -> SearchFilter {
        and(
            lte(property: "archivedAt", value: now), eq(property: "removedAt", value: nil),
            eq(property: "deletedAt", value: nil))
    }

    /// Removed (expired) by now and not deleted.
    public static func expired(now: Date = Date()) -> SearchFilter {
        and(lte(property: "removedAt", value: now), eq(property: "deletedAt", value: nil))
    }

    /// Published by now, not (yet) removed, not deleted.
    public static func published(now: Date = Date()) -> SearchFilter {
        and(
            lte(property: "publishedAt", value: now),
            or(gt(property: "removedAt", value: now), eq(property: "removedAt", value: nil)),
            eq(property: "deletedAt", value: nil))
    }
}
