import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// The plate game's defects that only a browser shows: the map jumping
/// under a thumb, a stale mode badge, confetti on every visit, a plate's
/// code too faint by night, and long names widening the page.
@Suite("Plate game defects in a real browser", .serialized)
struct PlateDefectBrowserTests {
    static let enabled = Tools.browser

    static func browse(
        _ app: AppHarness, _ session: WebSession, _ path: String, width: Int = 375, height: Int = 800,
        _ body: (WebDriver, WebDriverSession) throws -> Void
    ) throws {
        try TallyLayoutBrowserTests.browse(app, session, path, width: width, height: height, body)
    }

    /// Where the map's top edge is in the document, in CSS px.
    static func mapTop(_ browser: WebDriverSession) throws -> Double? {
        try (browser.execute("const m = document.querySelector('#plate-board .usmap'); return m ? m.getBoundingClientRect().top + scrollY : null;")
            as? NSNumber)?.doubleValue
    }

    static func tap(_ browser: WebDriverSession, _ code: String) throws {
        try browser.execute(
            """
            const a = document.querySelector('a[data-state="' + arguments[0] + '"]');
            a.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
            """, [code])
    }

    /// Elements of the page that reach past the viewport's right edge (a
    /// page can clip them without scrolling sideways, and still lose them).
    static func wider(_ browser: WebDriverSession) throws -> [String] {
        let found = try browser.execute("""
            const limit = document.documentElement.clientWidth + 1;
            return [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > limit)
                .slice(0, 5).map((e) => e.tagName + ' ' + (e.getAttribute('class') || ''));
            """) as? [Any]
        return found?.compactMap { $0 as? String } ?? []
    }

    static func stateClass(_ browser: WebDriverSession, _ code: String) throws -> String? {
        try PlateBrowserTests.stateClass(browser, code)
    }

    @Test("at 375×800 a spot's message does not push the map: a second tap lands where the first did", .enabled(if: enabled))
    func noLayoutShift() throws {
        let app = try Plates.harness(clock: Locked(Int64(time(nil))))
        let (_, game, mom) = try Plates.family(app)
        try Self.browse(app, mom.session, "/games/\(game)") { _, browser in
            let before = try #require(try Self.mapTop(browser))
            // The message may come and go between two polls on a busy
            // machine: the page itself remembers that it was shown.
            try browser.execute(
                """
                window.__sawMessage = false;
                new MutationObserver(() => {
                  if (document.body.textContent.includes('Spotted Arkansas!')) window.__sawMessage = true;
                }).observe(document.body, { childList: true, subtree: true, characterData: true });
                """)
            try Self.tap(browser, "AR")
            try waitUntil("Arkansas is hers and the message shows") {
                try Self.stateClass(browser, "AR")?.contains("usmap__state--mine") == true
                    && (try browser.execute("return window.__sawMessage;") as? Bool) == true
            }
            let after = try #require(try Self.mapTop(browser))
            #expect(abs(after - before) < 1, "the map moved from \(before) to \(after)")
            let through = try browser.execute("return getComputedStyle(document.getElementById('flashes')).pointerEvents;") as? String
            #expect(through == "none", "taps pass through the message to the map under it")
        }
    }

