import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

/// The plate game's defects from a family's trip, each as the request that
/// showed it; and the still-missing views and place notes.
@Suite("Plate games: defects, still missing, place notes")
struct PlateDefectTests {
    @Test("the mode badge is part of the live board, so a switch reaches pages already open")
    func modeBadgeIsLive() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        #expect(try mom.session.get("/games/\(game)/board").text.contains("plate-mode-badge\">Collaborative</span>"))
        let switched = try dad.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)"))
        #expect(switched.status == 303)
        let fragment = try mom.session.get("/games/\(game)/board").text
        #expect(fragment.contains("plate-mode-badge\">Competitive</span>"), "what a live refresh fetches now says so")
        #expect(try dad.session.get("/games/\(game)/board").text.contains("Switch to collaborative"), "the host's switch comes with it")
    }

    @Test("a state someone else has on the shared board asks first: no duplicate line, nobody told; 'I saw one too' adds only your own")
    func sharedBoardAsksFirst() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        let before = try pendingDigests(app, userID: mom.id)

        let tapped = try Plates.spot(dad.session, game, "TX")
        #expect(tapped.status == 303)
        #expect(tapped.header("Location") == "/games/\(game)/states/TX")
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE user_id = \(dad.id)") == 0)
        let page = try dad.session.get("/games/\(game)/states/TX").text
        #expect(page.contains("Mom spotted Texas already."))
        #expect(page.contains("Spotted by Mom."))
        #expect(page.contains("I saw one too"))
        #expect(page.contains("name=\"also\" value=\"yes\""))
        #expect(Plates.control(try dad.session.get("/games/\(game)").text, "TX")?.contains("Texas, spotted by Mom") == true)

        let also = try dad.session.post(
            "/games/\(game)/spots", [("state", "TX"), ("from", "board"), ("also", "yes")], csrf: WebSession.csrfToken(in: try dad.session.get("/games/\(game)/states/TX")))
        #expect(also.status == 303)
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE user_id = \(dad.id) AND region = 'TX'") == 1)
        #expect(try pendingDigests(app, userID: mom.id) == before, "nobody is told of a second Texas")
        let feed = try mom.session.get("/games/\(game)/feed").text
        #expect(feed.components(separatedBy: "<strong>Texas</strong>").count - 1 == 1, "one Texas line, Mom's")
        #expect(try dad.session.get("/games/\(game)/states/TX").text.contains("Undo my spot"))

        // In a race, a state someone else has is simply yours too.
        let race = try Plates.create(mom.session, name: "Race", mode: "competitive")
        let kid = try Plates.player(app, "kid", name: "Kid", joining: race)
        try Plates.spot(mom.session, race, "OH")
        #expect(try Plates.spot(kid.session, race, "OH").header("Location") == "/games/\(race)")
    }

    @Test("players with the same score share a place on the leaderboard")
    func tiesShareARank() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app, mode: "competitive")
        _ = try Plates.player(app, "kid", name: "Kid", joining: game)
        func ranks() throws -> [String] {
            let html = try dad.session.get("/games/\(game)/board").text
            return html.components(separatedBy: "plate-leader__rank\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
        }
        #expect(try ranks() == ["1", "1", "1"])
        try Plates.spot(mom.session, game, "ID")
        try Plates.spot(dad.session, game, "OH")
        #expect(try ranks() == ["1", "1", "3"])
        #expect(PlateBoardPage.rank(of: player(score: 2), among: [player(score: 5), player(score: 2), player(score: 2)]) == 2)
    }

    @Test("a state's page answers its code in either case")
    func stateCodeInEitherCase() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let lower = try dad.session.get("/games/\(game)/states/tx")
        #expect(lower.status == 200)
        #expect(lower.text.contains("Spotted a plate from Texas?"))
        #expect(try dad.session.get("/games/\(game)/states/Tx").status == 200)
        #expect(try dad.session.get("/games/\(game)/states/zz").status == 404)
    }

    @Test("a DC spot leaves the feed, Undo and all, once DC no longer counts")
    func dcSpotHiddenWhenDCIsOff() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session, dc: true)
        try Plates.spot(dad.session, game, "DC")
        #expect(try dad.session.get("/games/\(game)/feed").text.contains("District of Columbia"))
        let saved = try dad.session.post(
            "/games/\(game)/settings", [("name", "Summer Road Trip"), ("mode", "collaborative")], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(saved.status == 303)
        let feed = try dad.session.get("/games/\(game)/feed").text
        #expect(!feed.contains("District of Columbia"))
        #expect(!feed.contains("Undo"))
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE region = 'DC'") == 1, "kept, in case DC counts again")
    }

    @Test("rotating the code and leaving both say they happened")
    func confirmationsAfterRotateAndLeave() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let rotated = try dad.session.postConfirming("/games/\(game)/code", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(rotated.header("Location") == "/games/\(game)/players")
        #expect(try dad.session.get("/games/\(game)/players").text.contains("New invite code ready. The old one no longer works."))
        let left = try mom.session.postConfirming("/games/\(game)/leave", [], csrf: try mom.session.token(from: "/games/\(game)/leave"))
        #expect(left.header("Location") == "/")
        #expect(try mom.session.get("/").text.contains("You left Summer Road Trip."))
    }

    @Test("the invite code is shown large in groups of three, and spelled out for screen readers")
    func inviteCodeToReadAloud() throws {
        #expect(PlateInviteCode.grouped("K7P2QX") == "K7P 2QX")
        #expect(PlateInviteCode.spoken("K7P2QX") == "K 7 P, 2 Q X")
        #expect(PlateInviteCode.grouped("ABCDEFG") == "ABC DEF G")
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let code = try Plates.code(app, game)
        let page = try dad.session.get("/games/\(game)/players").text
        #expect(page.contains("<strong class=\"plate-code mono\" aria-hidden=\"true\">\(PlateInviteCode.grouped(code))</strong>"))
        #expect(page.contains("<span class=\"visually-hidden\">\(PlateInviteCode.spoken(code))</span>"))
    }

    @Test("the dashboard's empty plate card draws a plate on a road, not the gift")
    func dashboardArt() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let section = try dad.session.get("/games").text
        #expect(section.contains("No plate games yet"))
        #expect(section.contains(">KITH 1</text>"))
        #expect(!section.contains("#FF6B9D\"/></g>"), "the gift's bow")
    }

    @Test("one person's burst is one feed line that opens to its spots")
    func burstsFoldIntoOneLine() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app, mode: "competitive")
        for state in ["TX", "OH", "UT", "ID", "WA"] {
            try Plates.spot(mom.session, game, state)
            clock.withLock { $0 += 60 }
        }
        clock.withLock { $0 += 3 * 3600 }
        try Plates.spot(mom.session, game, "ME")
        try Plates.spot(dad.session, game, "RI")
        let feed = try dad.session.get("/games/\(game)/feed").text
        #expect(feed.contains("Mom spotted Washington, Idaho and 3 more"))
        #expect(feed.components(separatedBy: "<details>").count - 1 == 1, "Maine, hours later, is a line of its own")
        #expect(feed.contains("<strong>Maine</strong> — Mom"))
        #expect(feed.contains("<strong>Rhode Island</strong> — you"))
        #expect(feed.contains("aria-label=\"Undo your spot of Rhode Island\""))
        let mine = try mom.session.get("/games/\(game)/feed").text
        #expect(mine.contains("You spotted Washington, Idaho and 3 more"))
        #expect(mine.contains("aria-label=\"Undo your spot of Texas\""), "each spot in the burst can still be undone")

        let item = { (name: String, who: String, at: Int64) in
            var item = PlateBoardPage.FeedItem(regionName: name, regionCode: "", playerName: who, relativeTime: "", machineTime: "", undoAction: nil)
            item.spottedAt = at
            return item
        }
        let runs = PlateFeedBursts.group([item("Ohio", "Maya", 3000), item("Utah", "Maya", 2000), item("Iowa", "Dad", 1900), item("Idaho", "Maya", 1800)])
        #expect(runs.map(\.count) == [2, 1, 1], "another person's spot ends a burst")
        #expect(PlateFeedBursts.headline(runs[0]) == "Maya spotted Ohio and Utah")
    }

    @Test("still missing: the list and the map show only what nobody, or I, have spotted; works without script")
    func stillMissing() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(dad.session, game, "ID")
        try Plates.spot(mom.session, game, "OH")
        let buttons = { (html: String) in html.components(separatedBy: "<button type=\"submit\" name=\"state\"").count - 1 }

        let everyone = try dad.session.get("/games/\(game)/spot?missing=everyone").text
        #expect(buttons(everyone) == 48)
        #expect(!everyone.contains("value=\"OH\"") && !everyone.contains("value=\"ID\""))
        #expect(everyone.contains("data-fragment=\"/games/\(game)/spot/list?missing=everyone\""), "a live refresh keeps the view")
        #expect(everyone.contains("aria-current=\"page\">Nobody has yet</a>"))
        let me = try dad.session.get("/games/\(game)/spot?missing=me").text
        #expect(buttons(me) == 49)
        #expect(me.contains("value=\"OH\"") && !me.contains("value=\"ID\""))
        #expect(buttons(try dad.session.get("/games/\(game)/spot").text) == 50)

        let board = try dad.session.get("/games/\(game)?missing=everyone").text
        #expect(board.contains("class=\"plate-map plate-map--missing-everyone\""))
        #expect(board.contains("Nobody has spotted 48 yet:"))
        #expect(board.contains("data-fragment=\"/games/\(game)/board?missing=everyone\""))
        let fragment = try dad.session.get("/games/\(game)/board?missing=me").text
        #expect(fragment.contains("You haven&#39;t spotted 49 yet:"))
        #expect(fragment.contains("Ohio"))
        #expect(!(try dad.session.get("/games/\(game)").text.contains("plate-map--missing")))

        // A race: what nobody has is read against everyone's spots.
        _ = try dad.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)"))
        let race = try dad.session.get("/games/\(game)/board?missing=everyone").text
        #expect(race.contains("Nobody has spotted 48 yet:"))
        #expect(Plates.control(race, "OH")?.contains("usmap__state--others") == true, "Mom's Ohio is faded too")

        let bad = try dad.session.get("/games/\(game)/spot?missing=bogus")
        #expect(bad.status == 400)
        #expect(bad.text.contains("Show the whole board, what nobody has spotted, or what you haven"))
        #expect(try WebSession(port: app.port).get("/games/\(game)?missing=me").status != 200, "outsiders see nothing")
    }

    @Test("a place note rides along with a spot: in the feed and on the state's page; too long is refused with a message")
    func placeNotes() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let page = try dad.session.get("/games/\(game)/states/TX")
        #expect(page.text.contains("name=\"note\""))
        let csrf = WebSession.csrfToken(in: page)
        let tooLong = try dad.session.post("/games/\(game)/spots", [("state", "TX"), ("note", String(repeating: "a", count: 81))], csrf: csrf)
        #expect(tooLong.status == 422)
        #expect(tooLong.text.contains("where you saw it"))
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots") == 0)
        let posted = try dad.session.post("/games/\(game)/spots", [("state", "TX"), ("note", "  rest stop <near> Amarillo ")], csrf: csrf)
        #expect(posted.status == 303)
        #expect(try dad.session.get("/games/\(game)/feed").text.contains("· rest stop &lt;near&gt; Amarillo</span>"))
        #expect(try dad.session.get("/games/\(game)/states/TX").text.contains("Spotted by you (rest stop &lt;near&gt; Amarillo)."))
        try Plates.spot(dad.session, game, "OH")
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE region = 'OH' AND note IS NULL") == 1, "no note is NULL")
    }

    @Test("removing a player is asked first; a post that skipped the question removes no one")
    func removeAsksFirst() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "ID")
        let asked = try dad.session.post("/games/\(game)/players/\(mom.id)/remove", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(asked.status == 200)
        #expect(asked.text.contains("Remove Mom?"))
        #expect(asked.text.contains("Their 1 spot goes too."))
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(game)") == 2)
        #expect(try mom.session.get("/games/\(game)").text.contains("data-ending-gone=\"You&#39;re no longer in Summer Road Trip\""), "her open board can say so")
    }

    @Test("a finished board's celebration names the game and the viewer, so it plays once")
    func celebrationOnce() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        try app.app.database.write { tx in
            for region in try PlateStore.regions(tx, ruleset: PlateRuleset.states) {
                _ = try PlateStore.spot(tx, gameID: game, userID: dad.id, region: region.code, now: Plates.start)
            }
        }
        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("data-celebrate=\"confetti\" data-celebrate-once=\"plate-\(game)-\(dad.id)\""))
    }

    @Test(
        "the new views pass the Nu HTML checker: still missing, a burst with notes, 'I saw one too', the trip page and an ended board",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func newViewsValidate() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let csrf = try mom.session.token(from: "/games/\(game)")
        for state in ["TX", "OH", "UT"] {
            _ = try mom.session.post("/games/\(game)/spots", [("state", state), ("note", "near \(state) & co")], csrf: csrf)
        }
        var pages: [(name: String, html: String)] = []
        func add(_ name: String, _ session: WebSession, _ path: String) throws {
            let response = try session.get(path)
            #expect(response.status == 200, "\(path)")
            pages.append((name, response.text))
        }
        try add("missing-everyone", dad.session, "/games/\(game)?missing=everyone")
        try add("missing-me-list", dad.session, "/games/\(game)/spot?missing=me")
        try add("saw-one-too", dad.session, "/games/\(game)/states/TX")
        try add("trip", dad.session, "/games/\(game)/trip")
        _ = try dad.session.postConfirming("/games/\(game)/trip/end", [], csrf: try dad.session.token(from: "/games/\(game)"))
        try add("ended-board", mom.session, "/games/\(game)")
        try add("ended-trip", dad.session, "/games/\(game)/trip")
        let directory = try TemporaryDirectory("kith-plate-defects-html")
        for page in pages {
            try Data(page.html.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/\(page.name).html"))
        }
        try HTMLValidationTests.expectValid(directory: directory.path)
    }

    private func player(score: Int) -> PlateBoardPage.Player {
        PlateBoardPage.Player(name: "P", colour: 0, score: score, isViewer: false, isHost: false)
    }
}
