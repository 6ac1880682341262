import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// Goals and streaks: the pure computation over history, zone and clock,
/// then the real server (taps, a moved clock, who may set a goal, bad input).
@Suite(.serialized)
struct TallyGoalTests {
    typealias Change = TallyGoals.Change
    static let newYork = "America/New_York"

    static func at(_ iso: String, _ delta: Int64 = 1) -> Change { Change(at: Tallies.instant(iso), delta: delta) }

    static func progress(_ target: Int64, _ period: TallyGoalPeriod, _ changes: [Change], zone: String = newYork, now: String)
        -> TallyGoalProgress
    {
        TallyGoals.progress(of: TallyGoal(target: target, period: period), changes: changes, timeZone: zone, now: Tallies.instant(now))
    }

    // MARK: Periods

    @Test("a day starts at local midnight on both sides of New York's DST changes (23 and 25 hour days)")
    func dayAcrossDST() {
        let calendar = TallyGoals.calendar(Self.newYork)
        // 8 March 2026: clocks go from 02:00 to 03:00; the day is 23 hours.
        let march = TallyGoals.start(of: .day, containing: Tallies.instant("2026-03-08T23:30:00-04:00"), calendar: calendar)
        #expect(march == Tallies.instant("2026-03-08T00:00:00-05:00"))
        let nextMarch = TallyGoals.start(of: .day, containing: Tallies.instant("2026-03-09T00:10:00-04:00"), calendar: calendar)
        #expect(nextMarch - march == 23 * 3600)
        // 1 November 2026: 02:00 comes back to 01:00; the day is 25 hours.
        let november = TallyGoals.start(of: .day, containing: Tallies.instant("2026-11-01T23:30:00-05:00"), calendar: calendar)
        #expect(november == Tallies.instant("2026-11-01T00:00:00-04:00"))
        #expect(TallyGoals.previous(.day, before: Tallies.instant("2026-11-02T00:00:00-05:00"), calendar: calendar) == november)
    }

