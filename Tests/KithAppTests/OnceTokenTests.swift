import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// Create forms create once: the same form posted twice (a double tap, a
/// retry, two at once) makes one thing and answers the second post as it
/// answered the first.
@Suite("Once-only creates")
struct OnceTokenTests {
    /// A create form: the page that shows it, where it posts, what it sends,
    /// and the table whose rows it adds.
    struct CreateForm: Sendable {
        let name: String
        let page: String
        let action: String
        let fields: [(String, String)]
        let table: String
    }

    static func forms(_ party: OccasionParty) -> [CreateForm] {
        let base = party.base
        return [
            CreateForm(name: "tally", page: "/tallies/new", action: "/tallies", fields: [("name", "Coffee"), ("count", "0"), ("schedule", "off")], table: "tallies"),
            CreateForm(name: "plate game", page: "/games/new", action: "/games", fields: [("name", "Road trip"), ("mode", "collaborative")], table: "plate_games"),
            CreateForm(
                name: "occasion", page: "/occasions/new", action: "/occasions",
                fields: [("name", "Farewell"), ("kind", "farewell"), ("celebrant_name", "Jo"), ("date", "2026-09-01"), ("host_name", "Hana")],
                table: "occasions"),
            CreateForm(
                name: "challenge", page: "\(base)/host", action: "\(base)/host/challenges",
                fields: [("title", "Hop"), ("points", "5"), ("difficulty", "easy"), ("category", "physical")], table: "occasion_challenges"),
            CreateForm(name: "friend", page: "/friends", action: "/friends", fields: [("username", "friend_1")], table: "friendships"),
            CreateForm(
                name: "report", page: "\(base)/challenges/1", action: "\(base)/reports?challenge=1", fields: [("reason", "Too loud")],
                table: "occasion_reports"),
        ]
    }

