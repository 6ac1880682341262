import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Friends")
struct FriendTests {
    @Test("adding by username is mutual at once, case-insensitive, with clear messages for the wrong name, yourself and an old friend")
    func add() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "Bob_R", name: "Bob")
        let added = try Tallies.post(ada.session, "/friends", [("username", "@bob_r")])
        #expect(added.status == 303)
        #expect(try ada.session.get(added.header("Location")!).text.contains("You and Bob are friends now."))
        #expect(try bob.session.get("/friends").text.contains("<strong>Ada</strong>"), "mutual without Bob doing anything")

        let cases: [(String, String)] = [
            ("nobody_here", "Nobody on Kith goes by nobody_here."),
            ("ADA", "That&#39;s you!"),
            ("bob_r", "You and Bob are already friends."),
            ("", "Enter their username."),
        ]
        for (typed, message) in cases {
            let response = try Tallies.post(ada.session, "/friends", [("username", typed)])
            #expect(response.status == 422, "\(typed)")
            #expect(response.text.contains(message), "\(typed)")
            #expect(response.text.contains("id=\"field-username-error\""), "\(typed)")
        }
        let rows = try app.app.database.read { try $0.queryValue("SELECT count(*) FROM friendships", as: Int64.self) }
        #expect(rows == 2, "one friendship, stored both ways, never doubled")
    }

    @Test("removing a friend stops every tally shared between the two, both ways, and nothing else")
    func removeUnshares() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        let cy = try Tallies.person(app, "cyd")
        try Tallies.befriend(ada.session, "bob")
        try Tallies.befriend(ada.session, "cyd")
        let adas = try Tallies.create(ada.session, name: "Ada's walks", shares: [(bob.id, "edit"), (cy.id, "view")])
        let bobs = try Tallies.create(bob.session, name: "Bob's teas", shares: [(ada.id, "view")])
        #expect(try bob.session.get("/tallies/\(adas)").status == 200)
        #expect(try ada.session.get("/tallies/\(bobs)").status == 200)

        // Bob removes Ada: one request, both directions.
        #expect(try Tallies.confirm(bob.session, "/friends/\(ada.id)/remove").status == 303)
        #expect(try bob.session.get("/tallies/\(adas)").status == 404)
        #expect(try ada.session.get("/tallies/\(bobs)").status == 404)
        #expect(!(try ada.session.get("/").text.contains("Bob&#39;s teas")))
        #expect(!(try ada.session.get("/friends").text.contains("<strong>Bob</strong>")))
        #expect(try cy.session.get("/tallies/\(adas)").status == 200, "Cy's share is untouched")
        // Removing someone who is not a friend is a 404, and changes nothing.
        #expect(try Tallies.post(bob.session, "/friends/\(ada.id)/remove").status == 404)
        #expect(try Tallies.post(bob.session, "/friends/notanumber/remove").status == 404)
    }

    @Test("removing a friend with no tallies shared between the two changes only their friendship")
    func removeWithNothingShared() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        let cy = try Tallies.person(app, "cyd")
        try Tallies.befriend(ada.session, "bob")
        try Tallies.befriend(ada.session, "cyd")
        try Tallies.befriend(bob.session, "cyd")
        let adas = try Tallies.create(ada.session, name: "Ada's walks", shares: [(cy.id, "edit")])
        _ = try Tallies.create(bob.session, name: "Bob's teas", shares: [(cy.id, "view")])
        _ = try cy.session.get("/tallies/\(adas)")
        let tallies = try tallyRows(app)

        #expect(try Tallies.confirm(ada.session, "/friends/\(bob.id)/remove").status == 303)
        #expect(try tallyRows(app) == tallies, "the tallies' hook found nothing to unshare")
        let friendships = try app.app.database.read { db in
            try db.query("SELECT user_id, friend_id FROM friendships ORDER BY 1, 2").map { [try $0.get("user_id") as Int64, try $0.get("friend_id") as Int64] }
        }
        #expect(friendships == [[ada.id, cy.id], [bob.id, cy.id], [cy.id, ada.id], [cy.id, bob.id]].sorted { ($0[0], $0[1]) < ($1[0], $1[1]) })
    }

    /// Every row of the tallies' tables, to prove a friendship ending left them alone.
    func tallyRows(_ app: AppHarness) throws -> [String] {
        try app.app.database.read { db in
            var lines: [String] = []
            for table in ["tallies", "tally_shares", "tally_views", "tally_list_preferences"] {
                lines += try TestCatalog.lines(db, table)
            }
            return lines
        }
    }
}

