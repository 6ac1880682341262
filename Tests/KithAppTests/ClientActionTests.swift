import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A tally tap or a plate spot made offline carries an id the page drew, and
/// may arrive more than once (the queue retries when an answer is lost). The
/// server counts each id once per person, refuses malformed ids, and forgets
/// ids after a week.
@Suite("Client action ids")
struct ClientActionTests {
    static let idA = "0123456789abcdef0123456789abcdef"
    static let idB = "fedcba9876543210fedcba9876543210"

    /// Ada owns a tally Bob may edit.
    static func tallyCast(clock: Locked<Int64> = Locked(Tallies.start)) throws
        -> (app: AppHarness, ada: (session: WebSession, id: Int64), bob: (session: WebSession, id: Int64), tally: Int64)
    {
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        try Tallies.befriend(ada.session, "bob")
        let tally = try Tallies.create(ada.session, name: "Coffee", count: 5, shares: [(bob.id, "edit")])
        return (app, ada, bob, tally)
    }

    static func tap(_ session: WebSession, _ tally: Int64, id: String?, token: String, enhanced: Bool = false) throws -> TestResponse {
        try session.post(
            "/tallies/\(tally)/increment", [("fragment", "row")] + (id.map { [("client_id", $0)] } ?? []), csrf: token,
            headers: enhanced ? ["X-Kith-Enhanced": "1"] : [:])
    }

