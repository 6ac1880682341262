import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// A feature of the tests' own: clubs, joined through invite codes the way
/// occasions and games are. A club marked full refuses new members.
enum TestClubs {
    static func harness(clock: Locked<Int64>? = nil, configure: (inout KithConfiguration) -> Void = { _ in }) throws -> AppHarness {
        try AppHarness(configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            if let clock { config.clock = { clock.value } }
            configure(&config)
        }) { app in
            _ = try? app.database.write { tx in
                try tx.executeScript(TestCatalog.ddl(tx, """
                    CREATE TABLE test_clubs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, secret TEXT NOT NULL, is_full INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE test_club_members (club_id INTEGER NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (club_id, user_id));
                    """))
            }
            app.invites.register(InviteKind(
                name: "club",
                describe: { id, db in
                    try db.queryOne("SELECT name FROM test_clubs WHERE id = \(id)").map {
                        InvitePreview(name: try $0.get("name"), kindLabel: "knitting club", role: "member")
                    }
                },
                join: { tx, id, userID, _ in
                    if try tx.queryValue("SELECT is_full FROM test_clubs WHERE id = \(id)", as: Int64.self) == 1 {
                        return .refused(message: "This club is full.")
                    }
                    let added = try tx.execute("INSERT INTO test_club_members (club_id, user_id) VALUES (\(id), \(userID)) ON CONFLICT DO NOTHING")
                    return added == 1 ? .joined(redirect: "/clubs/\(id)") : .alreadyMember(redirect: "/clubs/\(id)", message: "You're already a member.")
                }))
        }
    }

    /// A club and its code, shared by `hostID`.
    static func make(_ app: AppHarness, name: String = "Knitting Circle", hostID: Int64? = nil, full: Bool = false) throws -> (id: Int64, code: String) {
        try app.app.database.write { tx in
            try tx.execute("INSERT INTO test_clubs (name, secret, is_full) VALUES (\(name), 'the secret pattern', \(full))")
            let id = tx.lastInsertRowID
            return (id, try app.app.invites.issue(tx, kind: "club", targetID: id, createdBy: hostID, now: app.app.now))
        }
    }

    static func members(_ app: AppHarness, _ id: Int64) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT count(*) FROM test_club_members WHERE club_id = \(id)", as: Int64.self) } ?? 0
    }
}

/// Every row of every table, to prove a request wrote nothing.
func rowCounts(_ app: AppHarness) throws -> [String: Int64] {
    try app.app.database.read { db in
        var counts: [String: Int64] = [:]
        for table in try TestCatalog.tables(db) {
            counts[table] = try db.queryValue("SELECT count(*) FROM \(identifier: table)", as: Int64.self)
        }
        return counts
    }
}

@Suite("Invite codes and the join flow")
struct InviteTests {
    @Test("codes are six characters from the unambiguous alphabet, and never repeat")
    func codes() throws {
        let app = try TestClubs.harness()
        var seen = Set<String>()
        for _ in 0..<300 {
            let code = try TestClubs.make(app).code
            #expect(code.count == 6)
            #expect(code.allSatisfy { InviteCodes.alphabet.contains($0) })
            #expect(!code.contains { "01OIL".contains($0) })
            seen.insert(code)
        }
        #expect(seen.count == 300)
    }

    @Test("a code typed any way or pasted as a link is understood")
    func normalizing() {
        #expect(InviteCodes.normalize(" k7m-2qx ") == "K7M2QX")
        #expect(InviteCodes.normalize("https://kith.example.org/join/k7m2qx?ref=chat") == "K7M2QX")
        #expect(InviteCodes.normalize("K7M 2QX") == "K7M2QX")
        #expect(InviteCodes.normalize("K7M2Q0") == nil, "0 is not in the alphabet")
        #expect(InviteCodes.normalize("K7M2") == nil)
        #expect(InviteCodes.normalize("") == nil)
    }

    @Test("opening an invite link writes nothing, and shows only the name, the kind, the role and who invited")
    func previewHasNoSideEffects() throws {
        let app = try TestClubs.harness()
        let host = try signUp(app, name: "Dad", username: "club_host")
        let hostID = try #require(try app.app.database.read { try AccountStore.credentials($0, username: "club_host") }?.user.id)
        let (_, code) = try TestClubs.make(app, hostID: hostID)
        _ = host
        let before = try rowCounts(app)
        let bot = WebSession(port: app.port)
        let page = try bot.get("/join/\(code)")
        #expect(page.status == 200)
        #expect(try rowCounts(app) == before)
        #expect(page.text.contains("Knitting Circle"))
        #expect(page.text.contains("Dad invited you."))
        #expect(page.text.contains("Join as member"))
        #expect(!page.text.contains("the secret pattern"))
        // Link previews: absolute, from the base URL.
        #expect(page.text.contains("<meta property=\"og:title\" content=\"Join Knitting Circle on Kith\">"))
        #expect(page.text.contains("<meta property=\"og:description\" content=\"Dad invited you to a knitting club.\">"))
        #expect(page.text.contains("content=\"http://127.0.0.1:\(app.port)/static/icons/og-card."))
        #expect(page.text.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))
        // A code in lower case redirects to the canonical link.
        #expect(try bot.get("/join/\(code.lowercased())").header("Location") == "/join/\(code)")
    }

