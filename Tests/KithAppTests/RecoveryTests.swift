import Foundation
@testable import KithApp
import KithCrypto
import KithStorage
import KithTestSupport
import Testing

/// Signs up through the real form and returns the session with the ten
/// recovery codes the answering page shows.
func signUpShowingCodes(_ app: AppHarness, name: String = "Ada Lovelace", username: String) throws -> (WebSession, [String]) {
    let session = WebSession(port: app.port)
    let response = try session.post(
        "/signup", [("display_name", name), ("username", username), ("password", "correct horse"), ("time_zone", "UTC")],
        csrf: try session.token(from: "/signup"))
    let codes = response.text.matches(of: /<code class="mono">([A-Z2-9]{5}-[A-Z2-9]{5})<\/code>/).map { String($0.1) }
    guard response.status == 200, codes.count == 10 else { throw TestError("sign-up failed: \(response.status)") }
    return (session, codes)
}

/// Posts the recovery form from `session` as a browser would.
func postRecoveryCode(_ session: WebSession, username: String, code: String) throws -> TestResponse {
    try session.post("/recover", [("username", username), ("code", code)], csrf: try session.token(from: "/recover"))
}

func signOutThroughForm(_ session: WebSession) throws {
    let response = try session.post("/signout", [], csrf: try session.token(from: "/"))
    guard response.status == 303, session.sessionCookie == nil else { throw TestError("sign-out failed: \(response.status)") }
}

func mustChangePassword(_ app: AppHarness, username: String) throws -> Bool? {
    try app.app.database.read {
        try $0.queryValue("SELECT must_change_password FROM users WHERE username_key = \(username.lowercased())", as: Bool.self)
    }
}

func countRows(_ app: AppHarness, _ sql: SQL) throws -> Int64 {
    try app.app.database.read { try $0.queryValue(sql, as: Int64.self) } ?? 0
}

/// The path of an absolute link on this test's server.
func localPath(of link: String) -> String {
    guard let schemeEnd = link.range(of: "://"), let slash = link[schemeEnd.upperBound...].firstIndex(of: "/") else { return link }
    return String(link[slash...])
}

@Suite("Recovery codes: a way back in without email")
struct RecoveryCodeTests {
    @Test("a recovery code signs in once, and choosing a new password comes before anything else")
    func codeWorksOnce() throws {
        let app = try accountsHarness()
        let (session, codes) = try signUpShowingCodes(app, username: "Rosa_P")
        try signOutThroughForm(session)
        #expect(try mustChangePassword(app, username: "rosa_p") == false)

        let visitor = WebSession(port: app.port)
        let form = try visitor.get("/recover")
        #expect(form.status == 200)
        #expect(form.text.contains("name=\"code\""))
        // Letter case, spaces and dashes do not matter.
        let typed = codes[3].lowercased().replacingOccurrences(of: "-", with: " ")
        let response = try postRecoveryCode(visitor, username: "ROSA_P", code: typed)
        #expect(response.status == 303)
        #expect(response.header("Location") == "/settings/password")
        #expect(visitor.sessionCookie != nil)
        #expect(try mustChangePassword(app, username: "rosa_p") == true)
        #expect(try countRows(app, "SELECT count(*) FROM recovery_codes WHERE used_at IS NOT NULL") == 1)
        #expect(try countRows(app, "SELECT count(*) FROM recovery_codes WHERE used_at IS NULL") == 9)

        // Signed in, but every other page waits for the new password.
        for page in ["/", "/settings/continue", "/settings/delete"] {
            let answer = try visitor.get(page)
            #expect(answer.status == 303, "\(page)")
            #expect(answer.header("Location") == "/settings/password", "\(page)")
        }

        // The used code never works again, from any browser.
        let again = WebSession(port: app.port)
        let reused = try postRecoveryCode(again, username: "rosa_p", code: codes[3])
        #expect(reused.status == 401)
        #expect(reused.text.contains("That username and code don&#39;t match."))
        #expect(again.sessionCookie == nil)
        // An unused one still does.
        #expect(try postRecoveryCode(WebSession(port: app.port), username: "rosa_p", code: codes[4]).status == 303)
    }

