import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Occasions: deleting an account")
struct OccasionDeletionTests {
    @Test("the host's deletion hands the role to the longest-standing contributor, removes what they wrote, keeps the timeline's entries without their content, and leaves nothing that names them")
    func hostDeletes() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        let base = party.base
        let hostID = try #require(party.userIDs["hana_host"])
        // The host writes a dare and a gift of their own, adjusts points and reports something.
        let dare = try party.fileDare(party.host, title: "Hostdare", points: 10)
        let gift = try party.sendGift(party.host, letter: "Hostletter")
        try party.price(gift, cost: 10)
        let friendGift = try party.sendGift(party.contributors[1], letter: "Friendletter")
        try party.price(friendGift, cost: 10)
        let challenge = try party.addChallenge("Sing", points: 5)
        #expect(try party.post(party.host, "\(base)/host/points", [("delta", "20"), ("reason", "Head start")], from: "\(base)/host").status == 303)
        #expect(try party.post(party.host, "\(base)/reports?challenge=\(challenge)", [], from: "\(base)/challenges/\(challenge)").status == 303)
        #expect(try party.post(party.celebrant, "\(base)/classified/open", [], from: "\(base)/classified").status == 303)
        #expect(try party.complete(dare).status == 303)
        #expect(try party.unlock(gift).status == 303)
        // A second occasion where the host is alone: it goes with them.
        let lonely = try OccasionParty.createOccasion(app, host: party.host, name: "Nobody came")
        let (lonelyCode, _) = try OccasionParty.codes(app, lonely)

        let walk = try EveryTableWalk(userID: hostID, in: app.app.database)
        let places = Set(try walk.references(in: app.app.database).map { "\($0.table).\($0.column)" })
        for expected in ["occasion_members.user_id", "occasion_challenges.author_id", "occasion_gifts.author_id", "occasion_adjustments.actor_id", "occasion_reports.reporter_id"] {
            #expect(places.contains(expected), "the walk looks at \(expected)")
        }
        let balance = try party.balance()
        #expect(try postDelete(party.host, [("password", "correct horse")]).status == 303)
        #expect(try walk.references(in: app.app.database).isEmpty)

        // Friend 1 joined first: they host now.
        #expect(try party.contributors[0].get("\(base)/host").status == 200)
        // The timeline keeps every entry; the deleted content is gone, said to be a former member's.
        let timeline = try party.celebrant.get("\(base)/timeline").text
        #expect(!timeline.contains("Hostdare"))
        #expect(timeline.contains("A dare by a former member"))
        #expect(timeline.contains("Letter from a former member"))
        let entries = try app.app.database.read {
            try $0.queryValue("SELECT count(*) FROM occasion_timeline WHERE occasion_id = \(party.id)", as: Int.self)
        }
        #expect(entries == 3)
        // Points already earned and spent stay as they were.
        #expect(try party.balance() == balance)
        #expect(try party.derivedBalance() == balance)
        // The other gift and the challenge are untouched; the lonely occasion and its links are gone.
        #expect(try party.celebrant.get("\(base)/gifts").text.contains("Friend 2"))
        let lonelyRows = try app.app.database.read { try $0.queryValue("SELECT count(*) FROM occasions WHERE id = \(lonely)", as: Int.self) }
        #expect(lonelyRows == 0)
        #expect(try party.stranger.get("/join/\(lonelyCode)").status == 404)
    }

    @Test("a contributor's deletion removes their membership, dare and gift, and nothing else")
    func contributorDeletes() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        let friendID = try #require(party.userIDs["friend_1"])
        try party.fileDare(party.contributors[0], title: "Frienddare", points: 10)
        let gift = try party.sendGift(party.contributors[0], letter: "Friendletter")
        try party.price(gift, cost: 10)
        let walk = try EveryTableWalk(userID: friendID, in: app.app.database)
        #expect(try postDelete(party.contributors[0], [("password", "correct horse")]).status == 303)
        #expect(try walk.references(in: app.app.database).isEmpty)
        #expect(try party.host.get("\(party.base)/host").text.contains("Friend 2"))
        #expect(!(try party.host.get("\(party.base)/host").text.contains("Friendletter")))
        #expect(try party.host.get("\(party.base)/people").status == 200)
    }
}
