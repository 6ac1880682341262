import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

@Suite("Tally reset instants")
struct TallyResetScheduleTests {
    /// Schedule, zone, now, and the next reset, each instant with its offset.
    static let cases: [(TallyResetSchedule, String, String, String)] = [
        // UTC: month ends and leap years.
        (.daily, "UTC", "2028-02-28T15:00:00Z", "2028-02-29T00:00:00Z"),
        (.daily, "UTC", "2027-02-28T15:00:00Z", "2027-03-01T00:00:00Z"),
        (.daily, "UTC", "2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"),
        (.daily, "UTC", "2026-06-10T00:00:00Z", "2026-06-11T00:00:00Z"),
        (.monthly, "UTC", "2027-01-31T12:00:00Z", "2027-02-01T00:00:00Z"),
        (.monthly, "UTC", "2028-02-10T08:00:00Z", "2028-03-01T00:00:00Z"),
        (.monthly, "UTC", "2026-12-15T08:00:00Z", "2027-01-01T00:00:00Z"),
        (.yearly, "UTC", "2028-02-29T12:00:00Z", "2029-01-01T00:00:00Z"),
        (.yearly, "UTC", "2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"),
        // New York: a 23-hour day in March, a 25-hour day in November.
        (.daily, "America/New_York", "2026-03-07T12:00:00-05:00", "2026-03-08T00:00:00-05:00"),
        (.daily, "America/New_York", "2026-03-08T12:00:00-04:00", "2026-03-09T00:00:00-04:00"),
        (.daily, "America/New_York", "2026-10-31T12:00:00-04:00", "2026-11-01T00:00:00-04:00"),
        (.daily, "America/New_York", "2026-11-01T12:00:00-05:00", "2026-11-02T00:00:00-05:00"),
        (.monthly, "America/New_York", "2026-10-20T12:00:00-04:00", "2026-11-01T00:00:00-04:00"),
        (.yearly, "America/New_York", "2026-07-01T12:00:00-04:00", "2027-01-01T00:00:00-05:00"),
        // Santiago: on 6 September 2026 the clocks jump from 24:00 to 01:00,
        // so that day starts at 01:00; on 5 April midnight comes after the
        // repeated hour of the 4th, once.
        (.daily, "America/Santiago", "2026-09-05T12:00:00-04:00", "2026-09-06T01:00:00-03:00"),
        (.daily, "America/Santiago", "2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00"),
        (.monthly, "America/Santiago", "2026-08-20T12:00:00-04:00", "2026-09-01T00:00:00-04:00"),
        (.daily, "America/Santiago", "2026-04-04T23:30:00-03:00", "2026-04-05T00:00:00-04:00"),
        (.daily, "America/Santiago", "2026-04-04T23:30:00-04:00", "2026-04-05T00:00:00-04:00"),
        (.daily, "America/Santiago", "2026-04-05T00:00:00-04:00", "2026-04-06T00:00:00-04:00"),
        // Lord Howe: a half-hour DST shift at 02:00, in October and April.
        (.daily, "Australia/Lord_Howe", "2026-10-03T12:00:00+10:30", "2026-10-04T00:00:00+10:30"),
        (.daily, "Australia/Lord_Howe", "2026-10-04T12:00:00+11:00", "2026-10-05T00:00:00+11:00"),
        (.daily, "Australia/Lord_Howe", "2026-04-04T12:00:00+11:00", "2026-04-05T00:00:00+11:00"),
        (.daily, "Australia/Lord_Howe", "2026-04-05T12:00:00+10:30", "2026-04-06T00:00:00+10:30"),
        (.monthly, "Australia/Lord_Howe", "2026-03-15T12:00:00+11:00", "2026-04-01T00:00:00+11:00"),
        (.monthly, "Australia/Lord_Howe", "2026-04-15T12:00:00+10:30", "2026-05-01T00:00:00+10:30"),
        (.yearly, "Australia/Lord_Howe", "2026-12-31T23:59:00+11:00", "2027-01-01T00:00:00+11:00"),
    ]

