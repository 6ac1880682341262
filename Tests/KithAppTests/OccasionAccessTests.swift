import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A party with something of everything, for the access matrix: two host
/// challenges, one dare per contributor, and three gifts — friend 1's on
/// offer, friend 2's sent, friend 3's a draft — with 100 points to spend.
struct RichParty {
    let party: OccasionParty
    let challenge: Int64
    let dare: Int64
    let offered: Int64
    let submitted: Int64
    let draft: Int64

    static func make(_ app: AppHarness) throws -> RichParty {
        let party = try OccasionParty.make(app)
        let challenge = try party.addChallenge("Sing in the square", points: 20)
        try party.addChallenge("Swim in the sea", points: 30, optionB: "Run a mile")
        let dare = try party.fileDare(party.contributors[0], title: "Friend one dare", points: 10)
        try party.fileDare(party.contributors[1], title: "Friend two dare", points: 10)
        let offered = try party.sendGift(party.contributors[0], letter: "Letter from friend one")
        try party.price(offered, cost: 10)
        let submitted = try party.sendGift(party.contributors[1], letter: "Letter from friend two")
        let saved = try party.post(party.contributors[2], "\(party.base)/gift", [("body", "Draft from friend three")], from: "\(party.base)/gift")
        guard saved.status == 303 else { throw TestError("draft not saved: \(saved.status)") }
        let draft = try party.newest("occasion_gifts")
        let adjusted = try party.post(party.host, "\(party.base)/host/points", [("delta", "100"), ("reason", "Starting points")], from: "\(party.base)/host")
        guard adjusted.status == 303 else { throw TestError("adjustment failed: \(adjusted.status)") }
        return RichParty(party: party, challenge: challenge, dare: dare, offered: offered, submitted: submitted, draft: draft)
    }

    /// Every row of the occasion's tables and the invite codes, to prove a
    /// refused request changed nothing.
    func snapshot() throws -> String {
        try party.app.app.database.read { db in
            var lines: [String] = []
            for table in [
                "occasions", "occasion_members", "occasion_challenges", "occasion_gifts", "occasion_timeline", "occasion_adjustments",
                "occasion_reports", "invite_codes",
            ] {
                lines += try TestCatalog.lines(db, table)
            }
            return lines.joined(separator: "\n")
        }
    }
}

enum Actor: String, CaseIterable, CustomStringConvertible, Sendable {
    case host, contributor, celebrant, stranger, visitor
    var description: String { rawValue }
}

@Suite("Occasions: who may see and do what")
struct OccasionAccessTests {
    struct Page: CustomStringConvertible, Sendable {
        var path: @Sendable (RichParty) -> String
        var name: String
        var allowed: Set<Actor>
        /// Members who are not allowed get this (403), outsiders 404.
        var forbiddenStatus = 403
        var description: String { name }
    }

    static let members: Set<Actor> = [.host, .contributor, .celebrant]
    static let contributors: Set<Actor> = [.host, .contributor]

    static let pages: [Page] = [
        Page(path: { $0.party.base }, name: "overview", allowed: members),
        Page(path: { "\($0.party.base)/challenges" }, name: "board", allowed: members),
        Page(path: { "\($0.party.base)/challenges/\($0.challenge)" }, name: "challenge", allowed: members),
        Page(path: { "\($0.party.base)/classified" }, name: "classified", allowed: members),
        Page(path: { "\($0.party.base)/gifts" }, name: "gifts", allowed: members),
        Page(path: { "\($0.party.base)/timeline" }, name: "timeline", allowed: members),
        Page(path: { "\($0.party.base)/people" }, name: "people", allowed: members),
        Page(path: { "\($0.party.base)/dare" }, name: "dare form", allowed: contributors),
        Page(path: { "\($0.party.base)/gift" }, name: "gift editor", allowed: contributors),
        Page(path: { "\($0.party.base)/host" }, name: "host panel", allowed: [.host]),
        Page(path: { "\($0.party.base)/keepsake" }, name: "keepsake", allowed: [.host, .celebrant]),
        Page(path: { "\($0.party.base)/host/challenges/\($0.challenge)" }, name: "edit challenge", allowed: [.host]),
        // Friend one dare before it is found: its author (the contributor
        // here) and the host; to the celebrant it does not exist yet.
        Page(path: { "\($0.party.base)/challenges/\($0.dare)" }, name: "unfound dare", allowed: contributors, forbiddenStatus: 404),
        // Friend one's gift on offer: author, host, celebrant.
        Page(path: { "\($0.party.base)/gifts/\($0.offered)" }, name: "gift on offer", allowed: members),
        // Friend three's draft: its author only (the contributor here is friend one).
        Page(path: { "\($0.party.base)/gifts/\($0.draft)" }, name: "someone's draft", allowed: [], forbiddenStatus: 404),
        // Friend two's sent gift: the host reads it to price it.
        Page(path: { "\($0.party.base)/gifts/\($0.submitted)" }, name: "sent gift", allowed: [.host], forbiddenStatus: 404),
    ]

