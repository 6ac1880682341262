import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

@Suite("Plate games: spotting, boards and scores")
struct PlateSpotTests {
    @Test("spotting twice is harmless; a state the rules don't count is refused with a message")
    func spotting() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let first = try Plates.spot(dad.session, game, "ID")
        #expect(first.status == 303)
        #expect(first.header("Location") == "/games/\(game)")
        #expect(try dad.session.get("/games/\(game)").text.contains("Spotted Idaho!"))
        #expect(try Plates.spot(dad.session, game, "id").status == 303, "case does not matter")
        #expect(try Plates.spot(dad.session, game, "ID").status == 303)
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(game)") == 1)

        for bad in ["", "ZZ", "DC", "Idaho", "I D", String(repeating: "X", count: 5000)] {
            let response = try Plates.spot(dad.session, game, bad)
            #expect(response.status == 422, "\(bad.prefix(10))")
            #expect(response.text.contains("Choose one of the states this game counts."))
        }
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(game)") == 1)
    }

    @Test("without script a state on the map opens a confirm page whose form spots it, and offers undo afterwards")
    func confirmPage() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let board = try dad.session.get("/games/\(game)").text
        let link = try #require(Plates.control(board, "RI"))
        #expect(link.contains("href=\"/games/\(game)/states/RI\""))
        #expect(link.contains("aria-label=\"Rhode Island, not spotted yet\""))

        let page = try dad.session.get("/games/\(game)/states/RI")
        #expect(page.status == 200)
        #expect(page.text.contains("Spotted a plate from Rhode Island?"))
        #expect(page.text.contains("action=\"/games/\(game)/spots\""))
        #expect(page.text.contains("name=\"state\" value=\"RI\""))
        let posted = try dad.session.post("/games/\(game)/spots", [("state", "RI"), ("from", "board")], csrf: WebSession.csrfToken(in: page))
        #expect(posted.status == 303)
        let after = try dad.session.get("/games/\(game)/states/RI").text
        #expect(after.contains("Undo my spot"))
        #expect(after.contains("Spotted by you."))
        #expect(Plates.control(try dad.session.get("/games/\(game)").text, "RI")?.contains("Rhode Island, spotted by you") == true)

        #expect(try dad.session.get("/games/\(game)/states/ZZ").status == 404)
        #expect(try dad.session.get("/games/\(game)/states/DC").status == 404, "DC is not in this game's rules")
    }

    @Test("the by-name list: one form with a button per state, the filter box waiting for script, and back to the list after a spot")
    func byName() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        try Plates.spot(dad.session, game, "ID")
        let page = try dad.session.get("/games/\(game)/spot")
        #expect(page.status == 200)
        let html = page.text
        #expect(html.components(separatedBy: "<button type=\"submit\" name=\"state\"").count - 1 == 50)
        #expect(html.contains("value=\"RI\" class=\"plate plate-list__button\" aria-label=\"Rhode Island, not spotted yet\""))
        #expect(html.contains("aria-label=\"Idaho, spotted by you\""))
        #expect(html.contains("data-name=\"rhode island\""))
        #expect(html.contains("<div class=\"plate-filter field\" data-plate-filter hidden>"), "the filter box appears only with script")
        #expect(html.contains("/js/plates."), "the page's own script")
        #expect(!html.contains("District of Columbia"))
        #expect(html.contains("<form id=\"plate-list\" class=\"plate-list\" method=\"post\" action=\"/games/\(game)/spots\" data-fragment=\"/games/\(game)/spot/list\""))
        #expect(html.contains("<meta name=\"kith-live\" content=\"game:\(game),"), "the list follows the game live")
        let fragment = try dad.session.get("/games/\(game)/spot/list").text
        #expect(fragment.hasPrefix("<form id=\"plate-list\""))
        #expect(fragment.contains("aria-label=\"Idaho, spotted by you\""))

        let spotted = try dad.session.post(
            "/games/\(game)/spots", [("state", "RI"), ("from", "list")], csrf: WebSession.csrfToken(in: page))
        #expect(spotted.header("Location") == "/games/\(game)/spot")
        // An unknown `from` never leads anywhere but the board.
        let elsewhere = try dad.session.post(
            "/games/\(game)/spots", [("state", "OH"), ("from", "https://evil.example")], csrf: WebSession.csrfToken(in: page))
        #expect(elsewhere.header("Location") == "/games/\(game)")
    }

    @Test("switching mode changes only the drawing: the same spots as one shared board and as a board per player")
    func modeSwitch() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(dad.session, game, "ID")
        try Plates.spot(dad.session, game, "OH")
        clock.withLock { $0 += 60 }
        // Dad has Idaho on the shared board: Mom adds hers with "I saw one too".
        _ = try mom.session.post("/games/\(game)/spots", [("state", "ID"), ("also", "yes")], csrf: try mom.session.token(from: "/games/\(game)"))
        try Plates.spot(mom.session, game, "UT")
        let rows = try Plates.spotRows(app, game)
        #expect(rows.count == 4)

        // Collaborative: one board, deduplicated, Idaho credited to Dad who saw it first.
        let together = try mom.session.get("/games/\(game)/board").text
        #expect(together.contains("<strong class=\"plate-progress__count\">3 of 50</strong>"))
        #expect(together.contains("Together"))
        #expect(Plates.control(together, "ID")?.contains("Idaho, spotted by Dad") == true)
        #expect(Plates.control(together, "OH")?.contains("Ohio, spotted by Dad") == true)
        #expect(Plates.control(together, "UT")?.contains("Utah, spotted by you") == true)
        #expect(!together.contains("Leaderboard"))
        #expect(!together.contains("role=\"img\""), "one map, and it is the controls")

        let switched = try dad.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)"))
        #expect(switched.status == 303)
        #expect(try Plates.spotRows(app, game) == rows, "no spot changed")

        // Competitive: Mom's own board, a leaderboard, and Dad's board to look at.
        let race = try mom.session.get("/games/\(game)/board").text
        #expect(race.contains("<strong class=\"plate-progress__count\">2 of 50</strong>"))
        #expect(race.contains("Your board"))
        #expect(Plates.control(race, "ID")?.contains("Idaho, spotted by you") == true)
        #expect(Plates.control(race, "OH")?.contains("Ohio, not spotted yet") == true, "Dad's Ohio is on his board, not hers")
        #expect(race.contains("Leaderboard"))
        #expect(race.contains("<span class=\"plate-leader__name\">Dad</span><span class=\"plate-leader__score\">2 of 50</span>"))
        #expect(race.contains("<span class=\"plate-leader__name\">Mom <span class=\"muted\">(you)</span></span><span class=\"plate-leader__score\">2 of 50</span>"))
        #expect(race.contains("role=\"img\" aria-label=\"Dad&#39;s board: 2 of 50 spotted\""))
        #expect(!race.contains("Mom&#39;s board"), "her own board is the playable one")

        // And back: byte for byte what it was.
        _ = try dad.session.post("/games/\(game)/mode", [("mode", "collaborative")], csrf: try dad.session.token(from: "/games/\(game)"))
        #expect(try mom.session.get("/games/\(game)/board").text == together)
        #expect(try Plates.spotRows(app, game) == rows)
    }

    @Test("scores are counted from the spots: the leaderboard, the dashboard, and DC only while the rules count it")
    func derivedScores() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app, mode: "competitive", dc: true)
        for state in ["ID", "OH", "DC"] { try Plates.spot(dad.session, game, state) }
        try Plates.spot(mom.session, game, "TX")

        #expect(try dad.session.get("/").text.contains("<strong>3 of 51</strong> your board"))
        #expect(try mom.session.get("/").text.contains("<strong>1 of 51</strong> your board"))
        let board = try mom.session.get("/games/\(game)/board").text
        let dadRow = try #require(board.firstRange(of: "<span class=\"plate-leader__name\">Dad</span>"))
        let momRow = try #require(board.firstRange(of: "<span class=\"plate-leader__name\">Mom"))
        #expect(dadRow.lowerBound < momRow.lowerBound, "best first")
        #expect(board.contains("<span class=\"plate-leader__name\">Dad</span><span class=\"plate-leader__score\">3 of 51</span>"))

        // DC stops counting; the spot stays, ready if the rule comes back.
        _ = try dad.session.post(
            "/games/\(game)/settings", [("name", "Summer Road Trip"), ("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(try dad.session.get("/").text.contains("<strong>2 of 50</strong> your board"))
        #expect(try mom.session.get("/games/\(game)/board").text.contains("<span class=\"plate-leader__name\">Dad</span><span class=\"plate-leader__score\">2 of 50</span>"))
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE region = 'DC'") == 1)
        // No counters anywhere: scores exist only as counts of spots.
        let columns = try app.app.database.read { db in
            try (TestCatalog.columns(db, "plate_games") + TestCatalog.columns(db, "plate_players")).map(\.name)
        }
        #expect(!columns.contains { $0.contains("score") || $0.contains("count") || $0.contains("progress") })
    }

    @Test("a full board is celebrated: the group's in collaborative mode, each player's in competitive")
    func celebration() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let states = USMapData.shapes.map(\.code).filter { $0 != "DC" }
        // Written straight to the table, as 49 more posts would be.
        try app.app.database.write { tx in
            for (index, state) in states.dropLast().enumerated() {
                _ = try PlateStore.spot(tx, gameID: game, userID: index % 2 == 0 ? dad.id : mom.id, region: state, now: Plates.start)
            }
        }
        #expect(!(try mom.session.get("/games/\(game)/board").text.contains("data-celebrate")))
        try Plates.spot(mom.session, game, states.last!)
        let done = try mom.session.get("/games/\(game)/board").text
        #expect(done.contains("<strong class=\"plate-progress__count\">50 of 50</strong>"))
        #expect(done.contains("data-celebrate=\"confetti\" data-celebrate-once=\"plate-\(game)-\(mom.id)\">All 50 spotted. What a road trip!"))

        _ = try dad.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)"))
        #expect(!(try mom.session.get("/games/\(game)/board").text.contains("data-celebrate")), "nobody has all 50 alone")
    }
}

