import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// The history as people use it: the section on the page, taking back
/// one's own last change, −1, the owner's step, totals per day in the
/// owner's zone, and the CSV, each checked against who may do what.
@Suite(.serialized)
struct TallyHistoryPageTests {
    /// Ann owns Coffee, shared with Bob (edit) and Cy (view); Dee is a stranger.
    struct Story {
        var clock: Locked<Int64>
        var app: AppHarness
        var ann, bob, cy, dee: (session: WebSession, id: Int64)
        var tally: Int64
    }

    static func story(count: Int = 0, annZone: String = "UTC", bobName: String? = nil) throws -> Story {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ann = try Tallies.person(app, "annie", timeZone: annZone)
        let bob = try Tallies.person(app, "bobby", name: bobName)
        let cy = try Tallies.person(app, "cyril")
        let dee = try Tallies.person(app, "deedee")
        try Tallies.befriend(ann.session, "bobby")
        try Tallies.befriend(ann.session, "cyril")
        let tally = try Tallies.create(ann.session, count: count, shares: [(bob.id, "edit"), (cy.id, "view")])
        return Story(clock: clock, app: app, ann: ann, bob: bob, cy: cy, dee: dee, tally: tally)
    }

    static func tap(_ session: WebSession, _ tally: Int64) throws -> TestResponse {
        try Tallies.post(session, "/tallies/\(tally)/increment")
    }

    static func kinds(_ app: AppHarness, _ tally: Int64) throws -> [String] {
        try TallyHistoryTests.history(app, tally).map(\.kind)
    }

