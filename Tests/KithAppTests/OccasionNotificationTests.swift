import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Occasions: who hears of what")
struct OccasionNotificationTests {
    @Test("the host hears of gifts sent and reports, the celebrant of gifts on offer, a giver of their gift's unlock, contributors of the finale; nobody of their own doing")
    func digests() throws {
        let clock = Locked(digestStart)
        let app = try accountsHarness(clock: clock)
        let party = try OccasionParty.make(app, contributors: 2)
        let base = party.base
        func sweep() throws -> [Notifications.Delivered] {
            clock.withLock { $0 += Notifications.maximumDelay + 1 }
            return try app.app.notifications.sweep(now: clock.value)
        }
        func bodies(_ delivered: [Notifications.Delivered], _ username: String) -> [String] {
            delivered.filter { $0.userID == party.userIDs[username] }.map(\.body)
        }
        let first = try party.sendGift(party.contributors[0], letter: "One")
        let second = try party.sendGift(party.contributors[1], letter: "Two")
        let challenge = try party.addChallenge("Sing", points: 50)
        try party.post(party.contributors[1], "\(base)/reports?challenge=\(challenge)", [], from: "\(base)/challenges/\(challenge)")
        var delivered = try sweep()
        #expect(bodies(delivered, "hana_host").sorted() == [
            "Friend 1 and Friend 2 sent gifts in Alex turns 30", "Friend 2 reported Sing in Alex turns 30",
        ])
        #expect(bodies(delivered, "friend_1").isEmpty)
        try party.price(first, cost: 10)
        try party.price(second, cost: 10)
        delivered = try sweep()
        #expect(bodies(delivered, "alex_star") == ["New gifts on offer in Alex turns 30: from Friend 1 and Friend 2"])
        #expect(try party.complete(challenge).status == 303)
        #expect(try party.unlock(first).status == 303)
        #expect(try party.unlock(second).status == 303)
        // A giver hears of their gift's opening at once, not with the sweep.
        #expect(try party.contributors[0].get("/inbox").text.contains("Alex Star unlocked your gift in Alex turns 30"))
        delivered = try sweep()
        #expect(bodies(delivered, "friend_1") == ["The finale in Alex turns 30: the badge is open!"])
        #expect(bodies(delivered, "hana_host") == ["The finale in Alex turns 30: the badge is open!"])
        #expect(bodies(delivered, "alex_star").isEmpty)
    }
}
