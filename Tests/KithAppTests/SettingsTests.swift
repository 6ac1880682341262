import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

/// The stored user with this username (any letter case).
private func storedUser(_ app: AppHarness, _ username: String) throws -> User {
    try #require(try app.app.database.read { try AccountStore.credentials($0, username: username) }?.user)
}

private func storedPasswordHash(_ app: AppHarness, _ username: String) throws -> String {
    try #require(try app.app.database.read { try AccountStore.credentials($0, username: username) }?.passwordHash)
}

private func count(_ app: AppHarness, _ sql: SQL) throws -> Int64 {
    try app.app.database.read { try $0.queryValue(sql, as: Int64.self) } ?? 0
}

/// The profile form as a browser sends it, with what `signUp` chose by default.
private func profile(
    name: String = "Ada Lovelace", username: String? = nil, email: String = "", avatar: String = "fox",
    timeZone: String = "Europe/London"
) -> [(String, String)] {
    var fields = [("display_name", name), ("email", email), ("avatar", avatar), ("time_zone", timeZone)]
    if let username { fields.append(("username", username)) }
    return fields
}

/// A guest, made the way the join flows make one, signed in on a new session.
private func guest(_ app: AppHarness, name: String = "Guest Gail") throws -> (session: WebSession, id: Int64) {
    let session = WebSession(port: app.port)
    let request = Request(
        head: RequestHead(
            method: .get, target: "/", path: "/", query: nil, minorVersion: 1, headers: HTTPHeaders(), framing: .none,
            keepAlive: true, expectsContinue: false),
        route: HomeRoutes.home)
    let (id, cookie) = try app.app.database.write { tx in
        try Guests.create(tx, Guests.Details(displayName: name, avatar: "fox", timeZone: "UTC"), app: app.app, request: request)
    }
    session.setCookie("kith_session", cookie.value)
    return (session, id)
}

private let firefoxOnLinux = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
private let safariOnIPhone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"

/// Signs in through the form as a particular browser would; a browser
/// already signed in takes its token from the home page (the sign-in page
/// sends it home).
private func signIn(_ session: WebSession, username: String, password: String = "correct horse", userAgent: String) throws -> TestResponse {
    let token = try session.token(from: session.sessionCookie == nil ? "/signin" : "/")
    return try session.post("/signin", [("username", username), ("password", password)], csrf: token, headers: ["User-Agent": userAgent])
}

