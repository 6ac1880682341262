import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Live fragments fetched together, in a real browser", .serialized)
struct LiveFragmentBrowserTests {
    /// The page's own requests for fragments, as the browser made them.
    static func requests(_ browser: WebDriverSession, containing part: String) throws -> [String] {
        let names = try browser.execute("return performance.getEntriesByType('resource').map((entry) => entry.name);") as? [String] ?? []
        return names.filter { $0.contains(part) }
    }

    @Test(
        "a friend's +1 reaches the open tally page's count and history through one request per event, in place",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func oneRequestPerEvent() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let bob = try Tallies.person(app, "bob", name: "Bob")
        let cyd = try Tallies.person(app, "cyd", name: "Cyd")
        try Tallies.befriend(bob.session, "cyd")
        let id = try Tallies.create(bob.session, name: "Pancakes", count: 7, shares: [(cyd.id, "view")])

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { browser.delete() }
        let base = "http://127.0.0.1:\(app.port)"
        try BrowserTests.signIn(browser, base: base, username: "cyd")
        try browser.navigate(to: "\(base)/tallies/\(id)")
        try waitUntil("the page shows the count") { try browser.text("#tally-\(id)-face .tally-count").contains("7") }
        try BrowserTests.setMarker(browser)

        #expect(try Tallies.post(bob.session, "/tallies/\(id)/increment").status == 303)
        try waitUntil("Cyd's count shows Bob's +1") { try browser.text("#tally-\(id)-face .tally-count").contains("8") }
        try waitUntil("Cyd's history shows Bob's +1") {
            try TallyHistoryBrowserTests.historyText(browser, id).contains("Bob +1 8")
        }
        #expect(try BrowserTests.marker(browser) == 42, "changed in place, not by reloading")
        let batched = try Self.requests(browser, containing: "/tallies/\(id)/fragments?fragments=")
        #expect(batched.count == 1, "one request for the event: \(batched)")
        #expect(batched.first?.contains("tally-\(id)-face") == true && batched.first?.contains("tally-\(id)-history") == true)
        #expect(try Self.requests(browser, containing: "/tallies/\(id)/face").isEmpty, "no request of its own for the face")
        #expect(try Self.requests(browser, containing: "/tallies/\(id)/history").isEmpty, "no request of its own for the history")
        // View only: the refetched face still offers no count form.
        #expect(try browser.execute("return document.querySelectorAll('#tally-\(id)-face form[data-increment]').length;") as? Int == 0)
    }
}
