import Foundation
@testable import KithApp
import KithHTTP
import KithTestSupport
import Testing

/// The plate map on a phone, measured in a real browser: every region a
/// finger can hit, and other players' boards that show their small states.
@Suite("The plate map in a real browser", .serialized)
struct PlateMapBrowserTests {
    /// Every playable region on the page's map, and those without a visible
    /// target at least 24 CSS px each way (the map's own outline, or a chip).
    static let measure = """
        const codes = [...new Set([...document.querySelectorAll('.usmap--playable a[data-state]')].map((a) => a.dataset.state))];
        const small = [];
        for (const code of codes) {
          const sizes = [...document.querySelectorAll('.plate-map [data-state="' + code + '"]')].map((element) => {
            const box = element.getBoundingClientRect();
            return [Math.round(box.width), Math.round(box.height)];
          });
          if (!sizes.some(([width, height]) => width >= 24 && height >= 24)) small.push(code + ' ' + JSON.stringify(sizes));
        }
        const callouts = [...document.querySelectorAll('.usmap--playable .usmap__callout')]
          .filter((callout) => callout.getBoundingClientRect().width > 0).length;
        const chips = [...document.querySelectorAll('.usmap-chips a')].filter((chip) => chip.getBoundingClientRect().width > 0).length;
        return { count: codes.length, small: small, callouts: callouts, chips: chips,
                 overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
        """

    static func measured(_ browser: WebDriverSession) throws -> (count: Int, small: [String], callouts: Int, chips: Int, overflow: Int) {
        let result = try #require(try browser.execute(measure) as? [String: Any])
        return (
            result["count"] as? Int ?? -1, (result["small"] as? [Any] ?? []).compactMap { $0 as? String }, result["callouts"] as? Int ?? -1,
            result["chips"] as? Int ?? -1, result["overflow"] as? Int ?? -1
        )
    }

    static func resize(_ driver: WebDriver, _ browser: WebDriverSession, width: Int) throws {
        _ = try driver.command("POST", "/session/\(browser.id)/window/rect", ["width": width, "height": 900])
        try waitUntil("the window is \(width) px wide") {
            (try browser.execute("return window.innerWidth;") as? Int).map { abs($0 - width) < 40 } == true
        }
    }

    static func open(_ browser: WebDriverSession, _ url: String) throws {
        try browser.navigate(to: url)
        try waitUntil("the board's script ran") {
            (try browser.execute("return document.documentElement.classList.contains('js') && !!document.querySelector('.usmap');") as? Bool) == true
        }
    }

    @Test(
        "at 375 px every state, DC, province and Mexican state has a target of at least 24x24 px, a chip spots Rhode Island, and 1280 px keeps the callouts",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func targetsOnAPhone() throws {
        let app = try Plates.harness()
        let base = "http://127.0.0.1:\(app.port)"
        let dad = try signUpMember(app, "dad", name: "Dad")
        let states = try Plates.create(dad.session, name: "Fifty and DC", mode: "competitive", dc: true)
        let canada = try PlateRulesetTests.gameID(
            try PlateRulesetTests.create(dad.session, name: "Cross-border", mode: "collaborative", countries: "us-ca", dc: true))
        let mexico = try PlateRulesetTests.gameID(
            try PlateRulesetTests.create(dad.session, name: "Three countries", mode: "competitive", countries: "us-ca-mx", dc: true))

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { phone.delete() }
        try BrowserTests.signIn(phone, base: base, username: "dad")

        for (game, regions) in [(states, 51), (canada, 64), (mexico, 96)] {
            try Self.open(phone, base + "/games/\(game)")
            let narrow = try Self.measured(phone)
            #expect(narrow.count == regions, "game \(game)")
            #expect(narrow.small.isEmpty, "too small to tap at 375 px: \(narrow.small)")
            #expect(narrow.callouts == 0, "the map's tiny callouts are hidden on a phone")
            #expect(narrow.chips > 0)
            #expect(narrow.overflow <= 0, "nothing wider than the phone")
        }

        // A tap on Rhode Island's chip spots it in place, like a tap on the map.
        try Self.open(phone, base + "/games/\(states)")
        try BrowserTests.setMarker(phone)
        try phone.click("#usmap-chip-RI")
        try waitUntil("Rhode Island's chip turns green") {
            (try phone.execute("return document.getElementById('usmap-chip-RI').className;") as? String)?.contains("usmap__state--mine") == true
        }
        // The chip and the map are separate parts of the page and may be swapped in turn.
        try waitUntil("the map agrees") {
            (try phone.execute("return document.getElementById('usmap-RI').getAttribute('aria-label');") as? String) == "Rhode Island, spotted by you"
        }
        #expect(try BrowserTests.marker(phone) == 42, "swapped in, not reloaded")
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(states) AND region = 'RI'") == 1)

        // On a laptop the callouts are back and the chips are gone.
        try Self.resize(driver, phone, width: 1280)
        try Self.open(phone, base + "/games/\(canada)")
        let wide = try Self.measured(phone)
        #expect(wide.chips == 0)
        #expect(wide.callouts == 10, "nine US callouts and Prince Edward Island's")
        #expect(wide.overflow <= 0)

        let errors = try BrowserTests.consoleErrors(phone) ?? []
        #expect(errors.isEmpty, "console errors: \(errors)")
    }

    @Test(
        "on Everyone's boards another player's Rhode Island spot fills its callout box in their colour",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func miniBoardCallouts() throws {
        let app = try Plates.harness()
        let base = "http://127.0.0.1:\(app.port)"
        let (_, game, mom) = try Plates.family(app, mode: "competitive")
        try Plates.spot(mom.session, game, "RI")

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { phone.delete() }
        try BrowserTests.signIn(phone, base: base, username: "dad")
        try Self.open(phone, base + "/games/\(game)")

        // The fills the browser paints for Mom's mini board: her Rhode
        // Island box, an unspotted box (Delaware), and her Rhode Island outline.
        let fills = try #require(
            try phone.execute("""
                const board = document.querySelector('.plate-mini svg');
                const box = (code) => [...board.querySelectorAll('.usmap__callout')]
                  .find((callout) => callout.querySelector('text').textContent === code);
                const ri = box('RI'), de = box('DE');
                const shown = ri.getBoundingClientRect();
                return { ri: getComputedStyle(ri.querySelector('rect')).fill, de: getComputedStyle(de.querySelector('rect')).fill,
                         outline: getComputedStyle(ri.parentElement.querySelector('.usmap__shape')).fill,
                         width: shown.width, height: shown.height };
                """) as? [String: Any])
        let ri = fills["ri"] as? String, unspotted = fills["de"] as? String, outline = fills["outline"] as? String
        #expect(ri != nil && ri != unspotted, "Mom's Rhode Island box is not blank: \(ri ?? "none") vs \(unspotted ?? "none")")
        #expect(ri == outline, "it takes Mom's colour, as her Rhode Island does")
        #expect((fills["width"] as? Double ?? Double(fills["width"] as? Int ?? 0)) > 0, "the mini board keeps its callouts on a phone")
    }
}
