import Foundation
@testable import KithApp
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

extension WebSession {
    /// The confirmation token a confirm page's form carries, if the answer is one.
    static func confirmToken(in page: TestResponse) -> String? {
        let text = page.text
        guard let range = text.range(of: #"name="confirmed" value="([^"]+)""#, options: .regularExpression) else { return nil }
        return String(text[range]).components(separatedBy: "value=\"").last.map { String($0.dropLast()) }
    }

    /// Posts a form as a person who, shown the confirm page, presses its
    /// destructive button: for stories about what an action does, not about
    /// being asked first.
    func postConfirming(_ path: String, _ fields: [(String, String)], csrf: String?) throws -> TestResponse {
        let first = try post(path, fields, csrf: csrf)
        guard first.status == 200, let token = Self.confirmToken(in: first) else { return first }
        return try post(path, fields + [("confirmed", token)], csrf: Self.csrfToken(in: first) ?? csrf)
    }
}

/// Text as the templates escape it, to look for in a page.
private func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "'", with: "&#39;")
        .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
}

/// Every destructive action asks first, in words the server wrote from the
/// database: a post without the confirmation's token is answered with the
/// confirm page and changes nothing; the confirmed post acts. Tally resets
/// and deletions, spots taken back and removed players can be undone, by
/// the person who acted alone, within the window, exactly.
@Suite struct DestructiveActionTests {
    /// Ada's Coffees at 41, shared with Bob (who may edit), and Cy, a stranger.
    struct Coffees {
        let app: AppHarness
        let clock: Locked<Int64>
        let ada: (session: WebSession, id: Int64)
        let bob: (session: WebSession, id: Int64)
        let cy: (session: WebSession, id: Int64)
        let tally: Int64
    }

    static func coffees() throws -> Coffees {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        let cy = try Tallies.person(app, "cyd")
        try Tallies.befriend(ada.session, "bob")
        let tally = try Tallies.create(ada.session, name: "Coffees", count: 41, shares: [(bob.id, "edit")])
        clock.withLock { $0 += 60 }
        // Bob has seen it, so there is a seen row of his to put back too.
        #expect(try Tallies.post(bob.session, "/tallies/seen", [("tally", "\(tally):1")]).status == 204)
        return Coffees(app: app, clock: clock, ada: ada, bob: bob, cy: cy, tally: tally)
    }

    static func views(_ app: AppHarness, _ tally: Int64) throws -> String? {
        let views = try app.app.database.read { db in
            try db.query("SELECT user_id, seen_version FROM tally_views WHERE tally_id = \(tally) ORDER BY user_id").map {
                "\(try $0.get("user_id", as: Int64.self)):\(try $0.get("seen_version", as: Int64.self))"
            }
        }
        return views.isEmpty ? nil : views.joined(separator: ",")
    }

    /// The undo form's action on a page, and the entry id at its end.
    static func undoAction(in page: TestResponse) throws -> String {
        let text = page.text
        let marker = try #require(text.range(of: "class=\"undo-notice__form\" method=\"post\" action=\""))
        return String(text[marker.upperBound...].prefix { $0 != "\"" })
    }

