@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// Every change to a count leaves one history row with the value it made,
/// so the history replayed is the count.
@Suite(.serialized)
struct TallyHistoryTests {
    static func history(_ app: AppHarness, _ tally: Int64) throws -> [(kind: String, delta: Int64, after: Int64, user: Int64?)] {
        try app.app.database.read { db in
            try db.query("SELECT kind, delta, value_after, user_id FROM tally_history WHERE tally_id = \(tally) ORDER BY version").map {
                (try $0.get("kind", as: String.self), try $0.get("delta", as: Int64.self), try $0.get("value_after", as: Int64.self),
                    try $0.get("user_id", as: Int64?.self))
            }
        }
    }

    /// A connection of its own, signed in as `session`, posting `path` `times` times.
    static func posting(_ app: AppHarness, _ session: WebSession, _ path: String, times: Int) throws -> TestThread {
        let token = try session.token(from: "/friends")
        let cookie = try #require(session.sessionCookie)
        let port = app.port
        return TestThread {
            let session = WebSession(port: port)
            session.setCookie("kith_session", cookie)
            for _ in 0..<times { _ = try? session.post(path, [], csrf: token) }
        }
    }

    @Test("taps from many connections at once each leave one row, and the rows replay to the count")
    func parallelTaps() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let tally = try Tallies.create(ann.session)
        let threads = try (0..<8).map { _ in try Self.posting(app, ann.session, "/tallies/\(tally)/increment", times: 5) }
        for thread in threads { thread.join() }
        let rows = try Self.history(app, tally)
        #expect(rows.count == 40)
        #expect(rows.allSatisfy { $0.kind == "increment" && $0.delta == 1 && $0.user == ann.id })
        #expect(rows.map(\.after) == Array(1...40))
        #expect(rows.reduce(0) { $0 + $1.delta } == (try Tallies.count(app, tally)))
    }

    @Test("parallel taps of a step of 2 and −1s from two people each leave one row, and the rows replay to the count")
    func parallelStepsAndDecrements() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        try Tallies.befriend(ann.session, "bobby")
        let tally = try Tallies.create(ann.session, count: 20, shares: [(bob.id, "edit")])
        #expect(try Tallies.post(ann.session, "/tallies/\(tally)/step", [("step", "2")]).status == 303)
        let people = [(ann.session, "increment"), (bob.session, "decrement"), (ann.session, "decrement"), (bob.session, "increment")]
        let threads = try people.map { session, action in try Self.posting(app, session, "/tallies/\(tally)/\(action)", times: 5) }
        for thread in threads { thread.join() }
        let rows = try Self.history(app, tally)
        #expect(rows.count == 20)
        #expect(rows.allSatisfy { $0.kind == "increment" ? $0.delta == 2 : $0.kind == "decrement" && $0.delta == -1 })
        #expect(20 + rows.reduce(0) { $0 + $1.delta } == (try Tallies.count(app, tally)))
        #expect(try Tallies.count(app, tally) == 30)
    }

    @Test("a typed count and a reset are history too, with the change they made; a deleted person's rows name a former member")
    func setAndReset() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        try Tallies.befriend(ann.session, "bobby")
        let tally = try Tallies.create(ann.session, shares: [(bob.id, "edit")])
        #expect(try Tallies.post(bob.session, "/tallies/\(tally)/count", [("count", "12")]).status == 303)
        #expect(try Tallies.confirm(ann.session, "/tallies/\(tally)/reset").status == 303)
        let rows = try Self.history(app, tally)
        #expect(rows.map(\.kind) == ["set", "reset"])
        #expect(rows.map(\.delta) == [12, -12])
        #expect(rows.map(\.user) == [bob.id, ann.id])
        #expect(try postDelete(bob.session, [("password", "correct horse")]).status == 303)
        let former = try app.app.database.read {
            try $0.queryValue("SELECT by_former FROM tally_history WHERE tally_id = \(tally) AND kind = 'set'", as: Int64.self)
        }
        #expect(former == 1)
    }
}
