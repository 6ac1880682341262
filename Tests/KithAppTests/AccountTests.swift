import Foundation
import Glibc
@testable import KithApp
import KithCrypto
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// A Kith with cheap password hashing (tests that are about the hash use the
/// real parameters) and a clock the test can move.
func accountsHarness(
    realPasswords: Bool = false, clock: Locked<Int64>? = nil
) throws -> AppHarness {
    try AppHarness(configure: { config in
        if !realPasswords { config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1) }
        if let clock { config.clock = { clock.value } }
    })
}

/// Signs up through the real form and returns the signed-in session.
@discardableResult
func signUp(_ app: AppHarness, name: String = "Ada Lovelace", username: String, password: String = "correct horse") throws -> WebSession {
    let session = WebSession(port: app.port)
    let token = try session.token(from: "/signup")
    let response = try session.post(
        "/signup", [("display_name", name), ("username", username), ("password", password), ("time_zone", "Europe/London")], csrf: token)
    guard response.status == 200, session.sessionCookie != nil else {
        throw TestError("sign-up failed: \(response.status)")
    }
    return session
}

func signIn(_ session: WebSession, username: String, password: String) throws -> TestResponse {
    let token = try session.token(from: "/signin")
    return try session.post("/signin", [("username", username), ("password", password)], csrf: token)
}

@Suite("Accounts: sign up, sign in, sessions")
struct AccountTests {
    @Test("signing up shows ten recovery codes once, sets a session cookie and opens the dashboard")
    func signUpFlow() throws {
        let app = try accountsHarness()
        let session = WebSession(port: app.port)
        let form = try session.get("/signup")
        #expect(form.status == 200)
        #expect(form.text.contains("name=\"time_zone\""))
        let token = try #require(WebSession.csrfToken(in: form))
        let response = try session.post(
            "/signup", [("display_name", "Ada Lovelace"), ("username", "Ada_L"), ("password", "correct horse"), ("time_zone", "Europe/London")],
            csrf: token)
        #expect(response.status == 200)
        #expect(response.text.contains("recovery codes"))
        #expect(response.text.contains("<summary>Ada Lovelace</summary>"), "the page already shows the new account")
        let codes = response.text.matches(of: /<code class="mono">([A-Z2-9]{5}-[A-Z2-9]{5})<\/code>/).map { String($0.1) }
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        let cookie = try #require(response.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("kith_session=") }?.1)
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
        #expect(!cookie.contains("Secure"), "no Secure flag on an http base URL")

        let home = try session.get("/")
        #expect(home.text.contains("Hello, Ada Lovelace"))
        #expect(!home.text.contains("Little rituals for your people.</h1>"))

        // Only hashes are stored: no code and no session token in plain text.
        let stored = try app.app.database.read { db in
            (try db.query("SELECT code_hash FROM recovery_codes").map { try $0.get("code_hash", as: String.self) },
             try db.queryValue("SELECT token_hash FROM sessions", as: String.self))
        }
        #expect(Set(stored.0) == Set(codes.map(RecoveryCodes.hash)))
        #expect(stored.1 == TokenHash.of(try #require(session.sessionCookie)))
    }

