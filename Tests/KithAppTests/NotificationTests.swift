import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

/// The kind every story here records: the plate game's wording.
let spotKind = "test.spot"

/// An app on a movable clock, with the spot kind registered before it starts
/// (its sweeper runs at once). `dataDirectory` and `postgres` reuse a
/// folder and a database across a restart.
func notificationsHarness(clock: Locked<Int64>, dataDirectory: String? = nil, postgres: PostgresTestDatabase? = nil) throws -> AppHarness {
    try AppHarness(
        configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            config.clock = { clock.value }
            if let dataDirectory { config.dataDirectory = dataDirectory }
        },
        prepare: { app in
            app.notifications.register(kind: spotKind) { digest in
                "\(Notifications.listing(digest.actorNames)) spotted \(Notifications.listing(digest.subjects)) in \(digest.scopeTitle)"
            }
        }, postgres: postgres)
}

/// Records one spot, as the plate game will, in its own transaction.
func recordSpot(
    _ app: AppHarness, by actor: Int64, name: String = "Dad", _ subject: String, to recipients: [Int64], scope: String = "game:1",
    title: String = "Summer Road Trip", link: String = "/games/1"
) throws {
    let event = Notifications.Event(
        kind: spotKind, scope: scope, scopeTitle: title, actorID: actor, actorName: name, subject: subject, link: link,
        recipients: recipients)
    try app.app.database.write { try app.app.notifications.record(event, in: $0) }
}

