import Foundation
@testable import KithApp
import Testing

@Suite("Times as text")
struct TimeTextTests {
    @Test("an instant reads as how long ago and as UTC")
    func relativeAndUTC() {
        let now: Int64 = 1_750_000_000  // 2025-06-15 15:06:40 UTC
        #expect(TimeText.utc(now) == "2025-06-15 15:06")
        #expect(TimeText.utc(now, machine: true) == "2025-06-15T15:06Z")
        #expect(TimeText.utc(0) == "1970-01-01 00:00")
        #expect(TimeText.relative(now - 5, now: now) == "just now")
        #expect(TimeText.relative(now - 60, now: now) == "1 minute ago")
        #expect(TimeText.relative(now - 3 * 3_600 - 5, now: now) == "3 hours ago")
        #expect(TimeText.relative(now - 86_400, now: now) == "1 day ago")
        #expect(TimeText.relative(now - 65 * 86_400, now: now) == "2 months ago")
        #expect(TimeText.relative(now - 1_800, now: now, precision: 3_600) == "within the last hour")
        #expect(TimeText.relative(now + 30, now: now) == "just now", "a clock step backwards is not the future")
    }

    @Test("an instant reads in the person's own time zone, with the year when asked, and falls back to UTC for an unknown zone")
    func local() {
        let now: Int64 = 1_750_000_000  // 2025-06-15 15:06:40 UTC, a Sunday
        #expect(TimeText.local(now, zone: "UTC") == ("Sun 15 Jun, 15:06", "2025-06-15T15:06Z"))
        #expect(TimeText.local(now, zone: "America/New_York").human == "Sun 15 Jun, 11:06")
        #expect(TimeText.local(now, zone: "Asia/Kolkata", withYear: true).human == "Sun 15 Jun 2025, 20:36")
        #expect(TimeText.local(now, zone: "Nowhere/Special").human == "Sun 15 Jun, 15:06")
        #expect(TimeText.local(now, zone: "Pacific/Kiritimati").machine == "2025-06-15T15:06Z", "the machine time is always UTC")
    }

    @Test("a calendar date reads in full, and anything that is not one is shown as typed")
    func longDate() {
        #expect(TimeText.longDate("2026-11-14") == "Saturday 14 November 2026")
        #expect(TimeText.longDate("2028-02-29") == "Tuesday 29 February 2028")
        #expect(TimeText.longDate("2027-02-29") == "2027-02-29")
        #expect(TimeText.longDate("soon") == "soon")
    }
}