@Suite("Plate games: live boards, digests and deletion")
struct PlateLiveTests {
    @Test("a spot reaches another player's open board and dashboard streams, and their refetch shows it")
    func liveSpot() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)

        let page = try mom.session.get("/games/\(game)").text
        #expect(page.contains("<meta name=\"kith-live\" content=\"game:\(game),inbox:\(mom.id)\""))
        #expect(page.contains("id=\"plate-board\" class=\"plate-board stack\" data-fragment=\"/games/\(game)/board\""))
        #expect(page.contains("id=\"plate-feed\" class=\"plate-feed stack\" data-fragment=\"/games/\(game)/feed\""))
        #expect(try mom.session.get("/").text.contains("id=\"plate-games\" class=\"card stack plate-games-section\" data-fragment=\"/games\""))

        let board = try Plates.stream(app, mom.session, topics: "game:\(game)")
        let dashboard = try Plates.stream(app, mom.session, topics: "plates:\(mom.id)")
        try Plates.spot(dad.session, game, "ID")
        #expect(try board.read(until: "plate-list", timeout: 5).contains("\"fragments\":[\"plate-board\",\"plate-feed\",\"plate-list\"]"))
        #expect(try dashboard.read(until: "plate-games", timeout: 5).contains("event: invalidate"))

        let fresh = try mom.session.get("/games/\(game)/board").text
        #expect(Plates.control(fresh, "ID")?.contains("Idaho, spotted by Dad") == true)
        let feed = try mom.session.get("/games/\(game)/feed").text
        #expect(feed.contains("<strong>Idaho</strong> — Dad — <time class=\"muted\" datetime=\"2027-01-15T08:00Z\">just now</time>"))
        #expect(!feed.contains("Undo"), "not hers to undo")
        #expect(feed.contains("data-time-zone=\"Europe/London\""), "her zone, for the clock times the script shows")
        #expect(try mom.session.get("/games").text.contains("<strong>1 of 50</strong> together"))
    }

    @Test("a flurry of spots becomes one digest for each other player, none for the spotter, linking to the board")
    func digests() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        let kid = try Plates.player(app, "kid", name: "Kid", joining: game)
        for (minute, state) in ["ID", "OH", "UT", "ME", "TX"].enumerated() {
            clock.withLock { $0 = Plates.start + Int64(minute) * 50 }
            try Plates.spot(dad.session, game, state)
            try Plates.spot(dad.session, game, state)  // twice: still one event
        }
        #expect(try app.app.notifications.sweep(now: Plates.start + 250).isEmpty, "held while Dad is still spotting")
        clock.withLock { $0 = Plates.start + 300 }
        try app.app.notifications.sweep(now: Plates.start + 300)

        for kin in [mom, kid] {
            let entries = try inboxEntries(app, userID: kin.id)
            #expect(entries.count == 1, "one notification per flurry")
            #expect(entries.first?.body == "Dad spotted Idaho, Ohio and 3 more in Summer Road Trip")
            #expect(entries.first?.title == "Summer Road Trip")
            #expect(entries.first?.url == "/games/\(game)")
            #expect(entries.first?.eventCount == 5)
        }
        #expect(try inboxEntries(app, userID: dad.id).isEmpty, "the spotter is never told of their own spots")
        #expect(try pendingDigests(app, userID: dad.id) == 0)

        // A spot taken back before the digest goes out is never mentioned;
        // a digest left with nothing to say goes.
        clock.withLock { $0 = Plates.start + 1_000 }
        try Plates.spot(dad.session, game, "NV")
        try Plates.spot(kid.session, game, "VT")
        try Plates.spot(dad.session, game, "WA")
        _ = try dad.session.postConfirming(
            "/games/\(game)/spots/\(try Plates.spotID(app, game, user: dad.id, region: "NV"))/undo", [],
            csrf: try dad.session.token(from: "/games/\(game)"))
        _ = try kid.session.postConfirming(
            "/games/\(game)/spots/\(try Plates.spotID(app, game, user: kid.id, region: "VT"))/undo", [],
            csrf: try kid.session.token(from: "/games/\(game)"))
        #expect(try pendingDigests(app, userID: dad.id) == 0, "Kid's only spot was taken back")
        try app.app.notifications.sweep(now: Plates.start + 1_000 + Notifications.maximumDelay)
        #expect(try inboxEntries(app, userID: mom.id).first?.body == "Dad spotted Washington in Summer Road Trip")
        #expect(try inboxEntries(app, userID: dad.id).isEmpty)

        // Opening it leads to the board.
        let entry = try #require(try inboxEntries(app, userID: mom.id).first)
        let opened = try mom.session.post("/inbox/\(entry.id)/open", [], csrf: try mom.session.token(from: "/inbox"))
        #expect(opened.header("Location") == "/games/\(game)")
    }

    @Test("deleting an account purges spots and memberships, hands on hosting, deletes games left empty; the every-table walk finds nothing")
    func deletion() throws {
        let app = try Plates.harness()
        let fran = try signUpMember(app, "fran", name: "Fran")
        let gus = try signUpMember(app, "gus", name: "Gus")
        let solo = try Plates.create(fran.session, name: "Fran alone")
        let hosted = try Plates.create(fran.session, name: "Fran hosts")
        try Plates.join(app, gus.session, hosted)
        let joined = try Plates.create(gus.session, name: "Gus hosts")
        try Plates.join(app, fran.session, joined)
        for game in [solo, hosted, joined] { try Plates.spot(fran.session, game, "ID") }
        try Plates.spot(gus.session, joined, "OH")
        try Plates.spot(gus.session, hosted, "UT")
        let soloCode = try Plates.code(app, solo)

        let walk = try EveryTableWalk(userID: fran.id, in: app.app.database)
        let places = Set(try walk.references(in: app.app.database).map { "\($0.table).\($0.column)" })
        #expect(places.contains("plate_players.user_id") && places.contains("plate_spots.user_id"), "\(places)")

        let deleted = try postDelete(fran.session, [("password", "correct horse")])
        #expect(deleted.status == 303)
        #expect(try walk.references(in: app.app.database).isEmpty)
        #expect(try countRows(app, "SELECT count(*) FROM plate_games WHERE id = \(solo)") == 0)
        #expect(try WebSession(port: app.port).get("/join/\(soloCode)").status == 404)
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(hosted) AND user_id = \(gus.id) AND role = 'host'") == 1)
        #expect(try Plates.spotRows(app, hosted).count == 1, "Gus's Utah stays")
        #expect(try Plates.spotRows(app, joined).count == 1, "Gus's Ohio stays")
        #expect(try gus.session.get("/games/\(hosted)").status == 200)
    }
}

