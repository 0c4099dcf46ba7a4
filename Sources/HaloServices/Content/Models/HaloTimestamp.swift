import Foundation

/// HALO's time format: epoch milliseconds as JSON numbers (PROTOCOL §1.5).
///
/// iOS sent fractional milliseconds (`1475046170087.9997`), so reading rounds to the nearest
/// millisecond; writing always produces a whole number.
public enum HaloTimestamp {
    /// The date for an epoch-milliseconds value (rounded to the nearest millisecond).
    public static func date(fromMilliseconds milliseconds: Double) -> Date {
        Date(timeIntervalSince1970: milliseconds.rounded() / 1000)
    }

    /// The whole epoch milliseconds of a date.
    public static func milliseconds(from date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        // Dates outside ±292 million years cannot be written as Int64 ms; clamp instead of trapping.
        guard value.isFinite else { return 0 }
        return Int64(max(min(value, 9.2e18), -9.2e18))
    }

    /// The JSON number for a date (`null` when absent).
    public static func json(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .number(Double(milliseconds(from: date)))
    }
}
