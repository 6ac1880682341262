import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

@Suite("Plate games: trips")
struct PlateTripTests {
    @Test("ending a trip keeps its board and stops spotting; only the host ends it, and is asked first")
    func endATrip() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        #expect(try mom.session.post("/games/\(game)/trip/end", [], csrf: try mom.session.token(from: "/games/\(game)")).status == 403)
        let asked = try dad.session.post("/games/\(game)/trip/end", [], csrf: try dad.session.token(from: "/games/\(game)"))
        #expect(asked.status == 200)
        #expect(asked.text.contains("End Summer Road Trip?"))
        #expect(try app.app.database.read { try PlateTripStore.endedAt($0, gameID: game) } == nil, "asked, not ended")
        let ended = try dad.session.postConfirming("/games/\(game)/trip/end", [], csrf: try dad.session.token(from: "/games/\(game)"))
        #expect(ended.status == 303)
        let board = try mom.session.get("/games/\(game)").text
        #expect(board.contains("This trip ended on"))
        #expect(board.contains("<strong>Texas</strong> — you"), "the feed stays as it was")
        #expect(board.contains("usmap__state usmap__state--mine"), "and so does the map")
        #expect(!board.contains("href=\"/games/\(game)/states/"), "its states are no longer controls")
        let refused = try Plates.spot(mom.session, game, "OH")
        #expect(refused.status == 422)
        #expect(refused.text.contains("This trip has ended."))
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(game)") == 1)
        #expect(try WebSession(port: app.port).get("/games/\(game)/trip").status != 200)
    }

    @Test("new trip, same players: one tap starts it with everyone in, a second tap finds the same trip, the old one is listed")
    func nextTrip() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app, mode: "competitive")
        try Plates.spot(mom.session, game, "TX")
        let csrf = try dad.session.token(from: "/games/\(game)")
        let started = try dad.session.post("/games/\(game)/trip/next", [], csrf: csrf)
        #expect(started.status == 303)
        let location = try #require(started.header("Location"))
        let next = try #require(Int64(location.dropFirst("/games/".count)))
        #expect(next != game)
        #expect(try dad.session.post("/games/\(game)/trip/next", [], csrf: csrf).header("Location") == location, "no second new trip")
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(next)") == 2)
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(next)") == 0)
        #expect(try app.app.database.read { try PlateTripStore.endedAt($0, gameID: game) } != nil, "the old trip ended")
        let board = try mom.session.get(location)
        #expect(board.status == 200)
        #expect(board.text.contains("plate-mode-badge\">Competitive</span>"), "same rules")
        #expect(try Plates.spot(mom.session, next, "TX").status == 303)
        #expect(try dad.session.get("/games/\(game)").text.contains("Go to the next trip"))
        let page = try mom.session.get("/games/\(next)/trip").text
        #expect(page.contains("Earlier trips"))
        #expect(page.contains("href=\"/games/\(game)\""))
        #expect(try Plates.code(app, next) != Plates.code(app, game), "its own invite code")
        #expect(try mom.session.post("/games/\(next)/trip/next", [], csrf: try mom.session.token(from: "/games/\(next)")).status == 403)
    }

    @Test("the trip page: days to finish, pace, first and last, who found most, and a chart with a table of its numbers")
    func tripPage() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        clock.withLock { $0 += 3600 }
        try Plates.spot(dad.session, game, "OH")
        clock.withLock { $0 += 86_400 }
        try Plates.spot(mom.session, game, "UT")
        let page = try dad.session.get("/games/\(game)/trip")
        #expect(page.status == 200)
        let html = page.text
        #expect(html.contains("<dt>Regions together</dt><dd>3 of 50</dd>"))
        #expect(html.contains("<dt>Days to finish</dt><dd>Not finished yet</dd>"))
        #expect(html.contains("<dt>Pace</dt><dd>1.5 regions a day over 2 days</dd>"))
        #expect(html.contains("<dt>First</dt><dd>Texas</dd>"))
        #expect(html.contains("<dt>Latest</dt><dd>Utah</dd>"))
        #expect(html.contains("<li>Mom: 2</li><li>Dad: 1</li>"))
        #expect(html.contains("role=\"img\" aria-labelledby=\"plate-chart-summary\""))
        #expect(html.contains("<figcaption id=\"plate-chart-summary\">3 regions in 2 days, of 50.</figcaption>"))
        #expect(html.contains("<tr><th scope=\"row\">Day 1</th><td>2</td></tr><tr><th scope=\"row\">Day 2</th><td>3</td></tr>"))
        #expect(html.contains("<polyline class=\"plate-chart__line\""))
    }

    @Test("the numbers, by hand: a shared board counts each region once; a race finishes with its first full board")
    func stats() throws {
        let spot = { (id: Int64, user: Int64, name: String, region: String, at: Int64) in
            try PlateSpotFixture.make(id: id, userID: user, playerName: name, region: region, at: at)
        }
        let day = PlateTripStats.day
        let spots = [
            try spot(1, 1, "Dad", "TX", 0), try spot(2, 2, "Mom", "TX", 10), try spot(3, 2, "Mom", "OH", day * 2 + 5),
        ]
        let shared = PlateTripStats.make(mode: .collaborative, spots: spots, target: 2, endedAt: nil, now: day * 10)
        #expect(shared.counted == 2)
        #expect(shared.daysToFinish == 3)
        #expect(shared.days == 3, "finished: the clock stops at the finish")
        #expect(shared.daily == [1, 1, 2])
        #expect(shared.leaders.map(\.name) == ["Dad", "Mom"], "a tie goes by name")
        let race = PlateTripStats.make(mode: .competitive, spots: spots, target: 2, endedAt: nil, now: day * 10)
        #expect(race.counted == 3)
        #expect(race.daysToFinish == 3, "Mom's second region finishes her board")
        #expect(race.leaders.map(\.name) == ["Mom", "Dad"])
        let open = PlateTripStats.make(mode: .collaborative, spots: [try spot(1, 1, "Dad", "TX", 0)], target: 50, endedAt: day * 4, now: day * 10)
        #expect(open.days == 5, "an ended trip runs to its end")
        #expect(open.pacePerDay == 0.2)
        #expect(PlateTripRoutes.pace(0.2) == "0.2")
        #expect(PlateTripRoutes.pace(3) == "3")
        let empty = PlateTripStats.make(mode: .collaborative, spots: [], target: 50, endedAt: nil, now: 0)
        #expect(empty.daily.isEmpty && empty.firstRegion == nil)
    }
}

/// A spot without a database, for the numbers' tests.
enum PlateSpotFixture {
    static func make(id: Int64, userID: Int64, playerName: String, region: String, at: Int64) throws -> PlateSpot {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plate-stats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try Database(path: directory.appendingPathComponent("spots.sqlite").path)
        let row = try #require(try db.read { db in
            try db.queryOne("""
                SELECT \(id) AS id, \(userID) AS user_id, \(playerName) AS display_name, 0 AS colour, \(region) AS region,
                    \(region) AS region_name, \(at) AS spotted_at, NULL AS note
                """)
        })
        return try PlateSpot(row: row)
    }
}
