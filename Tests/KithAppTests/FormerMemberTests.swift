import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// After an account is deleted, every sentence that named the person says
/// "a former member" (capitalised at a sentence's start), and none still
/// names them.
@Suite("A former member")
struct FormerMemberTests {
    /// Lets every waiting digest fall due and delivers it.
    @discardableResult
    static func deliver(_ app: AppHarness, _ clock: Locked<Int64>) throws -> [Notifications.Delivered] {
        clock.withLock { $0 += Notifications.maximumDelay + 1 }
        return try app.app.notifications.sweep(now: clock.value)
    }

    static func delete(_ session: WebSession) throws {
        #expect(try postDelete(session, [("password", "correct horse")]).status == 303)
    }

    @Test("The helper: a name stays, a missing one reads \"a former member\", capitalised at a sentence's start")
    func helper() {
        #expect(FormerMember.name("Bob") == "Bob")
        #expect(FormerMember.name(nil) == "a former member")
        #expect(FormerMember.name(nil, startsSentence: true) == "A former member")
        let text = "\(FormerMember.marked(userID: 7, name: "Bob Ray")) and \(FormerMember.marked(userID: 8, name: "Cy")) changed Coffee. \(FormerMember.marked(userID: 7, name: "Bob Ray")) again"
        #expect(FormerMember.resolve(text, exists: { _ in true }) == "Bob Ray and Cy changed Coffee. Bob Ray again")
        #expect(FormerMember.resolve(text, exists: { $0 == 8 }) == "A former member and Cy changed Coffee. A former member again")
        #expect(FormerMember.resolve("Cy thanked \(FormerMember.marked(userID: 7, name: "Bob"))", exists: { _ in false }) == "Cy thanked a former member")
        #expect(FormerMember.markedIDs(in: text) == [7, 8])
        #expect(FormerMember.resolve("plain", exists: { _ in false }) == "plain")
    }

    @Test("Tallies: the inbox entry and the \"updated by\" line of a tally changed by someone since deleted")
    func tallies() throws {
        let clock = Locked(digestStart)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada", name: "Ada Lee")
        let bob = try Tallies.person(app, "bob", name: "Bob Ray")
        try Tallies.befriend(ada.session, "bob")
        let tally = try Tallies.create(ada.session, name: "Coffees", shares: [(bob.id, "edit")])
        #expect(try Tallies.post(bob.session, "/tallies/\(tally)/increment").status == 303)
        let delivered = try Self.deliver(app, clock)
        #expect(delivered.map(\.body) == ["Bob Ray changed Coffees"], "the push goes out with the name")
        #expect(try ada.session.get("/inbox").text.contains("Bob Ray changed Coffees"))
        #expect(try ada.session.get("/tallies/\(tally)").text.contains("by Bob Ray"))

        try Self.delete(bob.session)
        let inbox = try ada.session.get("/inbox").text
        #expect(inbox.contains("A former member changed Coffees"))
        #expect(!inbox.contains("Bob Ray"))
        let page = try ada.session.get("/tallies/\(tally)").text
        #expect(page.contains("by a former member"))
        #expect(!page.contains("by Kith"))
        #expect(!page.contains("Bob Ray"))
        // A scheduled reset is still Kith's doing, and a new change is its author's.
        #expect(try Tallies.post(ada.session, "/tallies/\(tally)/increment").status == 303)
        #expect(try ada.session.get("/tallies/\(tally)").text.contains("by you"))
    }

    @Test("Plate games: the inbox says a former member spotted the plates")
    func plates() throws {
        let clock = Locked(digestStart)
        let app = try Tallies.harness(clock: clock)
        let mom = try Tallies.person(app, "mom", name: "Mom")
        let dad = try Tallies.person(app, "dad", name: "Dad Bod")
        let game = try Plates.create(mom.session)
        #expect(try Plates.join(app, dad.session, game).status == 303)
        #expect(try Plates.spot(dad.session, game, "ID").status == 303)
        #expect(try Plates.spot(dad.session, game, "OH").status == 303)
        try Self.deliver(app, clock)
        #expect(try mom.session.get("/inbox").text.contains("Dad Bod spotted Idaho and Ohio in Summer Road Trip"))

        try Self.delete(dad.session)
        let inbox = try mom.session.get("/inbox").text
        #expect(inbox.contains("A former member spotted Idaho and Ohio in Summer Road Trip"))
        #expect(!inbox.contains("Dad Bod"))
        // The spots went with the player: the feed names nobody gone.
        #expect(!(try mom.session.get("/games/\(game)").text.contains("Dad Bod")))
    }

    @Test("Occasions: the timeline, the host panel's reports and adjustments, and the inbox name a deleted member as a former member")
    func occasions() throws {
        let clock = Locked(digestStart)
        let app = try accountsHarness(clock: clock)
        let party = try OccasionParty.make(app, contributors: 2)
        let base = party.base
        let gift = try party.sendGift(party.contributors[0], letter: "Dear Alex")
        let challenge = try party.addChallenge("Sing", points: 50)
        try party.fileDare(party.contributors[0], title: "Dance", points: 10)
        try party.price(gift, cost: 10)
        #expect(try party.complete(challenge).status == 303)
        #expect(try party.unlock(gift).status == 303)
        #expect(try party.post(party.contributors[0], "\(base)/reports?challenge=\(challenge)", [("reason", "Too loud")], from: "\(base)/challenges/\(challenge)").status == 303)
        try Self.deliver(app, clock)
        #expect(try party.celebrant.get("/inbox").text.contains("from Friend 1"))
        #expect(try party.host.get("/inbox").text.contains("Friend 1 sent a gift"))
        #expect(try party.celebrant.get("\(base)/timeline").text.contains("Letter from Friend 1"))

        try Self.delete(party.contributors[0])
        let timeline = try party.celebrant.get("\(base)/timeline").text
        #expect(timeline.contains("Letter from a former member"))
        #expect(!timeline.contains("Friend 1"))
        let celebrantInbox = try party.celebrant.get("/inbox").text
        #expect(celebrantInbox.contains("from a former member"))
        #expect(!celebrantInbox.contains("Friend 1"))
        let hostInbox = try party.host.get("/inbox").text
        #expect(hostInbox.contains("A former member sent a gift"))
        #expect(!hostInbox.contains("Friend 1"))
        let panel = try party.host.get("\(base)/host").text
        #expect(panel.contains("— a former member, "), "the report's author")
        #expect(!panel.contains("Friend 1"))
    }

    @Test("Occasions: a deleted host's adjustments and a deleted author's completed dare are a former member's")
    func deletedHost() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        let base = party.base
        let dare = try party.fileDare(party.contributors[1], title: "Dance on a table", points: 10)
        #expect(try party.post(party.celebrant, "\(base)/classified/open", [], from: "\(base)/classified").status == 303)
        #expect(try party.complete(dare, proof: "text", text: "Did it!").status == 303)
        #expect(try party.post(party.host, "\(base)/host/points", [("delta", "5"), ("reason", "Style")], from: "\(base)/host").status == 303)
        try Self.delete(party.host)
        try Self.delete(party.contributors[1])
        // The contributor who joined first hosts now.
        let panel = try party.contributors[0].get("\(base)/host").text
        #expect(panel.contains("A former member, "), "the adjustment's author")
        #expect(!panel.contains("Hana"))
        let timeline = try party.celebrant.get("\(base)/timeline").text
        #expect(timeline.contains("A dare by a former member"))
        #expect(!timeline.contains("Dance on a table"))
    }
}