    func session(_ actor: Actor, _ rich: RichParty) -> WebSession {
        switch actor {
        case .host: rich.party.host
        case .contributor: rich.party.contributors[0]
        case .celebrant: rich.party.celebrant
        case .stranger: rich.party.stranger
        case .visitor: rich.party.visitor
        }
    }

    @Test("every page: members by role see it, members without the role get 403 or 404, outsiders 404, visitors sign in")
    func pagesMatrix() throws {
        let app = try accountsHarness()
        let rich = try RichParty.make(app)
        for page in Self.pages {
            for actor in Actor.allCases {
                let response = try session(actor, rich).get(page.path(rich))
                let expected: Int =
                    page.allowed.contains(actor) ? 200
                    : actor == .visitor ? 303
                    : actor == .stranger ? 404
                    : page.forbiddenStatus
                #expect(response.status == expected, "\(page) as \(actor): \(response.status)")
                if response.status != 200 {
                    for secret in ["Alex turns 30", "Friend one dare", "Letter from friend", "Draft from friend three"] {
                        #expect(!response.text.contains(secret), "\(page) as \(actor) leaked \(secret)")
                    }
                }
            }
        }
    }

    @Test("content shows only to those who may read it")
    func notExpectedContent() throws {
        let app = try accountsHarness()
        let rich = try RichParty.make(app)
        let base = rich.party.base
        // The board and classified view never show unfound dares to the celebrant or other contributors.
        for (actor, path) in [(Actor.celebrant, "/challenges"), (.celebrant, "/classified"), (.celebrant, ""), (.contributor, "/classified")] {
            let text = try session(actor, rich).get(base + path).text
            #expect(!text.contains("Friend two dare"), "\(actor) \(path)")
        }
        #expect(try rich.party.host.get(base + "/classified").text.contains("Friend two dare"))
        // A locked gift shows giver and kind to the celebrant, never its words.
        let carousel = try rich.party.celebrant.get(base + "/gifts").text
        #expect(carousel.contains("Friend 1"))
        #expect(!carousel.contains("Letter from friend one"))
        #expect(!carousel.contains("Letter from friend two"))
        // Other contributors see that a gift is on offer, not what it says.
        let list = try rich.party.contributors[1].get(base + "/gifts").text
        #expect(!list.contains("Letter from friend one"))
        // Only the host sees how people joined.
        let hostPeople = try rich.party.host.get(base + "/people").text
        #expect(hostPeople.contains("with code"))
        for actor in [Actor.contributor, .celebrant] {
            let people = try session(actor, rich).get(base + "/people").text
            #expect(people.contains("Friend 2"))
            #expect(!people.contains("with code"))
            #expect(!people.contains("/remove"))
        }
    }

    struct Action: CustomStringConvertible, Sendable {
        var name: String
        var path: @Sendable (RichParty) -> String
        var fields: [(String, String)] = []
        var allowed: Set<Actor>
        /// Which contributor acts as "contributor" (friend 1 by default).
        var contributor = 0
        /// The page whose form an allowed actor posts (a create form carries its once token); the host's panel otherwise.
        var form: (@Sendable (RichParty) -> String)? = nil
        var description: String { name }
    }

