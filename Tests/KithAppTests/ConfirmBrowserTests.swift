import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// The confirm dialog and the undo notice in a real browser at 375 px: the
/// server's sentence in a native <dialog>, keyboard use, and Undo.
@Suite("Destructive actions in a real browser", .serialized)
struct ConfirmBrowserTests {
    /// The open dialog's question and detail, or nil while none is open.
    static func openDialog(_ browser: WebDriverSession) throws -> [String]? {
        try browser.execute(
            """
            const d = document.querySelector('dialog.confirm-dialog[open]');
            if (!d) return null;
            const by = (attr) => document.getElementById(d.getAttribute(attr)).textContent;
            return [by('aria-labelledby'), by('aria-describedby')];
            """) as? [String]
    }

    static func focusIsInDialog(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute("const d = document.querySelector('dialog[open]'); return !!d && d.contains(document.activeElement);") as? Bool) == true
    }

    static func pressEscape(_ driver: WebDriver, _ browser: WebDriverSession) throws {
        _ = try driver.command(
            "POST", "/session/\(browser.id)/actions",
            ["actions": [["type": "key", "id": "keyboard", "actions": [["type": "keyDown", "value": "\u{E00C}"], ["type": "keyUp", "value": "\u{E00C}"]]]]])
    }

    /// Nothing on the page is wider than the 375 px viewport, the dialog included.
    static func fitsThePhone(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute(
            """
            const d = document.querySelector('dialog[open]');
            const wide = document.documentElement.scrollWidth <= document.documentElement.clientWidth;
            if (!d) return wide;
            const box = d.getBoundingClientRect();
            const buttons = [...d.querySelectorAll('button')].every(b => b.getBoundingClientRect().height >= 24 && b.getBoundingClientRect().width >= 24);
            return wide && box.left >= 0 && box.right <= window.innerWidth && buttons;
            """) as? Bool) == true
    }

    /// A phone-sized browser signed in as `username`, on `path`.
    static func onAPhone(_ app: AppHarness, as username: String, at path: String, _ body: (WebDriver, WebDriverSession) throws -> Void) throws {
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { browser.delete() }
        let base = "http://127.0.0.1:\(app.port)"
        try BrowserTests.signIn(browser, base: base, username: username)
        try browser.navigate(to: base + path)
        try body(driver, browser)
    }

    @Test(
        "deleting a tally at 375 px: the dialog says the server's sentence, Escape and Cancel keep it, Confirm deletes, Undo brings it back",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func deleteAndUndoATally() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        try Tallies.befriend(ada.session, "bob")
        let id = try Tallies.create(ada.session, name: "Coffees", count: 41, shares: [(bob.id, "view")])

        try Self.onAPhone(app, as: "ada", at: "/tallies/\(id)") { driver, browser in
            let delete = "form[action$='/delete'] button"
            try waitUntil("the script has loaded the dialog module") {
                (try browser.execute("return !!document.querySelector(\"form[action$='/delete'][data-confirm]\") && document.documentElement.classList.contains('js');") as? Bool) == true
            }
            let asked = ["Delete Coffees?", "Its count of 41 and its settings go, for you and the friend it's shared with."]
            // The tally's settings are grouped and closed: open Delete first, as a person would.
            try browser.click("details:has(form[action$='/delete']) > summary")

            // Escape closes it, nothing is deleted, focus is back on the button.
            try browser.click(delete)
            try waitUntil("the dialog opens with the sentence") { try Self.openDialog(browser) == asked }
            #expect(try Self.focusIsInDialog(browser), "focus moves into the dialog")
            #expect(try Self.fitsThePhone(browser), "the dialog fits a 375 px screen")
            #expect(try browser.execute("return document.querySelector('dialog[open] [data-confirm-go]').textContent;") as? String == "Delete tally")
            try Self.pressEscape(driver, browser)
            try waitUntil("Escape closes the dialog") { try Self.openDialog(browser) == nil }
            try waitUntil("focus returns to the delete button") {
                (try browser.execute("return document.activeElement === document.querySelector(\"form[action$='/delete'] button\");") as? Bool) == true
            }
            #expect(try Tallies.count(app, id) == 41)

            // Cancel keeps it too.
            try browser.click(delete)
            try waitUntil("the dialog opens again") { try Self.openDialog(browser) == asked }
            try browser.click("dialog[open] [data-confirm-cancel]")
            try waitUntil("Cancel closes it") { try Self.openDialog(browser) == nil }
            usleep(300_000)
            #expect(try Tallies.count(app, id) == 41)
            #expect(try browser.execute("return location.pathname;") as? String == "/tallies/\(id)")

            // Confirm deletes, and the home page offers Undo.
            try browser.click(delete)
            try waitUntil("the dialog opens a third time") { try Self.openDialog(browser) != nil }
            try browser.click("dialog[open] [data-confirm-go]")
            try waitUntil("the tally is deleted") { try Tallies.count(app, id) == nil }
            try waitUntil("the home page shows the undo notice") {
                (try browser.execute("const n = document.querySelector('[data-undo-notice][role=status]'); return n ? n.textContent : null;") as? String)?
                    .contains("Coffees deleted.") == true
            }
            #expect(try Self.fitsThePhone(browser))
            try browser.click("[data-undo-notice] button")
            try waitUntil("Undo brings it back with its count") { try Tallies.count(app, id) == 41 }
            try waitUntil("and shows it again") {
                (try browser.execute("return location.pathname + ' ' + (document.querySelector('.tally-face__count') || {}).getAttribute?.('aria-label');") as? String)
                    == "/tallies/\(id) Coffees, 41, increment"
            }
            #expect(try BrowserTests.consoleErrors(browser)?.isEmpty ?? true)
        }
    }

    @Test(
        "removing a plate player through the dialog says how many spots go, and Undo is offered to the host",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func removeAPlatePlayer() throws {
        let app = try Plates.harness()
        let (_, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "OH")
        try Plates.spot(mom.session, game, "TX")

        try Self.onAPhone(app, as: "dad", at: "/games/\(game)/players") { _, browser in
            try waitUntil("the players page has loaded its script") {
                (try browser.execute("return document.documentElement.classList.contains('js');") as? Bool) == true
            }
            try browser.click(".plate-roster__remove button")
            try waitUntil("the dialog asks") { try Self.openDialog(browser) == ["Remove Mom?", "Their 2 spots go too."] }
            #expect(try Self.fitsThePhone(browser))
            try browser.click("dialog[open] [data-confirm-go]")
            try waitUntil("Mom is out of the game") {
                try app.app.database.read { try PlateStore.playerIDs($0, gameID: game) } .contains(mom.id) == false
            }
            try waitUntil("the host sees the undo notice") {
                (try browser.execute("const n = document.querySelector('[data-undo-notice]'); return n ? n.textContent : null;") as? String)?
                    .contains("Mom removed.") == true
            }
            try browser.click("[data-undo-notice] button")
            try waitUntil("Undo puts Mom back with her spots") {
                try app.app.database.read { try $0.queryValue("SELECT count(*) FROM plate_spots WHERE game_id = \(game) AND user_id = \(mom.id)", as: Int64.self) } == 2
            }
        }
    }
}
