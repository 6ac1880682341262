import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Occasions: the whole story over HTTP")
struct OccasionStoryTests {
    @Test("a host creates an occasion, three contributors and a celebrant join by link, the celebrant completes challenges and dares, unlocks every gift, and the badge opens")
    func story() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let base = party.base

        // The host sees both links and that the celebrant has joined.
        let panel = try party.host.get("\(base)/host")
        #expect(panel.status == 200)
        #expect(panel.text.contains("Contributor link"))
        #expect(panel.text.contains("Celebrant link"))
        #expect(panel.text.contains("has joined as the celebrant"))

        // Challenges from the host; a dare and a gift from each contributor.
        let sing = try party.addChallenge("Sing in the square", points: 20, category: "social")
        let swim = try party.addChallenge("Swim in the sea", points: 30, optionB: "Run a mile", category: "physical")
        var dares: [Int64] = []
        var gifts: [Int64] = []
        for (index, friend) in party.contributors.enumerated() {
            dares.append(try party.fileDare(friend, title: "Dare number \(index + 1)", points: 10))
            gifts.append(try party.sendGift(friend, letter: "Dear Alex, love from friend \(index + 1). **Happy birthday!**"))
        }
        for (index, gift) in gifts.enumerated() { try party.price(gift, cost: 25, position: index) }
        let economy = try party.host.get("\(base)/host").text
        #expect(economy.contains("<dt>Challenge points</dt><dd>50</dd>"))
        #expect(economy.contains("<dt>Dare points</dt><dd>30</dd>"))
        #expect(economy.contains("<dt>Gift costs</dt><dd>75</dd>"))

        // The celebrant: the board, then the challenges.
        let board = try party.celebrant.get("\(base)/challenges")
        #expect(board.text.contains("Sing in the square"))
        #expect(!board.text.contains("Dare number 1"))
        #expect(try party.complete(sing).status == 303)
        #expect(try party.complete(swim, option: "b").status == 303)
        #expect(try party.balance() == 50)

        // The hidden entry opens the classified file; each dare completes once.
        #expect(try party.post(party.celebrant, "\(base)/classified/open", [], from: "\(base)/classified").status == 303)
        let classified = try party.celebrant.get("\(base)/classified").text
        #expect(classified.contains("Dare number 2"))
        for dare in dares { #expect(try party.complete(dare, proof: "text", text: "Did it!").status == 303) }
        #expect(try party.balance() == 80)

        // Three gifts at 25 each; the badge opens with the last.
        for gift in gifts {
            let unlocked = try party.unlock(gift)
            #expect(unlocked.status == 303)
        }
        #expect(try party.balance() == 5)
        #expect(try party.derivedBalance() == 5)
        let carousel = try party.celebrant.get("\(base)/gifts").text
        #expect(carousel.contains("love from friend 3"))
        let timeline = try party.celebrant.get("\(base)/timeline")
        #expect(timeline.status == 200)
        #expect(timeline.text.contains("Happy birthday, Alex! Every gift is yours."))
        let finale = try app.app.database.read { try $0.queryValue("SELECT finale_at IS NOT NULL FROM occasions WHERE id = \(party.id)", as: Bool.self) }
        #expect(finale == true)
    }
}
