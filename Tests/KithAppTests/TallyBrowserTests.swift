import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Tallies in a real browser", .serialized)
struct TallyBrowserTests {
    /// What a screen reader hears for the tally's count control.
    static func spoken(_ browser: WebDriverSession, _ id: Int64) throws -> String? {
        try browser.execute("const b = document.querySelector('#tally-\(id) .tally-count'); return b ? b.getAttribute('aria-label') : null;")
            as? String
    }

    static func flash(_ browser: WebDriverSession, _ id: Int64) throws -> String? {
        try browser.execute("const f = document.querySelector('#tally-\(id)[data-flash] .tally-flash'); return f ? f.textContent : null;")
            as? String
    }

    /// Saves what the browser shows, when `KITH_SCREENSHOTS` names a folder.
    static func screenshot(_ driver: WebDriver, _ browser: WebDriverSession, _ name: String) throws {
        guard let folder = ProcessInfo.processInfo.environment["KITH_SCREENSHOTS"],
            let encoded = try driver.command("GET", "/session/\(browser.id)/screenshot") as? String,
            let data = Data(base64Encoded: encoded)
        else { return }
        try data.write(to: URL(fileURLWithPath: "\(folder)/\(name).png"))
    }

    @Test(
        "two friends on two browsers both increment a shared tally and each sees the other's change live, with the flash",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func twoBrowsers() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        try Tallies.befriend(ada.session, "bob")
        let id = try Tallies.create(ada.session, name: "Pancakes", count: 0, schedule: "daily", shares: [(bob.id, "edit")])
        let laps = try Tallies.create(bob.session, name: "Laps", count: 4, shares: [(ada.id, "view")])

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let adaBrowser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { adaBrowser.delete() }
        let bobBrowser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { bobBrowser.delete() }
        try BrowserTests.signIn(adaBrowser, base: "http://127.0.0.1:\(app.port)", username: "ada")
        try BrowserTests.signIn(bobBrowser, base: "http://127.0.0.1:\(app.port)", username: "bob")
        for browser in [adaBrowser, bobBrowser] {
            try waitUntil("the list shows the shared tally") { try Self.spoken(browser, id) == "Pancakes, 0, increment" }
            try BrowserTests.setMarker(browser)
        }

        // Ada taps the count: it goes up at once, with no reload.
        try adaBrowser.click("#tally-\(id) .tally-count")
        try waitUntil("Ada sees 1") { try Self.spoken(adaBrowser, id) == "Pancakes, 1, increment" }
        // The bump shows before the server answers; the count lands a moment later.
        try waitUntil("the server counts the tap") { try Tallies.count(app, id) == 1 }
        // Bob's list hears of it live and flashes Ada's face.
        try waitUntil("Bob sees 1") { try Self.spoken(bobBrowser, id) == "Pancakes, 1, increment" }
        try waitUntil("Bob sees Ada's face flash") { try Self.flash(bobBrowser, id)?.contains("Ada changed this") == true }
        try Self.screenshot(driver, bobBrowser, "tally-bob-flash")

        // Bob taps twice; Ada sees both, with Bob's face.
        try bobBrowser.click("#tally-\(id) .tally-count")
        try waitUntil("Bob's first tap lands") { try Self.spoken(bobBrowser, id) == "Pancakes, 2, increment" }
        try bobBrowser.click("#tally-\(id) .tally-count")
        try waitUntil("Ada sees 3") { try Self.spoken(adaBrowser, id) == "Pancakes, 3, increment" }
        try waitUntil("Ada sees Bob's face flash") { try Self.flash(adaBrowser, id)?.contains("Bob changed this") == true }
        try Self.screenshot(driver, adaBrowser, "tally-ada-flash")
        #expect(try Tallies.count(app, id) == 3)

        // Bob's laps are view-only for Ada: her tap shakes, says so, and counts nothing.
        try waitUntil("Ada sees Bob's laps") { try Self.spoken(adaBrowser, laps) == "Laps, 4, view only" }
        try adaBrowser.click("#tally-\(laps) .tally-count")
        try waitUntil("Ada hears that it is view only") {
            (try adaBrowser.execute("return [...document.querySelectorAll('[role=status]')].some(e => e.textContent.startsWith('View only'));") as? Bool) == true
        }
        #expect(try Tallies.count(app, laps) == 4)

        for browser in [adaBrowser, bobBrowser] {
            #expect(try BrowserTests.marker(browser) == 42, "the list updated in place, never reloading")
            let errors = try BrowserTests.consoleErrors(browser) ?? []
            #expect(errors.isEmpty, "console errors: \(errors)")
        }

        // The full-screen view, and both in the dark theme with stick marks, for a look.
        try adaBrowser.navigate(to: "http://127.0.0.1:\(app.port)/tallies/\(id)")
        try Self.screenshot(driver, adaBrowser, "tally-full")
        if ProcessInfo.processInfo.environment["KITH_SCREENSHOTS"] != nil {
            try app.app.database.write {
                try $0.execute("UPDATE users SET theme = 'dark', number_style = 'stick' WHERE username = 'ada'")
                try $0.execute("UPDATE tallies SET count = 1234 WHERE id = \(id)")
            }
            try adaBrowser.execute("localStorage.setItem('kith.tally-tint.\(id)', '9');")
            try adaBrowser.navigate(to: "http://127.0.0.1:\(app.port)/")
            try Self.screenshot(driver, adaBrowser, "tally-home-dark")
            try adaBrowser.navigate(to: "http://127.0.0.1:\(app.port)/tallies/\(id)")
            try Self.screenshot(driver, adaBrowser, "tally-full-dark")
            try bobBrowser.navigate(to: "http://127.0.0.1:\(app.port)/tallies/\(id)")
            try bobBrowser.execute("window.scrollTo(0, 700);")
            try Self.screenshot(driver, bobBrowser, "tally-full-settings")
            try bobBrowser.navigate(to: "http://127.0.0.1:\(app.port)/tallies/new")
            try Self.screenshot(driver, bobBrowser, "tally-new")
        }
    }
}
