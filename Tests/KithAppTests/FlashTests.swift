import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// Flash messages ride in the session, never in the URL: shown by the next
/// page, once; a refresh does not repeat them and a crafted link shows none.
@Suite("Flash messages")
struct FlashTests {
    /// A post that earns a message: who posts, from which page, where, and what the next page says.
    struct Case {
        let name: String
        let session: WebSession
        let page: String
        let action: String
        let fields: [(String, String)]
        let message: String
    }

    @Test("No redirect names a message; the next page shows it once, a refresh shows it no more")
    func shownOnceThenGone() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        let game = try Plates.create(ada.session)
        try Tallies.befriend(ada.session, "bob")
        _ = try Tallies.create(bob.session, name: "Coffee", shares: [(ada.id, "edit")])
        // Give Ada an inbox entry to mute.
        let party = try OccasionParty.make(app, contributors: 1)
        let cases = [
            Case(name: "spot", session: ada.session, page: "/games/\(game)", action: "/games/\(game)/spots", fields: [("state", "VA")], message: "Spotted Virginia!"),
            Case(
                name: "spot from the list", session: ada.session, page: "/games/\(game)/spot", action: "/games/\(game)/spots",
                fields: [("state", "RI"), ("from", "list")], message: "Spotted Rhode Island!"),
            Case(
                name: "game settings", session: ada.session, page: "/games/\(game)/players", action: "/games/\(game)/settings",
                fields: [("name", "Trip"), ("mode", "competitive")], message: "Saved."),
            Case(name: "friend", session: bob.session, page: "/friends", action: "/friends", fields: [("username", "hana_host")], message: "You and Hana Host are friends now."),
            Case(
                name: "settings", session: bob.session, page: "/settings", action: "/settings/appearance",
                fields: [("theme", "dark"), ("number_style", "arabic")], message: "Appearance saved."),
            Case(
                name: "occasion", session: party.host, page: "\(party.base)/host", action: "\(party.base)/host/points",
                fields: [("delta", "5"), ("reason", "Style")], message: "Saved."),
        ]
        for item in cases {
            let csrf = try item.session.token(from: item.page)
            let response = try item.session.post(item.action, item.fields, csrf: csrf)
            #expect(response.status == 303, "\(item.name): \(response.status) \(response.text.prefix(300))")
            let location = try #require(response.header("Location"), "\(item.name)")
            #expect(!location.contains("?"), "\(item.name): no message in \(location)")
            let next = try item.session.get(location).text
            #expect(next.contains("role=\"status\">\(item.message)</p>"), "\(item.name): the next page says it")
            #expect(next.contains("id=\"flashes\""))
            let refreshed = try item.session.get(location).text
            #expect(!refreshed.contains("role=\"status\">\(item.message)</p>"), "\(item.name): a refresh does not repeat it")
            #expect(!refreshed.contains("class=\"flash flash--notice\""), "\(item.name): no message after a refresh")
        }
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM session_flashes", as: Int64.self) } == 0)
    }

    @Test("Crafted URLs with the old message parameters show nothing")
    func craftedURLs() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let game = try Plates.create(ada.session)
        let party = try OccasionParty.make(app, contributors: 1)
        let pages: [(WebSession, String)] = [
            (ada.session, "/games/\(game)?spotted=VA"), (ada.session, "/games/\(game)?undone=OH"), (ada.session, "/games/\(game)/spot?spotted=RI"),
            (ada.session, "/games/\(game)/players?saved=1"), (ada.session, "/friends?added=Mallory"), (ada.session, "/inbox?saved=muted"),
            (ada.session, "/settings?saved=password"), (party.host, "\(party.base)?notice=unlocked"), (party.host, "\(party.base)/host?notice=saved"),
        ]
        for (session, page) in pages {
            let response = try session.get(page)
            #expect(response.status == 200, "\(page)")
            #expect(!response.text.contains("class=\"flash "), "\(page) shows no message")
        }
    }

    @Test("A message waits for its own session: another device of the same person does not take it")
    func perSession() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let game = try Plates.create(ada.session)
        let phone = WebSession(port: app.port)
        let csrf = try phone.token(from: "/signin")
        #expect(try phone.post("/signin", [("username", "ada"), ("password", "correct horse")], csrf: csrf).status == 303)
        #expect(try Plates.spot(ada.session, game, "VA").status == 303)
        #expect(!(try phone.get("/games/\(game)").text.contains("Spotted Virginia!")))
        #expect(try ada.session.get("/games/\(game)").text.contains("Spotted Virginia!"))
    }

    @Test("A live fragment leaves the message for the page")
    func fragmentsLeaveIt() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let game = try Plates.create(ada.session)
        #expect(try Plates.spot(ada.session, game, "VA").status == 303)
        for fragment in ["/inbox/list", "/inbox/count", "/games/\(game)/board", "/games/\(game)/feed", "/tallies/list"] {
            _ = try ada.session.get(fragment, headers: ["X-Kith-Enhanced": "1"])
        }
        #expect(try ada.session.get("/games/\(game)").text.contains("Spotted Virginia!"))
    }

    @Test("A live refresh of a whole page (an occasion's region refetches its own URL) leaves the message for the post's own fetch")
    func pageRefreshLeavesIt() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let game = try Plates.create(ada.session)
        #expect(try Plates.spot(ada.session, game, "VA").status == 303)
        // The spot's invalidation can reach the open page before the post's redirect is followed.
        let refresh = try ada.session.get("/games/\(game)", headers: ["X-Kith-Enhanced": "fragment"])
        #expect(refresh.status == 200 && !refresh.text.contains("Spotted Virginia!"))
        #expect(try ada.session.get("/games/\(game)", headers: ["X-Kith-Enhanced": "1"]).text.contains("Spotted Virginia!"))
    }

    @Test("The page script's fetch shows the message and keeps it a moment for the navigation that may follow; then it is gone")
    func scriptThenNavigation() throws {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        let game = try Plates.create(ada.session)
        let enhanced = ["X-Kith-Enhanced": "1"]
        #expect(try Plates.spot(ada.session, game, "VA").status == 303)
        #expect(try ada.session.get("/games/\(game)", headers: enhanced).text.contains("Spotted Virginia!"), "the fetch swaps it in")
        #expect(!(try ada.session.get("/games/\(game)", headers: enhanced).text.contains("Spotted Virginia!")), "another fetch does not repeat it")
        #expect(try ada.session.get("/games/\(game)").text.contains("Spotted Virginia!"), "the script's navigation to the page shows it")
        #expect(!(try ada.session.get("/games/\(game)").text.contains("Spotted Virginia!")), "a refresh does not")

        #expect(try Plates.spot(ada.session, game, "OH").status == 303)
        #expect(try ada.session.get("/games/\(game)", headers: enhanced).text.contains("Spotted Ohio!"))
        #expect(!(try ada.session.get("/games/\(game)/players").text.contains("Spotted Ohio!")), "another page, even at once, does not repeat a swapped message")
        clock.withLock { $0 += SessionFlash.replayWindow + 1 }
        #expect(!(try ada.session.get("/games/\(game)").text.contains("Spotted Ohio!")), "long after a swap, a page view does not repeat it")
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM session_flashes", as: Int64.self) } == 0)
    }
}