    @Test("a wrong code and an unknown username get the same message, and nobody is signed in")
    func genericMessage() throws {
        let app = try accountsHarness()
        let (_, codes) = try signUpShowingCodes(app, username: "quinn")
        let (_, otherCodes) = try signUpShowingCodes(app, username: "third_person")

        let visitor = WebSession(port: app.port)
        let cases: [(String, String)] = [
            ("quinn", "AAAAA-AAAAA"),  // a wrong code
            ("quinn", otherCodes[0]),  // someone else's code
            ("nobody_at_all", codes[0]),  // a code under an unknown username
        ]
        for (username, code) in cases {
            let response = try postRecoveryCode(visitor, username: username, code: code)
            #expect(response.status == 401, "\(username)")
            #expect(response.text.contains("That username and code don&#39;t match."), "\(username)")
            #expect(response.text.contains("value=\"\(username)\""), "the username is shown again")
            #expect(!response.text.contains(code), "the code is never shown again")
            #expect(visitor.sessionCookie == nil)
        }
        #expect(try countRows(app, "SELECT count(*) FROM recovery_codes WHERE used_at IS NOT NULL") == 0)

        let empty = try postRecoveryCode(visitor, username: "", code: " - ")
        #expect(empty.status == 422)
        #expect(empty.text.contains("Enter your username."))
        #expect(empty.text.contains("Enter one of your recovery codes."))
    }

    @Test("guessing codes is throttled like sign-in, counts against sign-in too, and releases")
    func throttled() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        let (session, codes) = try signUpShowingCodes(app, username: "target")
        try signOutThroughForm(session)

        let attacker = WebSession(port: app.port)
        for guess in 0..<AccountRoutes.failuresPerUsername {
            #expect(try postRecoveryCode(attacker, username: "target", code: "WRONG-GUES\(guess)").status == 401)
        }
        let blocked = try postRecoveryCode(attacker, username: "TARGET", code: codes[0])
        #expect(blocked.status == 429)
        #expect(blocked.text.contains("Too many failed attempts. Please wait 15 minutes"))
        #expect(attacker.sessionCookie == nil, "even the right code waits")
        #expect(try countRows(app, "SELECT count(*) FROM recovery_codes WHERE used_at IS NOT NULL") == 0)
        #expect(try signIn(WebSession(port: app.port), username: "target", password: "correct horse").status == 429)

        clock.withLock { $0 += AccountRoutes.failureWindow + 1 }
        #expect(try postRecoveryCode(attacker, username: "target", code: codes[0]).status == 303)
    }

    @Test("a signed-in visitor is sent home from the recovery form")
    func signedInSkipsForm() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "already_in")
        let response = try session.get("/recover")
        #expect(response.status == 303)
        #expect(response.header("Location") == "/")
    }
}