    @Test("another player's open board shows the new mode as soon as the host switches", .enabled(if: enabled))
    func liveModeBadge() throws {
        let app = try Plates.harness(clock: Locked(Int64(time(nil))))
        let (dad, game, mom) = try Plates.family(app)
        try Self.browse(app, mom.session, "/games/\(game)") { _, browser in
            #expect(try browser.text(".plate-mode-badge") == "Collaborative")
            try BrowserTests.setMarker(browser)
            _ = try dad.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)"))
            try waitUntil("Mom's badge says Competitive") { try browser.text(".plate-mode-badge") == "Competitive" }
            #expect(try BrowserTests.marker(browser) == 42, "without a reload")
        }
    }

    @Test("on a shared board a tap on a state someone else has opens its page, which says who, and records nothing", .enabled(if: enabled))
    func tapOnSomeoneElsesState() throws {
        let app = try Plates.harness(clock: Locked(Int64(time(nil))))
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        try Self.browse(app, dad.session, "/games/\(game)") { _, browser in
            try Self.tap(browser, "TX")
            try waitUntil("Texas's page opens") { try browser.currentURL().hasSuffix("/games/\(game)/states/TX") }
            #expect(try browser.text("main").contains("Spotted by Mom."))
            #expect(try browser.text("main").contains("I saw one too"))
        }
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE user_id = \(dad.id)") == 0)
    }

    @Test(
        "a finished board's confetti plays once for this player, not on every visit nor in their other browser", .enabled(if: enabled))
    func confettiOnce() throws {
        let app = try Plates.harness(clock: Locked(Int64(time(nil))))
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        try app.app.database.write { tx in
            for region in try PlateStore.regions(tx, ruleset: PlateRuleset.states) {
                _ = try PlateStore.spot(tx, gameID: game, userID: dad.id, region: region.code, now: Int64(time(nil)))
            }
        }
        let state = "return document.querySelector('.plate-celebration')?.dataset.celebrated || null;"
        let ready = "return document.documentElement.classList.contains('js') && document.readyState === 'complete';"
        let drawn = "return !!document.querySelector('.plate-celebration') && !document.querySelector('[data-celebrate]');"
        try Self.browse(app, dad.session, "/games/\(game)") { _, browser in
            try waitUntil("the first visit celebrates") { try browser.execute(state) as? String == "true" }
            try waitUntil("and tells the server") {
                try browser.execute("return document.querySelector('.plate-celebration')?.dataset.celebrateTold || null;") as? String == "true"
            }
            try browser.navigate(to: try browser.currentURL())
            try waitUntil("the page script has run again") { (try browser.execute(ready) as? Bool) == true }
            #expect((try browser.execute(drawn) as? Bool) == true, "the finish is named, without confetti")
        }
        // Another browser, with nothing remembered in it, signed in as Dad.
        let other = WebSession(port: app.port)
        #expect(try signIn(other, username: "dad", password: "correct horse").status == 303)
        try Self.browse(app, other, "/games/\(game)") { _, browser in
            try waitUntil("the page script has run") { (try browser.execute(ready) as? Bool) == true }
            #expect((try browser.execute(drawn) as? Bool) == true, "no confetti on his other device")
        }
    }

    @Test("by night the plate's code on a state's page reads at 4.5:1 or better", .enabled(if: enabled))
    func darkPlateContrast() throws {
        let app = try Plates.harness(clock: Locked(Int64(time(nil))))
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session)
        try app.app.database.write { try $0.execute("UPDATE users SET theme = 'dark' WHERE id = \(dad.id)") }
        try Self.browse(app, dad.session, "/games/\(game)/states/TX") { _, browser in
            let ratio = try browser.execute("""
                const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
                const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
                    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
                const plate = document.querySelector('.page-header .plate');
                const code = plate.querySelector('.plate__code');
                const [a, b] = [lum(rgb(getComputedStyle(code).color)), lum(rgb(getComputedStyle(plate).backgroundColor))];
                return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
                """) as? NSNumber
            #expect(try #require(ratio).doubleValue >= 4.5, "\(ratio ?? 0)")
            #expect((try browser.execute("return document.documentElement.classList.contains('theme-dark');") as? Bool) == true)
        }
    }

    @Test("a 60-letter name without spaces, and Massachusetts on one line of its plate, fit a 375 px phone and a 1280 px laptop", .enabled(if: enabled))
    func longNamesFit() throws {
        let app = try Plates.harness(clock: Locked(Int64(time(nil))))
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session, name: String(repeating: "W", count: 60))
        for width in [375, 1280] {
            for path in ["/games/\(game)", "/games/\(game)/players", "/games/\(game)/trip", "/games/\(game)/states/MA", "/"] {
                try Self.browse(app, dad.session, path, width: width) { _, browser in
                    let fits = try TallyLayoutBrowserTests.noSidewaysScroll(browser)
                    #expect(fits, "\(path) at \(width) px")
                    let wide = try Self.wider(browser)
                    #expect(wide.isEmpty, "\(path) at \(width) px: \(wide)")
                }
            }
            try Self.browse(app, dad.session, "/games/\(game)/spot", width: width) { _, browser in
                let overflowing = try browser.execute("""
                    return [...document.querySelectorAll('.plate-list__button')].filter((button) => {
                        const box = button.getBoundingClientRect();
                        const name = button.querySelector('.plate__state');
                        const line = parseFloat(getComputedStyle(name).lineHeight) || parseFloat(getComputedStyle(name).fontSize) * 1.2;
                        return name.scrollWidth > name.clientWidth + 1 || name.getBoundingClientRect().right > box.right + 0.5
                            || name.getBoundingClientRect().left < box.left - 0.5 || (!name.textContent.includes(' ') && name.getBoundingClientRect().height > line * 1.5);
                    }).map((button) => button.value);
                    """) as? [Any]
                #expect(overflowing?.isEmpty == true, "at \(width) px, outside their plates or broken mid-word: \(overflowing ?? [])")
                #expect(try TallyLayoutBrowserTests.noSidewaysScroll(browser))
            }
        }
    }
}
