import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A page view is a read. Live updates make every open page refetch itself
/// on each change, so a GET that wrote would turn one change into a write
/// per viewer — and a chat app fetching a link preview would change data.
@Suite("Reading never writes")
struct ReadOnlyGetTests {
    @Test("GETs of every page and fragment, by each member, leave the database unchanged from the first, even right after others' changes")
    func getsDoNotWrite() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let bob = try Tallies.person(app, "bob")
        try Tallies.befriend(ada.session, "bob")
        let tally = try Tallies.create(ada.session, name: "Coffee", shares: [(bob.id, "edit")])
        let game = try Plates.create(ada.session)
        #expect(try Plates.join(app, bob.session, game).status == 303)
        let occasion = try OccasionParty.createOccasion(app, host: ada.session)
        let (contributorCode, _) = try OccasionParty.codes(app, occasion)
        #expect(try OccasionParty.join(bob.session, code: contributorCode).status == 303)

        let base = "/occasions/\(occasion)"
        let pages = [
            "/", "/settings", "/settings/password", "/inbox", "/inbox/list", "/inbox/count", "/friends", "/join",
            "/join/\(contributorCode)", "/tallies/new", "/tallies/list", "/tallies/\(tally)", "/tallies/\(tally)/row",
            "/tallies/\(tally)/face", "/tallies/\(tally)/people",
            "/tallies/\(tally)/fragments?fragments=tally-\(tally)-face,tally-\(tally)-people,tally-\(tally)-history", "/games", "/games/new", "/games/\(game)",
            "/games/\(game)/board", "/games/\(game)/feed", "/games/\(game)/spot", "/games/\(game)/spot/list",
            "/games/\(game)/states/TX", "/games/\(game)/players", "/games/\(game)/leave", "/occasions/new", base,
            "\(base)/challenges", "\(base)/gifts", "\(base)/timeline", "\(base)/people", "\(base)/gift", "\(base)/dare",
            "\(base)/host", "/no-such-page",
        ]
        let watch = try WriteWatch(app)
        func version() throws -> String { try watch.version() }

        // Before each of Ada's page views Bob changes the shared tally, so
        // every page meets something she has not seen yet.
        #expect(try bob.session.post("/games/\(game)/spots", [("state", "TX")], csrf: try bob.session.token(from: "/games/\(game)")).status == 303)
        for page in pages {
            #expect(try Tallies.post(bob.session, "/tallies/\(tally)/increment").status == 303)
            let before = try version()
            let response = try ada.session.get(page)
            #expect(response.status < 500, "\(page)")
            #expect(try version() == before, "GET \(page) wrote to the database")
        }
    }

    /// What a page names to refetch: its fragments' URLs and its live topics.
    struct LivePage {
        let fragments: [String]
        let topics: String
        /// Where the page fetches its fragments together, with their ids.
        let batch: String?

        /// The fragments inside the batch element (the page's main content,
        /// after the navigation's own fragments).
        var batchURL: String? {
            guard let batch, let start = text.firstMatch(of: /data-fragment-batch="/)?.range.upperBound else { return nil }
            let ids = text[start...].matches(of: /\bid="([^"]+)"[^>]*\bdata-fragment="/).map { String($0.output.1) }
            return "\(batch)?fragments=\(ids.joined(separator: ","))"
        }
        private let text: String

        init(_ page: TestResponse) throws {
            let text = page.text
            fragments = text.matches(of: /data-fragment="([^"]+)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") }
            topics = try #require(text.firstMatch(of: /<meta name="kith-live" content="([^"]+)"/)).output.1.description
            batch = text.firstMatch(of: /data-fragment-batch="([^"]+)"/).map { String($0.output.1) }
            self.text = text
        }
    }

    @Test("A wave of live refetches after one change writes nothing, even when every viewer's session is due its last-seen refresh")
    func refetchWaveDoesNotWrite() throws {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        var viewers: [(session: WebSession, id: Int64)] = []
        for index in 0..<6 {
            let viewer = try Tallies.person(app, "viewer\(index)")
            try Tallies.befriend(ada.session, "viewer\(index)")
            viewers.append(viewer)
        }
        let tally = try Tallies.create(ada.session, shares: viewers.map { ($0.id, "edit") })
        let occasion = try OccasionParty.createOccasion(app, host: ada.session)
        let (code, _) = try OccasionParty.codes(app, occasion)
        for viewer in viewers { #expect(try OccasionParty.join(viewer.session, code: code).status == 303) }
        // Each viewer's open tabs, loaded while their sessions were fresh.
        let tabs = try viewers.map { viewer in
            try ["/tallies/\(tally)", "/occasions/\(occasion)", "/"].map { path in
                let page = try viewer.session.get(path)
                #expect(page.status == 200, "\(path)")
                return try LivePage(page)
            }
        }
        #expect(tabs.allSatisfy { $0.allSatisfy { !$0.fragments.isEmpty } })
        #expect(tabs.allSatisfy { $0[0].batchURL?.contains("-history") == true }, "the tally page fetches its fragments together")

        // An hour and more later every session is due a refresh of its
        // last-seen time, which a refetch used to write.
        clock.withLock { $0 += Sessions.touchInterval + 60 }
        #expect(try Tallies.post(ada.session, "/tallies/\(tally)/increment").status == 303)
        let challenge = try ada.session.post(
            "/occasions/\(occasion)/host/challenges",
            [("title", "Sing"), ("description", "Loudly."), ("points", "10"), ("difficulty", "medium"), ("category", "social")],
            csrf: try ada.session.token(from: "/occasions/\(occasion)/host"))
        #expect(challenge.status == 303)

        let watch = try WriteWatch(app)
        func version() throws -> String { try watch.version() }
        let before = try version()
        for (viewer, pages) in zip(viewers, tabs) {
            for page in pages {
                let stream = try Tallies.stream(app, viewer.session, topics: page.topics)
                try withExtendedLifetime(stream) {
                    for fragment in page.fragments + (page.batchURL.map { [$0] } ?? []) {
                        let response = try viewer.session.get(fragment, headers: [RequestContext.enhancedHeader: "fragment"])
                        #expect(response.status == 200, "\(fragment)")
                    }
                }
            }
        }
        #expect(try version() == before, "the refetches wrote to the database")

        // The idle clock is still kept by what a person does: their next
        // page view refreshes it, once.
        #expect(try viewers[0].session.get("/").status == 200)
        let touched = try version()
        #expect(touched != before, "a page view an hour on refreshes the session's last-seen time")
        #expect(try viewers[0].session.get("/").status == 200)
        #expect(try version() == touched)
    }
}
