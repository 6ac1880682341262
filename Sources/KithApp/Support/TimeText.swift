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
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min))"
        return machine ? "\(date)T\(clock)Z" : "\(date) \(clock)"
    }

    /// "Sat 14 Nov, 18:05" in `zone` ("Sat 14 Nov 2026, 18:05" with the
    /// year), and the instant for `<time datetime>`.
    /// Written out by hand (see `fields`); `TimeTextFormatterTests` holds it
    /// to DateFormatter's en_US_POSIX output.
    static func local(_ instant: Int64, zone: String, withYear: Bool = false) -> (human: String, machine: String) {
        let t = fields(instant, zone: zone)
        let day = "\(weekdays[Int(t.tm_wday)]) \(t.tm_mday) \(months[Int(t.tm_mon)])" + (withYear ? " \(t.tm_year + 1900)" : "")
        return ("\(day), \(two(t.tm_hour)):\(two(t.tm_min))", utc(instant, machine: true))
    }

    /// "Saturday 14 November 2026" for a calendar date the host typed
    /// (no time zone: a birthday is the same day everywhere).
    static func longDate(_ ymd: String) -> String {
        let parts = ymd.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, FormReader.isCalendarDate(ymd) else { return ymd }
        var noon = tm()
        noon.tm_year = Int32(parts[0] - 1900)
        noon.tm_mon = Int32(parts[1] - 1)
        noon.tm_mday = Int32(parts[2])
        noon.tm_hour = 12
        let t = fields(Int64(timegm(&noon)), zone: "UTC")
        return "\(fullWeekdays[Int(t.tm_wday)]) \(t.tm_mday) \(fullMonths[Int(t.tm_mon)]) \(t.tm_year + 1900)"
    }

    /// The calendar and clock of `instant` as seen in `zone` (UTC for an
    /// unknown one): the zone's offset at that instant, then `gmtime_r`.
    /// Pages show many times and a live change makes every viewer render
    /// them again; a `DateFormatter` built per time cost ICU more than the
    /// rest of a fragment's render, and the English names below are all the
    /// `en_US_POSIX` patterns used here ever produce.
    static func fields(_ instant: Int64, zone: String) -> tm {
        let timeZone = self.timeZone(zone)
        var seconds = time_t(instant + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))))
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        return parts
    }

    private static let zones = Mutex<[String: TimeZone]>([:])

    /// The zone named, or UTC for a name it does not know; looked up once.
    static func timeZone(_ name: String) -> TimeZone {
        if let known = zones.withLock({ $0[name] }) { return known }
        let zone = TimeZone(identifier: name) ?? TimeZone(identifier: "UTC")!
        zones.withLock { $0[name] = zone }
        return zone
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let fullWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let fullMonths = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
}