@Suite("Operator reset links")
struct OperatorResetTests {
    @Test("kith user reset prints a link that signs one browser in, once, and asks for a new password")
    func commandLine() throws {
        let app = try accountsHarness()
        try signUp(app, username: "Olga_K")
        let base = "http://127.0.0.1:\(app.port)"

        // Run against the live server's data directory, as an operator would.
        let result = try run("kith", ["user", "reset", "olga_k", "--base-url", base] + app.storageArguments)
        #expect(result.status == 0, "\(result.output)")
        let link = try #require(result.output.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+\/reset\/[A-Za-z0-9_-]{43}/).map { String($0.0) })
        #expect(link.hasPrefix(base + "/reset/"))
        let token = String(link.split(separator: "/").last!)

        // Only the hash is stored, for 24 hours.
        let stored = try app.app.database.read { try $0.queryOne("SELECT token_hash, purpose, expires_at, used_at FROM sign_in_links") }
        let row = try #require(stored)
        #expect(try row.get("token_hash", as: String.self) == TokenHash.of(token))
        #expect(try row.get("purpose", as: String.self) == "reset")
        let expiresIn = try row.get("expires_at", as: Int64.self) - Int64(Date().timeIntervalSince1970)
        #expect((86_300...86_400).contains(expiresIn))

        // Opening the link changes nothing: chat apps fetch links to preview them.
        let browser = WebSession(port: app.port)
        let page = try browser.get(localPath(of: link))
        #expect(page.status == 200)
        #expect(page.text.contains("action=\"/reset/\(token)\""))
        #expect(browser.sessionCookie == nil)
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links WHERE used_at IS NOT NULL") == 0)
        #expect(try mustChangePassword(app, username: "olga_k") == false)
        #expect(try countRows(app, "SELECT count(*) FROM sessions") >= 1, "the account is signed in somewhere")

        let used = try browser.post(localPath(of: link), [], csrf: WebSession.csrfToken(in: page))
        #expect(used.status == 303)
        #expect(used.header("Location") == "/settings/password")
        #expect(browser.sessionCookie != nil)
        #expect(try mustChangePassword(app, username: "olga_k") == true)
        // Only the browser that used the link stays signed in: a reset may mean
        // someone else has the password, or a session.
        #expect(try countRows(app, "SELECT count(*) FROM sessions") == 1)

        // Once only: a second browser gets the friendly page, and no session.
        let late = WebSession(port: app.port)
        let second = try late.get(localPath(of: link))
        #expect(second.status == 404)
        #expect(second.text.contains("This link doesn't work any more"))
        #expect(!second.text.contains("action=\"/reset/"))
        let repost = try late.post(localPath(of: link), [], csrf: try late.token(from: "/signin"))
        #expect(repost.status == 404)
        #expect(late.sessionCookie == nil)
    }

    @Test("kith user reset with an unknown username fails with a clear message and writes nothing")
    func unknownUsername() throws {
        let app = try accountsHarness()
        try signUp(app, username: "someone")
        let data = app.app.configuration.dataDirectory
        let result = try run("kith", ["user", "reset", "nobody_here"] + app.storageArguments)
        #expect(result.status == 1)
        #expect(result.output.contains("no account has the username nobody_here"))
        #expect(!result.output.contains("/reset/"))
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links") == 0)

        let missing = try run("kith", ["user", "reset"])
        #expect(missing.status == 2)
        #expect(missing.output.contains("kith user reset USERNAME"))
        let nowhere = try run("kith", ["user", "reset", "someone", "--data", data + "/absent"])
        #expect(nowhere.status == 1)
        #expect(nowhere.output.contains("there is no database"))
    }

    @Test("a reset link works until its 24 hours are up, and not after")
    func expiry() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        try signUp(app, username: "late_larry")
        let link = try OperatorReset.issueLink(
            database: app.app.database, username: "late_larry", baseURL: app.app.baseURL, now: clock.value)

        clock.withLock { $0 += 24 * 3_600 - 60 }
        let browser = WebSession(port: app.port)
        #expect(try browser.get(localPath(of: link)).status == 200)

        clock.withLock { $0 += 61 }
        let page = try browser.get(localPath(of: link))
        #expect(page.status == 404)
        #expect(page.text.contains("This link doesn't work any more"))
        let post = try browser.post(localPath(of: link), [], csrf: try browser.token(from: "/signin"))
        #expect(post.status == 404)
        #expect(browser.sessionCookie == nil)
        #expect(try mustChangePassword(app, username: "late_larry") == false)
    }

    @Test("a newer reset link retires the older one, and a reset link is not a continue link")
    func newerRetiresOlder() throws {
        let app = try accountsHarness()
        try signUp(app, username: "twice")
        let now = app.app.now
        let first = try OperatorReset.issueLink(database: app.app.database, username: "twice", baseURL: app.app.baseURL, now: now)
        let second = try OperatorReset.issueLink(database: app.app.database, username: "TWICE", baseURL: app.app.baseURL, now: now)
        let browser = WebSession(port: app.port)
        #expect(try browser.get(localPath(of: first)).status == 404)
        #expect(try browser.get(localPath(of: second)).status == 200)
        let asContinue = localPath(of: second).replacingOccurrences(of: "/reset/", with: "/continue/")
        #expect(try browser.get(asContinue).status == 404)
        #expect(throws: OperatorReset.Failure.unknownUsername) {
            try OperatorReset.issueLink(database: app.app.database, username: "nobody", baseURL: app.app.baseURL, now: now)
        }
    }
}

