import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

func storedUserID(_ app: AppHarness, username: String) throws -> Int64? {
    try app.app.database.read {
        try $0.queryValue("SELECT id FROM users WHERE username_key = \(username.lowercased())", as: Int64.self)
    }
}

/// Posts the delete form from `session` with these fields.
func postDelete(_ session: WebSession, _ fields: [(String, String)]) throws -> TestResponse {
    try session.post("/settings/delete", fields, csrf: try session.token(from: "/settings/delete"))
}

/// Makes a guest the way the join flows will: a user and a session, no username.
func makeGuest(_ app: AppHarness, name: String = "Guest Gail") throws -> (session: WebSession, id: Int64) {
    let guest = WebSession(port: app.port)
    let head = RequestHead(
        method: .get, target: "/", path: "/", query: nil, minorVersion: 1, headers: HTTPHeaders(), framing: .none,
        keepAlive: true, expectsContinue: false)
    let request = Request(head: head, route: HomeRoutes.home)
    let (id, cookie) = try app.app.database.write { tx in
        try Guests.create(tx, Guests.Details(displayName: name, avatar: "fox", timeZone: "UTC"), app: app.app, request: request)
    }
    guest.setCookie("kith_session", cookie.value)
    return (guest, id)
}

@Suite("Deleting an account")
struct DeleteAccountTests {
    @Test("a wrong password deletes nothing and says so next to the field")
    func wrongPassword() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "erin")
        let form = try session.get("/settings/delete")
        #expect(form.status == 200)
        #expect(form.text.contains("class=\"button button--danger\""))
        #expect(form.text.contains("type=\"password\""))
        #expect(!form.text.contains("Type DELETE"), "a password account confirms with its password")

        let wrong = try postDelete(session, [("password", "not my password")])
        #expect(wrong.status == 401)
        #expect(wrong.text.contains("id=\"field-password-error\""))
        #expect(wrong.text.contains("That isn&#39;t your password."))
        let empty = try postDelete(session, [])
        #expect(empty.status == 422)
        #expect(empty.text.contains("Enter your password."))

        #expect(try storedUserID(app, username: "erin") != nil)
        #expect(try session.get("/").text.contains("Hello,"), "still signed in")
    }

    @Test("the right password deletes the account and every trace of it, and its sessions stop working")
    func rightPassword() throws {
        let app = try accountsHarness()
        let laptop = try signUp(app, name: "Fran Gone", username: "fran")
        let stays = try signUp(app, name: "Gus Stays", username: "gus")
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "fran", password: "correct horse").status == 303)
        // Leave a trace in every account table: a sign-in link, a failed sign-in.
        _ = try laptop.post("/settings/continue", [], csrf: try laptop.token(from: "/settings/continue"))
        #expect(try signIn(WebSession(port: app.port), username: "FRAN", password: "a wrong guess").status == 401)

        let franID = try #require(try storedUserID(app, username: "fran"))
        let gusID = try #require(try storedUserID(app, username: "gus"))
        let walk = try EveryTableWalk(userID: franID, in: app.app.database)
        let before = try walk.references(in: app.app.database)
        let places = Set(before.map { "\($0.table).\($0.column)" })
        for expected in ["users.id", "sessions.user_id", "recovery_codes.user_id", "sign_in_links.user_id", "sign_in_failures.scope"] {
            #expect(places.contains(expected), "the walk looks at \(expected): \(before)")
        }
        let gusBefore = try EveryTableWalk(userID: gusID, in: app.app.database).references(in: app.app.database)

        let oldCookie = try #require(laptop.sessionCookie)
        let deleted = try postDelete(laptop, [("password", "correct horse")])
        #expect(deleted.status == 303)
        #expect(deleted.header("Location") == "/goodbye")
        #expect(laptop.sessionCookie == nil, "the cookie is cleared")

        let after = try walk.references(in: app.app.database)
        #expect(after.isEmpty, "left behind: \(after)")
        #expect(try EveryTableWalk(userID: gusID, in: app.app.database).references(in: app.app.database) == gusBefore)

        let goodbye = try laptop.get("/goodbye")
        #expect(goodbye.status == 200)
        #expect(goodbye.text.contains("Your account is deleted"))
        let stale = WebSession(port: app.port)
        stale.setCookie("kith_session", oldCookie)
        #expect(try stale.get("/").text.contains("Little rituals"), "the old cookie signs nobody in")
        #expect(try stale.get("/settings/delete").status == 303)
        #expect(try phone.get("/").text.contains("Little rituals"), "every session ended")
        #expect(try stays.get("/").text.contains("Hello, Gus Stays"))
        #expect(try signIn(WebSession(port: app.port), username: "fran", password: "correct horse").status == 401)
        // The name is free again, and carries no throttle from before.
        try signUp(app, username: "Fran")
    }

    @Test("a guest deletes with the word DELETE, typed exactly")
    func guestDeletes() throws {
        let app = try accountsHarness()
        let (guest, id) = try makeGuest(app)
        let form = try guest.get("/settings/delete")
        #expect(form.status == 200)
        #expect(form.text.contains("Type DELETE to confirm"))
        #expect(!form.text.contains("type=\"password\""))

        for typed in ["", "delete", "Delete", "DELETE IT"] {
            let refused = try postDelete(guest, [("confirm", typed)])
            #expect(refused.status == 422, "\(typed)")
            #expect(refused.text.contains("id=\"field-confirm-error\""), "\(typed)")
        }
        let walk = try EveryTableWalk(userID: id, in: app.app.database)
        #expect(!(try walk.references(in: app.app.database)).isEmpty)

        let deleted = try postDelete(guest, [("confirm", "DELETE")])
        #expect(deleted.status == 303)
        #expect(deleted.header("Location") == "/goodbye")
        #expect(try walk.references(in: app.app.database).isEmpty)
        #expect(try guest.get("/").text.contains("Little rituals"))
    }

    @Test("a delete without the form token is refused and deletes nothing")
    func csrfRefused() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "careful_carl")
        let response = try session.post("/settings/delete", [("password", "correct horse")])
        #expect(response.status == 403)
        #expect(try storedUserID(app, username: "careful_carl") != nil)
        #expect(try session.get("/").text.contains("Hello,"))
    }

    @Test("wrong passwords on the delete form are throttled like sign-in; even the right one then waits")
    func throttled() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "hasty")
        for _ in 0..<AccountRoutes.failuresPerUsername {
            #expect(try postDelete(session, [("password", "wrong guess")]).status == 401)
        }
        let blocked = try postDelete(session, [("password", "correct horse")])
        #expect(blocked.status == 429)
        #expect(blocked.text.contains("Too many failed attempts"))
        #expect(try storedUserID(app, username: "hasty") != nil)
    }

    @Test("purge hooks run in order inside the deletion's transaction, and a failing hook deletes nothing")
    func purgeHooks() throws {
        let app = try accountsHarness()
        try signUp(app, username: "hooked")
        let id = try #require(try storedUserID(app, username: "hooked"))
        let user = try #require(try app.app.database.read { try AccountStore.user($0, id: id) })

        struct HookFailed: Error {}
        let calls = Locked<[String]>([])
        let failing = AccountPurge()
        failing.register("first") { tx, userID in
            // The user row is still there for the hooks to hand things over.
            let present = try tx.queryValue("SELECT count(*) FROM users WHERE id = \(userID)", as: Int64.self)
            calls.withLock { $0.append("first:\(userID):\(present ?? 0)") }
            return []
        }
        failing.register("second") { _, _ in throw HookFailed() }
        #expect(failing.names == ["first", "second"])
        #expect(throws: HookFailed.self) {
            try app.app.database.write { tx in try AccountDeletion.delete(tx, user: user, purges: failing) }
        }
        #expect(calls.value == ["first:\(id):1"])
        #expect(try storedUserID(app, username: "hooked") == id, "rolled back whole")
        #expect(try countRows(app, "SELECT count(*) FROM sessions WHERE user_id = \(id)") == 1)

        let working = AccountPurge()
        working.register("tally") { _, userID in
            calls.withLock { $0.append("tally:\(userID)") }
            return []
        }
        try app.app.database.write { tx in try AccountDeletion.delete(tx, user: user, purges: working) }
        #expect(calls.value.last == "tally:\(id)")
        #expect(try storedUserID(app, username: "hooked") == nil)
    }
}

