import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("Occasions: hostile and mistaken input")
struct OccasionInputTests {
    static let script = "<script>alert(1)</script>"
    static let attribute = "\"onmouseover=\"alert(1)"

    @Test("every user-written field stays inert on every page, for every role", arguments: [script, attribute])
    func xss(_ payload: String) throws {
        let app = try accountsHarness()
        let host = try signUp(app, name: "Host \(payload)", username: "xss_host")
        let created = try host.post(
            "/occasions",
            [("name", "Party \(payload)"), ("kind", "farewell"), ("celebrant_name", "Cel \(payload)"), ("date", "2026-05-05"), ("host_name", "H \(payload)")],
            csrf: try host.token(from: "/occasions/new"))
        #expect(created.status == 303)
        let id = try #require(created.header("Location")?.split(separator: "/").compactMap { Int64($0) }.first)
        let (contributorCode, celebrantCode) = try OccasionParty.codes(app, id)
        let friend = try signUp(app, name: "Friend \(payload)", username: "xss_friend")
        let celebrant = try signUp(app, name: "Star \(payload)", username: "xss_star")
        try OccasionParty.join(friend, code: contributorCode)
        try OccasionParty.join(celebrant, code: celebrantCode)
        let party = OccasionParty(
            app: app, id: id, host: host, contributors: [friend], celebrant: celebrant, stranger: celebrant, visitor: WebSession(port: app.port),
            userIDs: [:])
        let base = party.base
        let challenge = try party.addChallenge("Title \(payload)", points: 10, optionB: "B \(payload)")
        try party.post(
            host, "\(base)/host/challenges/\(challenge)",
            [("title", "Title \(payload)"), ("description", "Desc \(payload) [x](javascript:alert(1))"), ("option_b", "B \(payload)"),
             ("points", "10"), ("difficulty", "hard"), ("category", "creative")], from: "\(base)/host")
        let dare = try party.fileDare(friend, title: "Dare \(payload)", points: 10)
        let gift = try party.sendGift(friend, letter: "Letter \(payload)")
        try party.price(gift, cost: 5)
        #expect(try party.post(party.host, "\(base)/host/points", [("delta", "50"), ("reason", "Why \(payload)")], from: "\(base)/host").status == 303)
        #expect(try party.post(celebrant, "\(base)/classified/open", [], from: "\(base)/classified").status == 303)
        #expect(try party.complete(challenge, proof: "text", text: "Proof \(payload)", option: "b").status == 303)
        #expect(try party.complete(dare).status == 303)
        #expect(try party.unlock(gift).status == 303)
        try party.post(friend, "\(base)/reports?gift=\(gift)", [("reason", "Reason \(payload)")], from: "\(base)/gifts/\(gift)")
        let pages = [
            "/", base, "\(base)/challenges", "\(base)/challenges/\(challenge)", "\(base)/challenges/\(dare)", "\(base)/classified",
            "\(base)/gifts", "\(base)/gifts/\(gift)", "\(base)/timeline", "\(base)/people", "\(base)/host", "\(base)/dare", "\(base)/gift",
            "/join/\(contributorCode)",
        ]
        var checked = 0
        for session in [host, friend, celebrant] {
            for page in pages {
                let response = try session.get(page)
                guard response.status == 200 else { continue }
                checked += 1
                #expect(!response.text.contains("<script>alert"), "\(page)")
                #expect(!response.text.contains("\"onmouseover="), "\(page)")
                #expect(!response.text.contains("javascript:alert"), "\(page)")
            }
        }
        #expect(checked >= 30)
        // The words are there, escaped: the test would see them if they were not.
        let escaped = payload.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
        #expect(try celebrant.get("\(base)/gifts/\(gift)").text.contains("Friend \(escaped)"))
        #expect(try host.get("\(base)/host").text.contains("Why \(escaped)"))
    }

