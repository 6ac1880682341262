@testable import KithApp
import KithTestSupport
import Testing

/// Every way access ends closes the person's open pages on that topic with
/// `revoked`, while everyone who still belongs keeps hearing.
@Suite(.serialized)
struct RevokeTests {
    /// The stream ends with `revoked` and closes; a reconnect is refused.
    func expectRevoked(_ stream: TestClient, _ app: AppHarness, _ session: WebSession, topic: String) throws {
        #expect(try stream.read(until: "event: revoked", timeout: 5).contains("revoked"))
        #expect(try stream.waitForClose(timeout: 5))
        let retry = try TestClient(port: app.port)
        try retry.send("GET /live?topics=\(topic) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
        #expect(try retry.readResponse().status == 404)
    }

    @Test("a plate player the host removes loses the game's stream; the host's stream keeps receiving")
    func plateRemoved() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let momStream = try Tallies.stream(app, mom.session, topics: "game:\(game)")
        let dadStream = try Tallies.stream(app, dad.session, topics: "game:\(game)")
        let removed = try dad.session.postConfirming("/games/\(game)/players/\(mom.id)/remove", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(removed.status == 303)
        try expectRevoked(momStream, app, mom.session, topic: "game:\(game)")
        #expect(try dadStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
    }

    @Test("a plate player who leaves loses the game's stream; the others' keep receiving")
    func plateLeft() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let momStream = try Tallies.stream(app, mom.session, topics: "game:\(game)")
        let dadStream = try Tallies.stream(app, dad.session, topics: "game:\(game)")
        let left = try mom.session.postConfirming("/games/\(game)/leave", [], csrf: try mom.session.token(from: "/games/\(game)/leave"))
        #expect(left.status == 303)
        try expectRevoked(momStream, app, mom.session, topic: "game:\(game)")
        #expect(try dadStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
    }

    /// Ann owns a tally shared with Bob and Cy, each watching it.
    func sharedTally() throws -> (app: AppHarness, ann: (session: WebSession, id: Int64), bob: (session: WebSession, id: Int64),
        cy: (session: WebSession, id: Int64), tally: Int64)
    {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        let cy = try Tallies.person(app, "cyrus")
        try Tallies.befriend(ann.session, "bobby")
        try Tallies.befriend(ann.session, "cyrus")
        let tally = try Tallies.create(ann.session, shares: [(bob.id, "edit"), (cy.id, "view")])
        return (app, ann, bob, cy, tally)
    }

    @Test("a friend the owner unshares a tally from loses its stream; the owner's and the other friend's keep receiving")
    func tallyUnshared() throws {
        let (app, ann, bob, cy, tally) = try sharedTally()
        let bobStream = try Tallies.stream(app, bob.session, topics: "tally:\(tally)")
        let cyStream = try Tallies.stream(app, cy.session, topics: "tally:\(tally)")
        let annStream = try Tallies.stream(app, ann.session, topics: "tally:\(tally)")
        let unshared = try Tallies.confirm(ann.session, "/tallies/\(tally)/sharing", [("share-\(bob.id)", "none"), ("share-\(cy.id)", "view")])
        #expect(unshared.status == 303)
        try expectRevoked(bobStream, app, bob.session, topic: "tally:\(tally)")
        #expect(try annStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
        #expect(try cyStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
    }

    @Test("a friend who leaves a tally loses its stream; the owner's keeps receiving")
    func tallyLeft() throws {
        let (app, ann, bob, _, tally) = try sharedTally()
        let bobStream = try Tallies.stream(app, bob.session, topics: "tally:\(tally)")
        let annStream = try Tallies.stream(app, ann.session, topics: "tally:\(tally)")
        #expect(try Tallies.confirm(bob.session, "/tallies/\(tally)/leave").status == 303)
        try expectRevoked(bobStream, app, bob.session, topic: "tally:\(tally)")
        #expect(try annStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
    }

    @Test("a deleted tally's stream ends for everyone who saw it; their lists keep receiving")
    func tallyDeleted() throws {
        let (app, ann, bob, cy, tally) = try sharedTally()
        let bobStream = try Tallies.stream(app, bob.session, topics: "tally:\(tally)")
        let cyStream = try Tallies.stream(app, cy.session, topics: "tally:\(tally)")
        let bobList = try Tallies.stream(app, bob.session, topics: "tallies:\(bob.id)")
        #expect(try Tallies.confirm(ann.session, "/tallies/\(tally)/delete").status == 303)
        try expectRevoked(bobStream, app, bob.session, topic: "tally:\(tally)")
        try expectRevoked(cyStream, app, cy.session, topic: "tally:\(tally)")
        #expect(try bobList.read(until: "event: invalidate", timeout: 5).contains("tally-list"))
    }

    @Test("removing a friend ends their streams on the tallies the two shared; the owner's keeps receiving")
    func friendRemoved() throws {
        let (app, ann, bob, cy, tally) = try sharedTally()
        let bobStream = try Tallies.stream(app, bob.session, topics: "tally:\(tally)")
        let cyStream = try Tallies.stream(app, cy.session, topics: "tally:\(tally)")
        let annStream = try Tallies.stream(app, ann.session, topics: "tally:\(tally)")
        #expect(try Tallies.confirm(ann.session, "/friends/\(bob.id)/remove").status == 303)
        try expectRevoked(bobStream, app, bob.session, topic: "tally:\(tally)")
        #expect(try annStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
        // Cy is still a friend with the tally shared: the next change reaches her.
        #expect(try Tallies.post(ann.session, "/tallies/\(tally)/increment").status == 303)
        #expect(try cyStream.read(until: "event: invalidate", timeout: 5).contains("invalidate"))
    }

    @Test("deleting an account ends its friends' streams on the tallies that went with it, and their lists hear of it")
    func ownerDeleted() throws {
        let (app, ann, bob, _, tally) = try sharedTally()
        let bobStream = try Tallies.stream(app, bob.session, topics: "tally:\(tally)")
        let bobList = try Tallies.stream(app, bob.session, topics: "tallies:\(bob.id)")
        #expect(try postDelete(ann.session, [("password", "correct horse")]).status == 303)
        try expectRevoked(bobStream, app, bob.session, topic: "tally:\(tally)")
        #expect(try bobList.read(until: "event: invalidate", timeout: 5).contains("tally-list"))
    }

    @Test("deleting an account ends every stream it had open with revoked; the others' streams stay open")
    func accountDeleted() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        let momGame = try Tallies.stream(app, mom.session, topics: "game:\(game)")
        let momInbox = try Tallies.stream(app, mom.session, topics: "inbox:\(mom.id)")
        let dadStream = try Tallies.stream(app, dad.session, topics: "game:\(game)")
        #expect(try postDelete(mom.session, [("password", "correct horse")]).status == 303)
        #expect(try momGame.read(until: "event: revoked", timeout: 5).contains("revoked"))
        #expect(try momInbox.read(until: "event: revoked", timeout: 5).contains("revoked"))
        #expect(try momGame.waitForClose(timeout: 5))
        #expect(try !dadStream.waitForClose(timeout: 1))
    }
}
