import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// The home page's order: what is in use first, what is not as one compact
/// row, and the section the person chose leading.
@Suite("Home order")
struct HomeOrderTests {
    /// The dashboard's sections on `page`, top to bottom, by feature name.
    static func sections(_ page: String) -> [String] {
        page.matches(of: /data-dashboard-section="([a-z]+)"/).map { String($0.output.1) }
    }

    /// The features shown as a compact start row on `page`.
    static func compact(_ page: String) -> Set<String> {
        Set(page.matches(of: /<section class="dashboard-start cluster" aria-labelledby="dashboard-start-([a-z]+)"/).map { String($0.output.1) })
    }

    @Test("a newcomer sees each feature as one compact start row, not three empty-state cards")
    func newcomer() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let page = try ada.session.get("/").text
        #expect(Self.sections(page) == ["occasions", "plates", "tallies"], "registered order when nothing is in use")
        #expect(Self.compact(page) == ["occasions", "plates", "tallies"])
        #expect(page.contains("No plate games yet</span> · <a href=\"/games/new\">Start one</a>"))
        #expect(page.contains("No tallies yet</span> · <a href=\"/tallies/new\">Start one</a>"))
        #expect(page.contains("No occasions yet"))
        #expect(!page.contains("id=\"tallies-heading\""), "the full tallies section waits until there is one")
    }

    @Test("someone with tallies only sees Tallies first, and the empty features after it as compact rows")
    func contentFirst() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        _ = try Tallies.create(ada.session, name: "Coffee")
        let page = try ada.session.get("/").text
        #expect(Self.sections(page) == ["tallies", "occasions", "plates"])
        #expect(Self.compact(page) == ["occasions", "plates"])
        #expect(page.contains("id=\"tallies-heading\""))
        let heading = try #require(page.range(of: "id=\"tallies-heading\""))
        let plates = try #require(page.range(of: "No plate games yet"))
        #expect(heading.lowerBound < plates.lowerBound, "the section in use comes before the empty ones")
    }

    @Test("the person chooses which section leads, kept on the server; any other choice is a clear 400")
    func chosenLead() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        _ = try Tallies.create(ada.session, name: "Coffee")
        let page = try ada.session.get("/").text
        #expect(page.contains("<label for=\"dashboard-lead\">Show first</label>"))
        #expect(page.contains("<option value=\"\" selected>"))

        let chose = try Tallies.post(ada.session, "/home/lead", [("lead", "plates")])
        #expect(chose.status == 303)
        let led = try ada.session.get("/").text
        #expect(Self.sections(led) == ["plates", "tallies", "occasions"], "chosen first even while empty, then what is in use")
        #expect(led.contains("Plate games now come first."))
        #expect(led.contains("<option value=\"plates\" selected>Plate games</option>"))
        let laptop = try TallyOrderTests.otherDevice(app, "ada")
        #expect(Self.sections(try laptop.get("/").text).first == "plates", "the choice is the person's, on every device")

        for bad in ["nonsense", "home", String(repeating: "x", count: 300)] {
            let response = try Tallies.post(ada.session, "/home/lead", [("lead", bad)])
            #expect(response.status == 400)
            #expect(response.text.contains("Choose one of the home page&#39;s sections to show first."))
        }
        #expect(Self.sections(try ada.session.get("/").text).first == "plates", "a refused choice changes nothing")

        #expect(try Tallies.post(ada.session, "/home/lead", [("lead", "")]).status == 303)
        #expect(Self.sections(try ada.session.get("/").text) == ["tallies", "occasions", "plates"])
        let stored = try app.app.database.read { try $0.queryValue("SELECT count(*) FROM home_preferences", as: Int64.self) }
        #expect(stored == 0, "back to automatic keeps no row")
    }

    @Test("deleting your last tally keeps the full section while its undo is offered, then it becomes a compact row")
    func undoKeepsSection() throws {
        let clock = Locked(Tallies.start)
        let app = try Tallies.harness(clock: clock)
        let ada = try Tallies.person(app, "ada")
        let id = try Tallies.create(ada.session, name: "Coffee")
        #expect(try Tallies.confirm(ada.session, "/tallies/\(id)/delete").status == 303)
        let page = try ada.session.get("/").text
        #expect(!Self.compact(page).contains("tallies"))
        #expect(page.contains("Coffee deleted."))
        clock.withLock { $0 += 3600 }
        #expect(Self.compact(try ada.session.get("/").text).contains("tallies"))
    }
}