@Suite("Settings: profile")
struct SettingsProfileTests {
    @Test("saving the profile stores name, email, avatar and time zone, says so once, and an empty email clears it")
    func saveProfile() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "maya")
        let page = try session.get("/settings")
        #expect(page.status == 200)
        #expect(page.text.contains("<h1>Settings</h1>"))
        #expect(page.text.contains("value=\"Ada Lovelace\""))
        #expect(page.text.contains("<option value=\"Europe/London\" selected>"))
        #expect(page.text.matches(of: /<img src="\/static\/avatars\/[a-z]+\.[0-9a-f]+\.svg" alt="" width="32" height="32">/).count == Avatars.all.count)
        #expect(!page.text.contains("saved."), "no confirmation before anything is saved")

        let token = try #require(WebSession.csrfToken(in: page))
        let saved = try session.post(
            "/settings/profile",
            profile(name: "Maya A.", username: "maya", email: " maya@example.com ", avatar: "owl", timeZone: "America/New_York"),
            csrf: token)
        #expect(saved.status == 303)
        #expect(saved.header("Location") == "/settings")
        let user = try storedUser(app, "maya")
        #expect(user.displayName == "Maya A.")
        #expect(user.email == "maya@example.com", "surrounding spaces are trimmed")
        #expect(user.avatar == "owl")
        #expect(user.timeZone == "America/New_York")

        let after = try session.get("/settings")
        #expect(after.text.contains("role=\"status\">Profile saved.</p>"))
        #expect(after.text.contains("value=\"owl\" checked>"))
        #expect(!after.text.contains("value=\"fox\" checked>"))
        #expect(after.text.contains("<summary>Maya A.</summary>"), "the new name is in the menu at once")
        #expect(!(try session.get("/settings?saved=nonsense").text.contains("saved.")))

        #expect(try session.post("/settings/profile", profile(username: "maya", email: ""), csrf: token).status == 303)
        #expect(try storedUser(app, "maya").email == nil)
    }

    @Test("empty, too long and malformed values each get their message, keep what was typed, and change nothing")
    func invalidValues() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "maya")
        let token = try session.token(from: "/settings")
        let before = try storedUser(app, "maya")

        let cases: [(fields: [(String, String)], field: String, message: String)] = [
            (profile(name: "", username: "maya"), "display_name", "Enter your name."),
            (profile(name: String(repeating: "x", count: 61), username: "maya"), "display_name", "Keep your name to 60 characters or fewer."),
            (profile(username: ""), "username", "Choose a username."),
            (profile(username: "no spaces!"), "username", "Use only letters, digits, underscores and dots."),
            (profile(username: "ab"), "username", "A username is 3 to 30 characters long."),
            (profile(username: "maya", email: "maya@@example.com"), "email", "Enter an address like name@example.com, or leave it empty."),
            (profile(username: "maya", email: "maya.example.com"), "email", "Enter an address like name@example.com, or leave it empty."),
            (profile(username: "maya", email: "@example.com"), "email", "Enter an address like name@example.com, or leave it empty."),
            (profile(username: "maya", email: "maya @example.com"), "email", "An email address has no spaces in it."),
            (profile(username: "maya", email: String(repeating: "m", count: 243) + "@example.com"), "email", "Keep it to 254 characters or fewer."),
            (profile(username: "maya", avatar: "dragon"), "avatar", "Choose one of the pictures."),
            (profile(username: "maya", timeZone: "Mars/Olympus"), "time_zone", "Choose a time zone from the list."),
            (profile(username: "maya", timeZone: "../../etc/passwd"), "time_zone", "Choose a time zone from the list."),
        ]
        for (fields, field, message) in cases {
            let response = try session.post("/settings/profile", fields, csrf: token)
            #expect(response.status == 422, "\(field): \(message)")
            #expect(response.text.contains(Escaping.escape(message)), "\(field): \(message)")
            #expect(response.text.contains("id=\"field-\(field)-error\""), "\(field): the message sits by its field")
            #expect(response.text.contains("href=\"#field-\(field)\""), "\(field): the summary links to the field")
            #expect(!response.text.contains("saved."))
        }
        let typed = try session.post("/settings/profile", profile(name: "Kept Name", username: "no spaces!"), csrf: token)
        #expect(typed.text.contains("value=\"Kept Name\""), "what was typed is shown again")
        #expect(typed.text.contains("value=\"no spaces!\""))
        #expect(try storedUser(app, "maya") == before)
    }

    @Test("a value that is not valid UTF-8 gets a message beside its field, and nothing is saved")
    func invalidUTF8() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "maya")
        let token = try session.token(from: "/settings")
        let body = "display_name=Bad%FF%FEName&username=maya&email=&avatar=owl&time_zone=UTC&_csrf=" + WebSession.encode(token)
        let response = try session.post("/settings/profile", rawBody: Array(body.utf8))
        #expect(response.status == 422)
        #expect(response.text.contains("couldn&#39;t be read as text"))
        #expect(try storedUser(app, "maya").avatar != "owl")
    }

    @Test("a username someone else has, in any letter case, is taken; changing the case of your own is fine")
    func usernameUniqueness() throws {
        let app = try accountsHarness()
        let dad = try signUp(app, name: "Ross", username: "Dad_Ross")
        let maya = try signUp(app, username: "maya")

        let taken = try maya.post("/settings/profile", profile(username: "dad_ROSS"), csrf: try maya.token(from: "/settings"))
        #expect(taken.status == 422)
        #expect(taken.text.contains("That username is taken."))
        #expect(taken.text.contains("id=\"field-username-error\""))
        #expect(taken.text.contains("value=\"dad_ROSS\""))
        #expect(try storedUser(app, "maya").username == "maya")
        #expect(try storedUser(app, "dad_ross").username == "Dad_Ross")

        let recased = try dad.post("/settings/profile", profile(name: "Ross", username: "DAD_ross"), csrf: try dad.token(from: "/settings"))
        #expect(recased.status == 303)
        #expect(try storedUser(app, "dad_ross").username == "DAD_ross", "shown as typed")
        #expect(try signIn(WebSession(port: app.port), username: "dad_ross", password: "correct horse").status == 303)

        let renamed = try maya.post("/settings/profile", profile(username: "maya.a"), csrf: try maya.token(from: "/settings"))
        #expect(renamed.status == 303)
        #expect(try signIn(WebSession(port: app.port), username: "MAYA.A", password: "correct horse").status == 303)
        #expect(try signIn(WebSession(port: app.port), username: "maya", password: "correct horse").status == 401, "the old name is free, not an alias")
    }

    @Test("script in a name or an email is shown as text, in the page and in the fields")
    func escaping() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "mallory")
        let name = "<script>alert(1)</script>"
        let email = "\"><script>alert(2)</script>@example.com"
        let saved = try session.post("/settings/profile", profile(name: name, username: "mallory", email: email), csrf: try session.token(from: "/settings"))
        #expect(saved.status == 303)
        let page = try session.get("/settings").text
        #expect(page.contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;\""))
        #expect(page.contains("value=\"&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;@example.com\""))
        #expect(page.contains("<summary>&lt;script&gt;alert(1)&lt;/script&gt;</summary>"))
        #expect(!page.contains("<script>alert("))
    }
}

