@testable import KithApp
import KithTestSupport
import Testing

/// Deleting an account changes what others see in the occasions and games the
/// person was in; their open pages hear it as an invalidation.
@Suite("Account deletion invalidates the pages it changed")
struct PurgeInvalidationTests {
    @Test("a contributor deletes their account: another member's open occasion stream is invalidated")
    func occasion() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        let watcher = try Tallies.stream(app, party.contributors[0], topics: "occasion:\(party.id)")
        #expect(try postDelete(party.contributors[1], [("password", "correct horse")]).status == 303)
        #expect(try watcher.read(until: "occasion-live", timeout: 5).contains("event: invalidate"))
    }

    @Test("a player deletes their account: another player's open game stream and game list are invalidated")
    func plateGame() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let board = try Tallies.stream(app, dad.session, topics: "game:\(game)")
        let list = try Tallies.stream(app, dad.session, topics: "plates:\(dad.id)")
        #expect(try postDelete(mom.session, [("password", "correct horse")]).status == 303)
        #expect(try board.read(until: "event: invalidate", timeout: 5).contains("game:\(game)"))
        #expect(try list.read(until: "event: invalidate", timeout: 5).contains("plates:\(dad.id)"))
    }
}
