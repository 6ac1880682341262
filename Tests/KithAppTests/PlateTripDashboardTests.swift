import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Plate games: ended trips on the dashboard, and resuming one")
struct PlateTripDashboardTests {
    static func end(_ session: WebSession, _ game: Int64) throws -> TestResponse {
        try session.postConfirming("/games/\(game)/trip/end", [], csrf: try session.token(from: "/games/\(game)"))
    }

    static func resume(_ session: WebSession, _ game: Int64, csrf: Bool = true) throws -> TestResponse {
        try session.post("/games/\(game)/trip/resume", [], csrf: csrf ? try session.token(from: "/games/\(game)") : nil)
    }

    @Test("an ended trip says so with its count and comes after the games under way, however new it is")
    func endedTripListedLast() throws {
        let clock = Locked(Plates.start)
        let app = try Plates.harness(clock: clock)
        let (dad, game, mom) = try Plates.family(app)
        for state in ["TX", "OH", "UT"] { try Plates.spot(mom.session, game, state) }
        clock.withLock { $0 -= 86_400 }
        let older = try Plates.create(dad.session, name: "School Run")
        clock.withLock { $0 += 86_400 }
        let live = try dad.session.get("/").text
        #expect(!live.contains("Trip ended"))
        let liveOrder = try #require(live.range(of: "Summer Road Trip")?.lowerBound) < (try #require(live.range(of: "School Run")?.lowerBound))
        #expect(liveOrder, "newest first while both are under way")

        #expect(try Self.end(dad.session, game).status == 303)
        for viewer in [dad.session, mom.session] {
            let section = try viewer.get("/games").text
            #expect(section.contains("Trip ended · 3 of 50"))
        }
        let dashboard = try dad.session.get("/").text
        let school = try #require(dashboard.range(of: "href=\"/games/\(older)\"")?.lowerBound)
        let summer = try #require(dashboard.range(of: "href=\"/games/\(game)\"")?.lowerBound)
        #expect(school < summer, "the ended trip moves below the game under way")
    }

    @Test("the host resumes an ended trip: spotting works again and the dashboard forgets it ended")
    func resumeATrip() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        #expect(!(try dad.session.get("/games/\(game)").text.contains("Resume trip")), "nothing to resume while under way")
        #expect(try Self.resume(dad.session, game).status == 303, "resuming a trip under way changes nothing")
        #expect(try app.app.database.read { try PlateTripStore.endedAt($0, gameID: game) } == nil)

        #expect(try Self.end(dad.session, game).status == 303)
        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("action=\"/games/\(game)/trip/resume\""))
        #expect(!(try mom.session.get("/games/\(game)").text.contains("Resume trip")), "only the host is offered it")
        #expect(try Self.resume(mom.session, game).status == 403)
        #expect(try Self.resume(dad.session, game, csrf: false).status == 403)
        let stranger = try signUpMember(app, "stranger", name: "Stranger")
        #expect(try stranger.session.post("/games/\(game)/trip/resume", [], csrf: try stranger.session.token(from: "/")).status == 404)
        #expect(try app.app.database.read { try PlateTripStore.endedAt($0, gameID: game) } != nil, "refusals change nothing")

        let resumed = try Self.resume(dad.session, game)
        #expect(resumed.status == 303)
        #expect(resumed.header("Location") == "/games/\(game)")
        #expect(try app.app.database.read { try PlateTripStore.endedAt($0, gameID: game) } == nil)
        #expect(try dad.session.get("/games/\(game)").text.contains("Trip resumed."))
        #expect(try Plates.spot(mom.session, game, "OH").status == 303)
        #expect(!(try mom.session.get("/games").text.contains("Trip ended")))
    }

    @Test("once the next trip has started, the old one stays ended and is not offered to resume")
    func noResumeAfterNext() throws {
        let app = try Plates.harness()
        let (dad, game, _) = try Plates.family(app)
        #expect(try dad.session.post("/games/\(game)/trip/next", [], csrf: try dad.session.token(from: "/games/\(game)")).status == 303)
        #expect(!(try dad.session.get("/games/\(game)").text.contains("Resume trip")))
        let refused = try Self.resume(dad.session, game)
        #expect(refused.status == 409)
        #expect(refused.text.contains("The next trip has started already"))
        #expect(try app.app.database.read { try PlateTripStore.endedAt($0, gameID: game) } != nil)
    }
}