@Suite("Continue in another browser")
struct ContinueTests {
    /// Makes a continue link from `session`'s settings page; returns the page and the link.
    func makeLink(_ session: WebSession) throws -> (page: TestResponse, link: String) {
        let page = try session.post("/settings/continue", [], csrf: try session.token(from: "/settings/continue"))
        let link = page.text.firstMatch(of: /value="(http:\/\/[^"]+\/continue\/[A-Za-z0-9_-]{43})"/).map { String($0.1) }
        guard page.status == 200, let link else { throw TestError("no continue link: \(page.status)") }
        return (page, link)
    }

    @Test("the link signs a second browser in as the same user, once, and the first stays signed in")
    func signsInOnce() throws {
        let app = try accountsHarness()
        let laptop = try signUp(app, name: "Cara Mia", username: "cara")
        let start = try laptop.get("/settings/continue")
        #expect(start.status == 200)
        #expect(start.text.contains("Make a sign-in link"))
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links") == 0, "showing the page makes nothing")

        let (page, link) = try makeLink(laptop)
        #expect(link.hasPrefix(app.app.baseURL + "/continue/"))
        #expect(page.text.contains("<svg class=\"qr-code\""))
        #expect(page.text.contains("aria-label=\"QR code for your sign-in link\""))
        #expect(page.text.contains("readonly"))
        let token = String(link.split(separator: "/").last!)
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links WHERE token_hash = \(TokenHash.of(token)) AND purpose = 'continue'") == 1)
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links WHERE token_hash = \(token)") == 0, "never the token itself")

        // Opening the link shows who it signs in as and changes nothing.
        let phone = WebSession(port: app.port)
        let confirm = try phone.get(localPath(of: link))
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("Continue as Cara Mia"))
        #expect(phone.sessionCookie == nil)
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links WHERE used_at IS NOT NULL") == 0)
        #expect(try phone.get("/").text.contains("Little rituals"), "GET signed nobody in")

        let used = try phone.post(localPath(of: link), [], csrf: WebSession.csrfToken(in: confirm))
        #expect(used.status == 303)
        #expect(used.header("Location") == "/")
        #expect(try phone.get("/").text.contains("Hello, Cara Mia"))
        #expect(try laptop.get("/").text.contains("Hello, Cara Mia"), "the browser that made the link stays signed in")
        #expect(try countRows(app, "SELECT count(*) FROM sessions") == 2)

        let thief = WebSession(port: app.port)
        let second = try thief.get(localPath(of: link))
        #expect(second.status == 404)
        #expect(second.text.contains("This link doesn't work any more"))
        #expect(try thief.post(localPath(of: link), [], csrf: try thief.token(from: "/signin")).status == 404)
        #expect(thief.sessionCookie == nil)
        #expect(try countRows(app, "SELECT count(*) FROM sessions") == 2)
    }

    @Test("a continue link stops working after 10 minutes")
    func expiresAfterTenMinutes() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        let laptop = try signUp(app, username: "slowpoke")
        let (_, link) = try makeLink(laptop)
        let phone = WebSession(port: app.port)
        clock.withLock { $0 += 9 * 60 }
        #expect(try phone.get(localPath(of: link)).status == 200)
        clock.withLock { $0 += 61 }
        let page = try phone.get(localPath(of: link))
        #expect(page.status == 404)
        #expect(try phone.post(localPath(of: link), [], csrf: try phone.token(from: "/signin")).status == 404)
        #expect(phone.sessionCookie == nil)
    }

    @Test("a browser signed in as someone else switches to the link's account; the other account is untouched")
    func switchesAccount() throws {
        let app = try accountsHarness()
        let laptop = try signUp(app, name: "Eve Link", username: "eve_link")
        let shared = try signUp(app, name: "Dan Other", username: "dan_other")
        let (_, link) = try makeLink(laptop)
        let confirm = try shared.get(localPath(of: link))
        #expect(confirm.text.contains("This browser is signed in as Dan Other now"))
        #expect(try shared.post(localPath(of: link), [], csrf: WebSession.csrfToken(in: confirm)).status == 303)
        let home = try shared.get("/")
        #expect(home.text.contains("Hello, Eve Link"))
        #expect(!home.text.contains("Dan Other"))
        #expect(try signIn(WebSession(port: app.port), username: "dan_other", password: "correct horse").status == 303)
    }

    @Test("a guest, who has no password to sign in with elsewhere, can continue in another browser too")
    func guestContinues() throws {
        let app = try accountsHarness()
        let (inAppBrowser, id) = try makeGuest(app, name: "Guest Gwen")
        let (_, link) = try makeLink(inAppBrowser)
        let safari = WebSession(port: app.port)
        let confirm = try safari.get(localPath(of: link))
        #expect(try safari.post(localPath(of: link), [], csrf: WebSession.csrfToken(in: confirm)).status == 303)
        let home = try safari.get("/")
        #expect(home.text.contains("Hello, Guest Gwen"))
        #expect(home.text.contains("here as a guest."))
        #expect(try countRows(app, "SELECT count(*) FROM sessions WHERE user_id = \(id)") == 2)
        #expect(try countRows(app, "SELECT count(*) FROM users") == 1, "the same account, not a new guest")
    }

    @Test("signed-out visitors are sent to sign in from the continue and delete settings")
    func signedOutRedirects() throws {
        let app = try accountsHarness()
        let visitor = WebSession(port: app.port)
        for page in ["/settings/continue", "/settings/delete"] {
            let response = try visitor.get(page)
            #expect(response.status == 303, "\(page)")
            #expect(response.header("Location")?.hasPrefix("/signin?next=") == true, "\(page)")
        }
        #expect(try visitor.post("/settings/continue", [], csrf: try visitor.token(from: "/signin")).status == 303)
        #expect(try countRows(app, "SELECT count(*) FROM sign_in_links") == 0)
    }
}

