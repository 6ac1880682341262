@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// A write whose access ended after the request's check: the scope is loaded
/// again inside the write transaction, so the write is refused (404) and
/// changes nothing. The race is staged by ending access between the check
/// and the scoped write, against a real database.
@Suite("Scoped writes re-check access inside the transaction")
struct ScopedWriteTests {
    func user(_ app: AppHarness, _ username: String) throws -> User {
        try #require(try app.app.database.read { try AccountStore.credentials($0, username: username) }?.user)
    }

    /// Runs the scoped write and returns the status it was refused with.
    func refusal<S: Scope>(_ app: AppHarness, _ scope: S.Type, _ id: S.ID, for user: User, _ body: (Transaction, S) throws -> Void) -> Int? {
        do {
            try app.app.write(scope, id, for: user, body)
            return nil
        } catch let error as HTTPError {
            return error.status.code
        } catch {
            return -1
        }
    }

    func count(_ app: AppHarness, _ sql: SQL) throws -> Int64 {
        try app.app.database.read { try $0.queryValue(sql, as: Int64.self) } ?? 0
    }

    @Test("an occasion member removed before their dare is written: refused, no dare")
    func occasionRemoved() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        let friend = try user(app, "friend_2")
        #expect(try OccasionScope.load(party.id, for: friend, in: app.app) != nil)
        _ = try app.app.database.write { try OccasionStore.removeMember($0, occasionID: party.id, userID: friend.id) }
        let before = try count(app, "SELECT count(*) FROM occasion_challenges")
        let status = refusal(app, OccasionScope.self, party.id, for: friend) { tx, scope in
            _ = try OccasionStore.saveDare(
                tx, occasionID: scope.id, authorID: friend.id, title: "Late dare", description: "", points: 5, now: app.app.now)
        }
        #expect(status == 404)
        #expect(try count(app, "SELECT count(*) FROM occasion_challenges") == before)
    }

    @Test("a plate player removed before their spot is written: refused, no spot")
    func plateRemoved() throws {
        let app = try Plates.harness()
        let (_, game, mom) = try Plates.family(app)
        let player = try user(app, "mom")
        #expect(try PlateGameScope.load(game, for: player, in: app.app) != nil)
        _ = try app.app.database.write { try PlateStore.removePlayer($0, gameID: game, userID: mom.id) }
        let status = refusal(app, PlateGameScope.self, game, for: player) { tx, scope in
            _ = try PlateStore.spot(tx, gameID: scope.id, userID: mom.id, region: "CA", now: app.app.now)
        }
        #expect(status == 404)
        #expect(try count(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(game)") == 0)
    }

    @Test("a friend unshared before their increment is written: refused, the tally unchanged")
    func tallyUnshared() throws {
        let app = try Tallies.harness()
        let owner = try Tallies.person(app, "annie")
        let friend = try Tallies.person(app, "bobby")
        try Tallies.befriend(owner.session, "bobby")
        let tally = try Tallies.create(owner.session, shares: [(friend.id, "edit")])
        let bobby = try user(app, "bobby")
        #expect(try Tally.load(tally, for: bobby, in: app.app)?.role == .edit)
        try app.app.database.write { try TallyStore.setShares($0, tallyID: tally, shares: [:]) }
        let before = try Tallies.row(app, tally)
        let status = refusal(app, Tally.self, tally, for: bobby) { tx, scope in
            _ = try TallyStore.increment(tx, id: scope.id, by: bobby.id, now: app.app.now)
        }
        #expect(status == 404)
        #expect(try Tallies.row(app, tally) == before)
    }
}
