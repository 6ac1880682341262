import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

@Suite("Plate games: games, players and the invite")
struct PlateGameTests {
    @Test("creating a game makes its host, its code and its rules; the dashboard lists it with progress")
    func create() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let home = try dad.session.get("/")
        #expect(home.text.contains("No plate games yet"))
        #expect(home.text.contains("href=\"/games/new\""))

        let game = try Plates.create(dad.session)
        let stored = try app.app.database.read { db in
            try db.queryOne("SELECT name, mode, ruleset FROM plate_games WHERE id = \(game)")
        }
        #expect(try stored?.get("name", as: String.self) == "Summer Road Trip")
        #expect(try stored?.get("mode", as: String.self) == "collaborative")
        #expect(try stored?.get("ruleset", as: String.self) == "us50", "50 states unless DC is asked for")
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(game) AND user_id = \(dad.id) AND role = 'host'") == 1)
        #expect(try Plates.code(app, game).count == 6)

        try Plates.spot(dad.session, game, "ID")
        let second = try Plates.create(dad.session, name: "Race to Fifty", mode: "competitive", dc: true)
        let dashboard = try dad.session.get("/").text
        #expect(dashboard.contains("Summer Road Trip"))
        #expect(dashboard.contains("<strong>1 of 50</strong> together"))
        #expect(dashboard.contains("Race to Fifty"))
        #expect(dashboard.contains("<strong>0 of 51</strong> your board"), "DC counts in the second game")
        #expect(dashboard.firstRange(of: "Race to Fifty")!.lowerBound < dashboard.firstRange(of: "Summer Road Trip")!.lowerBound, "newest first")
        #expect(try app.app.database.read { try $0.queryValue("SELECT ruleset FROM plate_games WHERE id = \(second)", as: String.self) } == "us50dc")
    }

    @Test("a game's name is 1 to 60 characters, enforced by the server, and a bad form writes nothing")
    func nameLength() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let cases: [(name: String, mode: String, message: String?)] = [
            ("", "collaborative", "Enter the game name."),
            ("   \n ", "collaborative", "Enter the game name."),
            (String(repeating: "a", count: 61), "collaborative", "Keep the game name to 60 characters or fewer."),
            (String(repeating: "é", count: 61), "competitive", "Keep the game name to 60 characters or fewer."),
            ("Road\u{7}Trip", "collaborative", "The game name has an invisible character in it; please type it again."),
            ("Summer Road Trip", "chaos", "Choose how you play: together or a race."),
            ("Summer Road Trip", "", "Choose how you play: together or a race."),
        ]
        for item in cases {
            let response = try dad.session.post(
                "/games", [("name", item.name), ("mode", item.mode)], csrf: try dad.session.token(from: "/games/new"))
            #expect(response.status == 422, "\(item.name.prefix(10)) \(item.mode)")
            if let message = item.message { #expect(response.text.contains(message), "\(item.name.prefix(10))") }
            #expect(response.text.contains("role=\"alert\""))
        }
        #expect(try countRows(app, "SELECT count(*) FROM plate_games") == 0)
        #expect(try countRows(app, "SELECT count(*) FROM invite_codes") == 0)

        // What was typed comes back; sixty characters, however wide, are fine.
        let kept = try dad.session.post("/games", [("name", "Trip <3"), ("mode", "nope")], csrf: try dad.session.token(from: "/games/new"))
        #expect(kept.text.contains("value=\"Trip &lt;3\""))
        let sixty = String(repeating: "é", count: 60)
        let game = try Plates.create(dad.session, name: "  " + sixty + "  ")
        #expect(try app.app.database.read { try $0.queryValue("SELECT name FROM plate_games WHERE id = \(game)", as: String.self) } == sixty)
        // The database holds a line too, whatever a handler might do: in code
        // points, room for 60 Characters of up to 12 code points each.
        #expect(throws: DatabaseError.self) {
            try app.app.database.write { tx in
                try tx.execute("UPDATE plate_games SET name = \(String(repeating: "x", count: 60 * TextPolicy.scalarsPerCharacter + 1)) WHERE id = \(game)")
            }
        }
    }

    @Test("family members join through the link as guests, by typing the code, or signed in; joining twice changes nothing")
    func joining() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let code = try Plates.code(app, game)

        // The link's preview names the game and nothing else, with card tags for chat apps.
        let phone = WebSession(port: app.port)
        let preview = try phone.get("/join/\(code)")
        #expect(preview.status == 200)
        #expect(preview.text.contains("<meta property=\"og:title\" content=\"Join Summer Road Trip on Kith\">"))
        #expect(preview.text.contains("Dad invited you to a plate game."))
        #expect(preview.text.contains("Join as player"))
        #expect(!preview.text.contains("Idaho"))

        // A guest joins in one form.
        let joined = try phone.post(
            "/join/\(code)", [("display_name", "Maya"), ("avatar", "fox"), ("time_zone", "America/Denver")],
            csrf: WebSession.csrfToken(in: preview))
        #expect(joined.status == 303)
        #expect(joined.header("Location") == "/games/\(game)")
        #expect(try phone.get("/games/\(game)").text.contains("Summer Road Trip"))

        // Another reads the code aloud and it is typed in lower case with a dash.
        let mom = try signUpMember(app, "mom", name: "Mom")
        let typed = try mom.session.post("/join", [("code", String(code.lowercased().prefix(3)) + "-" + String(code.lowercased().dropFirst(3)))], csrf: try mom.session.token(from: "/join"))
        #expect(typed.status == 303)
        #expect(typed.header("Location") == "/join/\(code)")
        #expect(try Plates.join(app, mom.session, game).status == 303)

        let again = try Plates.join(app, mom.session, game)
        #expect(again.status == 200)
        #expect(again.text.contains("You&#39;re already playing in Summer Road Trip."))
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(game)") == 3)
        // Colours tell players apart: three players, three colours.
        #expect(try countRows(app, "SELECT count(DISTINCT colour) FROM plate_players WHERE game_id = \(game)") == 3)

        // Everyone sees the code to read aloud; only the host can rotate it.
        let players = try mom.session.get("/games/\(game)/players").text
        #expect(players.contains(code))
        #expect(players.contains("<svg"), "a QR code of the link")
        #expect(!players.contains("New code"))
        #expect(try dad.session.get("/games/\(game)/players").text.contains("New code"))
    }

    @Test("the host rotates the code: the old link opens nothing")
    func rotate() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        let old = try Plates.code(app, game)
        let rotated = try dad.session.postConfirming("/games/\(game)/code", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(rotated.status == 303)
        let new = try Plates.code(app, game)
        #expect(new != old)
        #expect(try WebSession(port: app.port).get("/join/\(old)").status == 404)
        #expect(try WebSession(port: app.port).get("/join/\(new)").status == 200)
    }

    @Test("leaving, removal, and the last player out")
    func leaveAndRemove() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let kid = try Plates.player(app, "kid", name: "Kid", joining: game)
        try Plates.spot(mom.session, game, "ID")
        try Plates.spot(kid.session, game, "OH")

        #expect(try pendingDigests(app, userID: mom.id) == 1, "Kid's Ohio waits for Mom")
        // The host removes Mom: her spots go with her, and the game is closed to her.
        let removed = try dad.session.postConfirming("/games/\(game)/players/\(mom.id)/remove", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(removed.status == 303)
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE user_id = \(mom.id)") == 0)
        #expect(try pendingDigests(app, userID: mom.id) == 0, "no news of a game she can no longer open")
        #expect(try mom.session.get("/games/\(game)").status == 404)
        #expect(!(try mom.session.get("/").text.contains("Summer Road Trip")))
        // Removing someone not in the game, or yourself, is refused.
        #expect(try dad.session.post("/games/\(game)/players/\(mom.id)/remove", [], csrf: try dad.session.token(from: "/games/\(game)")).status == 404)
        #expect(try dad.session.post("/games/\(game)/players/\(dad.id)/remove", [], csrf: try dad.session.token(from: "/games/\(game)")).status == 422)

        // The host leaves: the longest-standing other player hosts now.
        let confirm = try dad.session.get("/games/\(game)/leave")
        #expect(confirm.text.contains("Your spots in this game go with you."))
        #expect(try dad.session.postConfirming("/games/\(game)/leave", [], csrf: try dad.session.token(from: "/games/\(game)/leave")).status == 303)
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(game) AND user_id = \(kid.id) AND role = 'host'") == 1)
        #expect(try kid.session.get("/games/\(game)").text.contains("Switch to competitive"), "the new host has the host's controls")

        // The last player leaves: the game and its code are gone.
        let code = try Plates.code(app, game)
        #expect(try kid.session.get("/games/\(game)/leave").text.contains("You&#39;re the last player"))
        #expect(try kid.session.postConfirming("/games/\(game)/leave", [], csrf: try kid.session.token(from: "/games/\(game)/leave")).status == 303)
        #expect(try countRows(app, "SELECT count(*) FROM plate_games WHERE id = \(game)") == 0)
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(game)") == 0)
        #expect(try WebSession(port: app.port).get("/join/\(code)").status == 404)
    }
}