    @Test func deletingATallyAsksWithItsNumbersThenDeletesAndUndoRestoresItExactly() throws {
        let c = try Self.coffees()
        let before = try Tallies.row(c.app, c.tally)
        let viewsBefore = try Self.views(c.app, c.tally)
        #expect(viewsBefore?.contains("\(c.bob.id):") == true)
        let sentence = "Delete Coffees? Its count of 41 and its settings go, for you and the friend it's shared with."

        // The page's own form carries the same words for the dialog, and no token.
        let page = try c.ada.session.get("/tallies/\(c.tally)")
        #expect(page.text.contains("data-confirm=\"Delete Coffees?\""))
        #expect(page.text.contains(escaped("Its count of 41 and its settings go, for you and the friend it's shared with.")))

        // A plain post (an old page, a crafted form) is asked, not obeyed.
        let asked = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/delete")
        #expect(asked.status == 200)
        #expect(asked.text.contains(escaped("Delete Coffees?")))
        #expect(asked.text.contains(escaped("Its count of 41 and its settings go, for you and the friend it's shared with.")))
        #expect(asked.text.contains("href=\"/tallies/\(c.tally)\""), "Cancel goes back to the tally")
        #expect(try Tallies.row(c.app, c.tally) == before)
        // A token for other words is no confirmation either.
        let wrong = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/delete", [("confirmed", "0000000000000000")])
        #expect(wrong.status == 200 && WebSession.confirmToken(in: wrong) == Confirmation(sentence, "", button: "").token)
        #expect(try Tallies.row(c.app, c.tally) == before)

        let deleted = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/delete", [("confirmed", try #require(WebSession.confirmToken(in: asked)))])
        #expect(deleted.status == 303)
        #expect(try Tallies.row(c.app, c.tally) == nil)

        // Ada lands on the home page with the notice; Bob is offered nothing.
        let home = try c.ada.session.get("/")
        #expect(home.text.contains("Coffees deleted."))
        #expect(home.text.contains("role=\"status\" data-undo-notice"))
        #expect(!(try c.bob.session.get("/").text.contains("Coffees deleted.")))
        let undo = try Self.undoAction(in: home)

        // Nobody else may undo it: the entry is not theirs.
        #expect(try Tallies.post(c.bob.session, undo).status == 404)
        #expect(try Tallies.post(c.cy.session, undo).status == 404)
        #expect(try Tallies.row(c.app, c.tally) == nil)

        c.clock.withLock { $0 += 5 }
        let restored = try Tallies.post(c.ada.session, undo)
        #expect(restored.status == 303)
        #expect(restored.header("Location") == "/tallies/\(c.tally)")
        // Same id, name, count, settings, version, times and shares; the same seen rows.
        #expect(try Tallies.row(c.app, c.tally) == before)
        #expect(try Self.views(c.app, c.tally) == viewsBefore)
        #expect(try c.bob.session.get("/tallies/\(c.tally)").status == 200)
        // Once only.
        #expect(try Tallies.post(c.ada.session, undo).status == 404)
    }

    @Test func resettingAsksAndUndoPutsTheCountBack() throws {
        let c = try Self.coffees()
        let before = try #require(try Tallies.row(c.app, c.tally))
        let asked = try Tallies.post(c.bob.session, "/tallies/\(c.tally)/reset")
        #expect(asked.status == 200)
        #expect(asked.text.contains(escaped("Reset Coffees to 0?")))
        #expect(asked.text.contains("Its count of 41 goes for all 2 people who see it."))
        #expect(try Tallies.count(c.app, c.tally) == 41)

        c.clock.withLock { $0 += 30 }
        #expect(try c.bob.session.postConfirming("/tallies/\(c.tally)/reset", [], csrf: try c.bob.session.token(from: "/friends")).status == 303)
        #expect(try Tallies.count(c.app, c.tally) == 0)
        let page = try c.bob.session.get("/tallies/\(c.tally)")
        #expect(page.text.contains("Coffees reset to 0."))
        #expect(!(try c.ada.session.get("/tallies/\(c.tally)").text.contains("Coffees reset to 0.")))
        let undo = try Self.undoAction(in: page)
        #expect(try Tallies.post(c.ada.session, undo).status == 404)
        #expect(try Tallies.post(c.bob.session, undo).status == 303)
        #expect(try Tallies.count(c.app, c.tally) == 41)
        // Count, when and by whom as before the reset; only the version moved on (twice).
        let after = try #require(try Tallies.row(c.app, c.tally)).split(separator: "|", omittingEmptySubsequences: false)
        let was = before.split(separator: "|", omittingEmptySubsequences: false)
        #expect(after[1] == was[1] && after[6] == was[6] && after[7] == was[7])
        #expect(Int(after[5]) == Int(was[5])! + 2)
    }