/// A person signed up through the real form, with their id.
func signUpMember(_ app: AppHarness, _ username: String, name: String? = nil) throws -> (session: WebSession, id: Int64) {
    let session = try signUp(app, name: name ?? username.capitalized, username: username)
    return (session, try #require(try storedUserID(app, username: username)))
}

func inboxEntries(_ app: AppHarness, userID: Int64) throws -> [NotificationStore.Entry] {
    try app.app.database.read { try NotificationStore.inbox($0, userID: userID, limit: 100) }
}

func pendingDigests(_ app: AppHarness, userID: Int64) throws -> Int {
    try app.app.database.read { try NotificationStore.pendingDigestCount($0, userID: userID) }
}

/// Where every story's clock begins.
let digestStart: Int64 = 1_800_000_000

@Suite("Notification digests")
struct NotificationDigestTests {
    @Test("a digest waits until its game has been quiet for two minutes, then goes out once")
    func quietPeriod() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        clock.withLock { $0 = digestStart + 60 }
        try recordSpot(app, by: dad.id, "Ohio", to: [kid.id])

        clock.withLock { $0 = digestStart + 150 }
        #expect(try app.app.notifications.sweep(now: digestStart + 150).isEmpty, "not quiet for two minutes since the second spot")
        #expect(try inboxEntries(app, userID: kid.id).isEmpty)
        #expect(try pendingDigests(app, userID: kid.id) == 1)

        clock.withLock { $0 = digestStart + 181 }
        let delivered = try app.app.notifications.sweep(now: digestStart + 181)
        let entries = try inboxEntries(app, userID: kid.id)
        #expect(entries.count == 1)
        #expect(entries.first?.body == "Dad spotted Idaho and Ohio in Summer Road Trip")
        #expect(entries.first?.title == "Summer Road Trip")
        #expect(entries.first?.url == "/games/1")
        #expect(entries.first?.eventCount == 2)
        #expect(try pendingDigests(app, userID: kid.id) == 0, "the digest is gone once delivered")
        #expect(try app.app.notifications.sweep(now: digestStart + 400).isEmpty, "nothing is delivered twice")
        // The background sweeper may have got there first; either way it went out once.
        #expect(delivered.count <= 1)
        #expect(try inboxEntries(app, userID: kid.id).count == 1)
    }

    @Test("a spot every minute is still delivered at the five-minute cap, as one coalesced notification")
    func capAndCoalescing() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        let states = ["Idaho", "Ohio", "Utah", "Maine", "Texas"]
        for (minute, state) in states.enumerated() {
            let now = digestStart + Int64(minute) * 60
            clock.withLock { $0 = now }
            try recordSpot(app, by: dad.id, state, to: [kid.id])
            #expect(try app.app.notifications.sweep(now: now).isEmpty, "held while the game is busy (minute \(minute))")
        }
        clock.withLock { $0 = digestStart + 299 }
        #expect(try app.app.notifications.sweep(now: digestStart + 299).isEmpty, "neither quiet nor at the cap yet")
        #expect(try inboxEntries(app, userID: kid.id).isEmpty)

        clock.withLock { $0 = digestStart + 300 }
        try app.app.notifications.sweep(now: digestStart + 300)
        let entries = try inboxEntries(app, userID: kid.id)
        #expect(entries.count == 1, "five spots, one notification")
        #expect(entries.first?.body == "Dad spotted Idaho, Ohio and 3 more in Summer Road Trip")
        #expect(entries.first?.eventCount == 5)
    }

    @Test("the quiet period belongs to the game: a recipient's own spots keep their digest waiting")
    func quietIsPerScope() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        clock.withLock { $0 = digestStart + 100 }
        try recordSpot(app, by: kid.id, name: "Kid", "Ohio", to: [dad.id])
        #expect(try app.app.notifications.sweep(now: digestStart + 150).isEmpty)
        #expect(try inboxEntries(app, userID: kid.id).isEmpty, "the game was busy 50 seconds ago")
        // Another game's activity does not hold this one.
        clock.withLock { $0 = digestStart + 150 }
        try recordSpot(app, by: dad.id, "Utah", to: [kid.id], scope: "game:2", title: "Weekend")
        clock.withLock { $0 = digestStart + 221 }
        try app.app.notifications.sweep(now: digestStart + 221)
        #expect(try inboxEntries(app, userID: kid.id).map(\.title) == ["Summer Road Trip"])
        #expect(try inboxEntries(app, userID: dad.id).map(\.body) == ["Kid spotted Ohio in Summer Road Trip"])
    }

    @Test("every other member gets their own digest; the one who spotted gets none")
    func onePerRecipient() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid"), mum = try signUpMember(app, "mum")
        try recordSpot(app, by: dad.id, "Idaho", to: [dad.id, kid.id, mum.id, kid.id])
        try recordSpot(app, by: dad.id, "Ohio", to: [dad.id, kid.id, mum.id])
        #expect(try pendingDigests(app, userID: kid.id) == 1)
        #expect(try pendingDigests(app, userID: mum.id) == 1)
        #expect(try pendingDigests(app, userID: dad.id) == 0, "no digest for the actor")

        try app.app.notifications.sweep(now: digestStart + Notifications.maximumDelay)
        #expect(try inboxEntries(app, userID: kid.id).count == 1)
        #expect(try inboxEntries(app, userID: mum.id).count == 1)
        #expect(try inboxEntries(app, userID: dad.id).isEmpty, "nothing for the actor")
    }

    @Test("delivery observers hear of each notification after it is committed")
    func observers() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        let heard = Locked<[(Notifications.Delivered, Int)]>([])
        let database = app.app.database
        app.app.notifications.addDeliveryObserver { delivered in
            // Counted from a reader: the row must already be visible.
            let stored = (try? database.read { try NotificationStore.unreadCount($0, userID: delivered.userID) }) ?? -1
            heard.withLock { $0.append((delivered, stored)) }
        }
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        try app.app.notifications.sweep(now: digestStart + 200)
        let calls = heard.value
        #expect(calls.count == 1)
        #expect(calls.first?.0.userID == kid.id)
        #expect(calls.first?.0.title == "Summer Road Trip")
        #expect(calls.first?.0.body == "Dad spotted Idaho in Summer Road Trip")
        #expect(calls.first?.0.url == "/games/1")
        #expect(calls.first?.1 == 1, "the observer ran after the commit")
    }

    @Test("pending digests survive a restart and are delivered after it")
    func survivesRestart() throws {
        let directory = try TemporaryDirectory("kith-notifications")
        let data = directory.path + "/data"
        let clock = Locked(digestStart)
        var first: AppHarness? = try notificationsHarness(clock: clock, dataDirectory: data)
        let dad = try signUpMember(first!, "dad"), kid = try signUpMember(first!, "kid")
        try recordSpot(first!, by: dad.id, "Idaho", to: [kid.id])
        try recordSpot(first!, by: dad.id, "Ohio", to: [kid.id])
        let database = first!.postgres
        first = nil

        let second = try notificationsHarness(clock: clock, dataDirectory: data, postgres: database)
        #expect(try pendingDigests(second, userID: kid.id) == 1, "the digest is a row, not memory")
        #expect(try inboxEntries(second, userID: kid.id).isEmpty)
        clock.withLock { $0 = digestStart + 121 }
        try second.app.notifications.sweep(now: digestStart + 121)
        #expect(try inboxEntries(second, userID: kid.id).map(\.body) == ["Dad spotted Idaho and Ohio in Summer Road Trip"])
    }

    @Test("the sweeper thread delivers due digests by itself, within a few seconds")
    func sweeperThread() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        clock.withLock { $0 = digestStart + Notifications.quietPeriod }
        let deadline = Date().addingTimeInterval(Notifications.sweepInterval * 2 + 2)
        while try inboxEntries(app, userID: kid.id).isEmpty && Date() < deadline { usleep(100_000) }
        #expect(try inboxEntries(app, userID: kid.id).map(\.body) == ["Dad spotted Idaho in Summer Road Trip"])
    }

    @Test("muting a game from a notification stops its digests for that person only; unmuting brings them back")
    func muting() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid"), mum = try signUpMember(app, "mum")
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        try app.app.notifications.sweep(now: digestStart + 200)
        let entry = try #require(try inboxEntries(app, userID: kid.id).first)

        // Someone else cannot mute through the kid's notification.
        #expect(try mum.session.post("/inbox/\(entry.id)/mute", [("muted", "1")], csrf: try mum.session.token(from: "/inbox")).status == 404)
        #expect(try !app.app.notifications.isMuted(scope: "game:1", for: kid.id))

        let token = try kid.session.token(from: "/inbox")
        let muted = try kid.session.post("/inbox/\(entry.id)/mute", [("muted", "1")], csrf: token)
        #expect(muted.status == 303)
        #expect(muted.header("Location") == "/inbox")
        #expect(try app.app.notifications.isMuted(scope: "game:1", for: kid.id))
        let page = try kid.session.get("/inbox")
        #expect(page.text.contains("Unmute Summer Road Trip"))
        #expect(page.text.contains("Muted. You won&#39;t hear about that any more."))

        clock.withLock { $0 = digestStart + 300 }
        try recordSpot(app, by: dad.id, "Ohio", to: [kid.id, mum.id])
        #expect(try pendingDigests(app, userID: kid.id) == 0, "a muted game fans out nothing to them")
        #expect(try pendingDigests(app, userID: mum.id) == 1, "others still hear")
        try app.app.notifications.sweep(now: digestStart + 600)
        #expect(try inboxEntries(app, userID: kid.id).count == 1)

        #expect(try kid.session.post("/inbox/\(entry.id)/mute", [("muted", "0")], csrf: token).status == 303)
        try recordSpot(app, by: dad.id, "Utah", to: [kid.id])
        #expect(try pendingDigests(app, userID: kid.id) == 1)
    }

    @Test("the wording helper names a few and counts the rest")
    func listing() {
        #expect(Notifications.listing([]) == "")
        #expect(Notifications.listing(["Idaho"]) == "Idaho")
        #expect(Notifications.listing(["Idaho", "Ohio"]) == "Idaho and Ohio")
        #expect(Notifications.listing(["Idaho", "Ohio", "Utah"]) == "Idaho, Ohio and Utah")
        #expect(Notifications.listing(["Idaho", "Ohio", "Utah", "Maine", "Texas"]) == "Idaho, Ohio and 3 more")
    }
}

