import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

extension Plates {
    /// Every state of the rules spotted by this player, straight into the store.
    static func fillBoard(_ app: AppHarness, _ game: Int64, userID: Int64) throws {
        try app.app.database.write { tx in
            for region in try PlateStore.regions(tx, ruleset: PlateRuleset.states) {
                _ = try PlateStore.spot(tx, gameID: game, userID: userID, region: region.code, now: Plates.start)
            }
        }
    }

    static func celebrated(_ session: WebSession, _ game: Int64, csrf: Bool = true, enhanced: Bool = true) throws -> TestResponse {
        try session.post(
            "/games/\(game)/celebrated", [], csrf: csrf ? try session.token(from: "/games/\(game)") : nil,
            headers: enhanced ? ["X-Kith-Enhanced": "1"] : [:])
    }
}

@Suite("A finished game's celebration plays once per player, on any device")
struct PlateCelebrationTests {
    static let confetti = "data-celebrate=\"confetti\""

    @Test("the celebration is drawn until the player says they saw it, then never again for them; the others still get theirs")
    func seenOncePerPlayer() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.fillBoard(app, game, userID: dad.id)
        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("data-celebrate-seen=\"/games/\(game)/celebrated\" \(Self.confetti)"))
        #expect(try dad.session.get("/games/\(game)").text.contains(Self.confetti), "showing the board twice records nothing")
        #expect(try mom.session.get("/games/\(game)/board").text.contains(Self.confetti))

        #expect(try Plates.celebrated(dad.session, game).status == 204)
        let after = try dad.session.get("/games/\(game)").text
        #expect(!after.contains("data-celebrate"), "no confetti, on this device or any other")
        #expect(after.contains("<p class=\"plate-celebration\">All 50 spotted. What a road trip!</p>"), "the finish is still named")
        #expect(!(try dad.session.get("/games/\(game)/board").text.contains("data-celebrate")), "nor in the live fragment")
        let second = WebSession(port: app.port)
        #expect(try signIn(second, username: "dad", password: "correct horse").status == 303)
        #expect(!(try second.get("/games/\(game)").text.contains("data-celebrate")), "another browser signed in as Dad")
        #expect(try mom.session.get("/games/\(game)").text.contains(Self.confetti), "Mom has not seen hers yet")

        // A second post (another tab) is harmless; a plain form post goes back to the board.
        let plain = try Plates.celebrated(dad.session, game, enhanced: false)
        #expect(plain.status == 303)
        #expect(plain.header("Location") == "/games/\(game)")
        #expect(try countRows(app, "SELECT count(*) FROM plate_celebrations_seen") == 1)
    }

    @Test("the seen post needs CSRF and membership; outsiders meet 404 and nothing is recorded")
    func seenNeedsMembership() throws {
        let app = try Plates.harness()
        let (dad, game, _) = try Plates.family(app)
        try Plates.fillBoard(app, game, userID: dad.id)
        #expect(try Plates.celebrated(dad.session, game, csrf: false).status == 403)
        let stranger = try signUpMember(app, "stranger", name: "Stranger")
        #expect(try stranger.session.post("/games/\(game)/celebrated", [], csrf: try stranger.session.token(from: "/")).status == 404)
        #expect(try stranger.session.post("/games/999999/celebrated", [], csrf: try stranger.session.token(from: "/")).status == 404)
        #expect(try countRows(app, "SELECT count(*) FROM plate_celebrations_seen") == 0)
        #expect(try dad.session.get("/games/\(game)").text.contains(Self.confetti))
    }

    @Test("a player's seen mark goes when they leave the game, and with the game")
    func seenGoesWithThePlayer() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.fillBoard(app, game, userID: dad.id)
        #expect(try Plates.celebrated(dad.session, game).status == 204)
        #expect(try Plates.celebrated(mom.session, game).status == 204)
        #expect(try countRows(app, "SELECT count(*) FROM plate_celebrations_seen") == 2)
        try app.app.database.write { try $0.execute("DELETE FROM plate_players WHERE game_id = \(game) AND user_id = \(mom.id)") }
        #expect(try countRows(app, "SELECT count(*) FROM plate_celebrations_seen WHERE user_id = \(mom.id)") == 0)
        try app.app.database.write { try $0.execute("DELETE FROM plate_games WHERE id = \(game)") }
        #expect(try countRows(app, "SELECT count(*) FROM plate_celebrations_seen") == 0)
    }
}