    @Test("the stored password is Argon2id at m=19456, t=2, p=1, and verifies")
    func storedHash() throws {
        let app = try accountsHarness(realPasswords: true)
        try signUp(app, username: "hasher", password: "a long passphrase")
        let hash = try #require(try app.app.database.read { try $0.queryValue("SELECT password_hash FROM users", as: String.self) })
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try PasswordHasher().verify(password: "a long passphrase", encoded: hash))
    }

    @Test("a wrong password is refused with a clear message and no session")
    func wrongPassword() throws {
        let app = try accountsHarness()
        try signUp(app, username: "grace")
        let visitor = WebSession(port: app.port)
        let response = try signIn(visitor, username: "grace", password: "not the password")
        #expect(response.status == 401)
        #expect(response.text.contains("That username and password don&#39;t match."))
        #expect(visitor.sessionCookie == nil)
        let unknown = try signIn(visitor, username: "nobody_here", password: "whatever123")
        #expect(unknown.status == 401)
        #expect(unknown.text.contains("don&#39;t match"), "an unknown username reads the same")
    }

    @Test("signing in is case-insensitive on the username and rotates the session")
    func signInRotates() throws {
        let app = try accountsHarness()
        let first = try signUp(app, username: "Dad_Ross")
        let old = try #require(first.sessionCookie)
        let response = try first.post(
            "/signin", [("username", "dad_ross"), ("password", "correct horse")], csrf: try first.token(from: "/"))
        #expect(response.status == 303)
        let new = try #require(first.sessionCookie)
        #expect(new != old)
        let stale = WebSession(port: app.port)
        stale.setCookie("kith_session", old)
        #expect(try stale.get("/").text.contains("Little rituals"), "the old token signs nobody in")
        #expect(try first.get("/").text.contains("Hello,"))
    }

    @Test("failed sign-ins are throttled per username with the wait shown, and it releases")
    func throttle() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        try signUp(app, username: "target")
        let attacker = WebSession(port: app.port)
        for _ in 0..<AccountRoutes.failuresPerUsername {
            #expect(try signIn(attacker, username: "target", password: "wrong guess").status == 401)
        }
        let blocked = try signIn(attacker, username: "TARGET", password: "correct horse")
        #expect(blocked.status == 429)
        #expect(blocked.text.contains("Too many failed attempts. Please wait 15 minutes"))
        #expect(attacker.sessionCookie == nil, "even the right password waits")

        clock.withLock { $0 += 15 * 60 + 1 }
        let released = try signIn(attacker, username: "target", password: "correct horse")
        #expect(released.status == 303)
    }

    @Test("successful sign-ins from one address never lock it out")
    func successesDoNotThrottle() throws {
        let app = try accountsHarness()
        for index in 0..<3 { try signUp(app, username: "party\(index)") }
        for _ in 0..<12 {
            for index in 0..<3 {
                #expect(try signIn(WebSession(port: app.port), username: "party\(index)", password: "correct horse").status == 303)
            }
        }
    }

    @Test("sign out ends this session; sign out everywhere ends them all")
    func signOut() throws {
        let app = try accountsHarness()
        let laptop = try signUp(app, username: "lin")
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "lin", password: "correct horse").status == 303)
        let tablet = WebSession(port: app.port)
        #expect(try signIn(tablet, username: "lin", password: "correct horse").status == 303)

        let out = try tablet.post("/signout", [], csrf: try tablet.token(from: "/"))
        #expect(out.status == 303)
        #expect(tablet.sessionCookie == nil)
        #expect(try phone.get("/").text.contains("Hello,"))

        let everywhere = try laptop.post("/signout/everywhere", [], csrf: try laptop.token(from: "/"))
        #expect(everywhere.status == 303)
        #expect(try phone.get("/").text.contains("Little rituals"))
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM sessions", as: Int64.self) } == 0)
    }

    @Test("a session unused for 30 days has ended")
    func idleExpiry() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        let session = try signUp(app, username: "sleepy")
        clock.withLock { $0 += 29 * 86_400 }
        #expect(try session.get("/").text.contains("Hello,"))
        clock.withLock { $0 += 29 * 86_400 }
        #expect(try session.get("/").text.contains("Hello,"), "using it moved the idle deadline")
        clock.withLock { $0 += 31 * 86_400 }
        #expect(try session.get("/").text.contains("Little rituals"))
    }

    @Test("two sign-ups racing for one username: exactly one wins, the other is told it is taken")
    func usernameRace() throws {
        let app = try accountsHarness()
        let racers = (0..<2).map { _ in WebSession(port: app.port) }
        let tokens = try racers.map { try $0.token(from: "/signup") }
        let results = Locked<[Int: TestResponse]>([:])
        let threads = (0..<2).map { index in
            Threads.spawn(name: "racer") {
                let response = try? racers[index].post(
                    "/signup",
                    [("display_name", "Racer \(index)"), ("username", index == 0 ? "Speedy" : "speedy"), ("password", "correct horse"),
                     ("time_zone", "UTC")], csrf: tokens[index])
                results.withLock { $0[index] = response }
            }
        }
        threads.forEach(Threads.join)
        let statuses = results.value.values.map(\.status).sorted()
        #expect(statuses == [200, 422])
        #expect(results.value.values.contains { $0.text.contains("That username is taken.") })
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } == 1)
    }

    @Test("a guest who claims the account keeps the same user id, and the session rotates")
    func guestClaim() throws {
        let app = try accountsHarness()
        let (guest, id) = try makeGuest(app, name: "Guest Gail")
        let home = try guest.get("/")
        #expect(home.text.contains("here as a guest."))
        #expect(try guest.get("/no/such/page").text.contains("class=\"guest-prompt\""), "the prompt is on every page")

        let before = try #require(guest.sessionCookie)
        let claimed = try guest.post("/claim", [("username", "gail"), ("password", "gails password")], csrf: try guest.token(from: "/claim"))
        #expect(claimed.status == 200)
        #expect(claimed.text.contains("recovery codes"))
        #expect(guest.sessionCookie != before)
        let user = try #require(try app.app.database.read { try AccountStore.credentials($0, username: "GAIL") })
        #expect(user.user.id == id)
        #expect(!(try guest.get("/").text.contains("here as a guest")))
    }

    @Test("an error page still shows who is signed in")
    func errorPageKnowsTheViewer() throws {
        let app = try accountsHarness()
        let session = try signUp(app, name: "Erin Error", username: "erin")
        let missing = try session.get("/no/such/page")
        #expect(missing.status == 404)
        #expect(missing.text.contains("Erin Error"))
        #expect(!missing.text.contains(">Sign up<"))
    }

    @Test("a guest is warned before signing out, since a guest cannot sign back in")
    func guestSignOutWarning() throws {
        let app = try accountsHarness()
        let (guest, _) = try makeGuest(app, name: "Guest Gus")
        let home = try guest.get("/")
        #expect(home.text.contains("<a href=\"/signout\">Sign out</a>"), "no one-click sign-out for a guest")
        let confirm = try guest.get("/signout")
        #expect(confirm.text.contains("you won&#39;t be able to") || confirm.text.contains("you won't be able to"))
        #expect(confirm.text.contains("/claim"))
        let out = try guest.post("/signout", [], csrf: WebSession.csrfToken(in: confirm) ?? "")
        #expect(out.status == 303)
        #expect(guest.sessionCookie == nil)

        let member = try signUp(app, username: "member_one")
        #expect(try member.get("/").text.contains("action=\"/signout\""), "a password account signs out in one click")
    }

    @Test("a recovery sign-in ends every other session, so a stolen one cannot choose the new password")
    func recoveryEndsOtherSessions() throws {
        let app = try accountsHarness()
        let (laptop, codes) = try signUpShowingCodes(app, username: "victim")
        let thief = WebSession(port: app.port)
        #expect(try signIn(thief, username: "victim", password: "correct horse").status == 303)
        let owner = WebSession(port: app.port)
        #expect(try postRecoveryCode(owner, username: "victim", code: codes[0]).status == 303)
        #expect(try laptop.get("/").text.contains("Little rituals"))
        #expect(try thief.get("/settings/password").status == 303, "the thief is signed out, sent to sign in")
        #expect(try owner.get("/").header("Location") == "/settings/password")
    }

    @Test("signing out everywhere closes the account's open live streams")
    func signOutEverywhereClosesStreams() throws {
        let app = try AppHarness(configure: { $0.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1) }) {
            $0.liveTopics.register(kind: "open") { _, _ in true }
        }
        let session = try signUp(app, username: "streamer")
        let stream = try TestClient(port: app.port)
        try stream.send("GET /live?topics=open:1 HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
        _ = try stream.read(until: "retry: 2000", timeout: 5)
        #expect(try session.post("/signout/everywhere", [], csrf: try session.token(from: "/")).status == 303)
        #expect(try stream.waitForClose(timeout: 5))
    }

    @Test("only local paths are followed after signing in")
    func nextRedirect() throws {
        let app = try accountsHarness()
        try signUp(app, username: "traveller")
        for (next, expected) in [("/settings", "/settings"), ("//evil.example", "/"), ("https://evil.example/", "/"), ("/\\evil", "/")] {
            let session = WebSession(port: app.port)
            let token = try session.token(from: "/signin")
            let response = try session.post(
                "/signin", [("username", "traveller"), ("password", "correct horse"), ("next", next)], csrf: token)
            #expect(response.header("Location") == expected, "\(next)")
        }
    }
}

