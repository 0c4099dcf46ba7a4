import CGtk
import Foundation

/// Dates and counts as the workspace shows (and, for dates, reads back) them, in the user's
/// time zone and locale, through GLib and the C library. Foundation's formatters would load ICU —
/// about 10 MB of code and data in a statically linked app — for a handful of strings.
enum DisplayFormat {
    /// "21 Nov 2026": the instance list's date columns.
    static func day(_ date: Date) -> String { format(date, "%-d %b %Y") }

    /// "2026-11-21 22:40": metadata lines and editable date fields (`parseMinute` reads it back).
    static func minute(_ date: Date) -> String { format(date, "%Y-%m-%d %H:%M") }

    /// "21 Nov, 22:40": when an edit was queued.
    static func dayAndTime(_ date: Date) -> String { format(date, "%-d %b, %H:%M") }

    /// "14:02" today, else "3 Nov, 14:02": when something happened, as short as it can be said.
    static func time(_ date: Date, now: Date = Date()) -> String {
        format(date, "%F") == format(now, "%F") ? format(date, "%H:%M") : dayAndTime(date)
    }

    /// 100000 → "100,000", with the locale's thousands separator ("," when the locale has none,
    /// as the C locale).
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var separator = ","
        if let conventions = localeconv(), let locale = conventions.pointee.thousands_sep, locale.pointee != 0 {
            separator = String(cString: locale)
        }
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += separator }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// Reads "yyyy-MM-dd HH:mm", "yyyy-MM-dd" (midnight) in the local time zone, or an ISO 8601
    /// date-time with its own offset; nil for anything else (including impossible dates).
    static func parseDate(_ text: String) -> Date? {
        if let local = parseLocal(text) { return local }
        guard let time = g_date_time_new_from_iso8601(text, nil) else { return nil }
        defer { g_date_time_unref(time) }
        return Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(time)) + TimeInterval(g_date_time_get_microsecond(time)) / 1e6)
    }

    /// "2026-11-21": the UTC day of a date-only value (stored as 00:00 UTC of its day, so it
    /// reads the same in every time zone).
    static func utcDay(_ milliseconds: Double) -> String {
        guard let time = g_date_time_new_from_unix_utc(gint64((milliseconds / 1000).rounded(.down))) else { return "" }
        defer { g_date_time_unref(time) }
        guard let text = g_date_time_format(time, "%Y-%m-%d") else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// 00:00 UTC of the day written "yyyy-MM-dd", in epoch milliseconds; nil for another shape
    /// or a day that does not exist.
    static func utcMidnight(ofDay text: String) -> Double? {
        guard matches(text, shape: "dddd-dd-dd") else { return nil }
        let numbers = text.split(separator: "-").compactMap { Int32($0) }
        guard let time = g_date_time_new_utc(numbers[0], numbers[1], numbers[2], 0, 0, 0) else { return nil }
        defer { g_date_time_unref(time) }
        return Double(g_date_time_to_unix(time)) * 1000
    }

    /// The time of day "HH:mm" as milliseconds since midnight (a wall-clock time, in no time
    /// zone); nil for another shape or an impossible time such as 24:00.
    static func millisecondsSinceMidnight(_ text: String) -> Double? {
        guard matches(text, shape: "dd:dd") || matches(text, shape: "d:dd") else { return nil }
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else { return nil }
        return Double((parts[0] * 60 + parts[1]) * 60_000)
    }

    /// "19:30" for milliseconds since midnight.
    static func timeOfDay(millisecondsSinceMidnight milliseconds: Double) -> String {
        let minutes = Int(milliseconds / 60_000)
        return String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// "19:30": the time of day of an instant in the user's time zone.
    static func localTimeOfDay(_ date: Date) -> String { format(date, "%H:%M") }

    /// The day and the time of day of `date` in the user's time zone now (read from `TZ` each
    /// time, so the calendar of a date input shows the same day as `minute(_:)`).
    static func localParts(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        guard let time = g_date_time_new_from_unix_local(gint64(date.timeIntervalSince1970.rounded(.down))) else {
            return (1970, 1, 1, 0, 0)
        }
        defer { g_date_time_unref(time) }
        return (
            Int(g_date_time_get_year(time)), Int(g_date_time_get_month(time)), Int(g_date_time_get_day_of_month(time)),
            Int(g_date_time_get_hour(time)), Int(g_date_time_get_minute(time))
        )
    }

    /// The instant of a day and a time of day (`HH:mm`, midnight when empty) in the user's time
    /// zone; nil when the time is not written as `HH:mm` or the day does not exist.
    static func localDate(year: Int, month: Int, day: Int, time: String) -> Date? {
        let time = time.trimmingCharacters(in: .whitespaces)
        return parseLocal(String(format: "%04d-%02d-%02d", year, month, day) + (time.isEmpty ? "" : " \(time)"))
    }

    /// The two shapes `minute(_:)` and a bare day write, digit for digit ("d" = an ASCII digit).
    private static let localShapes = ["dddd-dd-dd", "dddd-dd-dd dd:dd"]

    /// Whether `text` is written as `shape`, where "d" stands for an ASCII digit.
    private static func matches(_ text: String, shape: String) -> Bool {
        shape.count == text.count && zip(shape, text).allSatisfy { $0 == "d" ? ("0"..."9").contains($1) : $0 == $1 }
    }

    private static func parseLocal(_ text: String) -> Date? {
        guard localShapes.contains(where: { matches(text, shape: $0) }) else { return nil }
        let numbers = text.split(whereSeparator: { !("0"..."9").contains($0) }).compactMap { Int32($0) }
        let (hour, minute) = numbers.count == 5 ? (numbers[3], numbers[4]) : (0, 0)
        // GLib refuses impossible dates and times (13th month, 30 February, 24:00) with nil.
        guard let time = g_date_time_new_local(numbers[0], numbers[1], numbers[2], hour, minute, 0) else { return nil }
        defer { g_date_time_unref(time) }
        return Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(time)))
    }

    private static func format(_ date: Date, _ pattern: String) -> String {
        guard let time = g_date_time_new_from_unix_local(gint64(date.timeIntervalSince1970.rounded(.down))) else { return "" }
        defer { g_date_time_unref(time) }
        guard let text = g_date_time_format(time, pattern) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }
}