    static func rows(_ app: AppHarness, _ table: String) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT count(*) FROM \(identifier: table)", as: Int64.self) } ?? -1
    }

    /// The page's form tokens, read as a browser has them.
    static func tokens(_ session: WebSession, _ page: String) throws -> (csrf: String, once: String) {
        let response = try session.get(page)
        let csrf = try #require(WebSession.csrfToken(in: response), "\(page) has a form")
        let once = try #require(WebSession.onceToken(in: response), "\(page) has a create form with a once token")
        return (csrf, once)
    }

    @Test("Posting each create form twice creates once, and the second answer is the first")
    func doubleSubmit() throws {
        let app = try Tallies.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        try party.addChallenge("Sing", points: 5)
        for form in Self.forms(party) {
            let (csrf, once) = try Self.tokens(party.host, form.page)
            let before = try Self.rows(app, form.table)
            let first = try party.host.post(form.action, form.fields + [("_once", once)], csrf: csrf)
            #expect(first.status == 303, "\(form.name): \(first.status) \(first.text.prefix(300))")
            let afterFirst = try Self.rows(app, form.table)
            #expect(afterFirst > before, "\(form.name) created something")
            let second = try party.host.post(form.action, form.fields + [("_once", once)], csrf: csrf)
            #expect(second.status == first.status, "\(form.name)")
            #expect(second.header("Location") == first.header("Location"), "\(form.name): the second answer is the first")
            #expect(try Self.rows(app, form.table) == afterFirst, "\(form.name) created once")
        }
    }

    @Test("A points adjustment posted twice is added once")
    func adjustmentOnce() throws {
        let app = try Tallies.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let (csrf, once) = try Self.tokens(party.host, "\(party.base)/host")
        let fields = [("delta", "20"), ("reason", "Head start"), ("_once", once)]
        let first = try party.host.post("\(party.base)/host/points", fields, csrf: csrf)
        let second = try party.host.post("\(party.base)/host/points", fields, csrf: csrf)
        #expect(first.status == 303)
        #expect(second.status == 303)
        #expect(second.header("Location") == first.header("Location"))
        #expect(try party.balance() == 20)
        #expect(try Self.rows(app, "occasion_adjustments") == 1)
    }

    @Test("Two posts of one form at the same moment create one tally, and both are sent to it")
    func concurrentDoubleSubmit() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let (csrf, once) = try Self.tokens(ada.session, "/tallies/new")
        let fields = [("name", "Coffee"), ("count", "0"), ("schedule", "off"), ("_once", once)]
        // Each thread its own connection, with the same browser's cookie.
        let sessions = (0..<4).map { _ in
            let session = WebSession(port: app.port)
            session.setCookie("kith_session", ada.session.sessionCookie)
            return session
        }
        let answers = Locked<[String?]>([])
        let start = DispatchSemaphore(value: 0)
        let threads = sessions.map { session in
            TestThread {
                start.wait()
                let response = try? session.post("/tallies", fields, csrf: csrf)
                answers.withLock { $0.append(response?.status == 303 ? response?.header("Location") : "status \(response?.status ?? 0)") }
            }
        }
        for _ in threads { start.signal() }
        for thread in threads { thread.join() }
        #expect(try Self.rows(app, "tallies") == 1)
        let locations = answers.withLock { $0 }
        #expect(locations.count == 4)
        #expect(Set(locations).count == 1, "every post got the same answer: \(locations)")
        #expect(locations.first??.hasPrefix("/tallies/") == true)
    }

    @Test("Someone else's token creates nothing")
    func anotherSessionsToken() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        let (_, adasOnce) = try Self.tokens(ada.session, "/tallies/new")
        let bobsCSRF = try bob.session.token(from: "/friends")
        let refused = try bob.session.post("/tallies", [("name", "Coffee"), ("count", "0"), ("schedule", "off"), ("_once", adasOnce)], csrf: bobsCSRF)
        #expect(refused.status == 400)
        #expect(refused.text.contains("This form is out of date; please try again."))
        #expect(try Self.rows(app, "tallies") == 0)
        // Ada's own use of it still works: Bob's attempt spent nothing of hers.
        let adasCSRF = try ada.session.token(from: "/friends")
        let created = try ada.session.post("/tallies", [("name", "Coffee"), ("count", "0"), ("schedule", "off"), ("_once", adasOnce)], csrf: adasCSRF)
        #expect(created.status == 303)
        #expect(try Self.rows(app, "tallies") == 1)
    }

    @Test("A create form without its token, or with a forged or expired one, is a 400 that says to try again")
    func missingToken() throws {
        let clock = Locked<Int64>(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let party = try OccasionParty.make(app, contributors: 1)
        try party.addChallenge("Sing", points: 5)
        for form in Self.forms(party) {
            let (csrf, once) = try Self.tokens(party.host, form.page)
            let before = try Self.rows(app, form.table)
            for token in [nil, "", "garbage", "\(Tallies.start).abc.def", String(once.dropLast(2)) + "xx"] {
                let fields = form.fields + [("_once", token)].compactMap { name, value in value.map { (name, $0) } }
                party.host.pendingOnceToken = nil
                let response = try party.host.post(form.action, fields, csrf: csrf)
                #expect(response.status == 400, "\(form.name) with \(token ?? "no token")")
                #expect(response.text.contains("This form is out of date; please try again."), "\(form.name)")
            }
            #expect(try Self.rows(app, form.table) == before, "\(form.name): nothing created")
        }
        // A day later the form is out of date.
        let (csrf, once) = try Self.tokens(party.host, "/tallies/new")
        clock.withLock { $0 += OnceTokens.lifetime + 1 }
        let stale = try party.host.post("/tallies", [("name", "Late"), ("count", "0"), ("schedule", "off"), ("_once", once)], csrf: csrf)
        #expect(stale.status == 400)
        #expect(try Self.rows(app, "tallies") == 0)
    }

    @Test("Records of spent tokens are swept once their tokens have expired")
    func sweep() throws {
        let clock = Locked<Int64>(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        _ = try Tallies.create(ada.session)
        #expect(try Self.rows(app, "once_tokens") == 1)
        try OnceTokens.sweep(app.app.database, now: clock.withLock { $0 })
        #expect(try Self.rows(app, "once_tokens") == 1, "a live token's record stays")
        try OnceTokens.sweep(app.app.database, now: Tallies.start + OnceTokens.lifetime + 3_600)
        #expect(try Self.rows(app, "once_tokens") == 0)
    }
}