    @Test("you take back your own last change within a minute, as a history row of its own; not after, not someone else's, not twice")
    func takeBackOwnLastChange() throws {
        let s = try Self.story()
        let path = "/tallies/\(s.tally)/take-back"
        for _ in 0..<3 { #expect(try Self.tap(s.ann.session, s.tally).status == 303) }
        s.clock.withLock { $0 += 59 }
        let page = try s.ann.session.get("/tallies/\(s.tally)")
        #expect(page.text.contains("action=\"\(path)\""))
        // Bob may edit, but the latest change is Ann's: no Undo for him, and a refusal in words.
        #expect(!(try s.bob.session.get("/tallies/\(s.tally)")).text.contains("action=\"\(path)\""))
        let bobTries = try Tallies.post(s.bob.session, path)
        #expect(bobTries.status == 409)
        #expect(bobTries.text.contains("Someone else changed this tally since"))
        #expect(try Tallies.post(s.ann.session, path).status == 303)
        #expect(try Tallies.count(s.app, s.tally) == 2)
        let rows = try TallyHistoryTests.history(s.app, s.tally)
        #expect(rows.last?.kind == "undo")
        #expect(rows.last?.delta == -1)
        #expect(rows.last?.user == s.ann.id)
        // An undo is not taken back again.
        let twice = try Tallies.post(s.ann.session, path)
        #expect(twice.status == 409)
        #expect(try Tallies.count(s.app, s.tally) == 2)

        // After someone else's change, yours stays.
        #expect(try Self.tap(s.ann.session, s.tally).status == 303)
        #expect(try Self.tap(s.bob.session, s.tally).status == 303)
        #expect(try Tallies.post(s.ann.session, path).status == 409)
        #expect(try Tallies.post(s.bob.session, path).status == 303)
        #expect(try Tallies.count(s.app, s.tally) == 3)

        // A minute later, it stays too.
        #expect(try Self.tap(s.bob.session, s.tally).status == 303)
        s.clock.withLock { $0 += 60 }
        let late = try Tallies.post(s.bob.session, path)
        #expect(late.status == 409)
        #expect(late.text.contains("more than a minute old"))
        #expect(try Tallies.count(s.app, s.tally) == 4)
        #expect(!(try s.bob.session.get("/tallies/\(s.tally)")).text.contains("action=\"\(path)\""))
        let replayed = try TallyHistoryTests.history(s.app, s.tally).reduce(0) { $0 + $1.delta }
        #expect(replayed == 4)
    }

    @Test("undoing a reset from its notice is history too")
    func resetUndoIsHistory() throws {
        let s = try Self.story(count: 41)
        let reset = try Tallies.confirm(s.ann.session, "/tallies/\(s.tally)/reset")
        #expect(reset.status == 303)
        let undo = try DestructiveActionTests.undoAction(in: try s.ann.session.get("/tallies/\(s.tally)"))
        #expect(try Tallies.post(s.ann.session, undo).status == 303)
        #expect(try Tallies.count(s.app, s.tally) == 41)
        let rows = try TallyHistoryTests.history(s.app, s.tally)
        #expect(rows.map(\.kind) == ["reset", "undo"])
        #expect(rows.map(\.delta) == [-41, 41])
        #expect(rows.last?.after == 41)
    }

    @Test("−1 never goes below 0, and view-only friends and strangers can neither take one off nor undo")
    func minusOne() throws {
        let s = try Self.story(count: 1)
        let minus = "/tallies/\(s.tally)/decrement"
        #expect((try s.bob.session.get("/tallies/\(s.tally)")).text.contains("action=\"\(minus)\""))
        #expect(!(try s.cy.session.get("/tallies/\(s.tally)")).text.contains("action=\"\(minus)\""))
        #expect(try Tallies.post(s.cy.session, minus).status == 403)
        #expect(try Tallies.post(s.cy.session, "/tallies/\(s.tally)/take-back").status == 403)
        #expect(try Tallies.post(s.dee.session, minus).status == 404)
        #expect(try Tallies.post(s.dee.session, "/tallies/\(s.tally)/take-back").status == 404)
        #expect(try Tallies.post(s.bob.session, minus).status == 303)
        #expect(try Tallies.count(s.app, s.tally) == 0)
        let floor = try Tallies.post(s.bob.session, minus)
        #expect(floor.status == 422)
        #expect(floor.text.contains("already 0"))
        #expect(try Tallies.count(s.app, s.tally) == 0)
        #expect(try Self.kinds(s.app, s.tally) == ["decrement"])
    }

    @Test("a tap adds the owner's step, whatever the browser sends; only the owner chooses it; never past the maximum")
    func stepFromServer() throws {
        let s = try Self.story()
        let step = "/tallies/\(s.tally)/step"
        #expect(try Tallies.post(s.bob.session, step, [("step", "5")]).status == 403)
        #expect(try Tallies.post(s.dee.session, step, [("step", "5")]).status == 404)
        #expect(try Tallies.post(s.ann.session, step, [("step", "7")]).status == 400)
        #expect(try Tallies.post(s.ann.session, step, [("step", "5")]).status == 303)
        #expect(try Tallies.post(s.bob.session, "/tallies/\(s.tally)/increment", [("step", "100"), ("count", "100")]).status == 303)
        #expect(try Tallies.count(s.app, s.tally) == 5)
        let rows = try TallyHistoryTests.history(s.app, s.tally)
        #expect(rows.map(\.kind) == ["increment"])
        #expect(rows.map(\.delta) == [5])
        #expect((try s.bob.session.get("/tallies/\(s.tally)")).text.contains("Each tap adds 5."))
        #expect(try Tallies.post(s.ann.session, "/tallies/\(s.tally)/count", [("count", "999999997")]).status == 303)
        // Refused: a plain tap lands back at the row with the maximum said.
        #expect(try Self.tap(s.ann.session, s.tally).status == 303)
        #expect(try Tallies.count(s.app, s.tally) == 999_999_997)
    }

    @Test("totals per day fall on the owner's midnight, not UTC's, as the clock moves")
    func totalsAcrossDayBoundary() throws {
        // 10:00 UTC on Wednesday 10 June is 06:00 in New York.
        let s = try Self.story(annZone: "America/New_York")
        for _ in 0..<2 { #expect(try Self.tap(s.bob.session, s.tally).status == 303) }
        // 03:30 UTC on the 11th: still 23:30 on the 10th in New York.
        s.clock.withLock { $0 = Tallies.instant("2026-06-11T03:30:00Z") }
        for _ in 0..<3 { #expect(try Self.tap(s.bob.session, s.tally).status == 303) }
        #expect(try Tallies.post(s.bob.session, "/tallies/\(s.tally)/count", [("count", "40")]).status == 303)
        // 04:30 UTC: half past midnight on Thursday the 11th there.
        s.clock.withLock { $0 = Tallies.instant("2026-06-11T04:30:00Z") }
        #expect(try Self.tap(s.bob.session, s.tally).status == 303)
        #expect(try Tallies.post(s.bob.session, "/tallies/\(s.tally)/decrement").status == 303)
        #expect(try Self.tap(s.bob.session, s.tally).status == 303)
        let days = TallyHistoryRoutes.Period.day.recent(now: s.clock.value, zone: "America/New_York", count: 3)
        #expect(days.map(\.start) == ["2026-06-09T04:00:00Z", "2026-06-10T04:00:00Z", "2026-06-11T04:00:00Z"].map(Tallies.instant))
        let totals = try s.app.app.database.read { try TallyStore.totals($0, tallyID: s.tally, periods: days) }
        // A typed count is not counting: the 10th added 5 in taps, the 11th +1 −1 +1.
        #expect(totals == [0, 5, 1])
        let page = try s.cy.session.get("/tallies/\(s.tally)")
        #expect(page.status == 200)
        #expect(page.text.contains("Yesterday: +5"))
        #expect(page.text.contains("<th scope=\"row\">Wed 10 Jun</th><td>5</td>"))
        #expect(page.text.contains("<th scope=\"row\">Thu 11 Jun</th><td>1</td>"))
    }

    @Test("the CSV opens in Python's csv module with every change, a formula-looking name kept as text, for viewers too but not strangers")
    func csvExport() throws {
        let s = try Self.story(bobName: "=HYPERLINK(\"x\",\"y\")")
        #expect(try Self.tap(s.bob.session, s.tally).status == 303)
        #expect(try Tallies.post(s.ann.session, "/tallies/\(s.tally)/count", [("count", "12")]).status == 303)
        #expect(try Tallies.post(s.bob.session, "/tallies/\(s.tally)/decrement").status == 303)
        #expect(try Tallies.confirm(s.ann.session, "/tallies/\(s.tally)/reset").status == 303)
        let path = "/tallies/\(s.tally)/history.csv"
        #expect(try s.dee.session.get(path).status == 404)
        let csv = try s.cy.session.get(path)
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
        #expect(csv.header("Content-Disposition")?.hasPrefix("attachment;") == true)
        let python = try #require(Tools.path("python3"))
        let directory = try TemporaryDirectory("kith-tally-csv")
        let file = directory.path + "/history.csv"
        try Data(csv.body).write(to: URL(fileURLWithPath: file))
        let parsed = try runProgram(python, ["-c", "import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))", file])
        #expect(parsed.status == 0, "\(parsed.errors)")
        let rows = try JSONDecoder().decode([[String]].self, from: Data(parsed.output.utf8))
        let at = TimeText.utc(Tallies.start, machine: true)
        #expect(rows == [
            ["at", "who", "kind", "change", "value_after"],
            [at, "'=HYPERLINK(\"x\",\"y\")", "increment", "+1", "1"],
            [at, "Annie", "set", "11", "12"],
            [at, "'=HYPERLINK(\"x\",\"y\")", "decrement", "-1", "11"],
            [at, "Annie", "reset", "-11", "0"],
        ])
    }

    @Test("the history section shows who did what, newest first, to everyone who sees the tally, and strangers get 404")
    func historySection() throws {
        let s = try Self.story()
        #expect(try Self.tap(s.bob.session, s.tally).status == 303)
        #expect(try Tallies.post(s.ann.session, "/tallies/\(s.tally)/count", [("count", "12")]).status == 303)
        let section = try s.cy.session.get("/tallies/\(s.tally)/history")
        #expect(section.status == 200)
        let text = section.text
        let set = try #require(text.range(of: "<td>Annie</td><td>set to 12</td>"))
        let plus = try #require(text.range(of: "<td>Bobby</td><td>+1</td>"))
        #expect(set.lowerBound < plus.lowerBound)
        #expect(!text.contains("take-back"))
        #expect((try s.ann.session.get("/tallies/\(s.tally)/history")).text.contains("<td>you</td><td>set to 12</td>"))
        #expect(try s.dee.session.get("/tallies/\(s.tally)/history").status == 404)
        #expect(try s.dee.session.get("/tallies/\(s.tally)/history.csv").status == 404)
    }

    @Test("a scheduled reset at the owner's midnight is Kith's row, and the count it cleared shows as yesterday's")
    func scheduledResetIsYesterday() throws {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ann = try Tallies.person(app, "annie", timeZone: "America/New_York")
        let tally = try Tallies.create(ann.session, schedule: "daily")
        for _ in 0..<7 { #expect(try Self.tap(ann.session, tally).status == 303) }
        let midnight = Tallies.instant("2026-06-11T00:00:00-04:00")
        clock.withLock { $0 = midnight + 5 }
        #expect(try TallyResetScheduler(app: app.app).tick(now: midnight + 5) == [tally])
        let page = try ann.session.get("/tallies/\(tally)")
        #expect(page.text.contains("Yesterday: 7"))
        #expect(page.text.contains("<td>Kith</td><td>reset from 7</td>"))
        // A day later that reset is no longer yesterday's.
        clock.withLock { $0 = midnight + 86_400 + 3_600 }
        #expect(!(try ann.session.get("/tallies/\(tally)")).text.contains("Yesterday: 7"))
    }

    @Test("a day across a DST change is as long as it was lived: 25 hours when New York falls back, 23 when it springs forward")
    func periodsAcrossDST() {
        let fallBack = TallyHistoryRoutes.Period.day.recent(now: Tallies.instant("2026-11-02T12:00:00-05:00"), zone: "America/New_York", count: 2)
        #expect(fallBack.first?.start == Tallies.instant("2026-11-01T00:00:00-04:00"))
        #expect(fallBack.first.map { $0.end - $0.start } == 90_000)
        let springForward = TallyHistoryRoutes.Period.day.recent(now: Tallies.instant("2026-03-08T12:00:00-04:00"), zone: "America/New_York", count: 1)
        #expect(springForward.first.map { $0.end - $0.start } == 82_800)
        // Months end where the month does, in the owner's zone.
        let months = TallyHistoryRoutes.Period.month.recent(now: Tallies.instant("2026-03-01T00:30:00+01:00"), zone: "Europe/Berlin", count: 2)
        #expect(months.map(\.start) == [Tallies.instant("2026-02-01T00:00:00+01:00"), Tallies.instant("2026-03-01T00:00:00+01:00")])
    }

    @Test("periods worked out once are used until their period ends, per zone: a minute past midnight is a new day")
    func periodsMoveOnAtMidnight() {
        func days(_ at: String, _ zone: String) -> [Int64] {
            TallyHistoryRoutes.Period.day.recent(now: Tallies.instant(at), zone: zone, count: 3).map(\.start)
        }
        let late = days("2026-11-04T23:59:00-05:00", "America/New_York")
        #expect(late == days("2026-11-04T00:00:00-05:00", "America/New_York"), "the same day gives the same periods")
        #expect(late.last == Tallies.instant("2026-11-04T00:00:00-05:00"))
        let early = days("2026-11-05T00:01:00-05:00", "America/New_York")
        #expect(early.last == Tallies.instant("2026-11-05T00:00:00-05:00"), "a new day once midnight has passed")
        #expect(early.first == late[1])
        // The same instant in another zone is that zone's own day.
        #expect(days("2026-11-05T00:01:00-05:00", "Europe/Berlin").last == Tallies.instant("2026-11-05T00:00:00+01:00"))
        let weeks = TallyHistoryRoutes.Period.week.recent(now: Tallies.instant("2026-11-09T00:00:30-05:00"), zone: "America/New_York")
        #expect(weeks.last?.start == Tallies.instant("2026-11-09T00:00:00-05:00"), "a Monday starts a week")
        #expect(weeks.count == 8)
    }

    @Test("a long history pages back 50 at a time")
    func olderPages() throws {
        let s = try Self.story()
        for _ in 0..<52 { #expect(try Self.tap(s.ann.session, s.tally).status == 303) }
        let first = try s.ann.session.get("/tallies/\(s.tally)")
        let marker = try #require(first.text.range(of: "?before="))
        let before = String(first.text[marker.upperBound...].prefix { $0.isNumber })
        let older = try s.ann.session.get("/tallies/\(s.tally)?before=\(before)")
        #expect(older.status == 200)
        let values = older.text.components(separatedBy: "class=\"tally-history__value\">").dropFirst().map { $0.prefix { $0.isNumber } }
        #expect(values == ["2", "1"])
    }
}
