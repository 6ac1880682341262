import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Occasions: points, unlocks, the finale and the append-only timeline")
struct OccasionEconomyTests {
    /// Runs `body` on `count` threads at once.
    func inParallel(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Int) -> [Int] {
        let results = Locked<[Int]>([])
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let status = (try? body(index)) ?? -1
                results.withLock { $0.append(status) }
            }
        }
        group.wait()
        return results.value
    }

    @Test("parallel completions of one challenge add its points once; parallel unlocks of one gift charge once")
    func parallelOnce() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let challenge = try party.addChallenge("Sing", points: 40)
        let gift = try party.sendGift(party.contributors[0], letter: "Hello")
        try party.price(gift, cost: 30)
        let base = party.base
        let celebrant = party.celebrant
        let token = try celebrant.token(from: base)
        let completions = inParallel(8) { _ in
            try celebrant.post("\(base)/challenges/\(challenge)/complete", [("proof", "done")], csrf: token).status
        }
        #expect(completions.allSatisfy { $0 == 303 })
        #expect(try party.balance() == 40)
        let unlocks = inParallel(8) { _ in try celebrant.post("\(base)/gifts/\(gift)/unlock", [], csrf: token).status }
        #expect(unlocks.allSatisfy { $0 == 303 })
        #expect(try party.balance() == 10)
        #expect(try party.derivedBalance() == 10)
        let entries = try app.app.database.read {
            try $0.queryValue("SELECT count(*) FROM occasion_timeline WHERE occasion_id = \(party.id) AND kind IN ('challenge', 'gift')", as: Int.self)
        }
        #expect(entries == 2)
    }

    @Test("parallel unlocks of different gifts never overspend: the balance covers exactly the ones that succeed")
    func parallelNeverNegative() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let challenge = try party.addChallenge("Sing", points: 50)
        var gifts: [Int64] = []
        for friend in party.contributors {
            let gift = try party.sendGift(friend, letter: "Hello")
            try party.price(gift, cost: 20)
            gifts.append(gift)
        }
        #expect(try party.complete(challenge).status == 303)
        let base = party.base
        let celebrant = party.celebrant
        let token = try celebrant.token(from: base)
        let ids = gifts
        let statuses = inParallel(ids.count) { index in try celebrant.post("\(base)/gifts/\(ids[index])/unlock", [], csrf: token).status }
        #expect(statuses.filter { $0 == 303 }.count == 2)
        #expect(statuses.filter { $0 == 409 }.count == 1)
        #expect(try party.balance() == 10)
        #expect(try party.derivedBalance() == 10)
    }

    @Test("too few points: a clear 409, nothing charged, nothing unlocked")
    func insufficient() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let gift = try party.sendGift(party.contributors[0], letter: "Hello")
        try party.price(gift, cost: 30)
        let response = try party.unlock(gift)
        #expect(response.status == 409)
        #expect(response.text.contains("This gift costs 30 points and you have 0 points."))
        #expect(try party.balance() == 0)
        let state = try app.app.database.read { try $0.queryValue("SELECT state FROM occasion_gifts WHERE id = \(gift)", as: String.self) }
        #expect(state == "on_offer")
    }

    @Test("the host forces a completion (points added) and an unlock (free); adjustments keep a reason and never go below zero")
    func forceActions() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let base = party.base
        let challenge = try party.addChallenge("Sing", points: 25)
        let gift = try party.sendGift(party.contributors[0], letter: "Hello")
        try party.price(gift, cost: 500)
        #expect(try party.post(party.host, "\(base)/host/challenges/\(challenge)/complete", [], from: "\(base)/host").status == 303)
        #expect(try party.balance() == 25)
        #expect(try party.post(party.host, "\(base)/host/gifts/\(gift)/unlock", [], from: "\(base)/host").status == 303)
        #expect(try party.balance() == 25)
        let refused = try party.post(party.host, "\(base)/host/points", [("delta", "-26"), ("reason", "Oops")], from: "\(base)/host")
        #expect(refused.status == 422)
        #expect(refused.text.contains("below zero"))
        let noReason = try party.post(party.host, "\(base)/host/points", [("delta", "5"), ("reason", "  ")], from: "\(base)/host")
        #expect(noReason.status == 422)
        #expect(noReason.text.contains("Enter the reason."))
        #expect(try party.post(party.host, "\(base)/host/points", [("delta", "-5"), ("reason", "Late")], from: "\(base)/host").status == 303)
        #expect(try party.balance() == 20)
        #expect(try party.derivedBalance() == 20)
        let panel = try party.host.get("\(base)/host").text
        #expect(panel.contains("-5 · Late"))
        // The finale opened by itself: the only gift on offer is unlocked.
        #expect(try party.celebrant.get("\(base)/timeline").text.contains("Every gift is yours"))
    }

    @Test("the finale: never with no gift on offer, not while one is locked, yes when all are unlocked, or when the host calls it")
    func finaleRule() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        func isOpen() throws -> Bool {
            try app.app.database.read { try $0.queryValue("SELECT finale_at IS NOT NULL FROM occasions WHERE id = \(party.id)", as: Bool.self) } == true
        }
        // Zero gifts: a completion does not open it.
        let challenge = try party.addChallenge("Sing", points: 100)
        #expect(try party.complete(challenge).status == 303)
        #expect(try !isOpen())
        // Two gifts on offer: one unlock is not enough, two are.
        let first = try party.sendGift(party.contributors[0], letter: "One")
        let second = try party.sendGift(party.contributors[1], letter: "Two")
        try party.price(first, cost: 10)
        try party.price(second, cost: 10)
        // A third gift only sent, not priced, does not hold the finale back.
        try party.sendGift(party.contributors[2], letter: "Three")
        #expect(try party.unlock(first).status == 303)
        #expect(try !isOpen())
        #expect(try party.unlock(second).status == 303)
        #expect(try isOpen())
        let finales = try app.app.database.read {
            try $0.queryValue("SELECT count(*) FROM occasion_timeline WHERE occasion_id = \(party.id) AND kind = 'finale'", as: Int.self)
        }
        #expect(finales == 1)
        // A second occasion: the host calls it with nothing unlocked.
        let other = try OccasionParty.createOccasion(app, host: party.host, name: "Leaving do")
        #expect(try party.confirm(party.host, "/occasions/\(other)/host/finale", [], from: "/occasions/\(other)/host").status == 303)
        let called = try party.host.get("/occasions/\(other)/timeline").text
        #expect(called.contains("Happy birthday, Alex!"))
        #expect(!called.contains("Every gift is yours"))
        let byHost = try app.app.database.read {
            try $0.queryValue("SELECT by_host FROM occasion_timeline WHERE occasion_id = \(other) AND kind = 'finale'", as: Bool.self)
        }
        #expect(byHost == true)
    }

    @Test("the database refuses to change or delete a timeline entry, and a gift's content once it left draft")
    func appendOnly() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let challenge = try party.addChallenge("Sing", points: 10)
        #expect(try party.complete(challenge).status == 303)
        let gift = try party.sendGift(party.contributors[0], letter: "Original words")
        let report = try party.post(
            party.contributors[1], "\(party.base)/reports?challenge=\(challenge)", [("reason", "Too easy")],
            from: "\(party.base)/challenges/\(challenge)")
        #expect(report.status == 303)
        for statement: SQL in [
            "UPDATE occasion_timeline SET points = 1000",
            "DELETE FROM occasion_timeline",
            "UPDATE occasion_gifts SET body = 'Rewritten by the host' WHERE id = \(gift)",
            "UPDATE occasion_reports SET reason = 'x'",
            "DELETE FROM occasion_reports",
            "UPDATE occasions SET balance = -5",
        ] {
            #expect(throws: DatabaseError.self) {
                try app.app.database.write { tx in _ = try tx.execute(statement) }
            }
        }
        let body = try app.app.database.read { try $0.queryValue("SELECT body FROM occasion_gifts WHERE id = \(gift)", as: String.self) }
        #expect(body == "Original words")
        #expect(try party.balance() == 10)
        let reasons = try app.app.database.read { try $0.queryValue("SELECT reason FROM occasion_reports", as: String.self) }
        #expect(reasons == "Too easy")
        // There is no route for the host to edit a gift: a post to one is not found.
        let edit = try party.post(party.host, "\(party.base)/host/gifts/\(gift)", [("body", "Rewritten")], from: "\(party.base)/host")
        #expect(edit.status == 404 || edit.status == 405)
    }
}