@Suite("Settings: appearance")
struct SettingsAppearanceTests {
    /// The opening `<html>` tag of a page.
    func htmlTag(_ response: TestResponse) -> String? {
        response.text.firstMatch(of: /<html[^>]*>/).map { String($0.0) }
    }

    @Test("choosing dark puts theme-dark on every page; light puts theme-light; system puts no class")
    func theme() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "owl")
        let other = try signUp(app, username: "lark")
        #expect(htmlTag(try session.get("/")) == "<html lang=\"en\">")
        let token = try session.token(from: "/settings")

        let dark = try session.post("/settings/appearance", [("theme", "dark"), ("number_style", "roman")], csrf: token)
        #expect(dark.status == 303)
        #expect(dark.header("Location") == "/settings")
        let settings = try session.get("/settings").text
        #expect(settings.contains("Appearance saved."))
        for path in ["/", "/settings", "/settings/password"] {
            #expect(htmlTag(try session.get(path)) == "<html lang=\"en\" class=\"theme-dark\">", "\(path)")
        }
        #expect(settings.contains("value=\"dark\" checked>"))
        #expect(settings.contains("value=\"roman\" checked>"))
        #expect(try storedUser(app, "owl").numberStyle == .roman)
        #expect(htmlTag(try other.get("/")) == "<html lang=\"en\">", "another user's pages keep their own theme")

        #expect(try session.post("/settings/appearance", [("theme", "light"), ("number_style", "stick")], csrf: token).status == 303)
        #expect(htmlTag(try session.get("/")) == "<html lang=\"en\" class=\"theme-light\">")
        #expect(try storedUser(app, "owl").numberStyle == .stick)

        #expect(try session.post("/settings/appearance", [("theme", "system"), ("number_style", "arabic")], csrf: token).status == 303)
        #expect(htmlTag(try session.get("/")) == "<html lang=\"en\">")
        #expect(htmlTag(try session.get("/settings")) == "<html lang=\"en\">")
    }

    @Test("a theme or number style that is not offered is refused and changes nothing")
    func invalidChoice() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "owl")
        let token = try session.token(from: "/settings")
        let response = try session.post("/settings/appearance", [("theme", "neon"), ("number_style", "binary")], csrf: token)
        #expect(response.status == 422)
        #expect(response.text.contains("Choose one of the themes."))
        #expect(response.text.contains("Choose one of the number styles."))
        let missing = try session.post("/settings/appearance", [("theme", "dark")], csrf: token)
        #expect(missing.status == 422)
        #expect(!missing.text.contains("Choose one of the themes."))
        let user = try storedUser(app, "owl")
        #expect(user.theme == .system && user.numberStyle == .arabic)
    }
}