@Suite("CSRF: every state change needs our origin and the form's token")
struct CSRFTests {
    @Test("signed in: no token, a wrong token, or another site's Origin is refused and changes nothing")
    func signedIn() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "careful")
        let token = try session.token(from: "/")
        func sessions() throws -> Int64? { try app.app.database.read { try $0.queryValue("SELECT count(*) FROM sessions", as: Int64.self) } }

        let missing = try session.post("/signout/everywhere", [])
        #expect(missing.status == 403)
        #expect(missing.text.contains("This form has expired"))
        #expect(try session.post("/signout/everywhere", [], csrf: "forged-token").status == 403)
        let crossSite = try session.post("/signout/everywhere", [], csrf: token, headers: ["Origin": "https://evil.example"])
        #expect(crossSite.status == 403)
        #expect(crossSite.text.contains("came from another site"))
        #expect(try session.post("/signout/everywhere", [], csrf: token, headers: ["Origin": "null"]).status == 403)
        session.origin = ""
        #expect(try session.post("/signout/everywhere", [], csrf: token, headers: ["Sec-Fetch-Site": "cross-site"]).status == 403)
        #expect(try sessions() == 1)

        // The same request done right goes through.
        #expect(try session.post("/signout/everywhere", [], csrf: token, headers: ["Sec-Fetch-Site": "same-origin"]).status == 303)
        #expect(try sessions() == 0)
    }

    @Test("signed out: sign-up needs the pre-session cookie and its token; nothing is written without them")
    func signedOut() throws {
        let app = try accountsHarness()
        let fields = [("display_name", "Mallory"), ("username", "mallory"), ("password", "correct horse"), ("time_zone", "UTC")]
        let stranger = WebSession(port: app.port)
        #expect(try stranger.post("/signup", fields).status == 403)
        #expect(try stranger.post("/signup", fields, csrf: "guess").status == 403)

        // A token from one visitor's page is useless with another visitor's cookie.
        let victim = WebSession(port: app.port)
        let stolen = try victim.token(from: "/signup")
        let attacker = WebSession(port: app.port)
        _ = try attacker.get("/signup")
        #expect(try attacker.post("/signup", fields, csrf: stolen).status == 403)
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } == 0)
        #expect(try stranger.post("/signin", [("username", "x"), ("password", "y")]).status == 403)
    }

    @Test("the signed-out form token is stable for a visitor and set as an HttpOnly cookie")
    func preSessionCookie() throws {
        let app = try accountsHarness()
        let visitor = WebSession(port: app.port)
        let first = try visitor.get("/signup")
        let cookie = try #require(first.headers.first { $0.1.hasPrefix("kith_pre=") }?.1)
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
        #expect(try visitor.token(from: "/signup") == WebSession.csrfToken(in: first))
    }
}

