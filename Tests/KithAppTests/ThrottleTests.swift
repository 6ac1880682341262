import Foundation
import Glibc
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// Cheap hashing, a clock the test moves, an open live topic, and whatever
/// limits the test narrows.
private func harness(clock: Locked<Int64>? = nil, configure: (inout KithConfiguration) -> Void = { _ in }) throws -> AppHarness {
    try AppHarness(configure: { config in
        config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
        if let clock { config.clock = { clock.value } }
        configure(&config)
    }) { $0.liveTopics.register(kind: "open") { _, _ in true } }
}

private func signUpFields(_ username: String) -> [(String, String)] {
    [("display_name", "Someone New"), ("username", username), ("password", "correct horse"), ("time_zone", "UTC")]
}

private func postSignUp(_ app: AppHarness, username: String) throws -> TestResponse {
    let session = WebSession(port: app.port)
    return try session.post("/signup", signUpFields(username), csrf: try session.token(from: "/signup"))
}

/// Signs up in a browser that already has cookies (a shared family tablet).
private func signUpOn(_ session: WebSession, _ app: AppHarness, username: String) throws {
    let response = try session.post("/signup", signUpFields(username), csrf: try session.token(from: "/signup"))
    guard response.status == 200 else { throw TestError("sign-up failed: \(response.status)") }
}

/// Changes the password from "correct horse" through the settings form.
private func changePassword(_ session: WebSession) throws -> TestResponse {
    try session.post(
        "/settings/password",
        [("current_password", "correct horse"), ("new_password", "a better password"), ("confirm_password", "a better password")],
        csrf: try session.token(from: "/settings/password"))
}

/// Argon2 computations the app has started so far.
private func hashes(_ app: AppHarness) -> Int { app.app.passwords.hasher.computations }

private func userCount(_ app: AppHarness) throws -> Int64 {
    try app.app.database.read { try $0.queryValue("SELECT count(*) FROM users", as: Int64.self) } ?? 0
}

@Suite("Sign-up and claim: cheap checks before any hash, and a budget per address")
struct SignUpThrottleTests {
    @Test("a taken username is answered 422 before any password is hashed, at sign-up and at claim")
    func takenBeforeHashing() throws {
        let app = try harness()
        try signUp(app, username: "Taken_Name")
        let (guest, _) = try makeGuest(app)
        let before = (hashes(app), try rowCounts(app))

        let again = try postSignUp(app, username: "taken_name")
        #expect(again.status == 422)
        #expect(again.text.contains("That username is taken."))
        #expect(again.text.contains("value=\"taken_name\""), "the form is kept")
        let claim = try guest.post("/claim", [("username", "TAKEN_NAME"), ("password", "gails password")], csrf: try guest.token(from: "/claim"))
        #expect(claim.status == 422)
        #expect(claim.text.contains("That username is taken."))

        #expect(hashes(app) == before.0, "no Argon2 for a name that cannot be had")
        #expect(try rowCounts(app) == before.1)
    }

    @Test("an address makes at most its hour's accounts; the next sign-up waits with a 429, the form kept, nothing written")
    func accountsPerAddress() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try harness(clock: clock) { $0.floodLimits.accountsPerAddressPerHour = 2 }
        try signUp(app, username: "first_kid")
        try signUp(app, username: "second_kid")
        let before = (hashes(app), try rowCounts(app))

        let third = try postSignUp(app, username: "third_kid")
        #expect(third.status == 429)
        #expect(third.text.contains("Please wait 60 minutes"))
        #expect(third.text.contains("nothing was saved"))
        #expect(third.text.contains("value=\"third_kid\""), "the form is kept")
        #expect(third.header("Set-Cookie")?.contains("kith_session=") != true)
        #expect(hashes(app) == before.0)
        #expect(try rowCounts(app) == before.1)