@Suite("Settings: password")
struct SettingsPasswordTests {
    func change(_ session: WebSession, current: String?, new: String, confirm: String? = nil) throws -> TestResponse {
        var fields = [("new_password", new), ("confirm_password", confirm ?? new)]
        if let current { fields.insert(("current_password", current), at: 0) }
        return try session.post("/settings/password", fields, csrf: try session.token(from: "/settings/password"))
    }

    @Test("a wrong current password is refused beside its field; nothing changes and the old password still works")
    func wrongCurrent() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "pat")
        let hash = try storedPasswordHash(app, "pat")
        let cookie = session.sessionCookie

        let wrong = try change(session, current: "not my password", new: "a new password")
        #expect(wrong.status == 422)
        #expect(wrong.text.contains("That isn&#39;t your current password."))
        #expect(wrong.text.contains("id=\"field-current_password-error\""))
        #expect(!wrong.text.contains("not my password") && !wrong.text.contains("a new password"), "passwords are never shown again")

        let mismatch = try change(session, current: "correct horse", new: "a new password", confirm: "a new passwort")
        #expect(mismatch.status == 422)
        #expect(mismatch.text.contains("This doesn&#39;t match the new password."))
        let empty = try change(session, current: "", new: "", confirm: "")
        #expect(empty.status == 422)
        #expect(empty.text.contains("Enter your current password.") && empty.text.contains("Choose a new password."))
        let short = try change(session, current: "correct horse", new: "short")
        #expect(short.text.contains("Use at least 8 characters."))

        #expect(try storedPasswordHash(app, "pat") == hash)
        #expect(session.sessionCookie == cookie, "no new session for a refused change")
        #expect(try signIn(WebSession(port: app.port), username: "pat", password: "correct horse").status == 303)
        #expect(try signIn(WebSession(port: app.port), username: "pat", password: "a new password").status == 401)
    }

    @Test("guessing the current password is throttled with sign-in's budget for that username")
    func throttled() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "pat")
        // A stolen session cookie, used without the owner's device cookie: the
        // username's budget judges it (the device's would, in the owner's browser).
        session.setCookie(Sessions.deviceCookieName, nil)
        for _ in 0..<AccountRoutes.failuresPerUsername {
            #expect(try change(session, current: "a wrong guess", new: "a new password").status == 422)
        }
        let blocked = try change(session, current: "correct horse", new: "a new password")
        #expect(blocked.status == 429)
        #expect(blocked.text.contains("Too many wrong passwords. Please wait 15 minutes"))
        #expect(try signIn(WebSession(port: app.port), username: "pat", password: "correct horse").status == 429, "the budget is shared")
        #expect(try signIn(WebSession(port: app.port), username: "pat", password: "a new password").status == 429)
        #expect(try count(app, "SELECT count(*) FROM sign_in_failures WHERE scope = 'user:pat'") == Int64(AccountRoutes.failuresPerUsername))
    }

    @Test("changing the password rotates this session, keeps the other devices, and only the new password signs in")
    func success() throws {
        let app = try accountsHarness()
        let laptop = try signUp(app, username: "Pat")
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "pat", password: "correct horse").status == 303)
        let old = try #require(laptop.sessionCookie)

        let changed = try change(laptop, current: "correct horse", new: "a much better password")
        #expect(changed.status == 303)
        #expect(changed.header("Location") == "/settings")
        let new = try #require(laptop.sessionCookie)
        #expect(new != old)
        let stale = WebSession(port: app.port)
        stale.setCookie("kith_session", old)
        #expect(try stale.get("/settings").status == 303, "the old token signs nobody in")
        let settings = try laptop.get("/settings")
        #expect(settings.status == 200)
        #expect(settings.text.contains("Password changed."))
        #expect(try phone.get("/").text.contains("Hello,"), "other devices stay signed in")
        #expect(try count(app, "SELECT count(*) FROM sessions") == 2)

        #expect(try signIn(WebSession(port: app.port), username: "pat", password: "a much better password").status == 303)
        #expect(try signIn(WebSession(port: app.port), username: "pat", password: "correct horse").status == 401)
    }

    @Test("someone who must choose a new password is not asked for the current one, and the flag clears")
    func mustChange() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "rescued")
        let id = try storedUser(app, "rescued").id
        try app.app.database.write { try $0.execute("UPDATE users SET must_change_password = 1 WHERE id = \(id)") }

        let home = try session.get("/")
        #expect(home.status == 303)
        #expect(home.header("Location") == "/settings/password")
        let form = try session.get("/settings/password")
        #expect(form.status == 200)
        #expect(form.text.contains("Choose a new password"))
        #expect(!form.text.contains("name=\"current_password\""))
        #expect(!form.text.contains(">Cancel<"), "there is nowhere else to go yet")

        let old = session.sessionCookie
        let changed = try change(session, current: nil, new: "a fresh password")
        #expect(changed.status == 303)
        #expect(changed.header("Location") == "/settings")
        #expect(session.sessionCookie != old)
        #expect(try storedUser(app, "rescued").mustChangePassword == false)
        #expect(try session.get("/").text.contains("Hello,"))
        #expect(!(try session.get("/settings/password").text.contains("Choose a new password")))
        #expect(try signIn(WebSession(port: app.port), username: "rescued", password: "a fresh password").status == 303)
    }
}