@Suite("Recovery pages are valid HTML", .serialized)
struct RecoveryPageValidationTests {
    @Test(
        "the recovery, reset, continue, delete and goodbye pages pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func pagesValidate() throws {
        let app = try accountsHarness()
        let directory = try TemporaryDirectory("kith-html")
        func save(_ name: String, _ response: TestResponse) throws {
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        let visitor = WebSession(port: app.port)
        try save("recover", try visitor.get("/recover"))
        try save("recover-error", try postRecoveryCode(visitor, username: "", code: ""))
        try save("goodbye", try visitor.get("/goodbye"))
        try save("link-unavailable", try visitor.get("/continue/unknown-token"))

        let member = try signUp(app, username: "valid_html")
        try save("continue-start", try member.get("/settings/continue"))
        let made = try member.post("/settings/continue", [], csrf: try member.token(from: "/settings/continue"))
        try save("continue-link", made)
        let link = try #require(made.text.firstMatch(of: /value="(http:\/\/[^"]+)"/).map { String($0.1) })
        try save("continue-confirm", try visitor.get(localPath(of: link)))
        try save("delete", try member.get("/settings/delete"))
        try save("delete-error", try member.post("/settings/delete", [("password", "wrong password")], csrf: try member.token(from: "/settings/delete")))
        let reset = try OperatorReset.issueLink(database: app.app.database, username: "valid_html", baseURL: app.app.baseURL, now: app.app.now)
        try save("reset", try visitor.get(localPath(of: reset)))

        try HTMLValidationTests.expectValid(directory: directory.path)
    }
}
