import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// People, friendships and tallies made through the real forms, for the
/// tally stories.
enum Tallies {
    /// A Kith with cheap password hashing and a clock the story moves.
    static func harness(clock: Locked<Int64> = Locked(Tallies.start)) throws -> AppHarness {
        try accountsHarness(clock: clock)
    }

    /// 2026-06-10 10:00 UTC, a Wednesday.
    static let start: Int64 = 1_781_085_600

    /// Signs up through the form in a given time zone; the session and the id.
    static func person(_ app: AppHarness, _ username: String, name: String? = nil, timeZone: String = "UTC") throws -> (session: WebSession, id: Int64) {
        let session = WebSession(port: app.port)
        let token = try session.token(from: "/signup")
        let response = try session.post(
            "/signup",
            [("display_name", name ?? username.capitalized), ("username", username), ("password", "correct horse"), ("time_zone", timeZone)],
            csrf: token)
        guard response.status == 200, session.sessionCookie != nil else { throw TestError("sign-up failed: \(response.status)") }
        return (session, try #require(try storedUserID(app, username: username)))
    }

    /// Posts from a signed-in page's form token.
    @discardableResult
    static func post(_ session: WebSession, _ path: String, _ fields: [(String, String)] = [], headers: [String: String] = [:]) throws -> TestResponse {
        try session.post(path, fields, csrf: try session.token(from: "/friends"), headers: headers)
    }

    static func befriend(_ session: WebSession, _ username: String) throws {
        let response = try post(session, "/friends", [("username", username)])
        guard response.status == 303 else { throw TestError("befriending \(username) failed: \(response.status)") }
    }

    /// Creates a tally through the form and returns its id.
    static func create(
        _ session: WebSession, name: String = "Coffee", count: Int = 0, schedule: String = "off", shares: [(Int64, String)] = []
    ) throws -> Int64 {
        var fields = [("name", name), ("count", String(count)), ("schedule", schedule), ("fireworks", "on")]
        fields += shares.map { ("share-\($0.0)", $0.1) }
        let response = try session.post("/tallies", fields, csrf: try session.token(from: "/tallies/new"))
        guard response.status == 303, let location = response.header("Location"), let id = Int64(location.split(separator: "/").last ?? "")
        else { throw TestError("creating a tally failed: \(response.status) \(response.text.prefix(2000))") }
        return id
    }

    static func count(_ app: AppHarness, _ id: Int64) throws -> Int64? {
        try app.app.database.read { try $0.queryValue("SELECT count FROM tallies WHERE id = \(id)", as: Int64.self) }
    }

    /// Everything stored about a tally, as one string to compare before and after.
    static func row(_ app: AppHarness, _ id: Int64) throws -> String? {
        try app.app.database.read { db in
            guard let tally = try db.queryOne("""
                SELECT name, count, fireworks, reset_schedule, next_reset_at, version, updated_at, updated_by FROM tallies WHERE id = \(id)
                """)
            else { return nil }
            let shares = try db.query("SELECT user_id, permission FROM tally_shares WHERE tally_id = \(id) ORDER BY user_id")
            return try TestCatalog.line(tally) + "|" + shares.map { "\(try $0.get("user_id", as: Int64.self))\(try $0.get("permission", as: String.self))" }.joined(separator: ",")
        }
    }

    /// An event stream for `topics` as `session` opens it, past its preamble.
    static func stream(_ app: AppHarness, _ session: WebSession, topics: String) throws -> TestClient {
        let client = try TestClient(port: app.port)
        try client.send("GET /live?topics=\(topics) HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
        _ = try client.read(until: "retry: 2000", timeout: 5)
        return client
    }

    /// An instant written with its UTC offset, as seconds since 1970.
    static func instant(_ iso: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        return Int64(formatter.date(from: iso)!.timeIntervalSince1970)
    }
}