@Suite("The inbox")
struct InboxTests {
    /// Two delivered notifications for the kid, the Weekend one newer.
    static func twoNotifications() throws -> (app: AppHarness, clock: Locked<Int64>, dad: (session: WebSession, id: Int64), kid: (session: WebSession, id: Int64)) {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        clock.withLock { $0 = digestStart + 200 }
        try app.app.notifications.sweep(now: digestStart + 200)
        try recordSpot(app, by: dad.id, "Ohio", to: [kid.id], scope: "game:2", title: "Weekend <Trip>", link: "/games/2")
        clock.withLock { $0 = digestStart + 400 }
        try app.app.notifications.sweep(now: digestStart + 400)
        return (app, clock, dad, kid)
    }

    static func count(_ text: String, _ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("the inbox lists notifications newest first, unread ones marked in words, escaped")
    func listsNewestFirst() throws {
        let (app, _, dad, kid) = try Self.twoNotifications()
        let page = try kid.session.get("/inbox")
        #expect(page.status == 200)
        let text = page.text
        let weekend = try #require(text.range(of: "Weekend &lt;Trip&gt;"))
        let summer = try #require(text.range(of: "Summer Road Trip"))
        #expect(weekend.lowerBound < summer.lowerBound, "newest first")
        #expect(!text.contains("Weekend <Trip>"), "titles are escaped")
        #expect(Self.count(text, ">Unread</span>") == 2)
        #expect(text.contains("id=\"inbox-list\" data-fragment=\"/inbox/list\""))
        #expect(text.contains("Mark all read"))
        #expect(text.contains("<meta name=\"kith-live\" content=\"inbox:\(kid.id)\""), "the page follows the inbox")

        let theirs = try dad.session.get("/inbox")
        #expect(!theirs.text.contains("Summer Road Trip"), "the actor's inbox does not show the kid's notifications")
        #expect(theirs.text.contains("Nothing new"))
        #expect(theirs.text.contains("class=\"empty-state\""))
        #expect(!theirs.text.contains("Mark all read"))
        _ = app
    }

    @Test("the count fragment matches the nav badge, and is hidden at zero")
    func countFragment() throws {
        let (app, _, dad, kid) = try Self.twoNotifications()
        let badge = "<span class=\"badge\" id=\"inbox-count\" data-fragment=\"/inbox/count\">2<span class=\"visually-hidden\"> unread</span></span>"
        let fragment = try kid.session.get("/inbox/count")
        #expect(fragment.status == 200)
        #expect(fragment.text == badge)
        #expect(try kid.session.get("/").text.contains(badge), "the nav shows the same markup")

        let hidden = "<span class=\"badge\" id=\"inbox-count\" data-fragment=\"/inbox/count\" hidden></span>"
        #expect(try dad.session.get("/inbox/count").text == hidden)
        #expect(try dad.session.get("/").text.contains(hidden))
        let signedOut = try WebSession(port: app.port).get("/inbox/count", headers: ["X-Kith-Enhanced": "1"])
        #expect(signedOut.status == 401 && signedOut.header("X-Kith-Ending") == "signed-out", "signed out: the script hears why")
        #expect(try WebSession(port: app.port).get("/inbox").status == 303, "signed out: sign in first")

        let list = try kid.session.get("/inbox/list")
        #expect(list.text.hasPrefix("<ul class=\"stack\" id=\"inbox-list\""))
        #expect(!list.text.contains("<html"), "a fragment, not a page")
    }

    @Test("opening a notification marks it read and goes to its deep link; another person's id is a 404")
    func openMarksRead() throws {
        let (app, _, dad, kid) = try Self.twoNotifications()
        let entries = try inboxEntries(app, userID: kid.id)
        let summer = try #require(entries.first { $0.title == "Summer Road Trip" })

        let stranger = try dad.session.post("/inbox/\(summer.id)/open", [], csrf: try dad.session.token(from: "/inbox"))
        #expect(stranger.status == 404)
        #expect(try dad.session.get("/inbox/\(summer.id)/open").status != 200)
        #expect(try inboxEntries(app, userID: kid.id).allSatisfy { !$0.isRead }, "a refused open marks nothing")

        let token = try kid.session.token(from: "/inbox")
        #expect(try kid.session.post("/inbox/999999/open", [], csrf: token).status == 404)
        #expect(try kid.session.post("/inbox/\(summer.id)/open", []).status == 403, "no form token, no change")

        let opened = try kid.session.post("/inbox/\(summer.id)/open", [], csrf: token)
        #expect(opened.status == 303)
        #expect(opened.header("Location") == "/games/1")
        let after = try inboxEntries(app, userID: kid.id)
        #expect(after.first { $0.id == summer.id }?.isRead == true)
        #expect(after.first { $0.id != summer.id }?.isRead == false)
        #expect(try kid.session.get("/inbox/count").text.contains(">1<span class=\"visually-hidden\"> unread</span>"))
        #expect(Self.count(try kid.session.get("/inbox/list").text, ">Unread</span>") == 1)
    }

    @Test("a deep link that would leave Kith opens the inbox instead")
    func onlyLocalLinks() throws {
        for bad in ["https://evil.example/", "//evil.example/x", "/\\evil.example", "games/1", "/games/1\r\nSet-Cookie: x=y", ""] {
            #expect(NotificationRoutes.localPath(bad) == nil, "\(bad)")
        }
        #expect(NotificationRoutes.localPath("/games/1?tab=map#board") == "/games/1?tab=map#board")

        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id], link: "//evil.example/")
        try app.app.notifications.sweep(now: digestStart + 200)
        let entry = try #require(try inboxEntries(app, userID: kid.id).first)
        let opened = try kid.session.post("/inbox/\(entry.id)/open", [], csrf: try kid.session.token(from: "/inbox"))
        #expect(opened.status == 303)
        #expect(opened.header("Location") == "/inbox")
    }

    @Test("mark all read clears every unread mark and the badge")
    func markAllRead() throws {
        let (app, _, _, kid) = try Self.twoNotifications()
        let done = try kid.session.post("/inbox/read-all", [], csrf: try kid.session.token(from: "/inbox"))
        #expect(done.status == 303)
        #expect(done.header("Location") == "/inbox")
        #expect(try inboxEntries(app, userID: kid.id).allSatisfy(\.isRead))
        let page = try kid.session.get("/inbox")
        #expect(!page.text.contains(">Unread</span>"))
        #expect(!page.text.contains("Mark all read"))
        #expect(page.text.contains("Summer Road Trip"), "read notifications stay listed")
        #expect(page.text.contains("data-fragment=\"/inbox/count\" hidden></span>"))
    }
}

