import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("A tally's history in a real browser", .serialized)
struct TallyHistoryBrowserTests {
    static func historyText(_ browser: WebDriverSession, _ id: Int64) throws -> String {
        try browser.execute("const h = document.getElementById('tally-\(id)-history'); return h ? h.innerText.replace(/\\s+/g, ' ') : '';")
            as? String ?? ""
    }

    static func fits(_ browser: WebDriverSession) throws -> Bool {
        try browser.execute("return document.documentElement.scrollWidth <= document.documentElement.clientWidth;") as? Bool ?? false
    }

    @Test(
        "a friend's tap appears in the history live; −1 and Undo of it are rows too; nothing is wider than the screen at 375 and 1280 px",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func liveHistoryAndUndo() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        try Tallies.befriend(ada.session, "bob")
        let id = try Tallies.create(ada.session, name: "Pancakes eaten on the long trip north", count: 999_999_990, shares: [(bob.id, "edit")])

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { browser.delete() }
        let base = "http://127.0.0.1:\(app.port)"
        try BrowserTests.signIn(browser, base: base, username: "ada")
        try browser.navigate(to: "\(base)/tallies/\(id)")
        try waitUntil("the page shows an empty history") { try Self.historyText(browser, id).contains("No changes yet") }
        try BrowserTests.setMarker(browser)

        // Bob taps from elsewhere: Ada's history hears of it without a reload.
        #expect(try Tallies.post(bob.session, "/tallies/\(id)/increment").status == 303)
        try waitUntil("Ada's history shows Bob's +1") { try Self.historyText(browser, id).contains("Bob +1 999,999,991") }
        #expect(try BrowserTests.marker(browser) == 42, "the history changed in place, not by reloading")
        #expect(try Self.fits(browser), "the page fits 375 px")

        // Ada takes one off, then takes that back from her own row.
        try browser.click(".tally-decrement__button")
        try waitUntil("Ada's −1 is in the history") { try Self.historyText(browser, id).contains("you −1 999,999,990") }
        #expect(try Tallies.count(app, id) == 999_999_990)
        try browser.click(".tally-history__undo button")
        try waitUntil("the undo is in the history") { try Self.historyText(browser, id).contains("you undo (back to 999,999,991)") }
        #expect(try Tallies.count(app, id) == 999_999_991)
        #expect(try browser.execute("return document.querySelectorAll('.tally-history__undo').length;") as? Int == 0)
        #expect(try Self.fits(browser), "the page fits 375 px with rows")

        _ = try driver.command("POST", "/session/\(browser.id)/window/rect", ["width": 1280, "height": 900])
        try browser.navigate(to: "\(base)/tallies/\(id)")
        try waitUntil("the page loads at 1280 px") { try Self.historyText(browser, id).contains("Bob +1") }
        #expect(try Self.fits(browser), "the page fits 1280 px")
    }
}