@Suite("Plate games: who may do what")
struct PlateAccessTests {
    /// Every route under a game, as an outsider would try it.
    static func routes(_ game: Int64, spot: Int64, player: Int64) -> [(method: String, path: String)] {
        [
            ("GET", "/games/\(game)"), ("GET", "/games/\(game)/board"), ("GET", "/games/\(game)/feed"), ("GET", "/games/\(game)/spot"), ("GET", "/games/\(game)/spot/list"),
            ("GET", "/games/\(game)/states/ID"), ("GET", "/games/\(game)/players"), ("GET", "/games/\(game)/leave"),
            ("POST", "/games/\(game)/spots"), ("POST", "/games/\(game)/spots/\(spot)/undo"), ("POST", "/games/\(game)/settings"),
            ("POST", "/games/\(game)/mode"), ("POST", "/games/\(game)/code"), ("POST", "/games/\(game)/players/\(player)/remove"),
            ("POST", "/games/\(game)/leave"),
        ]
    }

    @Test("outsiders get 404 on every game route and the game's live topic, and learn nothing")
    func outsiders() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session, name: "Secret Trip")
        let mom = try Plates.player(app, "mom", name: "Mom", joining: game)
        try Plates.spot(mom.session, game, "ID")
        let spot = try Plates.spotID(app, game, user: mom.id, region: "ID")
        let stranger = try signUpMember(app, "stranger", name: "Stranger")
        let before = try Plates.spotRows(app, game)
        let token = try stranger.session.token(from: "/")

        for route in Self.routes(game, spot: spot, player: mom.id) {
            let response =
                route.method == "GET"
                ? try stranger.session.get(route.path)
                : try stranger.session.post(route.path, [("state", "OH"), ("mode", "competitive"), ("name", "Mine now")], csrf: token)
            #expect(response.status == 404, "\(route.method) \(route.path)")
            #expect(!response.text.contains("Secret Trip"), "\(route.method) \(route.path)")
        }
        // A game that does not exist looks exactly the same.
        #expect(try stranger.session.get("/games/99999").status == 404)
        #expect(try stranger.session.get("/games/not-a-number").status == 404)
        #expect(try Plates.spotRows(app, game) == before)
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE user_id = \(stranger.id)") == 0)
        #expect(try app.app.database.read { try $0.queryValue("SELECT name FROM plate_games WHERE id = \(game)", as: String.self) } == "Secret Trip")

        let live = try TestClient(port: app.port)
        try live.send("GET /live?topics=game:\(game) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(stranger.session.sessionCookie!)\r\n\r\n")
        #expect(try live.readResponse().status == 404)
        let others = try TestClient(port: app.port)
        try others.send("GET /live?topics=plates:\(mom.id) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(stranger.session.sessionCookie!)\r\n\r\n")
        #expect(try others.readResponse().status == 404, "someone else's games list is theirs alone")

        // Signed out, every page asks to sign in first.
        let visitor = WebSession(port: app.port)
        for route in Self.routes(game, spot: spot, player: mom.id) where route.method == "GET" {
            let response = try visitor.get(route.path)
            #expect(response.status == 303, "\(route.path)")
            #expect(response.header("Location")?.hasPrefix("/signin?next=") == true, "\(route.path)")
        }
    }

    @Test("a player can undo their own spot and nobody else's")
    func undo() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(dad.session, game, "ID")
        try Plates.spot(mom.session, game, "OH")
        let dads = try Plates.spotID(app, game, user: dad.id, region: "ID")
        let moms = try Plates.spotID(app, game, user: mom.id, region: "OH")

        let refused = try mom.session.post("/games/\(game)/spots/\(dads)/undo", [], csrf: try mom.session.token(from: "/games/\(game)"))
        #expect(refused.status == 403)
        #expect(refused.text.contains("You can only undo your own spots."))
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE id = \(dads)") == 1)
        // Even the host cannot undo someone else's.
        #expect(try dad.session.post("/games/\(game)/spots/\(moms)/undo", [], csrf: try dad.session.token(from: "/games/\(game)")).status == 403)
        // A spot from another game is not in this one.
        let other = try Plates.create(mom.session, name: "Other")
        try Plates.spot(mom.session, other, "UT")
        let elsewhere = try Plates.spotID(app, other, user: mom.id, region: "UT")
        #expect(try mom.session.post("/games/\(game)/spots/\(elsewhere)/undo", [], csrf: try mom.session.token(from: "/games/\(game)")).status == 404)

        // The feed offers undo on your own spots only.
        let board = try mom.session.get("/games/\(game)").text
        #expect(board.contains("action=\"/games/\(game)/spots/\(moms)/undo\""))
        #expect(!board.contains("action=\"/games/\(game)/spots/\(dads)/undo\""))

        let undone = try mom.session.postConfirming("/games/\(game)/spots/\(moms)/undo", [], csrf: try mom.session.token(from: "/games/\(game)"))
        #expect(undone.status == 303)
        #expect(undone.header("Location") == "/games/\(game)")
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE id = \(moms)") == 0)
        #expect(try mom.session.post("/games/\(game)/spots/\(moms)/undo", [], csrf: try mom.session.token(from: "/games/\(game)")).status == 404)
    }

    @Test("only the host renames, switches mode, changes the rules, rotates the code and removes players")
    func hostOnly() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let code = try Plates.code(app, game)
        let token = try mom.session.token(from: "/games/\(game)")
        let attempts: [(path: String, fields: [(String, String)])] = [
            ("/games/\(game)/settings", [("name", "Mom's Trip"), ("mode", "competitive"), ("dc", "on")]),
            ("/games/\(game)/mode", [("mode", "competitive")]),
            ("/games/\(game)/code", []),
            ("/games/\(game)/players/\(dad.id)/remove", []),
        ]
        for attempt in attempts {
            let response = try mom.session.post(attempt.path, attempt.fields, csrf: token)
            #expect(response.status == 403, "\(attempt.path)")
            #expect(response.text.contains("Only the host"), "\(attempt.path)")
        }
        let row = try app.app.database.read { try $0.queryOne("SELECT name, mode, ruleset FROM plate_games WHERE id = \(game)") }
        #expect(try row?.get("name", as: String.self) == "Summer Road Trip")
        #expect(try row?.get("mode", as: String.self) == "collaborative")
        #expect(try row?.get("ruleset", as: String.self) == "us50")
        #expect(try Plates.code(app, game) == code)
        #expect(try countRows(app, "SELECT count(*) FROM plate_players WHERE game_id = \(game)") == 2)
        #expect(!(try mom.session.get("/games/\(game)").text.contains("Switch to")), "no host controls for a player")

        // The host can, and bad input gets a message, not a change.
        let bad = try dad.session.post("/games/\(game)/settings", [("name", ""), ("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(bad.status == 422)
        #expect(bad.text.contains("Enter the game name."))
        #expect(try dad.session.post("/games/\(game)/mode", [("mode", "sideways")], csrf: try dad.session.token(from: "/games/\(game)")).status == 422)
        let saved = try dad.session.post(
            "/games/\(game)/settings", [("name", "Fall Foliage"), ("mode", "competitive"), ("dc", "on")],
            csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(saved.status == 303)
        let after = try app.app.database.read { try $0.queryOne("SELECT name, mode, ruleset FROM plate_games WHERE id = \(game)") }
        #expect(try after?.get("name", as: String.self) == "Fall Foliage")
        #expect(try after?.get("mode", as: String.self) == "competitive")
        #expect(try after?.get("ruleset", as: String.self) == "us50dc")
    }
}