    @Test("a signed-in person joins with one button; joining twice changes nothing")
    func signedInJoin() throws {
        let app = try TestClubs.harness()
        let (id, code) = try TestClubs.make(app)
        let member = try signUp(app, username: "knitter")
        let page = try member.get("/join/\(code)")
        #expect(!page.text.contains("name=\"display_name\""), "no guest fields for someone signed in")
        let joined = try member.post("/join/\(code)", [], csrf: WebSession.csrfToken(in: page))
        #expect(joined.status == 303)
        #expect(joined.header("Location") == "/clubs/\(id)")
        let again = try member.post("/join/\(code)", [], csrf: try member.token(from: "/join/\(code)"))
        #expect(again.status == 200)
        #expect(again.text.contains("You&#39;re already a member.") || again.text.contains("You're already a member."))
        #expect(try TestClubs.members(app, id) == 1)
    }

    @Test("a signed-out visitor joins as a guest in one form: a name, an avatar, a time zone")
    func guestJoin() throws {
        let app = try TestClubs.harness()
        let (id, code) = try TestClubs.make(app)
        let visitor = WebSession(port: app.port)
        let page = try visitor.get("/join/\(code)")
        #expect(page.text.contains("name=\"display_name\""))
        #expect(page.text.contains("name=\"avatar\""))
        #expect(page.text.contains("data-time-zone=\"browser\""))
        let token = try #require(WebSession.csrfToken(in: page))

        let empty = try visitor.post("/join/\(code)", [("display_name", ""), ("avatar", "fox"), ("time_zone", "UTC")], csrf: token)
        #expect(empty.status == 422)
        #expect(empty.text.contains("Enter your name."))
        #expect(try TestClubs.members(app, id) == 0)
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } == 0)

        let joined = try visitor.post("/join/\(code)", [("display_name", "Gwen"), ("avatar", "owl"), ("time_zone", "Europe/Paris")], csrf: token)
        #expect(joined.status == 303)
        #expect(visitor.sessionCookie != nil)
        #expect(try TestClubs.members(app, id) == 1)
        let home = try visitor.get("/")
        #expect(home.text.contains("Hello, Gwen"))
        #expect(home.text.contains("here as a guest"))
    }

    @Test("a refused join leaves no guest account behind")
    func refusedJoin() throws {
        let app = try TestClubs.harness()
        let (_, code) = try TestClubs.make(app, full: true)
        let visitor = WebSession(port: app.port)
        let token = try visitor.token(from: "/join/\(code)")
        let response = try visitor.post("/join/\(code)", [("display_name", "Late"), ("avatar", "owl"), ("time_zone", "UTC")], csrf: token)
        #expect(response.status == 409)
        #expect(response.text.contains("This club is full."))
        #expect(visitor.sessionCookie == nil)
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } == 0)
    }

    @Test("unknown and retired codes get the same answer; a rotated code's new link works")
    func rotation() throws {
        let app = try TestClubs.harness()
        let (id, old) = try TestClubs.make(app)
        let new = try app.app.database.write { tx in try app.app.invites.rotate(tx, kind: "club", targetID: id, by: nil, now: app.app.now) }
        #expect(new != old)
        let visitor = WebSession(port: app.port)
        let retired = try visitor.get("/join/\(old)")
        let unknown = try visitor.get("/join/ZZZZZZ")
        #expect(retired.status == 404 && unknown.status == 404)
        #expect(retired.text == unknown.text)
        #expect(try visitor.get("/join/\(new)").status == 200)
        #expect(try app.app.database.read { try app.app.invites.code($0, kind: "club", targetID: id) } == new)
    }

    @Test("the /join form takes a code or a whole link, and says clearly when it is not one")
    func joinForm() throws {
        let app = try TestClubs.harness()
        let (_, code) = try TestClubs.make(app)
        let visitor = WebSession(port: app.port)
        let token = try visitor.token(from: "/join")
        let link = "http://127.0.0.1:\(app.port)/join/\(code.lowercased())"
        #expect(try visitor.post("/join", [("code", link)], csrf: token).header("Location") == "/join/\(code)")
        let malformed = try visitor.post("/join", [("code", "hello")], csrf: token)
        #expect(malformed.status == 422)
        #expect(malformed.text.contains("A code is six letters and digits"))
        let unknown = try visitor.post("/join", [("code", "ZZZZZZ")], csrf: token)
        #expect(unknown.status == 404)
        #expect(unknown.text.contains("doesn&#39;t open anything") || unknown.text.contains("doesn't open anything"))
    }

    @Test("failed lookups are throttled per address; successful ones never count, and a working code still opens")
    func throttle() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try TestClubs.harness(clock: clock)
        let (_, code) = try TestClubs.make(app)
        let party = WebSession(port: app.port)
        for _ in 0..<60 { #expect(try party.get("/join/\(code)").status == 200) }
        for _ in 0..<InviteRoutes.failuresPerAddress { #expect(try party.get("/join/ZZZZZ\(Int.random(in: 2...9))").status == 404) }
        let blocked = try party.get("/join/ZZZZZZ")
        #expect(blocked.status == 429)
        #expect(blocked.text.contains("Please wait 15 minutes"))
        #expect(try party.get("/join/\(code)").status == 200, "the link that works still opens")
        clock.withLock { $0 += InviteRoutes.failureWindow + 1 }
        #expect(try party.get("/join/ZZZZZZ").status == 404)
    }
}
