import Foundation
@testable import KithApp
import Testing

/// Times are formatted from the zone's offset and `gmtime_r`, not with a
/// `DateFormatter` per time (which cost more than the rest of a live
/// fragment's render). The text must stay exactly what the `en_US_POSIX`
/// formatter wrote, in every zone, across daylight-saving changes.
@Suite("Times as text, without a formatter per time")
struct TimeTextFormatterTests {
    static let zones = [
        "UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham",
        "America/St_Johns", "Pacific/Kiritimati", "Nowhere/Special",
    ]

    /// Every 7 hours and 13 minutes over two years: each weekday, month,
    /// hour and DST change in those zones is met.
    static let instants: [Int64] = stride(from: Int64(1_767_225_600), to: 1_830_297_600, by: 26_000).map { $0 }

    static func reference(_ instant: Int64, zone: String, format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(instant)))
    }

    @Test("a time in a person's zone reads as the formatter wrote it, with and without the year")
    func localMatchesFormatter() {
        for zone in Self.zones {
            for instant in Self.instants {
                #expect(TimeText.local(instant, zone: zone).human == Self.reference(instant, zone: zone, format: "EEE d MMM, HH:mm"))
                #expect(
                    TimeText.local(instant, zone: zone, withYear: true).human
                        == Self.reference(instant, zone: zone, format: "EEE d MMM yyyy, HH:mm"))
            }
        }
    }

    @Test("a tally history's day, week and month labels read as the formatter wrote them")
    func historyLabelsMatchFormatter() {
        let patterns: [(TallyHistoryRoutes.Period, String)] = [(.day, "EEE d MMM"), (.week, "'Week of' d MMM"), (.month, "MMM yyyy")]
        for zone in Self.zones {
            for instant in Self.instants.prefix(400) {
                for (period, format) in patterns {
                    #expect(period.label(instant, zone: zone) == Self.reference(instant, zone: zone, format: format))
                }
            }
        }
    }

    @Test("a calendar date reads in full on every day of a leap year and the next")
    func longDateMatchesFormatter() {
        var day: Int64 = 1_704_110_400  // 2024-01-01 12:00 UTC
        while day < 1_767_268_800 {
            let ymd = TimeText.utc(day, machine: true).prefix(10)
            #expect(TimeText.longDate(String(ymd)) == Self.reference(day, zone: "UTC", format: "EEEE d MMMM yyyy"))
            day += 86_400
        }
    }
}
