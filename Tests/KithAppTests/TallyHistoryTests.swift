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

    @Test("taps from many connections at once each leave one row, and the rows replay to the count")
    func parallelTaps() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let tally = try Tallies.create(ann.session)
        let token = try ann.session.token(from: "/tallies/\(tally)")
        let cookie = try #require(ann.session.sessionCookie)
        let port = app.port
        let threads = (0..<8).map { _ in
            TestThread {
                let session = WebSession(port: port)
                session.setCookie("kith_session", cookie)
                for _ in 0..<5 { _ = try? session.post("/tallies/\(tally)/increment", [], csrf: token) }
            }
        }
        for thread in threads { thread.join() }
        let rows = try Self.history(app, tally)
        #expect(rows.count == 40)
        #expect(rows.allSatisfy { $0.kind == "increment" && $0.delta == 1 && $0.user == ann.id })
        #expect(rows.map(\.after) == Array(1...40))
        #expect(rows.reduce(0) { $0 + $1.delta } == (try Tallies.count(app, tally)))
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