@Suite("The inbox, live")
struct InboxLiveTests {
    func openStream(_ app: AppHarness, topic: String, cookie: String?) throws -> TestClient {
        let client = try TestClient(port: app.port)
        let cookieHeader = cookie.map { "Cookie: kith_session=\($0)\r\n" } ?? ""
        try client.send("GET /live?topics=\(topic) HTTP/1.1\r\nHost: localhost\r\n\(cookieHeader)\r\n")
        return client
    }

    @Test("a delivered digest invalidates the recipient's badge and list over their stream")
    func deliveryPublishes() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        let stream = try openStream(app, topic: "inbox:\(kid.id)", cookie: kid.session.sessionCookie)
        #expect(try stream.read(until: "retry: 2000", timeout: 5).hasPrefix("HTTP/1.1 200"))
        let dadStream = try openStream(app, topic: "inbox:\(dad.id)", cookie: dad.session.sessionCookie)
        _ = try dadStream.read(until: "retry: 2000", timeout: 5)

        try recordSpot(app, by: dad.id, "Idaho", to: [kid.id])
        try app.app.notifications.sweep(now: digestStart + 200)
        let received = try stream.read(until: "inbox-list", timeout: 5)
        #expect(received.contains("{\"topic\":\"inbox:\(kid.id)\",\"fragments\":[\"inbox-count\",\"inbox-list\"]}"))
        // The actor's stream hears nothing of it.
        #expect(throws: (any Error).self) { try dadStream.read(until: "invalidate", timeout: 0.5) }
    }

    @Test("another person's inbox topic is refused, and so is a signed-out visitor")
    func othersRefused() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let dad = try signUpMember(app, "dad"), kid = try signUpMember(app, "kid")
        for (cookie, label) in [(dad.session.sessionCookie, "another member"), (nil, "signed out")] {
            let response = try openStream(app, topic: "inbox:\(kid.id)", cookie: cookie).readResponse()
            #expect(response.status == 404, "\(label)")
            #expect(!response.text.contains("retry:"), "\(label)")
        }
        let own = try openStream(app, topic: "inbox:\(kid.id)", cookie: kid.session.sessionCookie)
        #expect(try own.read(until: "retry: 2000", timeout: 5).hasPrefix("HTTP/1.1 200"))
    }
}