@Suite("Tallies")
struct TallyTests {
    /// Owner Ada, edit friend Bob, view friend Cy, stranger Dee, and Ada's tally.
    struct Cast {
        let app: AppHarness
        let owner, edit, view, stranger: (session: WebSession, id: Int64)
        let tally: Int64
    }

    static func cast() throws -> Cast {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        let cy = try Tallies.person(app, "cyd", name: "Cy")
        let dee = try Tallies.person(app, "dee", name: "Dee")
        try Tallies.befriend(ada.session, "bob")
        try Tallies.befriend(ada.session, "cyd")
        try Tallies.befriend(dee.session, "bob")
        let tally = try Tallies.create(ada.session, name: "Coffee", count: 5, shares: [(bob.id, "edit"), (cy.id, "view")])
        return Cast(app: app, owner: ada, edit: bob, view: cy, stranger: dee, tally: tally)
    }

    @Test("the permission matrix: every tally route for owner, edit friend, view friend and stranger")
    func permissionMatrix() throws {
        let cast = try Self.cast()
        let id = cast.tally
        // Route, form fields, and the status for owner, edit, view, stranger.
        let posts: [(String, [(String, String)], [Int])] = [
            ("increment", [], [303, 303, 403, 404]),
            ("count", [("count", "7")], [303, 303, 403, 404]),
            ("reset", [], [303, 303, 403, 404]),
            ("rename", [("name", "Coffees")], [303, 403, 403, 404]),
            ("schedule", [("schedule", "daily")], [303, 403, 403, 404]),
            ("fireworks", [("fireworks", "0")], [303, 403, 403, 404]),
            ("sharing", [("share-\(cast.edit.id)", "edit"), ("share-\(cast.view.id)", "view")], [303, 403, 403, 404]),
            ("mute", [("muted", "1")], [303, 303, 303, 404]),
        ]
        let people = [cast.owner, cast.edit, cast.view, cast.stranger]
        let names = ["owner", "edit friend", "view friend", "stranger"]
        for (route, fields, expected) in posts {
            for (index, person) in people.enumerated() {
                let before = try Tallies.row(cast.app, id)
                let response = try Tallies.confirm(person.session, "/tallies/\(id)/\(route)", fields)
                #expect(response.status == expected[index], "\(route) by \(names[index])")
                if expected[index] != 303 {
                    #expect(try Tallies.row(cast.app, id) == before, "a refused \(route) changes nothing")
                }
                if expected[index] == 404 {
                    #expect(!response.text.contains("Coffee"), "a stranger learns nothing of the tally")
                }
            }
        }
        let gets = ["", "/row", "/face", "/people"]
        for suffix in gets {
            for (index, person) in people.enumerated() {
                let response = try person.session.get("/tallies/\(id)\(suffix)")
                #expect(response.status == (index == 3 ? 404 : 200), "GET \(suffix) by \(names[index])")
                if suffix != "/people" { #expect(response.text.contains("Coffee") == (index != 3)) }
                if index == 3 { #expect(!response.text.contains("Ada")) }
            }
        }
        // Leaving and deleting, last: the owner cannot leave, friends cannot delete.
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(id)/leave").status == 403)
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(id)/delete").status == 403)
        #expect(try Tallies.post(cast.stranger.session, "/tallies/\(id)/delete").status == 404)
        #expect(try Tallies.confirm(cast.view.session, "/tallies/\(id)/leave").status == 303)
        #expect(try cast.view.session.get("/tallies/\(id)").status == 404, "Cy left")
        #expect(try Tallies.confirm(cast.owner.session, "/tallies/\(id)/delete").status == 303)
        #expect(try cast.edit.session.get("/tallies/\(id)").status == 404, "gone for everyone")
        #expect(try Tallies.row(cast.app, id) == nil)
        #expect(try cast.owner.session.get("/tallies").header("Location") == "/", "the list lives on the home page")
        // Malformed ids are 404 too.
        #expect(try cast.owner.session.get("/tallies/12abc").status == 404)
        #expect(try Tallies.post(cast.owner.session, "/tallies/99999999999999999999/increment").status == 404)
    }

    @Test("a view-only friend sees the count as a view-only control, with a lock, and no form to post")
    func viewOnlyRow() throws {
        let cast = try Self.cast()
        let row = try cast.view.session.get("/tallies/\(cast.tally)/row").text
        #expect(row.contains("data-view-only"))
        #expect(row.contains("aria-label=\"Coffee, 5, view only\""))
        #expect(row.contains("<span class=\"visually-hidden\">View only</span>"))
        #expect(!row.contains("/increment"))
        let edit = try cast.edit.session.get("/tallies/\(cast.tally)/row").text
        #expect(edit.contains("aria-label=\"Coffee, 5, increment\""))
        #expect(edit.contains("action=\"/tallies/\(cast.tally)/increment\""))
        #expect(!edit.contains("data-view-only"))
    }

    @Test("increments from several sessions at once all count")
    func parallelIncrements() throws {
        let cast = try Self.cast()
        let id = cast.tally
        let fifth = try Tallies.person(cast.app, "eve")
        try Tallies.befriend(cast.owner.session, "eve")
        #expect(try Tallies.confirm(cast.owner.session, "/tallies/\(id)/sharing", [("share-\(cast.edit.id)", "edit"), ("share-\(fifth.id)", "edit")]).status == 303)
        let sessions = [cast.owner.session, cast.edit.session, fifth.session]
        let tokens = try sessions.map { try $0.token(from: "/") }
        let failures = Locked(0)
        let perSession = 30
        DispatchQueue.concurrentPerform(iterations: sessions.count) { index in
            for _ in 0..<perSession {
                let status = (try? sessions[index].post("/tallies/\(id)/increment", [], csrf: tokens[index]).status) ?? 0
                if status != 303 { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.value == 0)
        #expect(try Tallies.count(cast.app, id) == 5 + Int64(sessions.count * perSession))
    }

    @Test("bad input is refused with a message beside the field, and changes nothing")
    func badInput() throws {
        let cast = try Self.cast()
        let id = cast.tally
        let before = try Tallies.row(cast.app, id)
        let cases: [(String, [(String, String)], String)] = [
            ("count", [("count", "twelve")], "Enter a whole number from 0 to 999,999,999."),
            ("count", [("count", "-1")], "Enter a whole number from 0 to 999,999,999."),
            ("count", [("count", "1000000000")], "Enter a whole number from 0 to 999,999,999."),
            ("rename", [("name", "   ")], "Enter the tally name."),
            ("rename", [("name", String(repeating: "x", count: 61))], "Keep the tally name to 60 characters or fewer."),
            ("rename", [("name", "bell\u{7}ring")], "The tally name has an invisible character in it; please type it again."),
            ("schedule", [("schedule", "weekly")], "Choose when the tally resets."),
            ("sharing", [("share-\(cast.stranger.id)", "edit")], "You can only share a tally with your friends."),
            ("sharing", [("share-\(cast.edit.id)", "admin")], "Choose not shared, can view or can edit for each friend."),
        ]
        for (route, fields, message) in cases {
            let response = try Tallies.post(cast.owner.session, "/tallies/\(id)/\(route)", fields)
            #expect(response.status == 422, "\(route) \(fields)")
            #expect(response.text.contains(message), "\(route) \(fields)")
        }
        #expect(try Tallies.row(cast.app, id) == before)
        #expect(try Tallies.post(cast.owner.session, "/tallies/sort", [("sort", "sideways")]).status == 400)

        let created = try Tallies.post(cast.owner.session, "/tallies", [("name", ""), ("count", "lots"), ("schedule", "hourly")])
        #expect(created.status == 422)
        for message in ["Enter the tally name.", "Enter a whole number", "Choose when the tally resets."] {
            #expect(created.text.contains(message))
        }
        #expect(created.text.contains("value=\"lots\""), "what was typed comes back")
        let tallies = try cast.app.app.database.read { try $0.queryValue("SELECT count(*) FROM tallies", as: Int64.self) }
        #expect(tallies == 1)
    }

    @Test("a tally past the largest count refuses one more, and the count stays")
    func ceiling() throws {
        let cast = try Self.cast()
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(cast.tally)/count", [("count", "999999999")]).status == 303)
        // A plain form goes back with the maximum said; the page script gets a 422 (TallyLayoutTests).
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(cast.tally)/increment").status == 303)
        #expect(try cast.owner.session.get("/tallies/\(cast.tally)").text.contains("at its maximum, 999,999,999"))
        #expect(try Tallies.count(cast.app, cast.tally) == 999_999_999)
    }

    @Test("the row flashes whoever else changed it since you last looked, once; your own changes never flash")
    func lastSeenFlash() throws {
        let cast = try Self.cast()
        let id = cast.tally
        let home = try cast.owner.session.get("/").text
        #expect(home.contains("id=\"tally-\(id)\""))
        #expect(!home.contains("tally-flash"), "Ada made it: nothing to flash")

        #expect(try Tallies.post(cast.edit.session, "/tallies/\(id)/increment").status == 303)
        let first = try cast.owner.session.get("/tallies/\(id)/row").text
        #expect(first.contains("data-flash=\"/tallies/seen\""))
        #expect(first.contains("Bob changed this"))
        #expect(try cast.owner.session.get("/tallies/\(id)/row").text.contains("data-flash"), "looking is not a write: still unseen")
        // The page script says what it showed; a stranger saying so changes nothing.
        let version = try #require(first.firstMatch(of: #/data-version="(\d+)"/#)?.output.1)
        let stranger = cast.stranger
        #expect(try Tallies.post(stranger.session, "/tallies/seen", [("tally", "\(id):\(version)")]).status == 204)
        #expect(try cast.app.app.database.read {
            try $0.queryValue("SELECT count(*) FROM tally_views WHERE user_id = \(stranger.id)", as: Int64.self)
        } == 0)
        #expect(try Tallies.post(cast.owner.session, "/tallies/seen", [("tally", "\(id):\(version)")]).status == 204)
        let again = try cast.owner.session.get("/tallies/\(id)/row").text
        #expect(!again.contains("data-flash"), "seen now")

        // Bob's own change does not flash for Bob; Cy never looked, so sees it.
        #expect(!(try cast.edit.session.get("/tallies/\(id)/row").text.contains("data-flash")))
        #expect(try cast.view.session.get("/").text.contains("Bob changed this"))
        // Ada's change flashes for Bob, on his home list.
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(id)/increment").status == 303)
        #expect(try cast.edit.session.get("/").text.contains("Ada changed this"))
    }

    @Test("a live change reaches friends' lists and full views, and never a stranger's stream")
    func liveReach() throws {
        let cast = try Self.cast()
        let id = cast.tally
        let bobList = try Tallies.stream(cast.app, cast.edit.session, topics: "tallies:\(cast.edit.id)")
        let cyFull = try Tallies.stream(cast.app, cast.view.session, topics: "tally:\(id)")
        let deeList = try Tallies.stream(cast.app, cast.stranger.session, topics: "tallies:\(cast.stranger.id)")
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(id)/increment").status == 303)
        #expect(try bobList.read(until: "\"tally-\(id)\"", timeout: 5).contains("event: invalidate"))
        #expect(try cyFull.read(until: "tally-\(id)-face", timeout: 5).contains("event: invalidate"))
        cast.app.app.live.publish(topic: "tallies:\(cast.stranger.id)", fragments: ["marker"])
        #expect(!(try deeList.read(until: "marker", timeout: 5).contains("tally-")))

        // A stranger may not follow the tally, nor anyone else's list.
        for topics in ["tally:\(id)", "tallies:\(cast.owner.id)"] {
            let client = try TestClient(port: cast.app.port)
            try client.send("GET /live?topics=\(topics) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(cast.stranger.session.sessionCookie!)\r\n\r\n")
            #expect(try client.readResponse().status == 404, "\(topics)")
        }
    }

    @Test("from the page script, an increment answers with the fresh row; without it, a redirect back")
    func enhancedIncrement() throws {
        let cast = try Self.cast()
        let id = cast.tally
        let enhanced = try Tallies.post(
            cast.edit.session, "/tallies/\(id)/increment", [("fragment", "row"), ("return", "/")], headers: ["X-Kith-Enhanced": "1"])
        #expect(enhanced.status == 200)
        #expect(enhanced.text.hasPrefix("<li class=\"tally-row\" id=\"tally-\(id)\""))
        #expect(enhanced.text.contains("Coffee, 6, increment"))
        let plain = try Tallies.post(cast.edit.session, "/tallies/\(id)/increment", [("fragment", "row"), ("return", "/")])
        #expect(plain.status == 303)
        #expect(plain.header("Location") == "/#tally-\(id)", "back at the row tapped")
        let elsewhere = try Tallies.post(cast.edit.session, "/tallies/\(id)/increment", [("return", "https://evil.example/")])
        #expect(elsewhere.header("Location") == "/tallies/\(id)", "never a redirect off the tally")
    }

    @Test("the list's sort is remembered per person")
    func sortRemembered() throws {
        let cast = try Self.cast()
        let second = try Tallies.create(cast.owner.session, name: "Push-ups")
        // Bump the older tally so "last updated" and "created" disagree.
        try cast.app.app.database.write { try $0.execute("UPDATE tallies SET updated_at = updated_at + 100 WHERE id = \(cast.tally)") }
        func order(_ session: WebSession) throws -> [String] {
            try session.get("/").text.matches(of: /id="tally-(\d+)" data-fragment/).map { String($0.1) }
        }
        #expect(try order(cast.owner.session) == ["\(cast.tally)", "\(second)"])
        #expect(try Tallies.post(cast.owner.session, "/tallies/sort", [("sort", "created")]).status == 303)
        #expect(try order(cast.owner.session) == ["\(second)", "\(cast.tally)"])
        #expect(try order(cast.owner.session) == ["\(second)", "\(cast.tally)"], "still, on the next visit")
        #expect(try cast.owner.session.get("/").text.contains("aria-pressed=\"true\">Created"))
    }

    @Test("the count is shown in the viewer's number style")
    func numberStyles() throws {
        let cast = try Self.cast()
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(cast.tally)/count", [("count", "1994")]).status == 303)
        try cast.app.app.database.write { try $0.execute("UPDATE users SET number_style = 'roman' WHERE id = \(cast.edit.id)") }
        try cast.app.app.database.write { try $0.execute("UPDATE users SET number_style = 'stick' WHERE id = \(cast.view.id)") }
        #expect(try cast.owner.session.get("/tallies/\(cast.tally)/row").text.contains("1,994"))
        #expect(try cast.edit.session.get("/tallies/\(cast.tally)/row").text.contains("MCMXCIV"))
        let stick = try cast.view.session.get("/tallies/\(cast.tally)/row").text
        #expect(stick.contains("× 19"))
        #expect(stick.contains("<span class=\"visually-hidden\">1,994</span>"))
    }

    @Test("a friend's change feeds the digest engine; muting the tally silences it")
    func notifications() throws {
        let cast = try Self.cast()
        let id = cast.tally
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(id)/increment").status == 303)
        #expect(try pendingDigests(cast.app, userID: cast.owner.id) == 1)
        #expect(try pendingDigests(cast.app, userID: cast.view.id) == 1)
        #expect(try pendingDigests(cast.app, userID: cast.edit.id) == 0, "never told of your own change")
        try cast.app.app.notifications.sweep(now: Tallies.start + 600)
        let entries = try inboxEntries(cast.app, userID: cast.owner.id)
        #expect(entries.first?.body == "Bob changed Coffee")
        #expect(entries.first?.url == "/tallies/\(id)")

        #expect(try Tallies.post(cast.owner.session, "/tallies/\(id)/mute", [("muted", "1")]).status == 303)
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(id)/increment").status == 303)
        #expect(try pendingDigests(cast.app, userID: cast.owner.id) == 0)
        #expect(try cast.owner.session.get("/tallies/\(id)").text.contains("Unmute"))
    }

    @Test("deleting an account removes its tallies for everyone, its shares and friendships; the every-table walk finds nothing")
    func accountDeletion() throws {
        let cast = try Self.cast()
        let bobsOwn = try Tallies.create(cast.edit.session, name: "Bob's runs", shares: [(cast.owner.id, "edit")])
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(bobsOwn)/increment").status == 303)
        #expect(try Tallies.post(cast.owner.session, "/tallies/sort", [("sort", "created")]).status == 303)
        _ = try cast.owner.session.get("/")
        let walk = try EveryTableWalk(userID: cast.owner.id, in: cast.app.app.database)
        let places = Set(try walk.references(in: cast.app.app.database).map { "\($0.table).\($0.column)" })
        for expected in ["tallies.owner_id", "tallies.updated_by", "tally_shares.user_id", "tally_views.user_id", "friendships.user_id",
            "friendships.friend_id", "tally_list_preferences.user_id"]
        {
            #expect(places.contains(expected), "the walk looks at \(expected)")
        }
        let deleted = try postDelete(cast.owner.session, [("password", "correct horse")])
        #expect(deleted.status == 303)
        #expect(try walk.references(in: cast.app.app.database).isEmpty)
        #expect(try cast.edit.session.get("/tallies/\(cast.tally)").status == 404, "Ada's tally is gone for Bob")
        #expect(try cast.edit.session.get("/tallies/\(bobsOwn)").status == 200, "Bob's own tally stays")
        #expect(try Tallies.count(cast.app, bobsOwn) == 1)
    }
}

@Suite("Tally pages are valid HTML", .serialized)
struct TallyHTMLTests {
    @Test(
        "the home list, full-screen views (owner, edit and view friends), the create form and the friends page pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func validate() throws {
        let cast = try TallyTests.cast()
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(cast.tally)/increment").status == 303)
        try cast.app.app.database.write { try $0.execute("UPDATE users SET number_style = 'stick' WHERE id = \(cast.view.id)") }
        let pages: [(String, WebSession, String)] = [
            ("home", cast.owner.session, "/"),
            ("full-owner", cast.owner.session, "/tallies/\(cast.tally)"),
            ("full-edit", cast.edit.session, "/tallies/\(cast.tally)"),
            ("full-view", cast.view.session, "/tallies/\(cast.tally)"),
            ("home-stick", cast.view.session, "/"),
            ("new", cast.owner.session, "/tallies/new"),
            ("friends", cast.owner.session, "/friends"),
            ("friends-empty", try Tallies.person(cast.app, "loner").session, "/friends"),
            ("home-empty", try Tallies.person(cast.app, "newbie").session, "/"),
        ]
        let directory = try TemporaryDirectory("kith-tally-html")
        try HTMLValidationTests.expectValid(pages, directory: directory)
    }
}