        clock.withLock { $0 += 60 * 60 + 1 }
        #expect(try postSignUp(app, username: "third_kid").status == 200)
    }

    @Test("sign-ups and claims that reach the hash have their own budget: twice the accounts")
    func hashingBudget() throws {
        let app = try harness { $0.floodLimits.accountsPerAddressPerHour = 1 }
        try signUp(app, username: "only_one")
        // The accounts budget is spent, but a claim makes no account: it is
        // judged by the hashing budget alone, which has one attempt left.
        let (first, _) = try makeGuest(app, name: "Guest One")
        let claimed = try first.post("/claim", [("username", "claimer"), ("password", "gails password")], csrf: try first.token(from: "/claim"))
        #expect(claimed.status == 200)
        let (second, _) = try makeGuest(app, name: "Guest Two")
        let before = hashes(app)
        let refused = try second.post("/claim", [("username", "claimer2"), ("password", "gails password")], csrf: try second.token(from: "/claim"))
        #expect(refused.status == 429)
        #expect(refused.text.contains("Please wait"))
        #expect(hashes(app) == before)
        #expect(try app.app.database.read { try AccountStore.credentials($0, username: "claimer2") } == nil)
    }

    @Test("when the hashing line is full, sign-ups are answered 503 at once with Retry-After, and nothing is written for them")
    func busy() throws {
        // Slow hashes and a line of one: the cores' worth run, one waits, the rest are refused.
        let app = try AppHarness(configure: {
            $0.passwordParameters = .init(memoryKiB: 32_768, iterations: 12, parallelism: 1)
            $0.floodLimits.passwordQueue = 1
        })
        let count = app.app.passwords.hasher.maxConcurrentHashes + 5
        let racers = (0..<count).map { _ in WebSession(port: app.port) }
        let tokens = try racers.map { try $0.token(from: "/signup") }
        let results = Locked<[Int: TestResponse]>([:])
        let threads = (0..<count).map { index in
            Threads.spawn(name: "signup") {
                let response = try? racers[index].post("/signup", signUpFields("racer_\(index)"), csrf: tokens[index])
                results.withLock { $0[index] = response }
            }
        }
        threads.forEach(Threads.join)
        let responses = Array(results.value.values)
        #expect(responses.count == count)
        let refused = responses.filter { $0.status == 503 }
        #expect(!refused.isEmpty)
        for response in refused {
            #expect(response.header("Retry-After") == "5")
            #expect(response.text.contains("Kith is very busy right now, so nothing was changed."))
        }
        #expect(responses.allSatisfy { $0.status == 200 || $0.status == 503 })
        #expect(try userCount(app) == Int64(responses.filter { $0.status == 200 }.count))
    }
}

@Suite("Sign-in throttles judge a remembered device by its own failures")
struct DeviceCookieTests {
    @Test("signing in sets a signed, long-lived, HttpOnly device cookie, and it survives signing out")
    func cookie() throws {
        let app = try harness()
        let owner = try signUp(app, username: "owner")
        let first = try #require(owner.cookies[Sessions.deviceCookieName], "signing up counts as signing in")
        try signOutThroughForm(owner)
        #expect(owner.cookies[Sessions.deviceCookieName] == first, "signing out keeps the device remembered")
        let response = try signIn(owner, username: "owner", password: "correct horse")
        #expect(response.status == 303)
        let header = try #require(response.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("kith_device=") }?.1)
        #expect(header.contains("HttpOnly") && header.contains("SameSite=Lax") && header.contains("Path=/"))
        #expect(header.contains("Max-Age=31536000"))
        let renewed = try #require(owner.cookies[Sessions.deviceCookieName])
        #expect(renewed != first, "a fresh nonce with each sign-in")
        #expect(renewed.split(separator: "~").count == 1, "one entry per account")

        // A shared browser remembers each of its people.
        try signOutThroughForm(owner)
        try signUpOn(owner, app, username: "sibling")
        #expect(owner.cookies[Sessions.deviceCookieName]?.split(separator: "~").count == 2)
    }