@Suite("Settings: devices and recovery codes")
struct SettingsSecurityTests {
    @Test("the devices list shows this device and another; signing out the others ends them, not this one")
    func devices() throws {
        let app = try accountsHarness()
        let laptop = try signUp(app, username: "lin")
        #expect(try signIn(laptop, username: "lin", userAgent: firefoxOnLinux).status == 303)
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "lin", userAgent: safariOnIPhone).status == 303)

        let page = try laptop.get("/settings").text
        #expect(page.contains("Firefox on Linux"))
        #expect(page.contains("Safari on iPhone"))
        #expect(page.matches(of: /aria-current="true"/).count == 1)
        let current = try #require(page.firstMatch(of: /<li class="stack stack--tight" aria-current="true">\s*<p><strong>([^<]+)<\/strong>/))
        #expect(current.1 == "Firefox on Linux")
        #expect(page.contains("This device"))
        #expect(page.contains(" UTC</time>"))
        #expect(page.contains("action=\"/settings/sessions/sign-out-others\""))
        #expect(page.contains("action=\"/signout/everywhere\""))

        let out = try laptop.post("/settings/sessions/sign-out-others", [], csrf: try laptop.token(from: "/settings"))
        #expect(out.status == 303)
        #expect(out.header("Location") == "/settings")
        #expect(try phone.get("/").text.contains("Little rituals"), "the phone is signed out")
        let after = try laptop.get("/settings").text
        #expect(after.contains("Your other devices are signed out."))
        #expect(after.contains("signed in on this device only"))
        #expect(!after.contains("Safari on iPhone"))
        #expect(!after.contains("action=\"/settings/sessions/sign-out-others\""))
        #expect(try count(app, "SELECT count(*) FROM sessions") == 1)
    }

    @Test("sessions past their idle lifetime are not listed as devices")
    func expiredSessionsHidden() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        let laptop = try signUp(app, username: "lin")
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "lin", userAgent: safariOnIPhone).status == 303)
        clock.withLock { $0 += 20 * 86_400 }
        #expect(try laptop.get("/settings").text.contains("20 days ago"))
        clock.withLock { $0 += 11 * 86_400 }
        let page = try laptop.get("/settings").text
        #expect(!page.contains("Safari on iPhone"))
        #expect(page.contains("signed in on this device only"))
    }

    @Test("making new recovery codes takes the password, shows ten once, and the old ones are gone")
    func recoveryCodes() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "keeper")
        func hashes() throws -> Set<String> {
            Set(try app.app.database.read { db in try db.query("SELECT code_hash FROM recovery_codes").map { try $0.get("code_hash", as: String.self) } })
        }
        let old = try hashes()
        #expect(old.count == 10)
        #expect(try session.get("/settings").text.contains("You have <strong>10</strong> unused recovery codes."))
        try app.app.database.write { try $0.execute("UPDATE recovery_codes SET used_at = 1 WHERE id = (SELECT min(id) FROM recovery_codes)") }
        #expect(try session.get("/settings").text.contains("You have <strong>9</strong> unused recovery codes."))

        let token = try session.token(from: "/settings")
        let wrong = try session.post("/settings/recovery-codes", [("password", "not my password")], csrf: token)
        #expect(wrong.status == 422)
        #expect(wrong.text.contains("That isn&#39;t your password."))
        #expect(wrong.text.contains("id=\"field-password-error\""))
        #expect(try session.post("/settings/recovery-codes", [], csrf: token).status == 422)
        #expect(try hashes() == old)

        let made = try session.post("/settings/recovery-codes", [("password", "correct horse")], csrf: token)
        #expect(made.status == 200)
        #expect(made.header("Cache-Control") == "no-store")
        let codes = made.text.matches(of: /<code class="mono">([A-Z2-9]{5}-[A-Z2-9]{5})<\/code>/).map { String($0.1) }
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        #expect(made.text.contains("href=\"/settings\""))
        let new = try hashes()
        #expect(new == Set(codes.map(RecoveryCodes.hash)))
        #expect(new.isDisjoint(with: old))
        #expect(try count(app, "SELECT count(*) FROM recovery_codes WHERE used_at IS NOT NULL") == 0)
        let after = try session.get("/settings").text
        #expect(after.contains("You have <strong>10</strong> unused recovery codes."))
        #expect(!codes.contains { after.contains($0) }, "the codes are shown once")
    }
}