    @Test("bad forms come back with the message next to the field and what was typed; nothing is written")
    func badForms() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let base = party.base
        let before = try rowCounts(app)
        let cases: [(WebSession, String, String, [(String, String)], String)] = [
            (party.host, "/occasions", "/occasions/new", [("name", ""), ("kind", "wedding"), ("celebrant_name", "Alex"), ("date", "2026-02-30"), ("host_name", "H")],
             "Enter the occasion name."),
            (party.host, "/occasions", "/occasions/new", [("name", "Typed name kept"), ("kind", "wedding"), ("celebrant_name", "Alex"), ("date", "2026-02-30"), ("host_name", "H")],
             "Enter the date as year-month-day"),
            (party.host, "/occasions", "/occasions/new", [("name", String(repeating: "é", count: 81)), ("kind", "birthday"), ("celebrant_name", "A"), ("date", "2026-01-01"), ("host_name", "H")],
             "80 characters or fewer"),
            (party.host, "\(base)/host/challenges", "\(base)/host", [("title", "Typed name kept"), ("points", "0"), ("difficulty", "easy"), ("category", "social")],
             "must be between 1 and 1000"),
            (party.host, "\(base)/host/challenges", "\(base)/host", [("title", "Typed name kept"), ("points", "ten"), ("difficulty", "easy"), ("category", "social")],
             "whole number"),
            (party.host, "\(base)/host/challenges", "\(base)/host", [("title", "Tab\u{0007}bell"), ("points", "10"), ("difficulty", "easy"), ("category", "social")],
             "has an invisible character in it"),
            (party.host, "\(base)/host/challenges", "\(base)/host", [("title", "Typed name kept"), ("points", "10"), ("difficulty", "extreme"), ("category", "social")],
             "Choose easy, medium or hard."),
            (party.contributors[0], "\(base)/dare", "\(base)/dare", [("title", "Typed name kept"), ("points", "500")], "between 5 and 50"),
            (party.contributors[0], "\(base)/gift", "\(base)/gift", [("body", "   ")], "Enter your letter."),
            (party.host, "\(base)/host/dare-bounds", "\(base)/host", [("min", "30"), ("max", "10")], "at least the fewest"),
            (party.host, "\(base)/host/points", "\(base)/host", [("delta", "0"), ("reason", "Typed name kept")], "other than 0"),
        ]
        for (session, path, page, fields, message) in cases {
            let response = try party.post(session, path, fields, from: page)
            #expect(response.status == 422, "\(path) \(fields)")
            #expect(response.text.contains(message), "\(path): \(message)")
            #expect(response.text.contains("aria-invalid=\"true\""), "\(path)")
            if fields.contains(where: { $0.1 == "Typed name kept" }) { #expect(response.text.contains("Typed name kept"), "\(path)") }
        }
        // A challenge needs proof words when the proof is written.
        let challenge = try party.addChallenge("Sing", points: 5)
        let afterAdd = try rowCounts(app)
        let noWords = try party.complete(challenge, proof: "text", text: "")
        #expect(noWords.status == 422)
        #expect(noWords.text.contains("Write a few words"))
        let noOption = try party.post(party.celebrant, "\(base)/challenges/\(challenge)/complete", [("proof", "maybe")], from: "\(base)/challenges/\(challenge)")
        #expect(noOption.status == 422)
        #expect(try rowCounts(app) == afterAdd)
        #expect(try party.balance() == 0)
        // Malformed ids and unknown things are plain 404s, never 500s.
        for path in ["/occasions/abc", "/occasions/99999", "\(base)/challenges/abc", "\(base)/gifts/99999", "\(base)/host/challenges/-1"] {
            #expect(try party.host.get(path).status == 404, "\(path)")
        }
        for path in ["\(base)/gifts/abc/unlock", "\(base)/host/invites/nonsense/rotate", "\(base)/host/members/99999/remove"] {
            #expect(try party.post(party.host, path, [], from: base).status == 404, "\(path)")
        }
        #expect(try party.post(party.host, "\(base)/reports", [("reason", "what?")], from: base).status == 400)
        #expect(before["occasions"] == afterAdd["occasions"])
    }

    @Test("a closed occasion can be read but not played, and says why")
    func closed() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let challenge = try party.addChallenge("Sing", points: 5)
        #expect(try party.confirm(party.host, "\(party.base)/host/close", [], from: "\(party.base)/host").status == 303)
        let refused = try party.complete(challenge)
        #expect(refused.status == 409)
        #expect(refused.text.contains("This occasion is closed"))
        #expect(try party.balance() == 0)
        #expect(try party.celebrant.get(party.base).text.contains("Closed."))
        #expect(try party.celebrant.get("/").text.contains("Past"))
        #expect(try party.post(party.host, "\(party.base)/host/reopen", [], from: "\(party.base)/host").status == 303)
        #expect(try party.complete(challenge).status == 303)
    }
}