    @Test func undoIsRefusedInWordsAfterTheWindowOrAfterSomeoneElsesChange() throws {
        let c = try Self.coffees()
        let token = try c.ada.session.token(from: "/friends")
        #expect(try c.ada.session.postConfirming("/tallies/\(c.tally)/reset", [], csrf: token).status == 303)
        let late = try Self.undoAction(in: try c.ada.session.get("/tallies/\(c.tally)"))
        c.clock.withLock { $0 += UndoJournal.window + 1 }
        // The notice is gone from the page, and the post is refused with a reason.
        #expect(!(try c.ada.session.get("/tallies/\(c.tally)").text.contains("Coffees reset to 0.")))
        let refused = try Tallies.post(c.ada.session, late)
        #expect(refused.status == 409)
        #expect(refused.text.contains("Too late to undo"))
        #expect(try Tallies.count(c.app, c.tally) == 0)

        // Someone changed it since: their change stands.
        #expect(try Tallies.post(c.ada.session, "/tallies/\(c.tally)/count", [("count", "7")]).status == 303)
        #expect(try c.ada.session.postConfirming("/tallies/\(c.tally)/reset", [], csrf: token).status == 303)
        let undo = try Self.undoAction(in: try c.ada.session.get("/tallies/\(c.tally)"))
        #expect(try Tallies.post(c.bob.session, "/tallies/\(c.tally)/increment").status == 303)
        let changed = try Tallies.post(c.ada.session, undo)
        #expect(changed.status == 409)
        #expect(changed.text.contains(escaped("Too late to undo — Coffees has changed since it was reset.")))
        #expect(try Tallies.count(c.app, c.tally) == 1)
    }

    @Test func aConfirmationCountsOnlyForTheNumbersItShowed() throws {
        let c = try Self.coffees()
        let asked = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/delete")
        let token = try #require(WebSession.confirmToken(in: asked))
        // Bob counts one more before Ada presses Delete: she is asked again.
        #expect(try Tallies.post(c.bob.session, "/tallies/\(c.tally)/increment").status == 303)
        let again = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/delete", [("confirmed", token)])
        #expect(again.status == 200)
        #expect(again.text.contains("Its count of 42"))
        #expect(try Tallies.count(c.app, c.tally) == 42)
    }

    @Test func outsidersGetNotFoundAndViewersForbiddenBeforeAnyConfirmPage() throws {
        let c = try Self.coffees()
        for action in ["delete", "reset", "leave"] {
            #expect(try Tallies.post(c.cy.session, "/tallies/\(c.tally)/\(action)").status == 404, "\(action)")
        }
        #expect(try Tallies.post(c.bob.session, "/tallies/\(c.tally)/delete").status == 403)
        #expect(try Tallies.post(c.ada.session, "/tallies/\(c.tally)/leave").status == 403)
        #expect(try Tallies.post(c.cy.session, "/tallies/undo/1").status == 404)
    }

    @Test func leavingUnsharingAndUnfriendingAskFirst() throws {
        let c = try Self.coffees()
        let left = try Tallies.post(c.bob.session, "/tallies/\(c.tally)/leave")
        #expect(left.status == 200)
        #expect(left.text.contains("Leave Coffees?"))
        #expect(left.text.contains("only Ada can share it with you again"))
        let unshare = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/sharing", [("share-\(c.bob.id)", "none")])
        #expect(unshare.status == 200)
        #expect(unshare.text.contains("Stop sharing Coffees with Bob?"))
        // The confirm page posts the same choices again.
        #expect(unshare.text.contains("name=\"share-\(c.bob.id)\" value=\"none\""))
        let unfriend = try Tallies.post(c.ada.session, "/friends/\(c.bob.id)/remove")
        #expect(unfriend.status == 200)
        #expect(unfriend.text.contains("Remove Bob as a friend?"))
        #expect(try Tallies.row(c.app, c.tally)?.hasSuffix("\(c.bob.id)edit") == true)

        // Confirmed, each acts.
        let token = try c.ada.session.token(from: "/friends")
        #expect(try c.ada.session.postConfirming("/tallies/\(c.tally)/sharing", [("share-\(c.bob.id)", "none")], csrf: token).status == 303)
        #expect(try Tallies.row(c.app, c.tally)?.hasSuffix("|") == true)
        #expect(try c.ada.session.postConfirming("/friends/\(c.bob.id)/remove", [], csrf: token).status == 303)
        #expect(try c.app.app.database.read { try FriendStore.areFriends($0, c.ada.id, c.bob.id) } == false)
    }