@Suite("Settings: guests, access and forms")
struct SettingsAccessTests {
    @Test("a guest saves name, avatar and time zone, and is offered to keep the account instead of a password")
    func guestSettings() throws {
        let app = try accountsHarness()
        let (session, id) = try guest(app)
        let page = try session.get("/settings")
        #expect(page.status == 200)
        #expect(!page.text.contains("name=\"username\""))
        #expect(page.text.contains("href=\"/claim\""))
        #expect(!page.text.contains("href=\"/settings/password\""))
        #expect(!page.text.contains("action=\"/settings/recovery-codes\""))
        #expect(!page.text.contains("action=\"/signout/everywhere\""), "a guest signed out everywhere could never come back")
        #expect(page.text.contains("href=\"/settings/continue\""))
        #expect(page.text.contains("href=\"/settings/delete\""))

        let token = try #require(WebSession.csrfToken(in: page))
        let saved = try session.post(
            "/settings/profile", profile(name: "Gail G.", email: "gail@example.com", avatar: "penguin", timeZone: "Asia/Tokyo")
                + [("username", "sneaky")], csrf: token)
        #expect(saved.status == 303)
        let user = try #require(try app.app.database.read { try AccountStore.user($0, id: id) })
        #expect(user.displayName == "Gail G." && user.avatar == "penguin" && user.timeZone == "Asia/Tokyo" && user.email == "gail@example.com")
        #expect(user.username == nil, "a guest gets a username only by keeping the account")
        #expect(try session.post("/settings/appearance", [("theme", "dark"), ("number_style", "stick")], csrf: token).status == 303)
        #expect(try session.get("/").text.contains("class=\"theme-dark\""))

        let password = try session.get("/settings/password")
        #expect(password.status == 200)
        #expect(password.text.contains("href=\"/claim\""))
        #expect(!password.text.contains("name=\"new_password\""))
        let posted = try session.post("/settings/password", [("new_password", "sneaky password"), ("confirm_password", "sneaky password")], csrf: token)
        #expect(posted.status == 303)
        #expect(posted.header("Location") == "/claim")
        #expect(try session.post("/settings/recovery-codes", [("password", "x")], csrf: token).header("Location") == "/claim")
        #expect(try count(app, "SELECT count(*) FROM users WHERE password_hash IS NOT NULL") == 0)
        #expect(try count(app, "SELECT count(*) FROM recovery_codes") == 0)
    }

