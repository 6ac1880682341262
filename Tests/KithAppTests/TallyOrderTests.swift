import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A person's own order of their tallies, and the pins the manifest lists.
@Suite("Tally order and pins")
struct TallyOrderTests {
    /// The tally ids of the list on `page`, top to bottom.
    static func order(_ page: String) -> [Int64] {
        page.matches(of: /<li class="tally-row" id="tally-(\d+)"/).compactMap { Int64($0.output.1) }
    }

    static func home(_ session: WebSession) throws -> [Int64] {
        order(try session.get("/").text)
    }

    /// The same person signed in again, as from another device.
    static func otherDevice(_ app: AppHarness, _ username: String) throws -> WebSession {
        let session = WebSession(port: app.port)
        let token = try session.token(from: "/signin")
        let response = try session.post("/signin", [("username", username), ("password", "correct horse")], csrf: token)
        guard response.status == 303 || response.status == 200, session.sessionCookie != nil else {
            throw TestError("signing in again failed: \(response.status)")
        }
        return session
    }

    @Test("My order is kept on the server: Move up/down are plain forms that land on the row, and another device sees the same order")
    func movesPersist() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let walks = try Tallies.create(ada.session, name: "Walks")
        let teas = try Tallies.create(ada.session, name: "Teas")
        let naps = try Tallies.create(ada.session, name: "Naps")
        #expect(try Tallies.post(ada.session, "/tallies/sort", [("sort", "manual")]).status == 303)
        let page = try ada.session.get("/").text
        #expect(Self.order(page) == [naps, teas, walks], "never placed: newest first")
        #expect(page.contains("<ul class=\"tally-list\" data-order=\"manual\""), "no data-sort: the page script leaves the order alone")
        #expect(page.contains("Move Walks up"))

        // Without script: a form post, back to the moved row, with the news.
        let moved = try Tallies.post(ada.session, "/tallies/\(walks)/move", [("direction", "up")])
        #expect(moved.status == 303)
        #expect(moved.header("Location") == "/#tally-\(walks)")
        let landed = try ada.session.get("/").text
        #expect(landed.contains("Walks moved to 2 of 3."))
        #expect(Self.order(landed) == [naps, walks, teas])

        // The page script's drag sends a position and hears the sentence.
        let dragged = try Tallies.post(ada.session, "/tallies/\(teas)/move", [("to", "1")], headers: ["X-Kith-Enhanced": "1"])
        #expect(dragged.status == 200)
        #expect(dragged.text == "Teas moved to 1 of 3.")
        #expect(try Self.home(ada.session) == [teas, naps, walks])

        // At either end it stays, and says so.
        let first = try Tallies.post(ada.session, "/tallies/\(teas)/move", [("direction", "up")], headers: ["X-Kith-Enhanced": "1"])
        #expect(first.text == "Teas is already first.")

        let laptop = try Self.otherDevice(app, "ada")
        #expect(try Self.home(laptop) == [teas, naps, walks], "the order is the person's, not the browser's")

