import Foundation
@testable import KithApp
import Testing

/// A person's local times are written out by hand (a DateFormatter per
/// entry made long pages slow); they must read exactly as DateFormatter's.
@Suite("Local times")
struct LocalTimeTests {
    static func formatted(_ instant: Int64, zone: String, withYear: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = withYear ? "EEE d MMM yyyy, HH:mm" : "EEE d MMM, HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(instant)))
    }

    @Test("every zone's local time reads as DateFormatter writes it, across years, months and daylight saving changes")
    func matchesDateFormatter() {
        let zones = ["UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "No/Such_Zone"]
        var instant: Int64 = 946_684_800  // 2000-01-01
        var checked = 0
        while instant < 2_000_000_000 {
            for zone in zones {
                for withYear in [false, true] {
                    #expect(TimeText.local(instant, zone: zone, withYear: withYear).human == Self.formatted(instant, zone: zone, withYear: withYear), "\(instant) \(zone)")
                    checked += 1
                }
            }
            instant += 86_400 * 17 + 3_607  // every weekday, month and hour comes round
        }
        #expect(checked > 5_000)
        #expect(TimeText.local(1_781_085_600, zone: "UTC").human == "Wed 10 Jun, 10:00")
    }
}