@Suite("Plate games: the family road trip")
struct PlateStoryTests {
    @Test("a family creates a game on a laptop, joins from phones by link and by code, spots by map and by name, sees spots live, gets one digest per flurry, and switches views")
    func roadTrip() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)

        // The laptop: Dad makes the game.
        let laptop = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(laptop.session, name: "Summer Road Trip")
        let invite = try laptop.session.get("/games/\(game)/players").text
        let code = try Plates.code(app, game)
        let link = app.app.baseURL + "/join/\(code)"
        #expect(invite.contains("value=\"\(link)\""), "the link to share")

        // Maya's phone opens the link and joins as a guest.
        let maya = WebSession(port: app.port)
        let preview = try maya.get(localPath(of: link))
        let joined = try maya.post(
            "/join/\(code)", [("display_name", "Maya"), ("avatar", "owl"), ("time_zone", "America/Chicago")],
            csrf: WebSession.csrfToken(in: preview))
        #expect(joined.header("Location") == "/games/\(game)")
        let mayaID = try #require(try app.app.database.read {
            try $0.queryValue("SELECT id FROM users WHERE display_name = 'Maya'", as: Int64.self)
        })

        // Mom's phone: the code read aloud across the car, typed by hand.
        let mom = try signUpMember(app, "mom", name: "Mom")
        let typed = try mom.session.post("/join", [("code", code.lowercased())], csrf: try mom.session.token(from: "/join"))
        let previewPath = try #require(typed.header("Location"))
        #expect(try mom.session.post(previewPath, [], csrf: try mom.session.token(from: previewPath)).status == 303)

        // Maya and Mom have the board open.
        let mayaBoard = try Plates.stream(app, maya, topics: "game:\(game),inbox:\(mayaID)")
        let momBoard = try Plates.stream(app, mom.session, topics: "game:\(game)")

        // Dad spots Idaho on the map without script: the confirm page, then its form.
        let confirm = try laptop.session.get("/games/\(game)/states/ID")
        _ = try laptop.session.post("/games/\(game)/spots", [("state", "ID"), ("from", "board")], csrf: WebSession.csrfToken(in: confirm))
        for stream in [mayaBoard, momBoard] {
            #expect(try stream.read(until: "plate-board", timeout: 5).contains("\"topic\":\"game:\(game)\""))
        }
        #expect(Plates.control(try maya.get("/games/\(game)/board").text, "ID")?.contains("Idaho, spotted by Dad") == true)

        // A flurry at a rest stop, by name from the list.
        for (index, state) in ["OH", "RI", "UT", "ME"].enumerated() {
            clock.withLock { $0 = Plates.start + Int64(index + 1) * 20 }
            let list = try laptop.session.get("/games/\(game)/spot")
            _ = try laptop.session.post("/games/\(game)/spots", [("state", state), ("from", "list")], csrf: WebSession.csrfToken(in: list))
        }
        // Maya spots one too, and it reaches Mom live.
        clock.withLock { $0 = Plates.start + 100 }
        try Plates.spot(maya, game, "TX")
        #expect(try momBoard.read(until: "plate-feed", timeout: 5).contains("invalidate"))
        let feed = try mom.session.get("/games/\(game)/feed").text
        #expect(feed.contains("<strong>Texas</strong> — Maya"))
        #expect(feed.contains("<strong>Idaho</strong> — Dad"))

        // Two quiet minutes later: one digest each, never one for your own spots.
        clock.withLock { $0 = Plates.start + 221 }
        try app.app.notifications.sweep(now: Plates.start + 221)
        let momInbox = try inboxEntries(app, userID: mom.id)
        #expect(momInbox.map(\.body) == ["Dad and Maya spotted Idaho, Ohio and 4 more in Summer Road Trip"])
        #expect(try inboxEntries(app, userID: mayaID).map(\.body) == ["Dad spotted Idaho, Ohio and 3 more in Summer Road Trip"])
        #expect(try inboxEntries(app, userID: laptop.id).map(\.body) == ["Maya spotted Texas in Summer Road Trip"])
        #expect(try mayaBoard.read(until: "inbox-count", timeout: 5).contains("\"topic\":\"inbox:\(mayaID)\""))

        // Together they have six; as a race, Dad leads with five.
        #expect(try mom.session.get("/games/\(game)/board").text.contains("6 of 50</strong>"))
        _ = try laptop.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try laptop.session.token(from: "/games/\(game)"))
        #expect(try momBoard.read(until: "plate-board", timeout: 5).contains("invalidate"), "the switch reaches open boards too")
        let race = try mom.session.get("/games/\(game)/board").text
        #expect(race.contains("<span class=\"plate-leader__name\">Dad</span><span class=\"plate-leader__score\">5 of 50</span>"))
        #expect(race.contains("<span class=\"plate-leader__name\">Maya</span><span class=\"plate-leader__score\">1 of 50</span>"))
        #expect(race.contains("0 of 50</strong>"), "Mom's own board is empty")
        _ = try laptop.session.post("/games/\(game)/mode", [("mode", "collaborative")], csrf: try laptop.session.token(from: "/games/\(game)"))
        #expect(try mom.session.get("/games/\(game)/board").text.contains("6 of 50</strong>"))
    }
}
