import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// My order in a phone-sized browser: dragging by the handle with touch, and
/// Move up / Move down from the keyboard, each kept on the server.
@Suite("Tally order in a real browser", .serialized)
struct TallyOrderBrowserTests {
    static func domOrder(_ browser: WebDriverSession) throws -> [Int64] {
        let ids = try browser.execute("return [...document.querySelectorAll('.tally-list .tally-row')].map(r => Number(r.dataset.tally));")
        return (ids as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.int64Value }
    }

    static func status(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.querySelector('[data-order-status]')?.textContent ?? '';") as? String ?? ""
    }

    @Test(
        "at 375 px a row dragged by its handle with touch, and one moved with the keyboard, keep their place after a reload",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func dragAndKeys() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let walks = try Tallies.create(ada.session, name: "Walks")
        let teas = try Tallies.create(ada.session, name: "Teas")
        let naps = try Tallies.create(ada.session, name: "Naps")
        #expect(try Tallies.post(ada.session, "/tallies/sort", [("sort", "manual")]).status == 303)

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { browser.delete() }
        try BrowserTests.signIn(browser, base: "http://127.0.0.1:\(app.port)", username: "ada")
        try waitUntil("the list is in My order") { try Self.domOrder(browser) == [naps, teas, walks] }
        try BrowserTests.setMarker(browser)

        // The handle shows once the script can drag; every control is a real target.
        let layout = try browser.execute("""
            const handle = document.querySelector('#tally-\(walks) [data-drag-handle]');
            const sizes = [...document.querySelectorAll('.tally-move__button, [data-drag-handle]')].map(e => e.getBoundingClientRect())
                .map(r => Math.min(r.width, r.height));
            return [getComputedStyle(handle).display, Math.min(...sizes), document.documentElement.scrollWidth - window.innerWidth];
            """) as? [Any]
        #expect((layout?[0] as? String).map { $0 != "none" } == true, "the drag handle shows with script")
        #expect(((layout?[1] as? NSNumber)?.doubleValue ?? 0) >= 24)
        #expect(((layout?[2] as? NSNumber)?.intValue ?? 1) <= 0, "no horizontal overflow at 375 px")

        // Keyboard: focus Walks's Move up and press Enter; focus stays with it.
        try browser.execute("window.__swaps = 0; document.addEventListener('kith:swapped', () => { window.__swaps += 1; });")
        try browser.execute("document.querySelector('#tally-\(walks) .tally-move button[value=up]').focus();")
        let focused = try browser.element("#tally-\(walks) .tally-move button[value=up]")
        try driver.command("POST", "/session/\(browser.id)/element/\(focused)/value", ["text": "\u{E007}"])
        try waitUntil("Walks moved up in the page") { try Self.domOrder(browser) == [naps, walks, teas] }
        try waitUntil("the move is announced") { try Self.status(browser) == "Walks moved to 2 of 3." }
        #expect(try TallyOrderTests.home(ada.session) == [naps, walks, teas])
        #expect(
            try browser.execute("return document.activeElement.closest('.tally-row')?.id;") as? String == "tally-\(walks)",
            "focus moves with the row")

        // The move's own live refresh of the list lands before the drag
        // starts, so the drag is not racing it.
        try? waitUntil("the list refreshed after the move", timeout: 3) {
            (try browser.execute("return window.__swaps;") as? NSNumber)?.intValue ?? 0 > 0
        }
        // Touch: drag Naps by its handle below the last row.
        try browser.execute("document.querySelector('#tally-\(naps)').scrollIntoView({block: 'start'});")
        let handle = try browser.element("#tally-\(naps) [data-drag-handle]")
        let distance = try browser.execute("""
            const rows = document.querySelectorAll('.tally-list .tally-row');
            const last = rows[rows.length - 1].getBoundingClientRect();
            const handle = document.querySelector('#tally-\(naps) [data-drag-handle]').getBoundingClientRect();
            return Math.round(last.bottom - (handle.top + handle.height / 2) - 4);
            """) as? NSNumber
        let reference: [String: Any] = ["element-6066-11e4-a52e-4f735466cecf": handle]
        try driver.command("POST", "/session/\(browser.id)/actions", [
            "actions": [[
                "type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"],
                "actions": [
                    ["type": "pointerMove", "duration": 0, "origin": reference, "x": 0, "y": 0],
                    ["type": "pointerDown", "button": 0],
                    ["type": "pointerMove", "duration": 300, "origin": "pointer", "x": 0, "y": (distance?.intValue ?? 300) / 2],
                    ["type": "pointerMove", "duration": 300, "origin": "pointer", "x": 0, "y": (distance?.intValue ?? 300) - (distance?.intValue ?? 300) / 2],
                    ["type": "pointerUp", "button": 0],
                ],
            ]]
        ])
        try waitUntil("Naps dropped last") { try Self.domOrder(browser) == [walks, teas, naps] }
        try waitUntil("the drop is kept on the server") { try TallyOrderTests.home(ada.session) == [walks, teas, naps] }
        try waitUntil("the drop is announced") { try Self.status(browser) == "Naps moved to 3 of 3." }
        #expect(try BrowserTests.marker(browser) == 42, "moved in place, never reloading")

        try browser.navigate(to: "http://127.0.0.1:\(app.port)/")
        try waitUntil("a reload shows the same order") { try Self.domOrder(browser) == [walks, teas, naps] }
    }
}
