import Foundation
import KithStorage

/// How often a tally goes back to 0 on its own: at local midnight in the
/// owner's time zone, each day, on the 1st of each month, or on 1 January.
public enum TallyResetSchedule: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case off, daily, monthly, yearly

    var label: String {
        switch self {
        case .off: "Never"
        case .daily: "Every day at midnight"
        case .monthly: "On the 1st of every month"
        case .yearly: "Every 1 January"
        }
    }

    /// The first instant of the next period that starts strictly after
    /// `now`, in seconds since 1970; nil when the schedule is off.
    ///
    /// "Midnight" is the first moment of the local day, found from noon of
    /// that day (noon always exists) rather than by asking for 00:00: where
    /// a DST change skips midnight (America/Santiago in September goes from
    /// 23:59:59 to 01:00) the day starts at 01:00, and where midnight comes
    /// twice the first one counts.
    public func nextReset(after now: Int64, timeZone identifier: String) -> Int64? {
        guard self != .off else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? TimeZone(identifier: "UTC")!
        let today = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(now)))
        guard let year = today.year, let month = today.month, let day = today.day else { return nil }
        // The day after the current period, as a date; `date(from:)`
        // carries day 32 into the next month and month 13 into the next year.
        var next = DateComponents(hour: 12)
        switch self {
        case .off: return nil
        case .daily: (next.year, next.month, next.day) = (year, month, day + 1)
        case .monthly: (next.year, next.month, next.day) = (year, month + 1, 1)
        case .yearly: (next.year, next.month, next.day) = (year + 1, 1, 1)
        }
        guard let noon = calendar.date(from: next) else { return nil }
        let start = Int64(calendar.startOfDay(for: noon).timeIntervalSince1970)
        // Cannot happen for the periods above (the next period's start is
        // at least a day after today's noon minus a DST shift), but a reset
        // that is not in the future would fire on every tick.
        return start > now ? start : nil
    }
}