    @Test("the next reset is the first local midnight of the next period, across DST, month ends and leap years")
    func nextResets() {
        for (schedule, zone, now, expected) in Self.cases {
            let next = schedule.nextReset(after: Tallies.instant(now), timeZone: zone)
            #expect(next == Tallies.instant(expected), "\(schedule) \(zone) after \(now)")
        }
    }

    @Test("off has no next reset; an unknown zone falls back to UTC")
    func offAndUnknown() {
        #expect(TallyResetSchedule.off.nextReset(after: Tallies.start, timeZone: "UTC") == nil)
        #expect(
            TallyResetSchedule.daily.nextReset(after: Tallies.instant("2026-06-10T10:00:00Z"), timeZone: "Mars/Olympus")
                == Tallies.instant("2026-06-11T00:00:00Z"))
    }

    @Test("stepping a daily reset through a whole year in each zone gives one reset per local day, every one at the day's start")
    func wholeYear() {
        for zone in ["UTC", "America/New_York", "America/Santiago", "Australia/Lord_Howe"] {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
            var now = Tallies.instant("2026-01-01T12:00:00Z")
            var days = Set<String>()
            for _ in 0..<365 {
                guard let next = TallyResetSchedule.daily.nextReset(after: now, timeZone: zone) else { break }
                let date = Date(timeIntervalSince1970: TimeInterval(next))
                let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
                #expect(calendar.startOfDay(for: date) == date, "\(zone) \(parts)")
                days.insert("\(parts.year!)-\(parts.month!)-\(parts.day!)")
                now = next
            }
            #expect(days.count == 365, "\(zone): no day skipped or doubled")
        }
    }
}

@Suite("Tally resets on the server")
struct TallyResetSchedulerTests {
    /// Ada, living in `zone`, with one daily tally made at `start`.
    struct Daily {
        let clock: Locked<Int64>
        let app: AppHarness
        let ada: (session: WebSession, id: Int64)
        let id: Int64

        init(zone: String, start: String, count: Int) throws {
            clock = Locked(Tallies.instant(start))
            app = try Tallies.harness(clock: clock)
            ada = try Tallies.person(app, "ada", timeZone: zone)
            id = try Tallies.create(ada.session, count: count, schedule: "daily")
        }

        func next() throws -> Int64? {
            try app.app.database.read { try $0.queryValue("SELECT next_reset_at FROM tallies WHERE id = \(id)", as: Int64.self) }
        }
    }

    @Test("a daily tally resets at the owner's midnight exactly once per period, and only then")
    func oncePerPeriod() throws {
        let story = try Daily(zone: "America/New_York", start: "2026-06-10T10:00:00-04:00", count: 4)
        let (clock, app, ada, id) = (story.clock, story.app, story.ada, story.id)
        let scheduler = TallyResetScheduler(app: app.app)
        let midnight = Tallies.instant("2026-06-11T00:00:00-04:00")
        #expect(try story.next() == midnight)

        #expect(try scheduler.tick(now: midnight - 1).isEmpty, "not before midnight")
        #expect(try Tallies.count(app, id) == 4)
        #expect(try scheduler.tick(now: midnight) == [id])
        #expect(try Tallies.count(app, id) == 0)
        #expect(try scheduler.tick(now: midnight + 1).isEmpty, "once")
        clock.withLock { $0 = midnight + 60 }
        #expect(try Tallies.post(ada.session, "/tallies/\(id)/increment").status == 303)
        #expect(try scheduler.tick(now: midnight + 3600).isEmpty)
        #expect(try Tallies.count(app, id) == 1, "a count after midnight stays until the next")
        #expect(try scheduler.tick(now: Tallies.instant("2026-06-12T00:00:00-04:00")) == [id])
        let row = try #require(try app.app.database.read { try $0.queryOne("SELECT updated_by, next_reset_at FROM tallies WHERE id = \(id)") })
        #expect(try row.get("updated_by", as: Int64?.self) == nil, "Kith reset it, nobody in particular")
        #expect(try row.get("next_reset_at", as: Int64.self) == Tallies.instant("2026-06-13T00:00:00-04:00"))
    }

