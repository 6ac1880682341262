import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Occasions: joining, roles, removal and live streams")
struct OccasionMembershipTests {
    func role(_ app: AppHarness, _ occasion: Int64, _ userID: Int64?) throws -> String? {
        guard let userID else { return nil }
        return try app.app.database.read {
            try $0.queryValue("SELECT role FROM occasion_members WHERE occasion_id = \(occasion) AND user_id = \(userID)", as: String.self)
        }
    }

    @Test("one role each: the celebrant link works once, a member opening the other link is told so, the host is never the celebrant, joining twice is harmless")
    func joining() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1, celebrantJoins: false)
        let (contributorCode, celebrantCode) = try OccasionParty.codes(app, party.id)
        // The preview reveals the name, the kind and who invited; nothing else.
        let preview = try party.stranger.get("/join/\(celebrantCode)")
        #expect(preview.status == 200)
        #expect(preview.text.contains("Alex turns 30"))
        #expect(!preview.text.contains("December"))
        #expect(!preview.text.contains("Friend 1"))
        // The host opening the celebrant link: told, nothing changes.
        let before = try rowCounts(app)
        let hostTries = try OccasionParty.join(party.host, code: celebrantCode)
        #expect(hostTries.status == 200)
        #expect(hostTries.text.contains("already in Alex turns 30 as a host"))
        #expect(try rowCounts(app) == before)
        #expect(try role(app, party.id, party.userIDs["hana_host"]) == "host")
        // A contributor opening it: the same.
        let friendTries = try OccasionParty.join(party.contributors[0], code: celebrantCode)
        #expect(friendTries.text.contains("Nothing changed"))
        #expect(try role(app, party.id, party.userIDs["friend_1"]) == "contributor")
        // The celebrant joins; twice is harmless; then the link is used up.
        #expect(try OccasionParty.join(party.celebrant, code: celebrantCode).status == 303)
        let again = try OccasionParty.join(party.celebrant, code: celebrantCode)
        #expect(again.text.contains("already in Alex turns 30"))
        let late = try OccasionParty.join(party.stranger, code: celebrantCode)
        #expect(late.status == 409)
        #expect(late.text.contains("already been used"))
        #expect(try role(app, party.id, party.userIDs["sam_stranger"]) == nil)
        // The celebrant opening the contributor link stays the celebrant.
        _ = try OccasionParty.join(party.celebrant, code: contributorCode)
        #expect(try role(app, party.id, party.userIDs["alex_star"]) == "celebrant")
        // Exactly one celebrant, and the dashboard lists the occasion with each role.
        let celebrants = try app.app.database.read {
            try $0.queryValue("SELECT count(*) FROM occasion_members WHERE occasion_id = \(party.id) AND role = 'celebrant'", as: Int.self)
        }
        #expect(celebrants == 1)
        #expect(try party.celebrant.get("/").text.contains("Birthday star"))
        #expect(try party.host.get("/").text.contains(">Host<"))
    }

    @Test("rotating a code kills the old link; the new one works")
    func rotate() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 0, celebrantJoins: false)
        let (old, _) = try OccasionParty.codes(app, party.id)
        #expect(try party.confirm(party.host, "\(party.base)/host/invites/occasion/rotate", [], from: "\(party.base)/host").status == 303)
        let (new, _) = try OccasionParty.codes(app, party.id)
        #expect(new != old)
        #expect(try party.stranger.get("/join/\(old)").status == 404)
        #expect(try OccasionParty.join(party.stranger, code: new).status == 303)
        #expect(try party.stranger.get(party.base).status == 200)
    }

    @Test("the host hands over the role to a contributor and can no longer run the panel")
    func handOver() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let friend = try #require(party.userIDs["friend_1"])
        let celebrant = try #require(party.userIDs["alex_star"])
        // Never to the celebrant: refused, nothing changes.
        let refused = try party.post(party.host, "\(party.base)/host/handover", [("user", String(celebrant))], from: "\(party.base)/host")
        #expect(refused.status == 422)
        #expect(try role(app, party.id, party.userIDs["hana_host"]) == "host")
        #expect(try party.post(party.host, "\(party.base)/host/handover", [("user", String(friend))], from: "\(party.base)/host").status == 303)
        #expect(try role(app, party.id, friend) == "host")
        #expect(try role(app, party.id, party.userIDs["hana_host"]) == "contributor")
        #expect(try party.host.get("\(party.base)/host").status == 403)
        #expect(try party.contributors[0].get("\(party.base)/host").status == 200)
    }

    @Test("live: a change reaches every member's stream as an invalidation, never as content; a removed member's stream stops and stays refused")
    func liveStreams() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        func stream(_ session: WebSession) throws -> TestClient {
            let client = try TestClient(port: app.port)
            try client.send("GET /live?topics=occasion:\(party.id) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
            _ = try client.read(until: "retry: 2000", timeout: 5)
            return client
        }
        let watcher = try stream(party.contributors[1])
        let celebrantStream = try stream(party.celebrant)
        // Friend one files a dare and sends a gift; friend two's stream hears
        // that something changed, and nothing of what.
        try party.fileDare(party.contributors[0], title: "Secretdaretitle", points: 10)
        let gift = try party.sendGift(party.contributors[0], letter: "Secretletterwords")
        try party.price(gift, cost: 5)
        let heard = try watcher.read(until: "occasion-live", timeout: 5)
        #expect(heard.contains("event: invalidate"))
        let more = (try? watcher.read(until: "never-sent-marker", timeout: 1)) ?? ""
        for text in [heard, more] {
            #expect(!text.contains("Secretdaretitle"))
            #expect(!text.contains("Secretletterwords"))
        }
        #expect(!(try celebrantStream.read(until: "occasion-live", timeout: 5)).contains("Secretletterwords"))
        // The host removes friend two: their stream is told and closed, a new
        // one is refused, and the pages are gone for them.
        let friendTwo = try #require(party.userIDs["friend_2"])
        #expect(try party.confirm(party.host, "\(party.base)/host/members/\(friendTwo)/remove", [], from: "\(party.base)/host").status == 303)
        #expect(try watcher.read(until: "event: revoked", timeout: 5).contains("revoked"))
        #expect(try watcher.waitForClose(timeout: 5))
        let retry = try TestClient(port: app.port)
        try retry.send("GET /live?topics=occasion:\(party.id) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(party.contributors[1].sessionCookie!)\r\n\r\n")
        #expect(try retry.readResponse().status == 404)
        #expect(try party.contributors[1].get(party.base).status == 404)
        // The celebrant's stream goes on.
        #expect(try party.complete(try party.addChallenge("Sing", points: 5)).status == 303)
        #expect(try celebrantStream.read(until: "occasion-live", timeout: 5).contains("invalidate"))
    }
}
