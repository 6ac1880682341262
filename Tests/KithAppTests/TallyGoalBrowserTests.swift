import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A goal's ring in a real browser: around the count, inside the phone's
/// width, in both themes, and the tap that meets the goal says so.
@Suite("Tally goals in a real browser", .serialized)
struct TallyGoalBrowserTests {
    /// The ring encloses the count, and nothing is wider than the window.
    static func ringFits(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute(
            """
            const ring = document.querySelector('.tally-goal__ring')?.getBoundingClientRect();
            const count = document.querySelector('.tally-goal__ring .tally-count')?.getBoundingClientRect();
            if (!ring || !count || ring.width == 0) return false;
            const inside = count.left > ring.left && count.right < ring.right && count.top > ring.top && count.bottom < ring.bottom;
            return inside && document.documentElement.scrollWidth <= document.documentElement.clientWidth;
            """) as? Bool) == true
    }

    static func goalText(_ browser: WebDriverSession) throws -> String? {
        try browser.execute("return document.querySelector('.tally-goal__text')?.textContent ?? null;") as? String
    }

    @Test(
        "at 375 px the ring surrounds 999,999,999 without overflow; the tap that meets the goal fills it and is announced; dark at 1280 px too",
        .enabled(if: Tools.browser, "needs chromium and chromedriver"))
    func ringOnAPhone() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ann = try Tallies.person(app, "annie")
        let id = try Tallies.create(ann.session, name: "Glasses of water", count: 999_999_998)
        #expect(try TallyGoalTests.setGoal(ann.session, id, target: "1", period: "day").status == 303)
        try ConfirmBrowserTests.onAPhone(app, as: "annie", at: "/tallies/\(id)") { driver, browser in
            try waitUntil("the ring shows") { try Self.goalText(browser) == "0 of 1 today" }
            #expect(try Self.ringFits(browser))
            #expect(try browser.execute("return document.querySelector('.tally-goal').dataset.goalMet;") as? String == "0")
            try browser.click(".tally-face__count")
            try waitUntil("the goal is met") {
                (try browser.execute("return document.querySelector('.tally-goal')?.dataset.goalMet ?? null;") as? String) == "1"
            }
            #expect(try Self.goalText(browser)?.hasPrefix("1 of 1 today") == true)
            try waitUntil("a screen reader hears it") {
                (try browser.execute("return [...document.querySelectorAll('[role=status]')].some(e => e.textContent.startsWith('Goal met: 1 of 1 today'));")
                    as? Bool) == true
            }
            #expect(try Tallies.count(app, id) == 999_999_999)
            #expect(try Self.ringFits(browser), "999,999,999 still fits inside the ring")
            #expect(try browser.execute("return getComputedStyle(document.querySelector('.tally-goal__ring')).backgroundImage;") as? String == "none",
                "a met goal's ring is whole")
            try app.app.database.write { try $0.execute("UPDATE users SET theme = 'dark' WHERE username = 'annie'") }
            for width in [375, 1280] {
                _ = try driver.command("POST", "/session/\(browser.id)/window/rect", ["width": width, "height": 800])
                try browser.navigate(to: "http://127.0.0.1:\(app.port)/tallies/\(id)")
                try waitUntil("the ring shows at \(width) px") { try Self.goalText(browser)?.hasPrefix("1 of 1 today") == true }
                #expect(try Self.ringFits(browser), "\(width) px, dark")
                try browser.navigate(to: "http://127.0.0.1:\(app.port)/")
                try waitUntil("the home row's bar shows at \(width) px") {
                    (try browser.execute("return document.querySelector('.tally-goal-bar__text')?.textContent ?? '';") as? String)?
                        .hasPrefix("1 of 1 today") == true
                }
                #expect(
                    try browser.execute("return document.documentElement.scrollWidth <= document.documentElement.clientWidth;") as? Bool == true,
                    "the home page at \(width) px")
            }
        }
    }
}