@Suite("Deleting an account with notifications")
struct NotificationPurgeTests {
    @Test("deleting a person leaves none of their notifications, digests, mutes or events in others' digests")
    func purge() throws {
        let clock = Locked(digestStart)
        let app = try notificationsHarness(clock: clock)
        let gran = try signUpMember(app, "gran"), aunt = try signUpMember(app, "aunt"), uncle = try signUpMember(app, "uncle")
        // Gran has a delivered notification, a pending digest and a mute.
        try recordSpot(app, by: aunt.id, name: "Aunt", "Idaho", to: [gran.id])
        try app.app.notifications.sweep(now: digestStart + 200)
        clock.withLock { $0 = digestStart + 300 }
        try recordSpot(app, by: aunt.id, name: "Aunt", "Ohio", to: [gran.id], scope: "game:2", title: "Weekend")
        try app.app.database.write { try app.app.notifications.mute(scope: "game:3", for: gran.id, in: $0) }
        // Gran acts in two digests: alone in Aunt's, and beside Aunt in Uncle's.
        try recordSpot(app, by: gran.id, name: "Gran", "Utah", to: [aunt.id, uncle.id])
        try recordSpot(app, by: aunt.id, name: "Aunt", "Maine", to: [uncle.id])

        let walk = try EveryTableWalk(userID: gran.id, in: app.app.database)
        let places = Set(try walk.references(in: app.app.database).map { "\($0.table).\($0.column)" })
        for expected in [
            "notifications.user_id", "notification_digests.user_id", "notification_mutes.user_id",
            "notification_digest_events.actor_user_id",
        ] {
            #expect(places.contains(expected), "the walk sees \(expected): \(places)")
        }

        #expect(try postDelete(gran.session, [("password", "correct horse")]).status == 303)
        let after = try walk.references(in: app.app.database)
        #expect(after.isEmpty, "left behind: \(after)")
        #expect(try pendingDigests(app, userID: aunt.id) == 0, "a digest with only Gran's events is gone")
        #expect(try pendingDigests(app, userID: uncle.id) == 1, "Uncle's digest keeps Aunt's event")

        clock.withLock { $0 = digestStart + 1000 }
        try app.app.notifications.sweep(now: digestStart + 1000)
        #expect(try inboxEntries(app, userID: uncle.id).map(\.body) == ["Aunt spotted Maine in Summer Road Trip"])
        #expect(try inboxEntries(app, userID: aunt.id).isEmpty)
    }
}

@Suite("The inbox is valid HTML", .serialized)
struct InboxHTMLValidationTests {
    @Test(
        "a full inbox, an empty one and both fragments pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func inboxValidates() throws {
        let (app, _, dad, kid) = try InboxTests.twoNotifications()
        defer { withExtendedLifetime(app) {} }
        let directory = try TemporaryDirectory("kith-inbox-html")
        let pages = [("inbox-full", kid.session, "/inbox"), ("inbox-empty", dad.session, "/inbox")]
        for (name, session, path) in pages {
            let response = try session.get(path)
            #expect(response.status == 200, "\(name)")
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        // Fragments are checked inside a minimal document, as the page embeds them.
        for (name, path) in [("fragment-list", "/inbox/list"), ("fragment-count", "/inbox/count")] {
            let fragment = try kid.session.get(path).text
            let document = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>x</title></head><body>\(fragment)</body></html>"
            try Data(document.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        try HTMLValidationTests.expectValid(directory: directory.path)
    }
}