        // A new tally goes first; the others keep their places.
        let laps = try Tallies.create(ada.session, name: "Laps")
        #expect(try Self.home(laptop) == [laps, teas, naps, walks])
        // The other sorts still sort by time, and My order is still there after.
        #expect(try Tallies.post(ada.session, "/tallies/sort", [("sort", "created")]).status == 303)
        #expect(try Self.home(ada.session) == [laps, naps, teas, walks])
        #expect(try Tallies.post(ada.session, "/tallies/sort", [("sort", "manual")]).status == 303)
        #expect(try Self.home(ada.session) == [laps, teas, naps, walks])
    }

    @Test("moving is per person, refused with a clear 400 for a bad position and a 404 for a tally not shared with you")
    func moveRules() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        let eve = try Tallies.person(app, "eve")
        try Tallies.befriend(ada.session, "bob")
        let shared = try Tallies.create(ada.session, name: "Shared", shares: [(bob.id, "view")])
        let own = try Tallies.create(ada.session, name: "Own")
        let bobs = try Tallies.create(bob.session, name: "Bob's")
        for session in [ada.session, bob.session] {
            #expect(try Tallies.post(session, "/tallies/sort", [("sort", "manual")]).status == 303)
        }
        #expect(try Self.home(bob.session) == [bobs, shared])
        #expect(try Tallies.post(bob.session, "/tallies/\(shared)/move", [("direction", "up")]).status == 303)
        #expect(try Self.home(bob.session) == [shared, bobs])
        #expect(try Self.home(ada.session) == [own, shared], "a view-only friend moving it changes only their own list")

        let cases: [([(String, String)], String)] = [
            ([("direction", "sideways")], "Say where to move it: up, down, or to a position."),
            ([], "Say where to move it: up, down, or to a position."),
            ([("to", "0")], "Say where to move it: a position from 1 to 2."),
            ([("to", "first")], "Say where to move it: a position from 1 to 2."),
            ([("to", "1"), ("direction", "up")], "Say where to move it: up, down, or to a position."),
        ]
        for (fields, message) in cases {
            let response = try Tallies.post(ada.session, "/tallies/\(own)/move", fields)
            #expect(response.status == 400, "\(fields)")
            #expect(response.text.contains(message), "\(fields)")
        }
        // Far past the end is the end.
        #expect(try Tallies.post(ada.session, "/tallies/\(own)/move", [("to", "99")]).status == 303)
        #expect(try Self.home(ada.session) == [shared, own])

        #expect(try Tallies.post(eve.session, "/tallies/\(own)/move", [("direction", "up")]).status == 404)
        #expect(try Tallies.post(eve.session, "/tallies/\(own)/pin", [("pinned", "1")]).status == 404)
        let forged = try ada.session.post("/tallies/\(own)/move", [("direction", "up")], csrf: "forged")
        #expect(forged.status == 403, "a move checks the form token like any change")
        let unknownSort = try Tallies.post(ada.session, "/tallies/sort", [("sort", "alphabetical")])
        #expect(unknownSort.status == 400)
        #expect(unknownSort.text.contains("in your own order"))
    }

    /// The manifest `session` is served, parsed, with its Cache-Control.
    static func manifest(_ session: WebSession) throws -> (json: [String: Any], cache: String?) {
        let response = try session.get("/manifest.webmanifest")
        #expect(response.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (json, response.header("Cache-Control"))
    }

    static func shortcuts(_ json: [String: Any]) -> [(name: String, url: String)] {
        ((json["shortcuts"] as? [[String: Any]]) ?? []).map { ($0["name"] as? String ?? "", $0["url"] as? String ?? "") }
    }

    @Test("the manifest lists the signed-in person's pinned tallies as shortcuts, never cached, and nobody else's")
    func manifestShortcuts() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        try Tallies.befriend(ada.session, "bob")
        let quoted = try Tallies.create(ada.session, name: "Ada's \"walks\" \\ 1", shares: [(bob.id, "edit")])
        let teas = try Tallies.create(ada.session, name: "Teas")
        _ = try Tallies.create(ada.session, name: "Unpinned")

        let before = try Self.manifest(ada.session)
        #expect(Self.shortcuts(before.json).isEmpty)
        #expect(before.cache == "private, no-store", "a signed-in person's manifest is theirs alone")

        let page = try ada.session.get("/tallies/\(quoted)").text
        #expect(page.contains("Pin to home screen"))
        #expect(try Tallies.post(ada.session, "/tallies/\(quoted)/pin", [("pinned", "1")]).status == 303)
        #expect(try Tallies.post(ada.session, "/tallies/\(teas)/pin", [("pinned", "1")]).status == 303)
        #expect(try ada.session.get("/tallies/\(teas)").text.contains("Unpin"))
        let pinned = try Self.manifest(ada.session)
        let listed = Self.shortcuts(pinned.json)
        #expect(listed.map(\.name) == ["Teas", "Ada's \"walks\" \\ 1"], "names survive JSON whole")
        #expect(listed.map(\.url) == ["/tallies/\(teas)?standalone=1", "/tallies/\(quoted)?standalone=1"])
        #expect(((pinned.json["shortcuts"] as? [[String: Any]])?.first?["icons"] as? [Any])?.isEmpty == false)
        #expect(pinned.cache == "private, no-store")

        // Bob sees the same tally but pinned nothing: his manifest has no shortcuts.
        #expect(Self.shortcuts(try Self.manifest(bob.session).json).isEmpty)
        // Nobody signed in: no shortcuts, and the shared manifest may be cached.
        let visitor = try Self.manifest(WebSession(port: app.port))
        #expect(Self.shortcuts(visitor.json).isEmpty)
        #expect(visitor.cache?.hasPrefix("public") == true)

        // Bob pins it; once Ada stops sharing it his shortcut goes with it.
        #expect(try Tallies.post(bob.session, "/tallies/\(quoted)/pin", [("pinned", "1")]).status == 303)
        #expect(Self.shortcuts(try Self.manifest(bob.session).json).map(\.url) == ["/tallies/\(quoted)?standalone=1"])
        let unshare = try Tallies.confirm(ada.session, "/tallies/\(quoted)/sharing", [("share-\(bob.id)", "none")])
        #expect(unshare.status == 303)
        #expect(Self.shortcuts(try Self.manifest(bob.session).json).isEmpty)

        // Unpinning takes it off; a pin that is neither on nor off is refused.
        #expect(try Tallies.post(ada.session, "/tallies/\(teas)/pin", [("pinned", "0")]).status == 303)
        #expect(Self.shortcuts(try Self.manifest(ada.session).json).map(\.name) == ["Ada's \"walks\" \\ 1"])
        let bad = try Tallies.post(ada.session, "/tallies/\(teas)/pin", [("pinned", "yes")])
        #expect(bad.status == 400)
        #expect(bad.text.contains("Say whether to pin it"))
    }

    @Test("a pinned tally opened from its shortcut is the large count alone; unpinned, the same address is the usual page")
    func standalone() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let id = try Tallies.create(ada.session, name: "Glasses")
        #expect(!(try ada.session.get("/tallies/\(id)?standalone=1").text.contains("data-standalone")))
        #expect(try Tallies.post(ada.session, "/tallies/\(id)/pin", [("pinned", "1")]).status == 303)
        let page = try ada.session.get("/tallies/\(id)?standalone=1").text
        #expect(page.contains("data-standalone"))
        #expect(page.contains("class=\"tally-face__count tally-count\""), "the count is still the increment button, so a tap counts without script")
        #expect(!(try ada.session.get("/tallies/\(id)").text.contains("data-standalone")))
    }
}
