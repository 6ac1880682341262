import Foundation
@testable import KithApp
import KithTemplates
import KithTestSupport
import Testing

@Suite("The shared book and party mode in real browsers", .serialized)
struct OccasionBookBrowserTests {
    static func text(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.body.innerText;") as? String ?? ""
    }

    /// A laptop-sized browser, for the host's screen at a party.
    static var laptop: [String: Any] {
        var capabilities = BrowserTests.capabilities
        var always = capabilities["alwaysMatch"] as? [String: Any] ?? [:]
        var options = always["goog:chromeOptions"] as? [String: Any] ?? [:]
        options["args"] = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"]
        always["goog:chromeOptions"] = options
        capabilities["alwaysMatch"] = always
        return capabilities
    }

    /// A real key press, as the keyboard sends it (WebDriver key codes for the special keys).
    static func press(_ driver: WebDriver, _ browser: WebDriverSession, _ key: String) throws {
        _ = try driver.command(
            "POST", "/session/\(browser.id)/actions",
            ["actions": [["type": "key", "id": "keyboard", "actions": [["type": "keyDown", "value": key], ["type": "keyUp", "value": key]]]]])
    }

    static func current(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.querySelector('[data-party]').dataset.current || '';") as? String ?? ""
    }

    @Test(
        "the host opens the book and a contributor's open page shows every gift live; party mode advances by timer and by keys, pauses, takes in a gift unlocked meanwhile, and Escape leaves",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func story() throws {
        let finished = try FinishedParty.make()
        let party = finished.party
        let app = party.app
        let base = "http://127.0.0.1:\(app.port)"
        let occasion = base + party.base

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let host = try driver.newSession(capabilities: Self.laptop)
        defer { host.delete() }
        let friend = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { friend.delete() }
        try BrowserTests.signIn(host, base: base, username: "hana_host")
        try BrowserTests.signIn(friend, base: base, username: "friend_1")

        // Friend 1, on a phone, waits on the book: only their own letter so far.
        try friend.navigate(to: occasion + "/book")
        try waitUntil("the friend's book shows their own letter") { try Self.text(friend).contains("First letter") }
        #expect(try !Self.text(friend).contains("Second letter"))
        try BrowserTests.setMarker(friend)

        // The host opens it from the panel.
        try host.navigate(to: occasion + "/host")
        try host.execute("document.querySelector(arguments[0]).scrollIntoView();", ["form[action$='/host/book/open'] button"])
        try host.click("form[action$='/host/book/open'] button")
        try waitUntil("the host lands on the open book") { try Self.text(host).contains("for everyone in Alex turns 30 to read") }

        // The friend's page follows without a reload and fits the phone.
        try waitUntil("the friend sees friend 2's letter, live", timeout: 15) { try Self.text(friend).contains("Second letter") }
        #expect(try BrowserTests.marker(friend) == 42, "the friend's page reloaded")
        #expect(try Axe.fits(friend), "the book is wider than a 375 px phone")

        // Party mode on the laptop: full screen, one slide, the QR code in the corner.
        try host.navigate(to: occasion + "/party")
        try waitUntil("the show starts") { try !Self.current(host).isEmpty }
        try BrowserTests.setMarker(host)
        #expect(try host.execute("return document.querySelectorAll('.party__slide--current').length;") as? Int == 1)
        #expect(try host.execute("return document.querySelector('.party__join svg') !== null;") as? Bool == true)
        #expect(try Axe.fits(host))
        let first = try Self.current(host)

        // By the timer.
        try waitUntil("the timer moves the show on", timeout: Double(PartyPage.secondsPerSlide) * 3) { try Self.current(host) != first }
        let second = try Self.current(host)
        // By the keys: → on, ← back, P pauses (and the timer then holds).
        try Self.press(driver, host, "\u{E014}")
        try waitUntil("→ moves on") { try Self.current(host) != second }
        try Self.press(driver, host, "\u{E012}")
        try waitUntil("← comes back") { try Self.current(host) == second }
        try Self.press(driver, host, "p")
        try waitUntil("P pauses") { try host.execute("return document.querySelector('[data-party]').dataset.paused;") as? String == "true" }
        #expect(try host.execute("return document.querySelector('[data-party-pause]').getAttribute('aria-pressed');") as? String == "true")
        Thread.sleep(forTimeInterval: Double(PartyPage.secondsPerSlide) + 1)
        #expect(try Self.current(host) == second, "the show moved while paused")
        try Self.press(driver, host, " ")
        try waitUntil("Space moves on, paused or not") { try Self.current(host) != second }

        // A gift unlocked meanwhile joins the loop, live.
        let late = try party.sendGift(party.contributors[2], letter: "Third letter, from friend three")
        try party.price(late, cost: 10)
        #expect(try party.unlock(late).status == 303)
        try waitUntil("the new gift joins the show", timeout: 15) {
            (try host.execute("return document.querySelectorAll('[data-party-slide]').length;") as? Int) == 3
        }
        #expect(try BrowserTests.marker(host) == 42, "the party page reloaded")
        #expect(try host.execute("return document.querySelectorAll('.party__slide--current').length;") as? Int == 1)

        // Escape leaves for the occasion.
        try Self.press(driver, host, "\u{E00C}")
        try waitUntil("Escape leaves party mode") { try host.currentURL().hasSuffix(party.base) }
        for (name, browser) in [("host", host), ("friend", friend)] {
            let errors = try BrowserTests.consoleErrors(browser) ?? []
            #expect(errors.isEmpty, "console errors in the \(name)'s browser: \(errors)")
        }
    }

    @Test(
        "the celebrant's countdown ticks in the page by the server's clock, not the device's",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func countdownTicks() throws {
        let finished = try FinishedParty.make(unlock: false)
        let party = finished.party
        let base = "http://127.0.0.1:\(party.app.port)"
        // The server's clock is a month off the device's; the moment is 65 seconds after the server's now.
        #expect(try party.post(party.host, "\(party.base)/host/reveal", [("reveal_at", "2027-01-15T08:01")], from: "\(party.base)/host").status == 303)
        finished.clock.withLock { $0 = digestStart - 5 }
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let celebrant = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { celebrant.delete() }
        try BrowserTests.signIn(celebrant, base: base, username: "alex_star")
        try celebrant.navigate(to: base + party.base + "/gifts")
        func shown() throws -> String { try celebrant.execute("return document.querySelector('[data-countdown]')?.textContent ?? '';") as? String ?? "" }
        try waitUntil("the server's words arrive") { try !shown().isEmpty }
        #expect(try shown() == "2 minutes")
        try waitUntil("the script ticks down past the minute", timeout: 20) { try shown() == "1 minute" }
    }

    @Test(
        "the book, party mode, the host's big-day section and the countdown have no axe violations and fit, at 375 and 1280 px, light and dark",
        .enabled(if: Axe.isAvailable, "needs chromium, chromedriver and axe-core; `make test-deps` installs them"))
    func accessible() throws {
        let finished = try FinishedParty.make()
        let party = finished.party
        let base = "http://127.0.0.1:\(party.app.port)"
        #expect(try party.post(party.host, "\(party.base)/host/book/open", from: "\(party.base)/host").status == 303)
        #expect(try party.post(party.host, "\(party.base)/host/reveal", [("reveal_at", "2027-02-01T08:00")], from: "\(party.base)/host").status == 303)
        #expect(try party.post(party.host, "\(party.base)/host/members/\(party.userIDs["friend_3"]!)/nudge", from: "\(party.base)/host").status == 303)
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let pages: [(username: String, session: WebSession, path: String)] = [
            ("hana_host", party.host, "/host"), ("friend_1", party.contributors[0], "/book"), ("hana_host", party.host, "/party"),
            ("alex_star", party.celebrant, "/gifts"),
        ]
        for (capabilities, width) in [(BrowserTests.capabilities, 375), (Self.laptop, 1280)] {
            for (username, session, path) in pages {
                let browser = try driver.newSession(capabilities: capabilities)
                defer { browser.delete() }
                try BrowserTests.signIn(browser, base: base, username: username)
                for theme in ["light", "dark"] {
                    let saved = try party.post(session, "/settings/appearance", [("theme", theme), ("number_style", "arabic")], from: "/settings")
                    #expect(saved.status == 303)
                    try browser.navigate(to: base + party.base + path)
                    try waitUntil("\(path) loads") { try browser.execute("return document.readyState;") as? String == "complete" }
                    let violations = try Axe.violations(browser)
                    #expect(violations.isEmpty, "axe on \(path) as \(username), \(theme), \(width) px: \(violations)")
                    #expect(try Axe.fits(browser), "\(path) as \(username) is wider than \(width) px")
                }
                if path == "/host" {
                    // The check itself can fail: an image without words is found.
                    try browser.execute("document.querySelector('main').append(document.createElement('img'));")
                    #expect(try Axe.violations(browser).contains { $0.hasPrefix("image-alt") })
                }
            }
        }
    }
}
