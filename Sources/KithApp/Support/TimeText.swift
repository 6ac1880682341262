import Foundation
import Glibc
import Synchronization

/// Every instant as text, in one place so that a time reads the same on
/// every page: how long ago, in UTC, in a person's own time zone, or as a
/// calendar date.
enum TimeText {
    /// "3 hours ago". `precision` is how stale the stored time may be:
    /// within it, the time reads as "just now" (or "within the last hour"
    /// for a time written at most hourly). A clock that stepped backwards
    /// reads as now, never as the future.
    static func relative(_ instant: Int64, now: Int64, precision: Int64 = 60) -> String {
        let seconds = max(0, now - instant)
        if seconds < precision { return precision <= 60 ? "just now" : "within the last hour" }
        func ago(_ count: Int64, _ unit: String) -> String { count == 1 ? "1 \(unit) ago" : "\(count) \(unit)s ago" }
        if seconds < 3_600 { return ago(seconds / 60, "minute") }
        if seconds < 86_400 { return ago(seconds / 3_600, "hour") }
        if seconds < 30 * 86_400 { return ago(seconds / 86_400, "day") }
        return ago(seconds / (30 * 86_400), "month")
    }

    /// `2025-06-01 14:05`, or `2025-06-01T14:05Z` for `<time datetime>`.
    /// `gmtime_r` reads no environment, so it is safe on any thread.
    static func utc(_ instant: Int64, machine: Bool = false) -> String {
        var seconds = time_t(instant)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min))"
        return machine ? "\(date)T\(clock)Z" : "\(date) \(clock)"
    }

    /// "Sat 14 Nov, 18:05" in `zone` ("Sat 14 Nov 2026, 18:05" with the
    /// year), and the instant for `<time datetime>`.
    /// Written out by hand from the zone's offset at that instant: a
    /// DateFormatter made per call cost a timeline of 500 entries tens of
    /// milliseconds, and one shared between threads is not safe on Linux.
    /// `LocalTimeTests` holds it to DateFormatter's en_US_POSIX output.
    static func local(_ instant: Int64, zone: String, withYear: Bool = false) -> (human: String, machine: String) {
        let offset = Int64(timeZone(zone).secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        var seconds = time_t(instant + offset)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return ("", utc(instant, machine: true)) }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let year = withYear ? " \(parts.tm_year + 1900)" : ""
        let human = "\(weekdays[Int(parts.tm_wday)]) \(parts.tm_mday) \(months[Int(parts.tm_mon)])\(year), \(two(parts.tm_hour)):\(two(parts.tm_min))"
        return (human, utc(instant, machine: true))
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let zones = Mutex<[String: TimeZone]>([:])

    /// The zone named, or UTC for a name it does not know; looked up once.
    static func timeZone(_ name: String) -> TimeZone {
        if let known = zones.withLock({ $0[name] }) { return known }
        let zone = TimeZone(identifier: name) ?? TimeZone(identifier: "UTC")!
        zones.withLock { $0[name] = zone }
        return zone
    }

    /// "Saturday 14 November 2026" for a calendar date the host typed
    /// (no time zone: a birthday is the same day everywhere).
    static func longDate(_ ymd: String) -> String {
        let parts = ymd.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, FormReader.isCalendarDate(ymd) else { return ymd }
        var components = DateComponents()
        components.year = parts[0]
        components.month = parts[1]
        components.day = parts[2]
        components.hour = 12
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components) else { return ymd }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "EEEE d MMMM yyyy"
        return formatter.string(from: date)
    }
}
