import Foundation
import KithHTTP
import KithTestSupport
import Testing

/// Kith over HTTP/2: the same scopes, the same CSRF checks and the same live
/// streams as over HTTP/1.1, whatever the protocol underneath.
@Suite("Kith over HTTP/2", .enabled(if: HTTP2Client.available), .serialized)
struct HTTP2AppTests {
    private func cookie(_ session: WebSession) -> String {
        "cookie: kith_session=\(session.sessionCookie ?? "")"
    }

    @Test("a member's occasion page is served over HTTP/2; a signed-in stranger gets 404")
    func scopes() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let host = try HTTP2Client.run("get", port: app.port, [party.base, cookie(party.host)])
        #expect(host["status"] as? Int == 200)
        #expect((host["body"] as? String)?.contains("Alex turns 30") == true)
        let stranger = try HTTP2Client.run("get", port: app.port, [party.base, cookie(party.stranger)])
        #expect(stranger["status"] as? Int == 404)
        #expect((stranger["body"] as? String)?.contains("Alex turns 30") == false)
    }

    @Test("a post without its form token is refused over HTTP/2, and one with it goes through")
    func csrf() throws {
        let app = try accountsHarness()
        let session = try signUp(app, username: "h2_member")
        let signedIn = { () throws -> Bool in
            let home = try HTTP2Client.run("get", port: app.port, ["/", cookie(session)])
            return (home["body"] as? String)?.contains("/signout") == true
        }
        #expect(try signedIn())
        let origin = "origin: http://127.0.0.1:\(app.port)"
        let refused = try HTTP2Client.run("post", port: app.port, ["/signout", "", cookie(session), origin])
        #expect(refused["status"] as? Int == 403)
        #expect(try signedIn(), "the refused post signed nobody out")
        let token = try session.token(from: "/")
        let accepted = try HTTP2Client.run(
            "post", port: app.port, ["/signout", "_csrf=\(WebSession.encode(token))", cookie(session), origin])
        #expect(accepted["status"] as? Int == 303)
        #expect(try !signedIn(), "signed out for real: the old cookie opens nothing now")
    }

    @Test("twenty live streams for an occasion on one HTTP/2 connection each receive a publish")
    func liveStreams() throws {
        // One person's tabs are capped at eight; this person may have twenty.
        let app = try AppHarness(configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            config.live.maxStreamsPerViewer = 20
        })
        let party = try OccasionParty.make(app, contributors: 1)
        let topic = "occasion:\(party.id)"
        let member = try HTTP2Client.Running("watch", port: app.port, ["/live?topics=\(topic)", "20", "h2-marker", cookie(party.host)])
        #expect(member.waitFor("OPEN"))
        app.app.live.publish(topic: topic, fragments: ["h2-marker"])
        let result = try member.finish()
        #expect(result["statuses"] as? [Int] == Array(repeating: 200, count: 20))
        #expect(result["received"] as? Int == 20)
        let stranger = try HTTP2Client.run("watch", port: app.port, ["/live?topics=\(topic)", "1", "h2-marker", cookie(party.stranger)])
        #expect(stranger["statuses"] as? [Int] == [404])
    }
}