@Suite("The every-table walk")
struct EveryTableWalkTests {
    @Test("it finds the user through foreign keys, user-named columns and scope strings, and counts only theirs")
    func findsEveryKind() throws {
        let app = try accountsHarness()
        try signUp(app, username: "walker")
        try signUp(app, username: "bystander")
        let walker = try #require(try storedUserID(app, username: "walker"))
        let bystander = try #require(try storedUserID(app, username: "bystander"))
        #expect(try signIn(WebSession(port: app.port), username: "walker", password: "wrong guess").status == 401)

        // Tables as later features might write them: a foreign key under any
        // name, one to another users column, user columns with no foreign
        // key, and the user's scope string in free text.
        try app.app.database.write { tx in
            try tx.executeScript(TestCatalog.ddl(tx, """
                CREATE TABLE walk_friendships (id INTEGER PRIMARY KEY, friend INTEGER REFERENCES users(id)) STRICT;
                CREATE TABLE walk_handles (id INTEGER PRIMARY KEY, handle TEXT REFERENCES users(username_key)) STRICT;
                CREATE TABLE walk_notes (id INTEGER PRIMARY KEY, created_by INTEGER, host_user_id INTEGER, body TEXT) STRICT;
                """))
            for id in [walker, bystander, walker] {
                try tx.execute("INSERT INTO walk_friendships (friend) VALUES (\(id))")
            }
            try tx.execute("INSERT INTO walk_handles (handle) VALUES ('walker'), ('bystander')")
            try tx.execute("INSERT INTO walk_notes (created_by, host_user_id, body) VALUES (\(walker), \(bystander), 'user:walker')")
            try tx.execute("INSERT INTO walk_notes (created_by, host_user_id, body) VALUES (\(bystander), \(walker), 'user:walkers')")
        }

        let found = try EveryTableWalk(userID: walker, in: app.app.database).references(in: app.app.database)
        let expected: [EveryTableWalk.Reference] = [
            .init(table: "recovery_codes", column: "user_id", count: 10),
            .init(table: "sessions", column: "user_id", count: 1),
            .init(table: "sign_in_failures", column: "scope", count: 1),
            .init(table: "users", column: "id", count: 1),
            .init(table: "walk_friendships", column: "friend", count: 2),
            .init(table: "walk_handles", column: "handle", count: 1),
            .init(table: "walk_notes", column: "body", count: 1),
            .init(table: "walk_notes", column: "created_by", count: 1),
            .init(table: "walk_notes", column: "host_user_id", count: 1),
        ]
        #expect(found == expected)
        #expect(!found.contains { $0.table == "schema_migrations" || $0.table.hasPrefix("sqlite_") })
    }

    @Test("a user who never existed leaves no references")
    func nobody() throws {
        let app = try accountsHarness()
        try signUp(app, username: "somebody")
        #expect(try EveryTableWalk(userID: 9_999, in: app.app.database).references(in: app.app.database).isEmpty)
    }
}