    @Test("thirty failures for made-up names from one address do not lock out someone on a device they used before")
    func addressFailures() throws {
        let app = try harness()
        let owner = try signUp(app, username: "rightful")
        try signOutThroughForm(owner)
        let attacker = WebSession(port: app.port)
        for index in 0..<AccountRoutes.failuresPerAddress {
            #expect(try signIn(attacker, username: "made_up_\(index)", password: "a wrong guess").status == 401)
        }
        #expect(try signIn(WebSession(port: app.port), username: "rightful", password: "correct horse").status == 429,
                "a browser Kith does not know is judged by the address")
        #expect(try signIn(owner, username: "rightful", password: "correct horse").status == 303)
    }

    @Test("five wrong guesses at a username do not lock its owner out of a device they used before; a forged cookie does not count")
    func usernameFailures() throws {
        let app = try harness()
        let owner = try signUp(app, username: "guarded")
        try signUp(app, username: "someone_else")
        try signOutThroughForm(owner)
        let attacker = WebSession(port: app.port)
        for _ in 0..<AccountRoutes.failuresPerUsername {
            #expect(try signIn(attacker, username: "guarded", password: "a wrong guess").status == 401)
        }
        let cookie = try #require(owner.cookies[Sessions.deviceCookieName])

        let forged = WebSession(port: app.port)
        forged.setCookie(Sessions.deviceCookieName, String(cookie.dropLast(2)) + (cookie.hasSuffix("AA") ? "BB" : "AA"))
        #expect(try signIn(forged, username: "guarded", password: "correct horse").status == 429)
        let elsewhere = WebSession(port: app.port)
        let othersCookie: String = try #require(try signUp(app, username: "third_user").cookies[Sessions.deviceCookieName])
        elsewhere.setCookie(Sessions.deviceCookieName, othersCookie)
        #expect(try signIn(elsewhere, username: "guarded", password: "correct horse").status == 429, "another account's cookie does not help")

        #expect(try signIn(owner, username: "GUARDED", password: "correct horse").status == 303)
    }

    @Test("failures made with a device cookie count against that device alone")
    func deviceBudget() throws {
        let app = try harness()
        let owner = try signUp(app, username: "fumbler")
        try signOutThroughForm(owner)
        for _ in 0..<AccountRoutes.failuresPerDevice {
            #expect(try signIn(owner, username: "fumbler", password: "a wrong guess").status == 401)
        }
        let blocked = try signIn(owner, username: "fumbler", password: "correct horse")
        #expect(blocked.status == 429)
        #expect(blocked.text.contains("Too many failed attempts. Please wait 15 minutes"))
        #expect(try signIn(WebSession(port: app.port), username: "fumbler", password: "correct horse").status == 303,
                "the username's own budget was never spent")
    }

    @Test("strangers' failures do not stop the owner changing the password, or recovering, on their device")
    func settingsAndRecovery() throws {
        let app = try harness()
        let (owner, codes) = try signUpShowingCodes(app, username: "settled")
        let attacker = WebSession(port: app.port)
        for _ in 0..<AccountRoutes.failuresPerUsername {
            #expect(try signIn(attacker, username: "settled", password: "a wrong guess").status == 401)
        }
        let changed = try changePassword(owner)
        #expect(changed.status == 303)
        #expect(changed.header("Location") == "/settings")

        for _ in 0..<AccountRoutes.failuresPerUsername {
            #expect(try signIn(attacker, username: "settled", password: "another wrong guess").status == 401)
        }
        try signOutThroughForm(owner)
        #expect(try postRecoveryCode(WebSession(port: app.port), username: "settled", code: codes[0]).status == 429)
        #expect(try postRecoveryCode(owner, username: "settled", code: codes[0]).status == 303)
    }
}

@Suite("Invite lookups: a working code always opens, every route counts misses, and a ceiling stops guessing")
struct InviteThrottleTests {
    private func guestFields(_ name: String = "Gwen") -> [(String, String)] {
        [("display_name", name), ("avatar", "owl"), ("time_zone", "UTC")]
    }

    @Test("failed joins by POST count like failed previews")
    func postsCount() throws {
        let app = try TestClubs.harness()
        let visitor = WebSession(port: app.port)
        let token = try visitor.token(from: "/join")
        for index in 0..<InviteRoutes.failuresPerAddress {
            let response = try visitor.post("/join/ZZZZZ\(index % 8 + 2)", guestFields(), csrf: token)
            #expect(response.status == 404)
        }
        #expect(try visitor.get("/join/ZZZZZZ").status == 429)
        #expect(try visitor.post("/join", [("code", "YYYYYY")], csrf: token).status == 429)
        #expect(try userCount(app) == 0)
    }

    @Test("past the soft limit a working code still opens and joins, while unknown ones wait")
    func workingCodeOpens() throws {
        let app = try TestClubs.harness()
        let (id, code) = try TestClubs.make(app)
        let visitor = WebSession(port: app.port)
        let token = try visitor.token(from: "/join")
        for _ in 0..<InviteRoutes.failuresPerAddress { #expect(try visitor.get("/join/ZZZZZZ").status == 404) }

        let unknown = try visitor.post("/join", [("code", "YYYYYY")], csrf: token)
        #expect(unknown.status == 429)
        #expect(unknown.text.contains("Please wait 15 minutes"))
        #expect(try visitor.post("/join/YYYYYY", guestFields(), csrf: token).status == 429)

        #expect(try visitor.post("/join", [("code", code)], csrf: token).header("Location") == "/join/\(code)")
        #expect(try visitor.get("/join/\(code)").status == 200)
        let joined = try visitor.post("/join/\(code)", guestFields(), csrf: token)
        #expect(joined.status == 303)
        #expect(try TestClubs.members(app, id) == 1)
    }

    @Test("past the hard ceiling every lookup waits, working codes too, until the window passes")
    func ceiling() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try TestClubs.harness(clock: clock)
        let (_, code) = try TestClubs.make(app)
        let guesser = WebSession(port: app.port)
        for index in 0..<InviteRoutes.failureCeilingPerAddress {
            let status = try guesser.get("/join/ZZZZZZ").status
            #expect(status == (index < InviteRoutes.failuresPerAddress ? 404 : 429))
        }
        let closed = try guesser.get("/join/\(code)")
        #expect(closed.status == 429)
        #expect(closed.text.contains("Please wait 15 minutes"))
        let failures = try app.app.database.read { try $0.queryValue("SELECT count(*) FROM invite_lookup_failures", as: Int64.self) }
        #expect(failures == Int64(InviteRoutes.failureCeilingPerAddress), "past the ceiling nothing more is written")

        clock.withLock { $0 += InviteRoutes.failureWindow + 1 }
        #expect(try guesser.get("/join/\(code)").status == 200)
    }

