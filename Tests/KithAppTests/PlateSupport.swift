import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// Helpers for the plate game's stories: a harness on a fixed (movable)
/// clock, and the requests a family's browsers make.
enum Plates {
    static let start: Int64 = 1_800_000_000

    static func harness(clock: Locked<Int64> = Locked(start)) throws -> AppHarness {
        try AppHarness(configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            config.clock = { clock.value }
        })
    }

    /// Creates a game through the form and returns its id.
    @discardableResult
    static func create(
        _ session: WebSession, name: String = "Summer Road Trip", mode: String = "collaborative", dc: Bool = false
    ) throws -> Int64 {
        var fields = [("name", name), ("mode", mode)]
        if dc { fields.append(("dc", "on")) }
        let response = try session.post("/games", fields, csrf: try session.token(from: "/games/new"))
        guard response.status == 303, let location = response.header("Location"), location.hasPrefix("/games/"),
            let id = Int64(location.dropFirst("/games/".count))
        else { throw TestError("create failed: \(response.status) \(response.text.prefix(300))") }
        return id
    }

    /// The game's live invite code.
    static func code(_ app: AppHarness, _ game: Int64) throws -> String {
        try #require(try app.app.database.read { try app.app.invites.code($0, kind: "game", targetID: game) })
    }

    /// Joins as the signed-in person behind `session`.
    @discardableResult
    static func join(_ app: AppHarness, _ session: WebSession, _ game: Int64) throws -> TestResponse {
        let code = try code(app, game)
        return try session.post("/join/\(code)", [], csrf: try session.token(from: "/join/\(code)"))
    }

    /// A member who signed up and joined.
    static func player(_ app: AppHarness, _ username: String, name: String, joining game: Int64) throws -> (session: WebSession, id: Int64) {
        let member = try signUpMember(app, username, name: name)
        let joined = try join(app, member.session, game)
        guard joined.status == 303 else { throw TestError("join failed: \(joined.status)") }
        return member
    }

    typealias Member = (session: WebSession, id: Int64)

    /// Dad's game with Mom in it, where most stories start.
    static func family(_ app: AppHarness, mode: String = "collaborative", dc: Bool = false) throws -> (dad: Member, game: Int64, mom: Member) {
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try create(dad.session, mode: mode, dc: dc)
        return (dad, game, try player(app, "mom", name: "Mom", joining: game))
    }

    @discardableResult
    static func spot(_ session: WebSession, _ game: Int64, _ state: String, from: String = "board") throws -> TestResponse {
        try session.post("/games/\(game)/spots", [("state", state), ("from", from)], csrf: try session.token(from: "/games/\(game)"))
    }

    /// Every spot row of a game, as text: what must not change when the mode does.
    static func spotRows(_ app: AppHarness, _ game: Int64) throws -> [String] {
        try app.app.database.read { db in
            try db.query("SELECT id, user_id, region, spotted_at, proof FROM plate_spots WHERE game_id = \(game) ORDER BY id").map { row in
                "\(try row.get("id", as: Int64.self)) \(try row.get("user_id", as: Int64.self)) \(try row.get("region", as: String.self)) \(try row.get("spotted_at", as: Int64.self)) \(try row.get("proof", as: String?.self) ?? "-")"
            }
        }
    }

    static func spotID(_ app: AppHarness, _ game: Int64, user: Int64, region: String) throws -> Int64 {
        try #require(try app.app.database.read {
            try $0.queryValue("SELECT id FROM plate_spots WHERE game_id = \(game) AND user_id = \(user) AND region = \(region)", as: Int64.self)
        })
    }

    /// The opening tag of a state's control on a page, for its status.
    static func control(_ html: String, _ code: String) -> String? {
        guard let marker = html.range(of: "data-state=\"\(code)\"") else { return nil }
        guard let start = html[..<marker.lowerBound].range(of: "<a ", options: .backwards)?.lowerBound,
            let end = html[marker.upperBound...].firstIndex(of: ">")
        else { return nil }
        return String(html[start...end])
    }

    /// An open event stream for `topics`, read past its opening.
    static func stream(_ app: AppHarness, _ session: WebSession, topics: String) throws -> TestClient {
        let client = try TestClient(port: app.port)
        try client.send("GET /live?topics=\(topics) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie ?? "")\r\n\r\n")
        _ = try client.read(until: "retry: 2000", timeout: 5)
        return client
    }
}
