import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A page runs the same number of SQL statements however many rows it
/// shows: a query inside a loop over rows makes a busy occasion or a long
/// trip slower with every entry. Each page is counted in a small case, the
/// data grown, and counted again.
@Suite("Statements per render")
struct StatementCountTests {
    /// Statements the app runs for one GET. The fewest of three tries: a
    /// session's hourly refresh or a background task may add to one of them.
    static func statements(_ app: AppHarness, _ session: WebSession, _ path: String) throws -> Int {
        var fewest = Int.max
        var dropped = 0
        for _ in 0..<3 {
            let before = app.app.database.statementsRun
            let response: TestResponse
            do {
                response = try session.get(path)
            } catch let error as TestError where error.description.contains("connection closed") && dropped < 2 {
                // A connection the loaded machine dropped is not a render; a
                // GET may be asked again, and the fewest count still holds.
                dropped += 1
                continue
            }
            #expect(response.status == 200, "\(path) answered \(response.status)")
            fewest = min(fewest, app.app.database.statementsRun - before)
        }
        return fewest
    }

    static func counts(_ app: AppHarness, _ pages: [(String, WebSession, String)]) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (name, session, path) in pages { counts[name] = try statements(app, session, path) }
        return counts
    }

    static func expectConstant(_ small: [String: Int], _ grown: [String: Int], sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, count) in small.sorted(by: { $0.key < $1.key }) {
            print("statements \(name): \(count) small, \(grown[name] ?? -1) grown")
            #expect(grown[name] == count, "\(name) ran \(count) statements in the small case and \(grown[name] ?? -1) grown", sourceLocation: sourceLocation)
        }
    }

    @Test("the counter counts: a page's statements are counted, and a loop of queries would show")
    func counterCounts() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        #expect(try Self.statements(app, ada.session, "/") > 0)
        let before = app.app.database.statementsRun
        try app.app.database.read { db in
            for _ in 0..<5 { _ = try db.queryValue("SELECT 1", as: Int.self) }
        }
        // BEGIN, five SELECTs, COMMIT.
        #expect(app.app.database.statementsRun - before == 7)
    }

    @Test("tallies: the dashboard, the list, a shared tally and its history run as many statements with 3 tallies as with 15, and with more people and counts")
    func tallies() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        var friends: [(session: WebSession, id: Int64)] = []
        for name in ["bob", "cyd", "dee", "eve"] {
            let friend = try Tallies.person(app, name)
            try Tallies.befriend(ada.session, name)
            friends.append(friend)
        }
        let shared = try Tallies.create(ada.session, name: "Push-ups", shares: [(friends[0].id, "edit")])
        for index in 0..<2 { _ = try Tallies.create(ada.session, name: "Tally \(index)", count: index) }
        #expect(try Tallies.post(ada.session, "/tallies/\(shared)/goal", [("goal_period", "day"), ("goal_target", "5")]).status == 303)
        #expect(try Tallies.post(friends[0].session, "/tallies/\(shared)/increment").status == 303)
        let pages: [(String, WebSession, String)] = [
            ("dashboard", ada.session, "/"), ("tally list", ada.session, "/tallies/list"), ("tally", ada.session, "/tallies/\(shared)"),
            ("history", ada.session, "/tallies/\(shared)/history"), ("friends", ada.session, "/friends"),
            ("shared tally as friend", friends[0].session, "/tallies/\(shared)"),
        ]
        let small = try Self.counts(app, pages)

        for index in 2..<14 {
            let tally = try Tallies.create(ada.session, name: "Tally \(index)", count: index, shares: [(friends[index % 4].id, "view")])
            guard index % 3 == 0 else { continue }
            #expect(try Tallies.post(ada.session, "/tallies/\(tally)/goal", [("goal_period", "week"), ("goal_target", "3")]).status == 303)
            #expect(try Tallies.post(ada.session, "/tallies/\(tally)/increment").status == 303)
        }
        let everyone = friends.map { ("share-\($0.id)", "edit") }
        #expect(try Tallies.post(ada.session, "/tallies/\(shared)/sharing", everyone).status == 303)
        // The same person changes the tally last in both cases: whether the
        // viewer may take back the latest change costs a statement of its own.
        for _ in 0..<5 { #expect(try Tallies.post(ada.session, "/tallies/\(shared)/increment").status == 303) }
        for friend in friends.reversed() {
            for _ in 0..<3 { #expect(try Tallies.post(friend.session, "/tallies/\(shared)/increment").status == 303) }
        }
        Self.expectConstant(small, try Self.counts(app, pages))
    }

    @Test("plate games: the board, feed, players, a state and the trip run as many statements with 2 players and 4 spots as with 8 players and many spots")
    func plates() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let created = try dad.session.post(
            "/games", [("name", "Road trip"), ("mode", "competitive"), ("countries", "us-ca-mx")], csrf: try dad.session.token(from: "/games/new"))
        let game = try #require(created.header("Location").flatMap { Int64($0.dropFirst("/games/".count)) })
        let mom = try Plates.player(app, "mom", name: "Mom", joining: game)
        for state in ["TX", "CA"] { #expect(try Plates.spot(dad.session, game, state).status == 303) }
        for state in ["NY", "CA-ON"] { #expect(try Plates.spot(mom.session, game, state).status == 303) }
        let pages: [(String, WebSession, String)] = [
            ("game", dad.session, "/games/\(game)"), ("board", dad.session, "/games/\(game)/board"), ("feed", dad.session, "/games/\(game)/feed"),
            ("spot", dad.session, "/games/\(game)/spot"), ("spot list", dad.session, "/games/\(game)/spot/list"),
            ("players", dad.session, "/games/\(game)/players"), ("state", dad.session, "/games/\(game)/states/TX"),
            ("trip", dad.session, "/games/\(game)/trip"), ("games", dad.session, "/games"), ("dashboard", dad.session, "/"),
        ]
        let small = try Self.counts(app, pages)

        var players = [dad.session, mom.session]
        for index in 0..<6 { players.append(try Plates.player(app, "kid\(index)", name: "Kid \(index)", joining: game).session) }
        let states = [
            "FL", "WA", "OR", "NV", "AZ", "UT", "ID", "MT", "WY", "CO", "NM", "OK", "KS", "NE", "SD", "ND", "MN", "IA", "MO", "AR",
            "LA", "MS", "AL", "GA", "CA-QC", "CA-BC", "MX-JAL", "MX-NLE", "MX-SON", "OH",
        ]
        for (index, player) in players.enumerated() {
            for state in states.dropFirst(index * 3).prefix(3) { #expect(try Plates.spot(player, game, state).status == 303, "\(state)") }
        }
        Self.expectConstant(small, try Self.counts(app, pages))
    }

    @Test("occasions: the occasion, timeline, gifts, challenges, people and host panel run as many statements with 2 contributors as with 5, and with more gifts, challenges and points")
    func occasions() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2)
        let base = party.base
        let first = try party.sendGift(party.contributors[0], letter: "Happy **birthday**")
        try party.price(first, cost: 10)
        let challenge = try party.addChallenge("Sing", points: 10)
        #expect(try party.post(party.host, "\(base)/host/points", [("delta", "50"), ("reason", "Start")], from: "\(base)/host").status == 303)
        let pages: [(String, WebSession, String)] = [
            ("occasion", party.host, base), ("occasion as celebrant", party.celebrant, base),
            ("timeline", party.contributors[0], "\(base)/timeline"), ("gifts", party.celebrant, "\(base)/gifts"),
            ("gift", party.celebrant, "\(base)/gifts/\(first)"), ("challenges", party.contributors[0], "\(base)/challenges"),
            ("challenge", party.celebrant, "\(base)/challenges/\(challenge)"), ("people", party.host, "\(base)/people"),
            ("host", party.host, "\(base)/host"), ("dashboard", party.host, "/"),
        ]
        let small = try Self.counts(app, pages)

        let code = try OccasionParty.codes(app, party.id).contributor
        var givers = [party.contributors[1]]
        for index in 0..<3 {
            let session = try signUp(app, name: "Late \(index)", username: "late_\(index)")
            #expect(try OccasionParty.join(session, code: code).status == 303)
            givers.append(session)
        }
        for (index, session) in givers.enumerated() {
            let gift = try party.sendGift(session, letter: "Letter \(index)")
            try party.price(gift, cost: 5)
        }
        for index in 0..<4 { try party.addChallenge("Challenge \(index)", points: 5 + index) }
        for index in 0..<4 {
            #expect(try party.post(party.host, "\(base)/host/points", [("delta", "\(index + 1)"), ("reason", "Bonus \(index)")], from: "\(base)/host").status == 303)
        }
        #expect(try party.complete(challenge).status == 303)
        #expect(try party.unlock(first).status == 303)
        Self.expectConstant(small, try Self.counts(app, pages))
    }
}
