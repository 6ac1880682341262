import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// An occasion with its whole cast, each speaking HTTP through their own
/// session: the host, three contributors, the celebrant, a signed-in
/// stranger and a signed-out visitor.
struct OccasionParty {
    let app: AppHarness
    let id: Int64
    let host: WebSession
    let contributors: [WebSession]
    let celebrant: WebSession
    let stranger: WebSession
    let visitor: WebSession
    let userIDs: [String: Int64]

    var base: String { "/occasions/\(id)" }

    /// Creates the occasion through its form and has everyone join by link.
    static func make(_ app: AppHarness, contributors count: Int = 3, celebrantJoins: Bool = true) throws -> OccasionParty {
        let host = try signUp(app, name: "Hana Host", username: "hana_host")
        let id = try createOccasion(app, host: host)
        let (contributorCode, celebrantCode) = try codes(app, id)
        var contributors: [WebSession] = []
        for index in 0..<count {
            let session = try signUp(app, name: "Friend \(index + 1)", username: "friend_\(index + 1)")
            try join(session, code: contributorCode)
            contributors.append(session)
        }
        let celebrant = try signUp(app, name: "Alex Star", username: "alex_star")
        if celebrantJoins { try join(celebrant, code: celebrantCode) }
        let stranger = try signUp(app, name: "Sam Stranger", username: "sam_stranger")
        var ids: [String: Int64] = [:]
        for username in ["hana_host", "alex_star", "sam_stranger"] + (0..<count).map({ "friend_\($0 + 1)" }) {
            ids[username] = try app.app.database.read { try AccountStore.credentials($0, username: username) }?.user.id
        }
        return OccasionParty(
            app: app, id: id, host: host, contributors: contributors, celebrant: celebrant, stranger: stranger,
            visitor: WebSession(port: app.port), userIDs: ids)
    }

    static func createOccasion(_ app: AppHarness, host: WebSession, name: String = "Alex turns 30") throws -> Int64 {
        let response = try host.post(
            "/occasions",
            [("name", name), ("kind", "birthday"), ("celebrant_name", "Alex"), ("date", "2026-12-12"), ("host_name", "Hana")],
            csrf: try host.token(from: "/occasions/new"))
        guard response.status == 303, let location = response.header("Location"),
            let id = location.split(separator: "/").compactMap({ Int64($0) }).first
        else { throw TestError("creating the occasion failed: \(response.status) \(response.text.prefix(400))") }
        return id
    }

    static func codes(_ app: AppHarness, _ id: Int64) throws -> (contributor: String, celebrant: String) {
        try app.app.database.read { db in
            (
                try #require(try app.app.invites.code(db, kind: OccasionRoutes.contributorInvite, targetID: id)),
                try #require(try app.app.invites.code(db, kind: OccasionRoutes.celebrantInvite, targetID: id))
            )
        }
    }

    @discardableResult
    static func join(_ session: WebSession, code: String) throws -> TestResponse {
        try session.post("/join/\(code)", [], csrf: try session.token(from: "/join/\(code)"))
    }

    /// Posts a form from a page of the occasion, with that page's token.
    @discardableResult
    func post(_ session: WebSession, _ path: String, _ fields: [(String, String)] = [], from page: String? = nil) throws -> TestResponse {
        try session.post(path, fields, csrf: try session.token(from: page ?? base))
    }

    func balance() throws -> Int {
        try app.app.database.read { try $0.queryValue("SELECT balance FROM occasions WHERE id = \(id)", as: Int.self) } ?? -1
    }

    func derivedBalance() throws -> Int {
        try app.app.database.read { try OccasionStore.derivedBalance($0, occasionID: id) }
    }

    /// Adds a host challenge through the panel; returns its id.
    @discardableResult
    func addChallenge(_ title: String, points: Int, optionB: String? = nil, category: String = "social") throws -> Int64 {
        let response = try post(
            host, "\(base)/host/challenges",
            [
                ("title", title), ("description", "Do it **well**."), ("option_b", optionB ?? ""), ("points", String(points)),
                ("difficulty", "medium"), ("category", category),
            ], from: "\(base)/host")
        guard response.status == 303 else { throw TestError("adding a challenge failed: \(response.status) \(response.text.prefix(300))") }
        return try newest("occasion_challenges")
    }

    /// A contributor writes, saves and sends a letter; returns the gift id.
    @discardableResult
    func sendGift(_ session: WebSession, letter: String) throws -> Int64 {
        let saved = try post(session, "\(base)/gift", [("body", letter)], from: "\(base)/gift")
        guard saved.status == 303 else { throw TestError("saving a gift failed: \(saved.status) \(saved.text.prefix(300))") }
        let sent = try post(session, "\(base)/gift/submit", [], from: "\(base)/gift")
        guard sent.status == 303 else { throw TestError("sending a gift failed: \(sent.status)") }
        return try newest("occasion_gifts")
    }

    func price(_ giftID: Int64, cost: Int, position: Int = 0) throws {
        let response = try post(host, "\(base)/host/gifts/\(giftID)/price", [("cost", String(cost)), ("position", String(position))])
        guard response.status == 303 else { throw TestError("pricing failed: \(response.status) \(response.text.prefix(300))") }
    }

    /// A contributor files their dare; returns its id.
    @discardableResult
    func fileDare(_ session: WebSession, title: String, points: Int) throws -> Int64 {
        let response = try post(session, "\(base)/dare", [("title", title), ("description", ""), ("points", String(points))], from: "\(base)/dare")
        guard response.status == 303 else { throw TestError("filing a dare failed: \(response.status) \(response.text.prefix(300))") }
        return try app.app.database.read {
            try $0.queryValue("SELECT max(id) FROM occasion_challenges WHERE kind = 'dare'", as: Int64.self)
        } ?? 0
    }

    func complete(_ challengeID: Int64, proof: String = "done", text: String = "", option: String? = nil) throws -> TestResponse {
        var fields = [("proof", proof), ("proof_text", text)]
        if let option { fields.append(("option", option)) }
        return try post(celebrant, "\(base)/challenges/\(challengeID)/complete", fields, from: "\(base)/challenges/\(challengeID)")
    }

    func unlock(_ giftID: Int64) throws -> TestResponse {
        try post(celebrant, "\(base)/gifts/\(giftID)/unlock", [], from: "\(base)/gifts")
    }

    func newest(_ table: String) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT max(id) FROM \(identifier: table)", as: Int64.self) } ?? 0
    }
}