    @Test("a settings form posted without its token is refused and changes nothing")
    func csrf() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "careful")
        let response = try session.post("/settings/profile", profile(name: "Changed", username: "careful"))
        #expect(response.status == 403)
        #expect(try storedUser(app, "careful").displayName == "Ada Lovelace")
    }

    @Test("a signed-out visitor is sent to sign in, and back to the page afterwards")
    func signedOut() throws {
        let app = try accountsHarness()
        let visitor = WebSession(port: app.port)
        let settings = try visitor.get("/settings")
        #expect(settings.status == 303)
        #expect(settings.header("Location") == "/signin?next=%2Fsettings")
        #expect(try visitor.get("/settings/password").header("Location") == "/signin?next=%2Fsettings%2Fpassword")
        let post = try visitor.post("/settings/appearance", [("theme", "dark"), ("number_style", "arabic")], csrf: try visitor.token(from: "/signin"))
        #expect(post.status == 303)
        #expect(post.header("Location")?.hasPrefix("/signin?next=") == true)
        #expect(!settings.text.contains("Profile"))
    }
}

@Suite("Settings: small parts")
struct SettingsPartsTests {
    @Test("user agents are summarised as browser and system", arguments: [
        (firefoxOnLinux, "Firefox on Linux"),
        (safariOnIPhone, "Safari on iPhone"),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36", "Chrome on Android"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0", "Edge on Windows"),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Safari on Mac"),
        ("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", "Chrome on ChromeOS"),
        ("curl/8.5.0", "Unknown browser"),
        ("", "Unknown browser"),
    ])
    func deviceNames(agent: String, expected: String) {
        #expect(DeviceName.describe(userAgent: agent) == expected)
    }
}

@Suite("Settings pages are valid HTML", .serialized)
struct SettingsHTMLValidationTests {
    @Test(
        "the settings and password pages, with and without errors, for accounts and guests, pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func pagesValidate() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "valid")
        #expect(try signIn(WebSession(port: app.port), username: "valid", userAgent: safariOnIPhone).status == 303)
        let token = try session.token(from: "/settings")
        let (guestSession, _) = try guest(app)
        var pages: [(String, TestResponse)] = [
            ("settings", try session.get("/settings")),
            ("settings-errors", try session.post("/settings/profile", profile(name: "", username: "x y", email: "nope", avatar: "none", timeZone: "Nowhere"), csrf: token)),
            ("settings-recovery-errors", try session.post("/settings/recovery-codes", [("password", "")], csrf: token)),
            ("password", try session.get("/settings/password")),
            ("password-errors", try session.post("/settings/password", [("current_password", "")], csrf: token)),
            ("guest-settings", try guestSession.get("/settings")),
            ("guest-password", try guestSession.get("/settings/password")),
        ]
        let id = try storedUser(app, "valid").id
        try app.app.database.write { try $0.execute("UPDATE users SET must_change_password = 1 WHERE id = \(id)") }
        pages.append(("password-must-change", try session.get("/settings/password")))

        let directory = try TemporaryDirectory("kith-settings-html")
        for (name, response) in pages {
            #expect([200, 422].contains(response.status), "\(name)")
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        try HTMLValidationTests.expectValid(directory: directory.path)
    }
}