    @Test("when the owner moves to another time zone, the next reset moves to midnight there")
    func ownerMoves() throws {
        let story = try Daily(zone: "UTC", start: "2026-06-10T05:00:00Z", count: 6)
        let (clock, app, ada, id) = (story.clock, story.app, story.ada, story.id)
        let next = story.next
        #expect(try next() == Tallies.instant("2026-06-11T00:00:00Z"))
        // Settings saves the new zone; the next tick moves the reset.
        try app.app.database.write { try $0.execute("UPDATE users SET time_zone = 'Pacific/Kiritimati' WHERE id = \(ada.id)") }
        let scheduler = TallyResetScheduler(app: app.app)
        #expect(try scheduler.tick(now: clock.value).isEmpty, "moving is not a reset")
        #expect(try next() == Tallies.instant("2026-06-11T00:00:00+14:00"))
        #expect(try Tallies.count(app, id) == 6)
        #expect(try scheduler.tick(now: Tallies.instant("2026-06-11T00:00:00+14:00")) == [id])
    }

    @Test("monthly and yearly tallies wait for their own boundaries; a tally with resets off never resets")
    func monthlyYearly() throws {
        let clock = Locked(Tallies.instant("2028-02-28T10:00:00Z"))
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada", timeZone: "UTC")
        let monthly = try Tallies.create(ada.session, name: "Books", count: 3, schedule: "monthly")
        let yearly = try Tallies.create(ada.session, name: "Trips", count: 2, schedule: "yearly")
        let never = try Tallies.create(ada.session, name: "Ever", count: 9)
        let scheduler = TallyResetScheduler(app: app.app)
        #expect(try scheduler.tick(now: Tallies.instant("2028-02-29T00:00:00Z")).isEmpty, "a leap day is not a new month")
        #expect(try scheduler.tick(now: Tallies.instant("2028-03-01T00:00:00Z")) == [monthly])
        #expect(try scheduler.tick(now: Tallies.instant("2029-01-01T00:00:00Z")).sorted() == [monthly, yearly].sorted())
        #expect(try Tallies.count(app, never) == 9)
    }

    @Test("a server that was down over several midnights resets each tally once when it starts again")
    func restartAfterDowntime() throws {
        let directory = try TemporaryDirectory("kith-tally-restart")
        let clock = Locked(Tallies.instant("2026-06-10T10:00:00+01:00"))
        func start() throws -> KithServer {
            var configuration = KithConfiguration()
            configuration.port = 0
            configuration.dataDirectory = directory.path + "/data"
            configuration.logRequests = false
            configuration.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            configuration.clock = { clock.value }
            let server = KithServer(app: try makeApp(configuration, logger: Logger(enabled: false)))
            try server.start()
            return server
        }
        let first = try start()
        let session = WebSession(port: first.port)
        let token = try session.token(from: "/signup")
        _ = try session.post(
            "/signup", [("display_name", "Ada"), ("username", "ada"), ("password", "correct horse"), ("time_zone", "Europe/London")], csrf: token)
        let id = try Tallies.create(session, count: 8, schedule: "daily")
        func state(_ server: KithServer) throws -> (count: Int64, version: Int64, next: Int64) {
            try server.app.database.read { db in
                let row = try #require(try db.queryOne("SELECT count, version, next_reset_at FROM tallies WHERE id = \(id)"))
                return (try row.get("count"), try row.get("version"), try row.get("next_reset_at"))
            }
        }
        let before = try state(first)
        #expect(before.next == Tallies.instant("2026-06-11T00:00:00+01:00"))
        first.shutdown()

        // Down for three midnights; back at breakfast.
        clock.withLock { $0 = Tallies.instant("2026-06-13T08:00:00+01:00") }
        let second = try start()
        defer { second.shutdown() }
        let deadline = Date().addingTimeInterval(20)
        while try state(second).count != 0 && Date() < deadline { usleep(20_000) }
        let after = try state(second)
        #expect(after.count == 0, "reset on start, with nobody opening Kith")
        #expect(after.version == before.version + 1, "once, not once per missed midnight")
        #expect(after.next == Tallies.instant("2026-06-14T00:00:00+01:00"))
    }
}