    @Test("weeks start on Monday at local midnight, months on the 1st, in the owner's zone rather than UTC")
    func weeksAndMonths() {
        let calendar = TallyGoals.calendar(Self.newYork)
        // Sunday 7 June 2026, 23:00 in New York, is Monday 03:00 UTC.
        let sunday = Tallies.instant("2026-06-07T23:00:00-04:00")
        #expect(TallyGoals.start(of: .week, containing: sunday, calendar: calendar) == Tallies.instant("2026-06-01T00:00:00-04:00"))
        #expect(TallyGoals.start(of: .week, containing: sunday, calendar: TallyGoals.calendar("UTC")) == Tallies.instant("2026-06-08T00:00:00Z"))
        // A week that begins in one month: Monday 30 March 2026.
        #expect(
            TallyGoals.start(of: .week, containing: Tallies.instant("2026-04-02T12:00:00-04:00"), calendar: calendar)
                == Tallies.instant("2026-03-30T00:00:00-04:00"))
        #expect(
            TallyGoals.start(of: .month, containing: Tallies.instant("2026-03-31T23:59:00-04:00"), calendar: calendar)
                == Tallies.instant("2026-03-01T00:00:00-05:00"))
        #expect(
            TallyGoals.previous(.month, before: Tallies.instant("2026-03-01T00:00:00-05:00"), calendar: calendar)
                == Tallies.instant("2026-02-01T00:00:00-05:00"))
    }

    // MARK: Progress and streaks

    @Test("progress counts only the current period's changes, floored at 0, and ignores changes after now")
    func progressInPeriod() {
        let changes = [
            Self.at("2026-03-07T23:59:00-05:00"),  // the day before
            Self.at("2026-03-08T00:30:00-05:00"), Self.at("2026-03-08T23:30:00-04:00"),
            Self.at("2026-03-09T00:10:00-04:00"),  // after now: a clock moved back
        ]
        let now = "2026-03-08T23:45:00-04:00"
        #expect(Self.progress(8, .day, changes, now: now).done == 2)
        #expect(Self.progress(8, .day, changes + [Self.at("2026-03-08T12:00:00-04:00", -5)], now: now).done == 0)
        #expect(Self.progress(8, .day, changes + [Self.at("2026-03-08T12:00:00-04:00", -1)], now: now).done == 1)
        #expect(!Self.progress(3, .day, changes, now: now).met)
        #expect(Self.progress(2, .day, changes, now: now).met)
    }

    @Test("a daily streak runs across the spring-forward and fall-back days, counts today once met, and breaks on a missed day")
    func dailyStreakAcrossDST() {
        // One tap late each evening, 5 to 10 March (DST begins on the 8th).
        let march = (5...10).map { Self.at("2026-03-\($0 < 10 ? "0" : "")\($0)T23:30:00-0\($0 < 8 ? 5 : 4):00") }
        #expect(Self.progress(1, .day, march, now: "2026-03-10T23:45:00-04:00") == TallyGoalProgress(
            goal: TallyGoal(target: 1, period: .day), done: 1, streak: 6))
        // The next morning: today not met yet, the streak still stands.
        let morning = Self.progress(1, .day, march, now: "2026-03-11T09:00:00-04:00")
        #expect(morning.done == 0 && morning.streak == 6)
        // A day with nothing breaks it.
        #expect(Self.progress(1, .day, march, now: "2026-03-12T09:00:00-04:00").streak == 0)
        // A missed day in the middle leaves only the days since.
        #expect(Self.progress(1, .day, march.filter { $0 != march[2] }, now: "2026-03-10T23:45:00-04:00").streak == 3)
        // The 25-hour day in November: taps at 00:30 and 23:30 are one day's two.
        let november = [Self.at("2026-11-01T00:30:00-04:00"), Self.at("2026-11-01T23:30:00-05:00")]
        let fallBack = Self.progress(2, .day, november, now: "2026-11-01T23:50:00-05:00")
        #expect(fallBack.done == 2 && fallBack.streak == 1)
        #expect(Self.progress(2, .day, november, now: "2026-11-02T00:10:00-05:00") == TallyGoalProgress(
            goal: TallyGoal(target: 2, period: .day), done: 0, streak: 1))
    }

    @Test("a monthly streak counts each month once across month ends, February included, and an unmet month breaks it")
    func monthlyStreak() {
        let changes = [
            Self.at("2026-01-31T23:30:00-05:00"), Self.at("2026-01-31T23:40:00-05:00"),  // January, late on its last day
            Self.at("2026-02-01T00:05:00-05:00"), Self.at("2026-02-28T23:59:00-05:00"),
            Self.at("2026-03-01T00:00:00-05:00"),
        ]
        let march = Self.progress(2, .month, changes, now: "2026-03-15T12:00:00-04:00")
        #expect(march.done == 1 && march.streak == 2)
        #expect(Self.progress(1, .month, changes, now: "2026-03-15T12:00:00-04:00").streak == 3)
        // In UTC the late January taps fall in February and the late February
        // one in March: none in January, three in February, two in March.
        let utc = Self.progress(2, .month, changes, zone: "UTC", now: "2026-03-15T12:00:00Z")
        #expect(utc.done == 2 && utc.streak == 2)
        #expect(Self.progress(3, .month, changes, zone: "UTC", now: "2026-03-15T12:00:00Z").streak == 1)
        #expect(Self.progress(2, .month, changes, now: "2026-04-01T08:00:00-04:00").streak == 0)
    }

    @Test("a weekly streak: weeks from Monday, an unmet week ends it")
    func weeklyStreak() {
        let changes = [
            Self.at("2026-06-01T08:00:00Z"), Self.at("2026-06-07T22:00:00Z"),  // week of 1 June
            Self.at("2026-06-08T00:00:00Z"), Self.at("2026-06-09T00:00:00Z"),  // week of 8 June
            Self.at("2026-06-15T00:00:00Z"),  // this week, one so far
        ]
        let progress = Self.progress(2, .week, changes, zone: "UTC", now: "2026-06-17T12:00:00Z")
        #expect(progress.done == 1 && progress.streak == 2)
        #expect(Self.progress(3, .week, changes, zone: "UTC", now: "2026-06-17T12:00:00Z").streak == 0)
    }

    // MARK: Through the server

    static func setGoal(_ session: WebSession, _ tally: Int64, target: String, period: String) throws -> TestResponse {
        try Tallies.post(session, "/tallies/\(tally)/goal", [("goal_target", target), ("goal_period", period)])
    }

    static func tap(_ session: WebSession, _ tally: Int64) throws {
        let response = try Tallies.post(session, "/tallies/\(tally)/increment")
        guard response.status == 303 else { throw TestError("tap failed: \(response.status)") }
    }

    static func storedGoal(_ app: AppHarness, _ tally: Int64) throws -> TallyGoal? {
        try app.app.database.read { try TallyStore.goal($0, tallyID: tally) }
    }

    @Test("taps through the server fill the ring; a typed count does not; the home row says the same")
    func progressAfterTaps() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let tally = try Tallies.create(ann.session, name: "Water")
        #expect(try Self.setGoal(ann.session, tally, target: "3", period: "day").status == 303)
        #expect(try Self.storedGoal(app, tally) == TallyGoal(target: 3, period: .day))
        try Self.tap(ann.session, tally)
        try Self.tap(ann.session, tally)
        var page = try ann.session.get("/tallies/\(tally)").text
        #expect(page.contains("2 of 3 today"))
        #expect(page.contains("data-goal-step=\"13\""))
        #expect(page.contains("data-goal-met=\"0\""))
        #expect(!page.contains("in a row"))
        #expect(try Tallies.post(ann.session, "/tallies/\(tally)/count", [("count", "40")]).status == 303)
        #expect(try ann.session.get("/tallies/\(tally)").text.contains("2 of 3 today"), "a typed count is not progress")
        try Self.tap(ann.session, tally)
        page = try ann.session.get("/tallies/\(tally)").text
        #expect(page.contains("3 of 3 today"))
        #expect(page.contains("data-goal-met=\"1\""))
        #expect(page.contains("1 day<span class=\"visually-hidden\"> in a row</span>"))
        let home = try ann.session.get("/").text
        #expect(home.contains("tally-goal-bar"))
        #expect(home.contains("3 of 3 today"))
        // A reset taken back from its notice restores the count, not progress: the taps still count once.
        #expect(try Tallies.confirm(ann.session, "/tallies/\(tally)/reset").status == 303)
        let undo = try DestructiveActionTests.undoAction(in: try ann.session.get("/tallies/\(tally)"))
        #expect(try Tallies.post(ann.session, undo).status == 303)
        #expect(try ann.session.get("/tallies/\(tally)").text.contains("3 of 3 today"), "an undone reset is not progress")
        // No goal: the ring and its words go.
        #expect(try Self.setGoal(ann.session, tally, target: "", period: "none").status == 303)
        #expect(try Self.storedGoal(app, tally) == nil)
        #expect(!(try ann.session.get("/tallies/\(tally)").text.contains("class=\"tally-goal")))
    }

    /// A New Yorker's tally with a goal, on a clock the story moves.
    static func newYorker(at iso: String, target: String, period: String) throws
        -> (clock: Locked<Int64>, app: AppHarness, ann: (session: WebSession, id: Int64), tally: Int64)
    {
        let clock = Locked(Tallies.instant(iso))
        let app = try Tallies.harness(clock: clock)
        let ann = try Tallies.person(app, "annie", timeZone: newYork)
        let tally = try Tallies.create(ann.session, name: "Runs")
        #expect(try setGoal(ann.session, tally, target: target, period: period).status == 303)
        return (clock, app, ann, tally)
    }

    @Test("a moved clock: the streak grows day by day across the March DST change in the owner's zone, and a missed day ends it")
    func streakWithMovedClock() throws {
        let (clock, app, ann, tally) = try Self.newYorker(at: "2026-03-06T21:00:00-05:00", target: "1", period: "day")
        defer { withExtendedLifetime(app) {} }
        for day in 0..<4 {
            clock.withLock { $0 = Tallies.instant("2026-03-06T21:00:00-05:00") + Int64(day) * 86_400 - (day >= 2 ? 3600 : 0) }
            try Self.tap(ann.session, tally)
        }
        // 9 March, 21:00 in New York (after the change): four days met.
        var text = try ann.session.get("/tallies/\(tally)").text
        #expect(text.contains("1 of 1 today"))
        #expect(text.contains("4 days<span class=\"visually-hidden\"> in a row</span>"))
        // 23:30 on the 9th is still the 9th in New York though already the 10th in UTC.
        func page(at iso: String) throws -> String {
            clock.withLock { $0 = Tallies.instant(iso) }
            return try ann.session.get("/tallies/\(tally)").text
        }
        #expect(try page(at: "2026-03-09T23:30:00-04:00").contains("1 of 1 today"))
        text = try page(at: "2026-03-10T08:00:00-04:00")
        #expect(text.contains("0 of 1 today") && text.contains("4 days<span class=\"visually-hidden\"> in a row</span>"))
        #expect(!(try page(at: "2026-03-11T08:00:00-04:00").contains("in a row")))
    }

    @Test("a moved clock over a month end: a monthly goal starts again on the 1st and the month met is the streak")
    func monthEndWithMovedClock() throws {
        let (clock, app, ann, tally) = try Self.newYorker(at: "2026-01-31T23:00:00-05:00", target: "2", period: "month")
        defer { withExtendedLifetime(app) {} }
        try Self.tap(ann.session, tally)
        try Self.tap(ann.session, tally)
        #expect(try ann.session.get("/tallies/\(tally)").text.contains("2 of 2 this month"))
        clock.withLock { $0 = Tallies.instant("2026-02-01T00:30:00-05:00") }
        let page = try ann.session.get("/tallies/\(tally)").text
        #expect(page.contains("0 of 2 this month"))
        #expect(page.contains("1 month<span class=\"visually-hidden\"> in a row</span>"))
    }

    @Test("only the owner sets a goal: a friend who may edit is refused (403), a stranger is told it isn't there (404)")
    func ownerOnly() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        let eve = try Tallies.person(app, "evelyn")
        try Tallies.befriend(ann.session, "bobby")
        let tally = try Tallies.create(ann.session, shares: [(bob.id, "edit")])
        let friend = try Self.setGoal(bob.session, tally, target: "5", period: "day")
        #expect(friend.status == 403)
        #expect(friend.text.contains("Only the owner can set this tally"))
        #expect(try Self.setGoal(bob.session, tally, target: "0", period: "day").status == 403, "bad input from a friend is still refused")
        #expect(try Self.setGoal(eve.session, tally, target: "5", period: "day").status == 404)
        #expect(try Self.setGoal(eve.session, tally, target: "x", period: "day").status == 404)
        #expect(try Self.storedGoal(app, tally) == nil)
        // The friend sees the owner's goal, without the form.
        #expect(try Self.setGoal(ann.session, tally, target: "5", period: "week").status == 303)
        let page = try bob.session.get("/tallies/\(tally)").text
        #expect(page.contains("0 of 5 this week"))
        #expect(!page.contains("name=\"goal_target\""))
        #expect(try ann.session.get("/tallies/\(tally)").text.contains("name=\"goal_target\""))
    }

    @Test(
        "bad goals are refused with the message beside the field and nothing stored",
        arguments: [
            ("0", "day", "Enter a goal from 1 to 999,999,999."), ("1000000000", "day", "Enter a goal from 1 to 999,999,999."),
            ("lots", "week", "Enter a goal from 1 to 999,999,999."), ("", "month", "Enter a goal from 1 to 999,999,999."),
            ("-3", "day", "Enter a goal from 1 to 999,999,999."),
            ("5", "year", "Choose each day, each week, each month or no goal."),
            ("5", "", "Choose each day, each week, each month or no goal."),
        ])
    func badInput(target: String, period: String, message: String) throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let tally = try Tallies.create(ann.session)
        #expect(try Self.setGoal(ann.session, tally, target: "8", period: "day").status == 303)
        let response = try Self.setGoal(ann.session, tally, target: target, period: period)
        #expect(response.status == 422)
        #expect(response.text.contains(message))
        #expect(response.text.contains("value=\"\(target)\""), "what was typed comes back")
        #expect(try Self.storedGoal(app, tally) == TallyGoal(target: 8, period: .day))
    }

    @Test("a deleted tally put back by undo keeps its goal")
    func undoKeepsGoal() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let tally = try Tallies.create(ann.session)
        #expect(try Self.setGoal(ann.session, tally, target: "4", period: "week").status == 303)
        #expect(try Tallies.confirm(ann.session, "/tallies/\(tally)/delete").status == 303)
        #expect(try Self.storedGoal(app, tally) == nil)
        let undo = try DestructiveActionTests.undoAction(in: try ann.session.get("/"))
        #expect(try Tallies.post(ann.session, undo).status == 303)
        #expect(try Self.storedGoal(app, tally) == TallyGoal(target: 4, period: .week))
    }

    @Test(
        "pages with a goal pass the Nu HTML checker: owner and friend, met and not, the home row, and the form with its errors",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker"))
    func pagesValidate() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        try Tallies.befriend(ann.session, "bobby")
        let met = try Tallies.create(ann.session, name: "Met", shares: [(bob.id, "view")])
        let open = try Tallies.create(ann.session, name: "Open")
        #expect(try Self.setGoal(ann.session, met, target: "1", period: "day").status == 303)
        #expect(try Self.setGoal(ann.session, open, target: "9", period: "month").status == 303)
        try Self.tap(ann.session, met)
        let directory = try TemporaryDirectory()
        let invalid = try Self.setGoal(ann.session, open, target: "0", period: "year")
        #expect(invalid.status == 422)
        try invalid.text.write(toFile: "\(directory.path)/invalid.html", atomically: true, encoding: .utf8)
        try HTMLValidationTests.expectValid(
            [("met", ann.session, "/tallies/\(met)"), ("open", ann.session, "/tallies/\(open)"), ("friend", bob.session, "/tallies/\(met)"),
                ("home", ann.session, "/"), ("friend-home", bob.session, "/")],
            directory: directory)
    }
}
