@testable import KithApp
import KithTestSupport
import Testing

/// When what a page shows has ended, a page script hears why in one word
/// (`X-Kith-Ending`, and the last event on its stream) so it can say so and
/// roll back; a browser's own navigation is still sent to sign in.
@Suite(.serialized)
struct EndingTests {
    static let enhanced = ["X-Kith-Enhanced": "1"]

    /// Lin on her phone with a tally page open; her laptop signs out everywhere.
    func signedOutPhone() throws -> (app: AppHarness, phone: WebSession, token: String, tally: Int64) {
        let app = try Tallies.harness()
        let laptop = try Tallies.person(app, "lin")
        let tally = try Tallies.create(laptop.session)
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "lin", password: "correct horse").status == 303)
        let token = try phone.token(from: "/tallies/\(tally)")
        #expect(try Tallies.post(laptop.session, "/signout/everywhere").status == 303)
        return (app, phone, token, tally)
    }

    @Test("a script's tap after the session ended is 401 signed-out, and nothing changes")
    func tapAfterSignOut() throws {
        let (app, phone, token, tally) = try signedOutPhone()
        let tap = try phone.post("/tallies/\(tally)/increment", [], csrf: token, headers: Self.enhanced)
        #expect(tap.status == 401)
        #expect(tap.header(Ending.header) == "signed-out")
        #expect(tap.text.contains("You were signed out"))
        #expect(try Tallies.count(app, tally) == 0)
    }

    @Test("a script's fragment fetch after the session ended is 401 signed-out; the browser's own visit goes to sign in")
    func fragmentAfterSignOut() throws {
        let (app, phone, _, tally) = try signedOutPhone()
        defer { withExtendedLifetime(app) {} }
        let row = try phone.get("/tallies/\(tally)/row", headers: Self.enhanced)
        #expect(row.status == 401)
        #expect(row.header(Ending.header) == "signed-out")
        let page = try phone.get("/tallies/\(tally)")
        #expect(page.status == 303)
        #expect(page.header("Location")?.hasPrefix("/signin") == true)
        #expect(page.header(Ending.header) == nil)
    }

    @Test("a plain form post after the session ended says it expired, without the script's word")
    func plainPostAfterSignOut() throws {
        let (app, phone, token, tally) = try signedOutPhone()
        let tap = try phone.post("/tallies/\(tally)/increment", [], csrf: token)
        #expect(tap.status == 403 || tap.status == 303)
        #expect(tap.header(Ending.header) == nil)
        #expect(try Tallies.count(app, tally) == 0)
    }

    @Test("signing out everywhere ends the other devices' streams with revoked: signed-out")
    func streamAfterSignOut() throws {
        let app = try Tallies.harness()
        let laptop = try Tallies.person(app, "lin")
        let phone = WebSession(port: app.port)
        #expect(try signIn(phone, username: "lin", password: "correct horse").status == 303)
        let stream = try Tallies.stream(app, phone, topics: "tallies:\(laptop.id)")
        #expect(try Tallies.post(laptop.session, "/signout/everywhere").status == 303)
        #expect(try stream.read(until: "data: signed-out", timeout: 5).contains("event: revoked"))
        #expect(try stream.waitForClose(timeout: 5))
    }

    @Test("a new session on the same device (signing in again) ends the old stream quietly, to reconnect")
    func rotationIsQuiet() throws {
        let app = try Tallies.harness()
        let lin = try Tallies.person(app, "lin")
        let stream = try Tallies.stream(app, lin.session, topics: "tallies:\(lin.id)")
        let again = try lin.session.post(
            "/signin", [("username", "lin"), ("password", "correct horse")], csrf: try lin.session.token(from: "/"))
        #expect(again.status == 303)
        #expect(throws: TestError.self, "closed without a revoked event") { try stream.read(until: "event: revoked", timeout: 5) }
    }

    @Test("a friend unshared from a tally: the script's fetch is 404 gone and the stream's last word is revoked: gone")
    func unshared() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        try Tallies.befriend(ann.session, "bobby")
        let tally = try Tallies.create(ann.session, shares: [(bob.id, "edit")])
        let token = try bob.session.token(from: "/tallies/\(tally)")
        let stream = try Tallies.stream(app, bob.session, topics: "tally:\(tally)")
        #expect(try Tallies.confirm(ann.session, "/tallies/\(tally)/sharing", [("share-\(bob.id)", "none")]).status == 303)
        #expect(try stream.read(until: "data: gone", timeout: 5).contains("event: revoked"))
        let face = try bob.session.get("/tallies/\(tally)/face", headers: Self.enhanced)
        #expect(face.status == 404)
        #expect(face.header(Ending.header) == "gone")
        let tap = try bob.session.post("/tallies/\(tally)/increment", [], csrf: token, headers: Self.enhanced)
        #expect(tap.status == 404)
        #expect(tap.header(Ending.header) == "gone")
        #expect(try Tallies.count(app, tally) == 0)
    }
}
