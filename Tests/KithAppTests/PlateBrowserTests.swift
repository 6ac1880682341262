import Foundation
@testable import KithApp
import KithHTTP
import KithTestSupport
import Testing

@Suite("Plate games in a real browser", .serialized)
struct PlateBrowserTests {
    static func stateClass(_ browser: WebDriverSession, _ code: String) throws -> String? {
        try browser.execute("const a = document.querySelector('a[data-state=\"' + arguments[0] + '\"]'); return a ? a.getAttribute('class') : null;", [code])
            as? String
    }

    static func stateLabel(_ browser: WebDriverSession, _ code: String) throws -> String? {
        try browser.execute("const a = document.querySelector('a[data-state=\"' + arguments[0] + '\"]'); return a ? a.getAttribute('aria-label') : null;", [code])
            as? String
    }

    @Test(
        "a tap on Rhode Island's chip spots it without a reload, another player's open board follows live, and 'rh' filters the list",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func tapFilterAndLive() throws {
        let app = try Plates.harness()
        let base = "http://127.0.0.1:\(app.port)"
        let (_, game, mom) = try Plates.family(app)

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { phone.delete() }
        let laptop = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { laptop.delete() }

        try BrowserTests.signIn(phone, base: base, username: "mom")
        try BrowserTests.signIn(laptop, base: base, username: "dad")
        for browser in [phone, laptop] {
            try browser.navigate(to: base + "/games/\(game)")
            try waitUntil("the board's script ran") {
                (try browser.execute("return document.documentElement.classList.contains('js');") as? Bool) == true
            }
            try BrowserTests.setMarker(browser)
        }
        #expect(try Self.stateLabel(laptop, "RI") == "Rhode Island, not spotted yet")

        // Mom taps Rhode Island's plate chip under the map (on a phone the
        // map's callout boxes give way to chips a finger can hit).
        try phone.click("#usmap-chip-RI")
        try waitUntil("Rhode Island turns hers") { try Self.stateClass(phone, "RI")?.contains("usmap__state--mine") == true }
        #expect(try BrowserTests.marker(phone) == 42, "the board was swapped in, not reloaded")
        #expect(try phone.currentURL() == base + "/games/\(game)")
        #expect(try Plates.spotRows(app, game).count == 1, "one tap, one spot")
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE user_id = \(mom.id) AND region = 'RI'") == 1)

        // Dad's open board learns of it over its live stream.
        try waitUntil("Dad's board shows Mom's Rhode Island") { try Self.stateLabel(laptop, "RI") == "Rhode Island, spotted by Mom" }
        try waitUntil("Dad's feed lists it") {
            (try laptop.execute("return document.getElementById('plate-feed').textContent;") as? String)?.contains("Rhode Island") == true
        }
        #expect(try BrowserTests.marker(laptop) == 42)
        // Each spot's clock time, in Dad's own zone (London: 08:00 on 15 January 2027).
        let title = try laptop.execute("return document.querySelector('#plate-feed time').title;") as? String
        #expect(title?.contains("15") == true && title?.contains("Jan") == true && title?.contains("8:00") == true, "\(title ?? "none")")

        // The by-name list: "rh" leaves Rhode Island alone.
        try phone.navigate(to: base + "/games/\(game)/spot")
        try waitUntil("the filter box appears") {
            (try phone.execute("return !document.querySelector('[data-plate-filter]').hidden;") as? Bool) == true
        }
        try phone.execute("""
            const input = document.getElementById('plate-filter-input');
            input.value = 'rh';
            input.dispatchEvent(new Event('input', { bubbles: true }));
            """)
        let shown = try phone.execute("return [...document.querySelectorAll('#plate-list [data-name]')].filter((li) => !li.hidden).map((li) => li.dataset.name);") as? [Any]
        #expect(shown?.compactMap { $0 as? String } == ["rhode island"])
        #expect(try phone.text("#plate-filter-count") == "1 state")

        for (name, browser) in [("phone", phone), ("laptop", laptop)] {
            let errors = try BrowserTests.consoleErrors(browser) ?? []
            #expect(errors.isEmpty, "console errors on the \(name): \(errors)")
        }
    }
}