    @Test("an address makes at most its hour's guests; the next is told beside the form, and nothing is written")
    func guestsPerAddress() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try TestClubs.harness(clock: clock) { $0.floodLimits.guestsPerAddressPerHour = 2 }
        let (id, code) = try TestClubs.make(app)
        for name in ["Ann", "Ben"] {
            let guest = WebSession(port: app.port)
            #expect(try guest.post("/join/\(code)", guestFields(name), csrf: try guest.token(from: "/join/\(code)")).status == 303)
        }
        let before = try rowCounts(app)
        let late = WebSession(port: app.port)
        let refused = try late.post("/join/\(code)", guestFields("Cat"), csrf: try late.token(from: "/join/\(code)"))
        #expect(refused.status == 429)
        #expect(refused.text.contains("Many guests have joined from your network in the last hour. Please wait 60 minutes"))
        #expect(refused.text.contains("value=\"Cat\""), "the form is kept")
        #expect(late.sessionCookie == nil)
        #expect(try rowCounts(app) == before)

        // Someone with an account still joins from the same address.
        let member = try signUp(app, username: "club_member")
        #expect(try member.post("/join/\(code)", [], csrf: try member.token(from: "/join/\(code)")).status == 303)
        #expect(try TestClubs.members(app, id) == 3)

        clock.withLock { $0 += 60 * 60 + 1 }
        #expect(try late.post("/join/\(code)", guestFields("Cat"), csrf: try late.token(from: "/join/\(code)")).status == 303)
    }
}

@Suite("Live streams: a cap per address, and streams end with their session")
struct LiveStreamLimitTests {
    /// Opens a stream on `open:1` as `session` (or signed out) and waits for it to start.
    private func openStream(_ app: AppHarness, as session: WebSession? = nil) throws -> TestClient {
        let client = try TestClient(port: app.port)
        let cookie = session?.sessionCookie.map { "Cookie: kith_session=\($0)\r\n" } ?? ""
        try client.send("GET /live?topics=open:1 HTTP/1.1\r\nHost: localhost\r\n\(cookie)\r\n")
        _ = try client.read(until: "retry: 2000", timeout: 5)
        return client
    }

    @Test("in the hub, a stream past its address's cap is refused and the others are untouched")
    func hubCap() {
        var limits = LiveHub.Limits()
        limits.maxStreamsPerAddress = 2
        let hub = LiveHub(limits: limits, epoch: "ab12")
        let first = RecordingSink(), second = RecordingSink(), third = RecordingSink(), neighbour = RecordingSink()
        hub.attach(first, topics: ["t:1"], cursor: nil, viewerKey: "user:1", address: "10.0.0.1")
        hub.attach(second, topics: ["t:1"], cursor: nil, viewerKey: "user:2", address: "10.0.0.1")
        hub.attach(neighbour, topics: ["t:1"], cursor: nil, viewerKey: "user:3", address: "10.0.0.2")
        #expect(!hub.hasRoom(forAddress: "10.0.0.1"))
        hub.attach(third, topics: ["t:1"], cursor: nil, viewerKey: "user:3", address: "10.0.0.1")
        #expect(third.isClosed)
        #expect(third.text.contains("event: evicted"))
        #expect(!first.isClosed && !second.isClosed && !neighbour.isClosed)
        first.close()
        #expect(hub.hasRoom(forAddress: "10.0.0.1"))
    }

