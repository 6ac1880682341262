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
    @Test("GETs of every page and fragment, by each member, leave the database unchanged, even right after others' changes")
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
            "/tallies/\(tally)/face", "/tallies/\(tally)/people", "/games", "/games/new", "/games/\(game)",
            "/games/\(game)/board", "/games/\(game)/feed", "/games/\(game)/spot", "/games/\(game)/spot/list",
            "/games/\(game)/states/TX", "/games/\(game)/players", "/games/\(game)/leave", "/occasions/new", base,
            "\(base)/challenges", "\(base)/gifts", "\(base)/timeline", "\(base)/people", "\(base)/gift", "\(base)/dare",
            "\(base)/host", "/no-such-page",
        ]
        // One reader: `data_version` is per connection.
        let watcher = try Database(path: app.app.configuration.databasePath, readers: 1)
        defer { watcher.close() }
        func version() throws -> Int64 { try watcher.read { try $0.queryValue("PRAGMA data_version", as: Int64.self) } ?? -1 }

        // Once through, so that sign-in bookkeeping settles (a session's
        // last-seen time is refreshed at most hourly).
        for page in pages { _ = try ada.session.get(page); _ = try bob.session.get(page) }

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
}