    static let host: Set<Actor> = [.host]
    static let actions: [Action] = [
        Action(name: "complete", path: { "\($0.party.base)/challenges/\($0.challenge)/complete" }, fields: [("proof", "done")], allowed: [.celebrant]),
        Action(name: "open classified", path: { "\($0.party.base)/classified/open" }, allowed: [.celebrant]),
        Action(name: "unlock", path: { "\($0.party.base)/gifts/\($0.offered)/unlock" }, allowed: [.celebrant]),
        Action(name: "save dare", path: { "\($0.party.base)/dare" }, fields: [("title", "New dare"), ("points", "12")], allowed: contributors),
        Action(name: "save gift", path: { "\($0.party.base)/gift" }, fields: [("body", "Rewritten")], allowed: contributors, contributor: 2),
        Action(name: "send gift", path: { "\($0.party.base)/gift/submit" }, allowed: [.contributor], contributor: 2),
        Action(name: "take gift back", path: { "\($0.party.base)/gift/withdraw" }, allowed: [.contributor], contributor: 1),
        Action(
            name: "report", path: { "\($0.party.base)/reports?challenge=\($0.challenge)" }, fields: [("reason", "Too hard")], allowed: members,
            form: { "\($0.party.base)/challenges/\($0.challenge)" }),
        Action(name: "add challenge", path: { "\($0.party.base)/host/challenges" }, fields: [("title", "Hop"), ("points", "5"), ("difficulty", "easy"), ("category", "physical")], allowed: host),
        Action(name: "edit challenge", path: { "\($0.party.base)/host/challenges/\($0.challenge)" }, fields: [("title", "Hop"), ("points", "5"), ("difficulty", "easy"), ("category", "physical")], allowed: host),
        Action(name: "delete challenge", path: { "\($0.party.base)/host/challenges/\($0.challenge)/delete" }, allowed: host),
        Action(name: "force complete", path: { "\($0.party.base)/host/challenges/\($0.challenge)/complete" }, allowed: host),
        Action(name: "dare points", path: { "\($0.party.base)/host/challenges/\($0.dare)/points" }, fields: [("points", "40")], allowed: host),
        Action(name: "dare bounds", path: { "\($0.party.base)/host/dare-bounds" }, fields: [("min", "2"), ("max", "60")], allowed: host),
        Action(name: "price", path: { "\($0.party.base)/host/gifts/\($0.submitted)/price" }, fields: [("cost", "30"), ("position", "1")], allowed: host),
        Action(name: "delete gift", path: { "\($0.party.base)/host/gifts/\($0.offered)/delete" }, allowed: host),
        Action(name: "force unlock", path: { "\($0.party.base)/host/gifts/\($0.offered)/unlock" }, allowed: host),
        Action(name: "adjust points", path: { "\($0.party.base)/host/points" }, fields: [("delta", "5"), ("reason", "Style")], allowed: host),
        Action(name: "finale", path: { "\($0.party.base)/host/finale" }, allowed: host),
        Action(name: "close", path: { "\($0.party.base)/host/close" }, allowed: host),
        Action(name: "hand over", path: { "\($0.party.base)/host/handover" }, fields: [("user", "FRIEND")], allowed: host),
        Action(name: "remove", path: { "\($0.party.base)/host/members/MEMBER/remove" }, allowed: host),
        Action(name: "rotate", path: { "\($0.party.base)/host/invites/occasion/rotate" }, allowed: host),
    ]

    @Test("every action: the allowed role succeeds; everyone else is refused and nothing changes", arguments: actions)
    func actionMatrix(_ action: Action) throws {
        let app = try accountsHarness()
        let rich = try RichParty.make(app)
        let friend = rich.party.userIDs["friend_2"]!
        let path = action.path(rich).replacingOccurrences(of: "MEMBER", with: String(friend))
        let fields = action.fields.map { ($0.0, $0.1 == "FRIEND" ? String(friend) : $0.1) }
        for actor in Actor.allCases where !action.allowed.contains(actor) {
            let before = try rich.snapshot()
            let actorSession = actor == .contributor ? rich.party.contributors[action.contributor] : session(actor, rich)
            let token = try actorSession.token(from: actor == .visitor ? "/signin" : "/")
            let response = try actorSession.post(path, fields, csrf: token)
            let expected: Set<Int> =
                actor == .visitor ? [303] : actor == .stranger ? [404] : [403, 404, 409]
            #expect(expected.contains(response.status), "\(action) as \(actor): \(response.status)")
            #expect(try rich.snapshot() == before, "\(action) as \(actor) changed something")
        }
        for actor in action.allowed {
            let actorSession = actor == .contributor ? rich.party.contributors[action.contributor] : session(actor, rich)
            let before = try rich.snapshot()
            // The host's forms come from the panel, which gives create forms their once token.
            let page = action.form?(rich) ?? (actor == .host ? "\(rich.party.base)/host" : "/")
            let response = try actorSession.postConfirming(path, fields, csrf: try actorSession.token(from: page))
            #expect(response.status == 303, "\(action) as \(actor): \(response.status) \(response.text.prefix(300))")
            #expect(try rich.snapshot() != before, "\(action) as \(actor) changed nothing")
        }
    }

    @Test("a stranger's live stream for the occasion is refused")
    func liveTopicRefused() throws {
        let app = try accountsHarness()
        let rich = try RichParty.make(app)
        for (session, allowed) in [(rich.party.stranger, false), (rich.party.contributors[0], true)] {
            let client = try TestClient(port: app.port)
            try client.send("GET /live?topics=occasion:\(rich.party.id) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
            if allowed {
                #expect(try client.read(until: "retry: 2000", timeout: 5).hasPrefix("HTTP/1.1 200"))
            } else {
                #expect(try client.readResponse().status == 404)
            }
        }
    }
}