@Suite("Tallies: the story")
struct TallyStoryTests {
    /// The page's live topics and cursor, as its `<meta>` gives them to the script.
    static func live(_ page: TestResponse) throws -> (topics: String, cursor: String) {
        let match = try #require(page.text.firstMatch(of: /<meta name="kith-live" content="([^"]+)" data-cursor="([^"]+)">/))
        return (String(match.1), String(match.2))
    }

    static func follow(_ app: AppHarness, _ session: WebSession, page: TestResponse) throws -> TestClient {
        let (topics, cursor) = try live(page)
        let client = try TestClient(port: app.port)
        try client.send(
            "GET /live?topics=\(topics)&cursor=\(cursor) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
        _ = try client.read(until: "retry: 2000", timeout: 5)
        return client
    }

    @Test("two friends share a tally, both increment it and see each other's changes live with the flash, and it resets at midnight unopened")
    func doneWhen() throws {
        let clock = Locked(Tallies.instant("2026-09-05T18:00:00-04:00"))
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada", name: "Ada", timeZone: "America/Santiago")
        let bob = try Tallies.person(app, "bob", name: "Bob", timeZone: "Australia/Lord_Howe")
        try Tallies.befriend(ada.session, "bob")
        let id = try Tallies.create(ada.session, name: "Empanadas", count: 0, schedule: "daily", shares: [(bob.id, "edit")])

        // Both have Kith open on the home list.
        let adaPage = try ada.session.get("/")
        let bobPage = try bob.session.get("/")
        #expect(bobPage.text.contains("Empanadas"))
        let adaStream = try Self.follow(app, ada.session, page: adaPage)
        let bobStream = try Self.follow(app, bob.session, page: bobPage)

        // Ada taps the count; Bob's list hears of it and refetches the row.
        #expect(try Tallies.post(ada.session, "/tallies/\(id)/increment", [("return", "/")]).status == 303)
        _ = try bobStream.read(until: "\"tally-\(id)\"", timeout: 5)
        let bobRow = try bob.session.get("/tallies/\(id)/row").text
        #expect(bobRow.contains("Empanadas, 1, increment"))
        #expect(bobRow.contains("data-flash") && bobRow.contains("Ada changed this"))

        // Bob taps too; Ada sees his change, flashing his face.
        #expect(try Tallies.post(bob.session, "/tallies/\(id)/increment", [("return", "/")]).status == 303)
        _ = try adaStream.read(until: "\"tally-\(id)\"", timeout: 5)
        let adaRow = try ada.session.get("/tallies/\(id)/row").text
        #expect(adaRow.contains("Empanadas, 2, increment"))
        #expect(adaRow.contains("data-flash") && adaRow.contains("Bob changed this"))
        #expect(!adaRow.contains("Ada changed this"))

        // Midnight in Santiago (01:00, as DST skips 00:00 that night): the
        // scheduler resets it; nobody requests anything, yet both lists hear.
        let midnight = Tallies.instant("2026-09-06T01:00:00-03:00")
        clock.withLock { $0 = midnight }
        #expect(try TallyResetScheduler(app: app.app).tick(now: midnight) == [id])
        _ = try adaStream.read(until: "\"tally-\(id)\"", timeout: 5)
        _ = try bobStream.read(until: "\"tally-\(id)\"", timeout: 5)
        #expect(try Tallies.count(app, id) == 0)
        let afterReset = try bob.session.get("/tallies/\(id)/row").text
        #expect(afterReset.contains("Empanadas, 0, increment"))
        #expect(!afterReset.contains("data-flash"), "a reset by Kith flashes nobody's face")
    }
}