@Suite("Account forms show errors next to the fields")
struct AccountFormTests {
    func postSignUp(_ app: AppHarness, _ fields: [(String, String)]) throws -> TestResponse {
        let session = WebSession(port: app.port)
        return try session.post("/signup", fields, csrf: try session.token(from: "/signup"))
    }

    @Test("empty, too long and wrongly spelled values each get their message, and nothing is saved")
    func invalidValues() throws {
        let app = try accountsHarness()
        let empty = try postSignUp(app, [("display_name", ""), ("username", ""), ("password", ""), ("time_zone", "UTC")])
        #expect(empty.status == 422)
        for message in ["Enter your name.", "Choose a username.", "Choose a password."] { #expect(empty.text.contains(message)) }
        #expect(empty.text.contains("aria-invalid=\"true\""))
        #expect(empty.text.contains("role=\"alert\""))

        let wrong = try postSignUp(app, [
            ("display_name", String(repeating: "x", count: 61)), ("username", "no spaces!"), ("password", "short"), ("time_zone", "Mars/Olympus"),
        ])
        #expect(wrong.status == 422)
        for message in ["Keep your name to 60 characters or fewer.", "Use only letters, digits, underscores and dots.", "Use at least 8 characters.", "Choose a time zone from the list."] {
            #expect(wrong.text.contains(message), "\(message)")
        }
        #expect(wrong.text.contains("value=\"no spaces!\""), "what was typed is shown again")
        #expect(!wrong.text.contains("value=\"short\""), "a password is never shown again")
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } == 0)
    }

    @Test("a value that is not valid UTF-8 gets a message beside its field, not a crash")
    func invalidUTF8() throws {
        let app = try accountsHarness()
        let session = WebSession(port: app.port)
        let token = try session.token(from: "/signup")
        let body = "display_name=Bad%FF%FEName&username=okname&password=correct+horse&time_zone=UTC&_csrf=" + WebSession.encode(token)
        let response = try session.post("/signup", rawBody: Array(body.utf8))
        #expect(response.status == 422)
        #expect(response.text.contains("couldn&#39;t be read as text"))
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } == 0)
    }

    @Test("script in a display name is shown as text")
    func escaping() throws {
        let app = try accountsHarness()
        let session = try signUp(app, name: "<script>alert(1)</script>", username: "xss_test")
        let home = try session.get("/")
        #expect(home.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!home.text.contains("<script>alert(1)"))
    }
}