    @Test(
        "confirm pages and pages showing an undo notice pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func confirmAndUndoPagesValidate() throws {
        let c = try Self.coffees()
        var pages: [(String, String)] = []
        let asked = try Tallies.post(c.ada.session, "/tallies/\(c.tally)/delete")
        #expect(asked.status == 200)
        pages.append(("confirm-delete", asked.text))
        pages.append(("confirm-unshare", try Tallies.post(c.ada.session, "/tallies/\(c.tally)/sharing", [("share-\(c.bob.id)", "none")]).text))
        try Tallies.confirm(c.ada.session, "/tallies/\(c.tally)/reset")
        pages.append(("tally-undo", try c.ada.session.get("/tallies/\(c.tally)").text))
        try Tallies.confirm(c.ada.session, "/tallies/\(c.tally)/delete")
        pages.append(("home-undo", try c.ada.session.get("/").text))
        #expect(pages.allSatisfy { !$0.1.isEmpty })
        #expect(pages[2].1.contains("undo-notice") && pages[3].1.contains("undo-notice"))
        let directory = try TemporaryDirectory("kith-confirm-html")
        for (name, html) in pages {
            try Data(html.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        try HTMLValidationTests.expectValid(directory: directory.path)
    }

    // MARK: Plate games

    static func spots(_ app: AppHarness, _ game: Int64, user: Int64) throws -> [String] {
        try app.app.database.read {
            try $0.query("SELECT region, spotted_at FROM plate_spots WHERE game_id = \(game) AND user_id = \(user) ORDER BY region").map {
                "\(try $0.get("region", as: String.self))@\(try $0.get("spotted_at", as: Int64.self))"
            }
        }
    }

    @Test func removingAPlayerSaysHowManySpotsGoAndUndoBringsThemBackWithTheirTimes() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        for (offset, state) in ["OH", "TX", "UT"].enumerated() {
            clock.withLock { $0 = Plates.start + Int64(offset) * 3600 }
            try Plates.spot(mom.session, game, state)
        }
        let player = try app.app.database.read {
            try $0.queryValue("SELECT role || colour || joined_at FROM plate_players WHERE game_id = \(game) AND user_id = \(mom.id)", as: String.self)
        }
        let spots = try Self.spots(app, game, user: mom.id)
        #expect(spots.count == 3)

        let players = try dad.session.get("/games/\(game)/players")
        #expect(players.text.contains("data-confirm=\"Remove Mom?\" data-confirm-detail=\"Their 3 spots go too.\""))
        let token = try #require(WebSession.csrfToken(in: players))
        let asked = try dad.session.post("/games/\(game)/players/\(mom.id)/remove", [], csrf: token)
        #expect(asked.status == 200)
        #expect(asked.text.contains("Remove Mom?") && asked.text.contains("Their 3 spots go too."))
        #expect(try Self.spots(app, game, user: mom.id) == spots)

        #expect(try dad.session.postConfirming("/games/\(game)/players/\(mom.id)/remove", [], csrf: token).status == 303)
        #expect(try Self.spots(app, game, user: mom.id).isEmpty)
        #expect(try mom.session.get("/games/\(game)").status == 404)
        let page = try dad.session.get("/games/\(game)/players")
        #expect(page.text.contains("Mom removed."))
        let undo = try Self.undoAction(in: page)
        // Mom is outside the game now: its undo is a 404 to her like the rest of it.
        #expect(try mom.session.post(undo, [], csrf: try mom.session.token(from: "/")).status == 404)

        #expect(try dad.session.post(undo, [], csrf: token).status == 303)
        #expect(try Self.spots(app, game, user: mom.id) == spots)
        #expect(try app.app.database.read {
            try $0.queryValue("SELECT role || colour || joined_at FROM plate_players WHERE game_id = \(game) AND user_id = \(mom.id)", as: String.self)
        } == player)
        #expect(try mom.session.get("/games/\(game)").status == 200)
    }

    @Test func takingBackASpotAsksAndCanBeUndoneByTheSpotterAlone() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "OH")
        // Ohio is on the shared board already: Dad adds his with "I saw one too".
        _ = try dad.session.post("/games/\(game)/spots", [("state", "OH"), ("also", "yes")], csrf: try dad.session.token(from: "/games/\(game)"))
        clock.withLock { $0 += 600 }
        let spots = try Self.spots(app, game, user: mom.id)
        let spotID = try Plates.spotID(app, game, user: mom.id, region: "OH")
        let token = try mom.session.token(from: "/games/\(game)")
        let asked = try mom.session.post("/games/\(game)/spots/\(spotID)/undo", [], csrf: token)
        #expect(asked.status == 200)
        #expect(asked.text.contains("Take back your Ohio spot?"))
        #expect(asked.text.contains("Only your spot goes: 1 other player spotted Ohio too."))
        #expect(try Self.spots(app, game, user: mom.id) == spots)

        #expect(try mom.session.postConfirming("/games/\(game)/spots/\(spotID)/undo", [], csrf: token).status == 303)
        #expect(try Self.spots(app, game, user: mom.id).isEmpty)
        let board = try mom.session.get("/games/\(game)")
        #expect(board.text.contains("Ohio spot taken back."))
        #expect(!(try dad.session.get("/games/\(game)").text.contains("Ohio spot taken back.")))
        let undo = try Self.undoAction(in: board)
        #expect(try dad.session.post(undo, [], csrf: try dad.session.token(from: "/games/\(game)")).status == 404)
        #expect(try mom.session.post(undo, [], csrf: token).status == 303)
        #expect(try Self.spots(app, game, user: mom.id) == spots)
    }

    @Test func aPlateUndoAfterTheWindowIsRefused() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "OH")
        let token = try dad.session.token(from: "/games/\(game)/players")
        #expect(try dad.session.postConfirming("/games/\(game)/players/\(mom.id)/remove", [], csrf: token).status == 303)
        let undo = try Self.undoAction(in: try dad.session.get("/games/\(game)/players"))
        clock.withLock { $0 += UndoJournal.window + 1 }
        let refused = try dad.session.post(undo, [], csrf: token)
        #expect(refused.status == 409)
        #expect(refused.text.contains("Too late to undo"))
        #expect(try Self.spots(app, game, user: mom.id).isEmpty)
    }

    @Test func plateCodesAskAndOutsidersGetNotFound() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let stranger = try signUpMember(app, "stranger", name: "Stranger")
        let code = try Plates.code(app, game)
        let asked = try dad.session.post("/games/\(game)/code", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(asked.status == 200)
        #expect(asked.text.contains("The code \(code) and its link stop working for good"))
        #expect(try Plates.code(app, game) == code)
        let token = try stranger.session.token(from: "/")
        #expect(try stranger.session.post("/games/\(game)/players/\(mom.id)/remove", [], csrf: token).status == 404)
        #expect(try stranger.session.post("/games/\(game)/code", [], csrf: token).status == 404)
        #expect(try stranger.session.post("/games/\(game)/restore/1", [], csrf: token).status == 404)
    }

    @Test func leavingAGameAsksEvenWhenThePostSkippedItsPage() throws {
        let app = try Plates.harness()
        let (_, game, mom) = try Plates.family(app)
        let asked = try mom.session.post("/games/\(game)/leave", [], csrf: try mom.session.token(from: "/games/\(game)"))
        #expect(asked.status == 200)
        #expect(asked.text.contains("Your spots in this game go with you."))
        #expect(try mom.session.get("/games/\(game)").status == 200, "still in the game")
        #expect(try mom.session.postConfirming("/games/\(game)/leave", [], csrf: try mom.session.token(from: "/games/\(game)")).status == 303)
        #expect(try mom.session.get("/games/\(game)").status == 404)
    }

    // MARK: Occasions

    @Test func hostActionsAskWithRealNumbersAndChangeNothingUntilConfirmed() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let base = party.base
        let gift = try party.sendGift(party.contributors[0], letter: "Happy birthday!")
        let challenge = try party.addChallenge("Sing a song", points: 50)
        let friend = try #require(party.userIDs["friend_1"])
        let celebrant = try #require(party.userIDs["alex_star"])
        let token = try party.host.token(from: "\(base)/host")
        func snapshot() throws -> String {
            try app.app.database.read { db in
                let members = try db.queryValue("SELECT count(*) FROM occasion_members WHERE occasion_id = \(party.id)", as: Int64.self) ?? 0
                let gifts = try db.queryValue("SELECT count(*) FROM occasion_gifts WHERE occasion_id = \(party.id)", as: Int64.self) ?? 0
                let challenges = try db.queryValue("SELECT count(*) FROM occasion_challenges WHERE occasion_id = \(party.id)", as: Int64.self) ?? 0
                let state = try db.queryValue("SELECT CAST(is_open AS TEXT) || coalesce(CAST(finale_at AS TEXT), '-') FROM occasions WHERE id = \(party.id)", as: String.self) ?? ""
                return "\(members) \(gifts) \(challenges) \(state)"
            }
        }
        let before = try snapshot()
        let cases: [(String, [String])] = [
            ("\(base)/host/members/\(friend)/remove", ["Remove Friend 1?", "They lose access to Alex turns 30; their gift stays."]),
            ("\(base)/host/members/\(celebrant)/remove", ["Remove Alex", "They are the one Alex turns 30 celebrates"]),
            ("\(base)/host/gifts/\(gift)/delete", [escaped("Delete Friend 1's gift?"), escaped("Friend 1's letter goes for good.")]),
            ("\(base)/host/challenges/\(challenge)/delete", ["Sing a song", "its 50 points go with it."]),
            ("\(base)/host/finale", ["Call the finale now?", "with 1 gift still locked"]),
            ("\(base)/host/close", ["Close Alex turns 30?", "It can be read but not played"]),
            ("\(base)/host/invites/occasion/rotate", ["Make a new contributor link?", "stop working for good"]),
        ]
        for (path, words) in cases {
            let asked = try party.host.post(path, [], csrf: token)
            #expect(asked.status == 200, "\(path)")
            for word in words { #expect(asked.text.contains(word), "\(path): \(word)") }
            #expect(WebSession.confirmToken(in: asked) != nil, "\(path)")
            #expect(try snapshot() == before, "\(path) changed something before it was confirmed")
            // Outsiders never see a confirm page: the occasion is not there for them.
            #expect(try party.stranger.post(path, [], csrf: try party.stranger.token(from: "/")).status == 404, "\(path)")
        }
        // The host panel's own forms carry the same words for the dialog.
        let panel = try party.host.get("\(base)/host")
        #expect(panel.text.contains("data-confirm=\"Call the finale now?\""))
        #expect(panel.text.contains("data-confirm=\"Remove Friend 1?\""))
        // Confirmed, removing acts.
        #expect(try party.host.postConfirming("\(base)/host/members/\(friend)/remove", [], csrf: token).status == 303)
        #expect(try snapshot() != before)
    }
}

extension Tallies {
    /// `post`, pressing the confirm page's button when asked.
    @discardableResult
    static func confirm(_ session: WebSession, _ path: String, _ fields: [(String, String)] = []) throws -> TestResponse {
        try session.postConfirming(path, fields, csrf: try session.token(from: "/friends"))
    }
}

extension OccasionParty {
    /// `post`, pressing the confirm page's button when asked.
    @discardableResult
    func confirm(_ session: WebSession, _ path: String, _ fields: [(String, String)] = [], from page: String? = nil) throws -> TestResponse {
        try session.postConfirming(path, fields, csrf: try session.token(from: page ?? base))
    }
}
