import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A live event's refetch, made cheap: several fragments of a page in one
/// GET (`LiveFragments`), a page's own live region without its frame, and
/// events that name only what changed. Cheap must not mean shared: each
/// viewer still gets their own HTML, outsiders still get 404, nothing writes.
@Suite("Live fragments, fetched together")
struct LiveFragmentTests {
    static let refetch = [RequestContext.enhancedHeader: "fragment"]

    /// The tally stories' cast (`TallyTests.cast`), after a +1 by the editor.
    static func cast() throws -> TallyTests.Cast {
        let cast = try TallyTests.cast()
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(cast.tally)/increment").status == 303)
        return cast
    }

    static func ids(_ tally: Int64) -> (face: String, people: String, history: String) {
        ("tally-\(tally)-face", "tally-\(tally)-people", "tally-\(tally)-history")
    }

    static func batch(_ tally: Int64, _ names: [String]) -> String { "/tallies/\(tally)/fragments?fragments=\(names.joined(separator: ","))" }

    /// The ids of the top-level elements of an answer, in order.
    static func topLevelIDs(_ html: String) -> [String] {
        html.matches(of: /<(?:section|div)[^>]*\bid="([^"]+)"[^>]*\bdata-fragment=/).map { String($0.output.1) }
    }

    @Test("the combined refetch returns exactly the named fragments, in the order asked, each what its own route returns for that viewer")
    func combinedEqualsSingles() throws {
        let cast = try Self.cast()
        let (face, people, history) = Self.ids(cast.tally)
        let singles = ["face": "/tallies/\(cast.tally)/face", "people": "/tallies/\(cast.tally)/people", "history": "/tallies/\(cast.tally)/history"]
        for viewer in [cast.owner.session, cast.edit.session, cast.view.session] {
            let one = try singles.mapValues { path -> String in
                let response = try viewer.get(path, headers: Self.refetch)
                #expect(response.status == 200, "\(path)")
                return response.text
            }
            let all = try viewer.get(Self.batch(cast.tally, [face, people, history]), headers: Self.refetch)
            #expect(all.status == 200)
            #expect(all.text == one["face"]! + one["people"]! + one["history"]!)
            #expect(Self.topLevelIDs(all.text) == [face, people, history])

            let two = try viewer.get(Self.batch(cast.tally, [history, face, face]), headers: Self.refetch)
            #expect(two.text == one["history"]! + one["face"]!, "asked order, each once")
            #expect(Self.topLevelIDs(two.text) == [history, face])
        }
        // The page says where its fragments are fetched together.
        #expect(try cast.edit.session.get("/tallies/\(cast.tally)").text.contains("data-fragment-batch=\"/tallies/\(cast.tally)/fragments\""))
    }

    @Test("each viewer gets their own rights: only the owner sees the sharing form, only those who may count see the count's form")
    func ownRights() throws {
        let cast = try Self.cast()
        let (face, people, history) = Self.ids(cast.tally)
        let path = Self.batch(cast.tally, [face, people, history])
        let sharing = "action=\"/tallies/\(cast.tally)/sharing\""
        let increment = "action=\"/tallies/\(cast.tally)/increment\""
        let owner = try cast.owner.session.get(path, headers: Self.refetch).text
        let editor = try cast.edit.session.get(path, headers: Self.refetch).text
        let viewer = try cast.view.session.get(path, headers: Self.refetch).text
        #expect(owner.contains(sharing) && owner.contains(increment))
        #expect(!editor.contains(sharing) && editor.contains(increment))
        #expect(!viewer.contains(sharing) && !viewer.contains(increment))
        #expect(viewer.contains("View only"))
        // Each carries its own session's form token, never another's.
        let adaToken = try cast.owner.session.token(from: "/friends")
        let bobToken = try cast.edit.session.token(from: "/friends")
        #expect(owner.contains(adaToken) && !owner.contains(bobToken))
        #expect(editor.contains(bobToken) && !editor.contains(adaToken))
    }

    @Test("an outsider gets 404 saying gone, a signed-out script 401, and ids the page does not have a clear 400")
    func refusals() throws {
        let cast = try Self.cast()
        let (face, people, history) = Self.ids(cast.tally)
        let stranger = try cast.stranger.session.get(Self.batch(cast.tally, [face, people, history]), headers: Self.refetch)
        #expect(stranger.status == 404)
        #expect(stranger.header("X-Kith-Ending") == "gone")
        #expect(!stranger.text.contains("Coffee"))
        // A stranger asking for nonsense still learns nothing: 404 first.
        #expect(try cast.stranger.session.get(Self.batch(cast.tally, ["nope"]), headers: Self.refetch).status == 404)
        let signedOut = try WebSession(port: cast.app.port).get(Self.batch(cast.tally, [face]), headers: Self.refetch)
        #expect(signedOut.status == 401)

        for bad in [Self.batch(cast.tally, ["tally-999-face"]), Self.batch(cast.tally, ["%3Cscript%3E"]), "/tallies/\(cast.tally)/fragments",
                    Self.batch(cast.tally, []), Self.batch(cast.tally, Array(repeating: face, count: 17))] {
            let response = try cast.edit.session.get(bad, headers: Self.refetch)
            #expect(response.status == 400, "\(bad)")
            #expect(response.text.contains("part") || response.text.contains("parts"), "\(bad): a human message")
            #expect(!response.text.contains("<script>"))
        }
    }

    @Test("a count change names the face and history only; a sharing change names the people table too")
    func eventsNameWhatChanged() throws {
        let cast = try Self.cast()
        let (face, people, history) = Self.ids(cast.tally)
        let stream = try Tallies.stream(cast.app, cast.view.session, topics: "tally:\(cast.tally)")
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(cast.tally)/increment").status == 303)
        // The ids go out in the order published: face, people, history.
        let counted = try stream.read(until: history, timeout: 5)
        #expect(counted.contains(face) && counted.contains(history))
        #expect(!counted.contains(people), "a +1 does not change who sees the tally")

        let everyone = [("share-\(cast.edit.id)", "view"), ("share-\(cast.view.id)", "view")]
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(cast.tally)/sharing", everyone).status == 303)
        let shared = try stream.read(until: people, timeout: 5)
        #expect(shared.contains(people))
    }

    /// Statements for one GET with the page script's header: the fewest of
    /// three, as in `StatementCountTests`.
    static func statements(_ app: AppHarness, _ session: WebSession, _ path: String) throws -> Int {
        var fewest = Int.max
        for _ in 0..<3 {
            let before = app.app.database.statementsRun
            let response = try session.get(path, headers: refetch)
            #expect(response.status == 200, "\(path) answered \(response.status)")
            fewest = min(fewest, app.app.database.statementsRun - before)
        }
        return fewest
    }

    @Test("a combined tally refetch and an occasion page's refetch run as many statements with 2 people as with 12")
    func statementsConstant() throws {
        let cast = try Self.cast()
        let (face, people, history) = Self.ids(cast.tally)
        let party = try OccasionParty.make(cast.app, contributors: 2)
        let requests: [(String, WebSession, String)] = [
            ("tally, all three, as viewer", cast.view.session, Self.batch(cast.tally, [face, people, history])),
            ("tally, count change, as editor", cast.edit.session, Self.batch(cast.tally, [face, history])),
            ("tally, all three, as owner", cast.owner.session, Self.batch(cast.tally, [face, people, history])),
            ("occasion live region, as contributor", party.contributors[0], party.base),
            ("occasion live region, as host", party.host, party.base),
        ]
        func counts() throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for (name, session, path) in requests { counts[name] = try Self.statements(cast.app, session, path) }
            return counts
        }
        let small = try counts()

        let code = try OccasionParty.codes(cast.app, party.id).contributor
        var shares = [("share-\(cast.edit.id)", "edit"), ("share-\(cast.view.id)", "view")]
        for index in 0..<10 {
            let friend = try Tallies.person(cast.app, "pal\(index)")
            try Tallies.befriend(cast.owner.session, "pal\(index)")
            shares.append(("share-\(friend.id)", "edit"))
            #expect(try OccasionParty.join(friend.session, code: code).status == 303)
            if index < 4 { #expect(try Tallies.post(cast.owner.session, "/tallies/\(cast.tally)/increment").status == 303) }
        }
        #expect(try Tallies.post(cast.owner.session, "/tallies/\(cast.tally)/sharing", shares).status == 303)
        // The same person changed it last in both cases (taking back one's
        // own latest change is a statement of its own).
        #expect(try Tallies.post(cast.edit.session, "/tallies/\(cast.tally)/increment").status == 303)
        StatementCountTests.expectConstant(small, try counts())
    }

    @Test("an occasion page's refetch is its live region alone, the same bytes the page shows, with the host's controls for the host only")
    func occasionLiveRegion() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 2, celebrantJoins: false)
        let hostPanel = "href=\"\(party.base)/host\""
        for (session, isHost) in [(party.host, true), (party.contributors[0], false)] {
            let page = try session.get(party.base)
            let live = try session.get(party.base, headers: Self.refetch)
            #expect(live.status == 200)
            #expect(live.text.hasPrefix("<div class=\"stack\" id=\"occasion-live\" data-fragment=\"\(party.base)\">"))
            #expect(!live.text.contains("<html") && !live.text.contains("<nav"), "no frame around the region")
            let region = live.text.trimmingCharacters(in: .newlines)
            #expect(page.text.contains(region), "the region is what the page itself shows")
            // The "celebrant hasn't joined" card and its host-panel button.
            #expect(region.contains("hasn't joined yet") == isHost)
            #expect(region.contains(hostPanel) == isHost)
        }
        #expect(try party.stranger.get(party.base, headers: Self.refetch).status == 404)
    }
}
