import Foundation

/// Dates and times as a person reads them, in their own time zone.
enum LocalTime {
    /// "Sat 14 Nov, 18:05" in `zone` ("Sat 14 Nov 2026, 18:05" with the
    /// year), and the instant for `<time datetime>`.
    static func format(_ instant: Int64, zone: String, withYear: Bool = false) -> (human: String, machine: String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = withYear ? "EEE d MMM yyyy, HH:mm" : "EEE d MMM, HH:mm"
        return (formatter.string(from: Date(timeIntervalSince1970: TimeInterval(instant))), SettingsRoutes.utc(instant, machine: true))
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
