import Foundation
import KithStorage

/// How long a goal's period lasts. Periods start at local midnight in the
/// owner's time zone; weeks start on Monday.
public enum TallyGoalPeriod: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case day, week, month

    /// "today", "this week": how the current period is named in "5 of 8 today".
    var current: String {
        switch self {
        case .day: "today"
        case .week: "this week"
        case .month: "this month"
        }
    }

    /// "4 days": a streak of `count` periods.
    func streak(_ count: Int) -> String {
        let unit = switch self {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        }
        return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}

/// A tally's goal: reach `target` in every period.
public struct TallyGoal: Sendable, Equatable {
    public var target: Int64
    public var period: TallyGoalPeriod
}

/// How a goal stands now: progress in the current period and the streak.
public struct TallyGoalProgress: Sendable, Equatable {
    public var goal: TallyGoal
    /// Counted so far in the current period.
    public var done: Int64
    /// Consecutive met periods up to the last complete one, plus the current
    /// one once it is met.
    public var streak: Int

    public var met: Bool { done >= goal.target }
}

/// Goals and streaks, computed from the history rather than from the count:
/// a reset clears the count but not what was done today.
///
/// What counts toward a goal: the rows the totals count too
/// (`TallyStore.countingRows`: taps up and down, and undos of taps), summed
/// per period and floored at 0. A typed count (`set`), a reset and an undo
/// of either do not: they correct or clear the number shown, they are not
/// things done; a count typed from 0 to 500 would otherwise meet any goal
/// at once, and a reset would take back a day's work.
enum TallyGoals {
    static let maximumTarget: Int64 = TallyStore.maximumCount

    /// One change that may count toward a goal: when, and by how much.
    struct Change: Sendable, Equatable {
        var at: Int64
        var delta: Int64
    }

    // MARK: Periods

    static func calendar(_ identifier: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? TimeZone(identifier: "UTC")!
        return calendar
    }

    /// The first instant of the period that contains `instant`.
    ///
    /// Like resets (`TallyResetSchedule.nextReset`), a day is found from its
    /// noon, which always exists, and its start is the first moment of that
    /// local day: where a DST change skips midnight the day starts at 01:00.
    static func start(of period: TallyGoalPeriod, containing instant: Int64, calendar: Calendar) -> Int64 {
        let date = Date(timeIntervalSince1970: TimeInterval(instant))
        let today = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        var first = DateComponents(year: today.year, month: today.month, day: today.day, hour: 12)
        switch period {
        case .day: break
        // `weekday` is 1 for Sunday; Monday is 2. `date(from:)` carries a day
        // of 0 or less back into the month before.
        case .week: first.day = (today.day ?? 1) - ((today.weekday ?? 2) + 5) % 7
        case .month: first.day = 1
        }
        guard let noon = calendar.date(from: first) else { return instant }
        return Int64(calendar.startOfDay(for: noon).timeIntervalSince1970)
    }

    /// The first instant of the period before the one starting at `start`.
    static func previous(_ period: TallyGoalPeriod, before start: Int64, calendar: Calendar) -> Int64 {
        self.start(of: period, containing: start - 1, calendar: calendar)
    }

    // MARK: Progress and streaks

    /// Where `goal` stands at `now` given the counted changes (any order),
    /// with periods in the zone named `timeZone`.
    static func progress(of goal: TallyGoal, changes: [Change], timeZone: String, now: Int64) -> TallyGoalProgress {
        let calendar = calendar(timeZone)
        let current = start(of: goal.period, containing: now, calendar: calendar)
        // Sums per period, each keyed by its start; changes after `now` (a
        // clock moved back) belong to no period yet.
        var totals: [Int64: Int64] = [:]
        for change in changes where change.at <= now {
            totals[start(of: goal.period, containing: change.at, calendar: calendar), default: 0] += change.delta
        }
        func met(_ start: Int64) -> Bool { max(0, totals[start] ?? 0) >= goal.target }
        let done = max(0, totals[current] ?? 0)
        // Every met period has changes, so the walk back ends at the first
        // period without any: at most one step per period with changes.
        var streak = 0
        var period = previous(goal.period, before: current, calendar: calendar)
        while met(period) {
            streak += 1
            period = previous(goal.period, before: period, calendar: calendar)
        }
        if done >= goal.target { streak += 1 }
        return TallyGoalProgress(goal: goal, done: done, streak: streak)
    }

    // MARK: Now

    /// The goals of `tallyIDs` as they stand now, by tally; tallies without
    /// a goal are absent.
    static func progress(_ db: some Queryable, tallyIDs: [Int64], now: Int64) throws -> [Int64: TallyGoalProgress] {
        try TallyStore.goalInputs(db, tallyIDs: tallyIDs).mapValues { input in
            progress(of: input.goal, changes: input.changes, timeZone: input.zone, now: now)
        }
    }

    /// The tally's goal as it stands now, in its owner's zone; nil without a goal.
    static func progress(_ db: some Queryable, tally: Tally, now: Int64) throws -> TallyGoalProgress? {
        guard let goal = try TallyStore.goal(db, tallyID: tally.id) else { return nil }
        let zone = try TallyStore.ownerTimeZone(db, tally: tally)
        return progress(of: goal, changes: try TallyStore.goalChanges(db, tallyID: tally.id), timeZone: zone, now: now)
    }
}