    static func recorded(_ app: AppHarness) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT count(*) FROM client_actions", as: Int64.self) } ?? 0
    }

    @Test("the same tap id twice counts once, and the replay answers with the current count")
    func tallyReplay() throws {
        let cast = try Self.tallyCast()
        let token = try cast.ada.session.token(from: "/")
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: token).status == 303)
        #expect(try Tallies.count(cast.app, cast.tally) == 6)
        let again = try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: token, enhanced: true)
        #expect(again.status == 200, "a replay answers as if it succeeded")
        #expect(again.text.contains("Coffee, 6, increment"), "with the current state")
        #expect(try Tallies.count(cast.app, cast.tally) == 6)
        // A new id, and no id at all, count as before.
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idB, token: token).status == 303)
        #expect(try Self.tap(cast.ada.session, cast.tally, id: nil, token: token).status == 303)
        #expect(try Self.tap(cast.ada.session, cast.tally, id: nil, token: token).status == 303)
        #expect(try Tallies.count(cast.app, cast.tally) == 9)
    }

    @Test("the same tap id sent from many connections at once counts once")
    func tallyConcurrentReplay() throws {
        let cast = try Self.tallyCast()
        let token = try cast.ada.session.token(from: "/")
        let statuses = Locked<[Int]>([])
        let (session, tally) = (cast.ada.session, cast.tally)
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            let status = (try? Self.tap(session, tally, id: Self.idA, token: token).status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.value.allSatisfy { $0 == 303 }, "every copy is answered as done: \(statuses.value)")
        #expect(try Tallies.count(cast.app, cast.tally) == 6)
        #expect(try Self.recorded(cast.app) == 1)
    }

    @Test("two people's taps with the same id both count: ids are per person")
    func idsArePerPerson() throws {
        let cast = try Self.tallyCast()
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: try cast.ada.session.token(from: "/")).status == 303)
        #expect(try Self.tap(cast.bob.session, cast.tally, id: Self.idA, token: try cast.bob.session.token(from: "/")).status == 303)
        #expect(try Tallies.count(cast.app, cast.tally) == 7)
        #expect(try Self.recorded(cast.app) == 2)
    }

    @Test(
        "a malformed id is a 400 with a message, and nothing is counted or recorded",
        arguments: [
            "", "abc", "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
            "0123456789abcdef0123456789abcdeg", "'; DROP TABLE tallies; --        ", "0123456789abcdef 123456789abcdef",
        ])
    func badIDs(id: String) throws {
        let cast = try Self.tallyCast()
        let tallyBefore = try Tallies.row(cast.app, cast.tally)
        let tap = try Self.tap(cast.ada.session, cast.tally, id: id, token: try cast.ada.session.token(from: "/"), enhanced: true)
        #expect(tap.status == 400)
        #expect(tap.text.contains("garbled id"))
        #expect(try Tallies.row(cast.app, cast.tally) == tallyBefore)

        let game = try Plates.create(cast.ada.session)
        let spot = try cast.ada.session.post(
            "/games/\(game)/spots", [("state", "OH"), ("client_id", id)], csrf: try cast.ada.session.token(from: "/games/\(game)"))
        #expect(spot.status == 400)
        #expect(spot.text.contains("garbled id"))
        #expect(try Plates.spotRows(cast.app, game).isEmpty)
        #expect(try Self.recorded(cast.app) == 0)
    }

    @Test("a spot sent again with its id is not made again, even after it was undone; another id spots as today")
    func spotReplay() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let token = try dad.session.token(from: "/games/\(game)")
        func spot(_ member: Plates.Member, _ state: String, _ id: String) throws -> TestResponse {
            try member.session.post(
                "/games/\(game)/spots", [("state", state), ("from", "board"), ("client_id", id)],
                csrf: member.id == dad.id ? token : try member.session.token(from: "/games/\(game)"))
        }
        #expect(try spot(dad, "OH", Self.idA).status == 303)
        #expect(try Plates.spotRows(app, game).count == 1)
        // Dad takes it back; the queue's late copy of the same spot must not bring it back.
        let spotID = try Plates.spotID(app, game, user: dad.id, region: "OH")
        #expect(try dad.session.postConfirming("/games/\(game)/spots/\(spotID)/undo", [], csrf: token).status == 303)
        #expect(try Plates.spotRows(app, game).isEmpty)
        let replay = try spot(dad, "OH", Self.idA)
        #expect(replay.status == 303, "a replay answers as done")
        #expect(replay.header("Location") == "/games/\(game)", "back to the board, as the first answer was")
        #expect(try Plates.spotRows(app, game).isEmpty)
        // A second id for a state already spotted behaves as a duplicate always has: one row.
        #expect(try spot(dad, "OH", Self.idB).status == 303)
        #expect(try spot(dad, "OH", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").status == 303)
        #expect(try Plates.spotRows(app, game).count == 1)
        // Mom's spot with Dad's first id counts: ids are per person.
        #expect(try spot(mom, "TX", Self.idA).status == 303)
        #expect(try Plates.spotRows(app, game).count == 2)
    }

    @Test("the same spot id from many connections at once makes one spot and one notification")
    func spotConcurrentReplay() throws {
        let app = try Plates.harness()
        let (dad, game, _) = try Plates.family(app)
        let token = try dad.session.token(from: "/games/\(game)")
        let statuses = Locked<[Int]>([])
        let session = dad.session
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            let status =
                (try? session.post("/games/\(game)/spots", [("state", "ME"), ("client_id", Self.idB)], csrf: token).status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.value.allSatisfy { $0 == 303 }, "\(statuses.value)")
        #expect(try Plates.spotRows(app, game).count == 1)
        #expect(try Self.recorded(app) == 1)
    }

    @Test("a tap the server refuses records no id, so the same id counts once the refusal is gone")
    func refusedTapKeepsNoID() throws {
        let cast = try Self.tallyCast()
        try cast.app.app.database.write { try $0.execute("UPDATE tallies SET count = 999999999 WHERE id = \(cast.tally)") }
        let token = try cast.ada.session.token(from: "/")
        // Refused (a plain form goes back with the maximum said; the script gets a 422).
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: token).status == 303)
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: token, enhanced: true).status == 422)
        #expect(try Self.recorded(cast.app) == 0)
        try cast.app.app.database.write { try $0.execute("UPDATE tallies SET count = 1 WHERE id = \(cast.tally)") }
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: token).status == 303)
        #expect(try Tallies.count(cast.app, cast.tally) == 2)
    }

    @Test("the sweep forgets ids older than a week and keeps newer ones")
    func sweepForgetsOldIDs() throws {
        let clock = Locked(Tallies.start)
        let cast = try Self.tallyCast(clock: clock)
        let token = try cast.ada.session.token(from: "/")
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idA, token: token).status == 303)
        clock.withLock { $0 += 6 * 24 * 3600 }
        #expect(try Self.tap(cast.ada.session, cast.tally, id: Self.idB, token: token).status == 303)
        clock.withLock { $0 += 2 * 24 * 3600 }
        #expect(try ClientActions.sweep(cast.app.app.database, now: clock.value) == 1)
        let left = try cast.app.app.database.read { try $0.query("SELECT client_id FROM client_actions").map { try $0.get(0, as: String.self) } }
        #expect(left == [Self.idB])
    }

    @Test("the server's background sweep removes old ids on its own")
    func sweeperRunsWithServer() throws {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        try app.app.database.write {
            try $0.execute(
                "INSERT INTO client_actions (user_id, client_id, kind, done_at) VALUES (\(ada.id), \(Self.idA), 'tally.increment', \(Tallies.start - 8 * 24 * 3600))"
            )
        }
        // The server's own task, started the way the server starts it.
        let task = ClientActions.sweeper(app.app)
        task.start()
        defer { task.stop() }
        #expect(PeriodicTaskTests.eventually(within: 10) { ((try? Self.recorded(app)) ?? 1) == 0 })
    }
}