    @Test("past the per-address cap /live answers 429, and the open streams keep receiving")
    func httpCap() throws {
        let app = try harness { $0.live.maxStreamsPerAddress = 2 }
        let streams = try (0..<2).map { _ in try openStream(app) }
        let refused = try TestClient(port: app.port)
        try refused.send("GET /live?topics=open:1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let response = try refused.readResponse(timeout: 5)
        #expect(response.status == 429)
        #expect(response.header("Retry-After") != nil)
        app.app.live.publish(topic: "open:1", fragments: ["still-here"])
        for stream in streams { #expect(try stream.read(until: "still-here", timeout: 5).contains("invalidate")) }
    }

    /// One account signed in on a laptop and a phone, each with a stream open.
    private func twoDevices(_ app: AppHarness, username: String) throws -> (laptop: WebSession, laptopStream: TestClient, phoneStream: TestClient) {
        let laptop = try signUp(app, username: username)
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: username, password: "correct horse").status == 303)
        return (laptop, try openStream(app, as: laptop), try openStream(app, as: phone))
    }

    @Test("signing out other devices ends their live streams at once; this device's keep working")
    func signOutOthers() throws {
        let app = try harness()
        let (laptop, laptopStream, phoneStream) = try twoDevices(app, username: "two_devices")
        let out = try laptop.post("/settings/sessions/sign-out-others", [], csrf: try laptop.token(from: "/settings"))
        #expect(out.status == 303)
        #expect(try phoneStream.waitForClose(timeout: 2))
        app.app.live.publish(topic: "open:1", fragments: ["after"])
        #expect(try laptopStream.read(until: "after", timeout: 5).contains("invalidate"))
    }

    @Test("changing the password ends the old session's streams, and other devices keep theirs")
    func passwordChange() throws {
        let app = try harness()
        let (laptop, laptopStream, phoneStream) = try twoDevices(app, username: "changer")
        #expect(try changePassword(laptop).status == 303)
        #expect(try laptopStream.waitForClose(timeout: 2), "the rotated session's cookie is dead, and so is its stream")
        app.app.live.publish(topic: "open:1", fragments: ["after"])
        #expect(try phoneStream.read(until: "after", timeout: 5).contains("invalidate"))
    }

    @Test("signing out, and a recovery sign-in elsewhere, end the streams of the sessions they end")
    func signOutAndRecovery() throws {
        let app = try harness()
        let (laptop, codes) = try signUpShowingCodes(app, username: "recoverer")
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "recoverer", password: "correct horse").status == 303)
        let laptopStream = try openStream(app, as: laptop)
        let phoneStream = try openStream(app, as: phone)

        try signOutThroughForm(phone)
        #expect(try phoneStream.waitForClose(timeout: 2))
        #expect(try postRecoveryCode(WebSession(port: app.port), username: "recoverer", code: codes[0]).status == 303)
        #expect(try laptopStream.waitForClose(timeout: 2))
    }
}

@Suite("Flood limits on the command line")
struct FloodLimitConfigurationTests {
    @Test("defaults; flags and variables set each; nonsense is a usage error")
    func parsing() throws {
        let defaults = try CommandLineParser.parse([], environment: [:]).1
        #expect(defaults.floodLimits == FloodLimits())
        #expect(defaults.floodLimits.passwordQueue == nil)
        #expect(defaults.floodLimits.accountsPerAddressPerHour == 40)
        #expect(defaults.floodLimits.guestsPerAddressPerHour == 60)
        #expect(defaults.live.maxStreamsPerAddress == 64)

        let (_, config) = try CommandLineParser.parse(
            ["--password-queue", "3", "--guests-per-hour", "500"],
            environment: ["KITH_ACCOUNTS_PER_HOUR": "400", "KITH_STREAMS_PER_ADDRESS": "256", "KITH_GUESTS_PER_HOUR": "7"])
        #expect(config.floodLimits.passwordQueue == 3)
        #expect(config.floodLimits.accountsPerAddressPerHour == 400)
        #expect(config.floodLimits.guestsPerAddressPerHour == 500, "the flag wins")
        #expect(config.live.maxStreamsPerAddress == 256)
        for bad in ["0", "-1", "many", "100001"] {
            #expect(throws: UsageError.self) { try CommandLineParser.parse(["--streams-per-address", bad], environment: [:]) }
        }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--password-queue"], environment: [:]) }
        #expect(CommandLineParser.usage.contains("--accounts-per-hour N"))
    }

    @Test("the default hashing line keeps half the workers free")
    func defaultLine() {
        #expect(Passwords.defaultMaxWaiting(concurrentHashes: 2, workers: 16) == 6)
        #expect(Passwords.defaultMaxWaiting(concurrentHashes: 1, workers: 64) == 4)
        #expect(Passwords.defaultMaxWaiting(concurrentHashes: 16, workers: 16) == 1)
    }
}
