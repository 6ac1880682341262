import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("The reveal and the thanks in real browsers", .serialized)
struct OccasionRevealBrowserTests {
    /// Chromium at a given width with a fake microphone and camera that
    /// need no permission prompt.
    static func capabilities(width: Int, reducedMotion: Bool = false) -> [String: Any] {
        var args = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),800",
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required",
        ]
        if reducedMotion { args.append("--force-prefers-reduced-motion") }
        // Headless windows have a minimum width; the phone's is emulated.
        let options: [String: Any] = [
            "binary": BrowserTests.chromium, "args": args, "mobileEmulation": ["deviceMetrics": ["width": width, "height": 800, "pixelRatio": 1]],
        ]
        return ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]
    }

    static func text(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.body.innerText;") as? String ?? ""
    }

    /// Screenshots in both themes, when `KITH_SCREENSHOTS` names a folder;
    /// the page must fit its width in each.
    static func bothThemes(_ driver: WebDriver, _ browser: WebDriverSession, _ name: String, showing selector: String? = nil) throws {
        if let selector { try browser.execute("document.querySelector(arguments[0]).scrollIntoView();", [selector]) }
        #expect((try browser.execute("return window.innerWidth;") as? Int) == (name.hasSuffix("375") ? 375 : 1280))
        for theme in ["theme-light", "theme-dark"] {
            try browser.execute("document.documentElement.classList.remove('theme-light', 'theme-dark'); document.documentElement.classList.add(arguments[0]);", [theme])
            #expect(try fits(browser), "\(name) fits in \(theme)")
            try TallyBrowserTests.screenshot(driver, browser, "\(name)-\(theme)")
        }
    }

    static func fits(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool) == true
    }

    @Test(
        "the celebrant unlocks with the reveal (focus in, Escape out), thanks the giver with a recorded voice note, and the giver's open page shows the opening and then the thanks as they happen",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func story() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let gift = try party.sendGift(party.contributors[0], letter: "Happy birthday! **Forty candles** of love.")
        try party.price(gift, cost: 10)
        #expect(try party.complete(try party.addChallenge("Sing", points: 20)).status == 303)
        let base = "http://127.0.0.1:\(app.port)"
        let occasion = base + party.base
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: Self.capabilities(width: 375))
        defer { phone.delete() }
        let laptop = try driver.newSession(capabilities: Self.capabilities(width: 1280))
        defer { laptop.delete() }

        // The giver keeps their gift's page open on a laptop.
        try BrowserTests.signIn(laptop, base: base, username: "friend_1")
        try laptop.navigate(to: "\(occasion)/gifts/\(gift)")
        // The page's live cursor was taken before it was read, so what happens
        // from here on reaches it whenever its stream connects.
        #expect(!(try Self.text(laptop).contains("opened your gift")))
        try laptop.execute("window.__marker = 42;")

        // The celebrant unlocks from the carousel: the gift opens full screen.
        try BrowserTests.signIn(phone, base: base, username: "alex_star")
        try phone.navigate(to: "\(occasion)/gifts")
        try waitUntil("the unlock button is there") {
            (try phone.execute("return !!document.querySelector('.gift-card__unlock button');") as? Bool) == true
        }
        try phone.click(".gift-card__unlock button")
        try waitUntil("the reveal opens", timeout: 15) {
            (try phone.execute("return !!document.querySelector('dialog.reveal[open]');") as? Bool) == true
        }
        let title = try phone.execute(
            "const d = document.querySelector('dialog.reveal[open]'); return document.getElementById(d.getAttribute('aria-labelledby')).textContent;")
            as? String
        #expect(title == "Letter from Friend 1")
        #expect(try phone.text("dialog.reveal .reveal__notice") == "Unlocked!")
        #expect(try ConfirmBrowserTests.focusIsInDialog(phone))
        try waitUntil("the card turns over to the letter") {
            (try phone.execute("return document.querySelector('dialog.reveal').classList.contains('reveal--open');") as? Bool) == true
        }
        #expect(try phone.text("dialog.reveal .reveal__back").contains("Forty candles"))
        try waitUntil("the card has finished turning") {
            (try phone.execute("return document.querySelector('dialog.reveal .reveal__back').getAnimations().length === 0;") as? Bool) == true
        }
        try Self.bothThemes(driver, phone, "reveal-375")
        #expect(try party.balance() == 10)

        // The giver's open page says so at once, without a reload.
        try waitUntil("the giver sees the opening live", timeout: 15) { try Self.text(laptop).contains("Alex opened your gift on") }

        // Escape closes the reveal; focus lands on the opened card's link.
        try ConfirmBrowserTests.pressEscape(driver, phone)
        try waitUntil("Escape closes the reveal") {
            (try phone.execute("return !document.querySelector('dialog.reveal');") as? Bool) == true
        }
        try waitUntil("focus is back on the gift") {
            (try phone.execute("return !!document.activeElement && !!document.activeElement.closest('[data-gift]');") as? Bool) == true
        }

        // The celebrant records a thank-you on the gift's page and sends it.
        try phone.navigate(to: "\(occasion)/gifts/\(gift)#thanks")
        try waitUntil("the recorder is offered") {
            (try phone.execute("return !document.querySelector('.thanks-form [data-recorder]').hidden;") as? Bool) == true
        }
        try phone.click(".thanks-form [data-recorder-start]")
        try waitUntil("it records", timeout: 10) { try Self.text(phone).contains("Recording…") }
        try waitUntil("a second and a half is recorded", timeout: 10) {
            (try phone.text(".thanks-form [data-recorder-timer]")) >= "0:01"
        }
        Thread.sleep(forTimeInterval: 0.6)
        try phone.click(".thanks-form [data-recorder-stop]")
        try waitUntil("the recording can be heard", timeout: 10) {
            (try phone.execute("return !document.querySelector('.thanks-form [data-recorder-preview]').hidden;") as? Bool) == true
        }
        try phone.click(".thanks-form [data-recorder-save]")
        try waitUntil("the thanks are sent", timeout: 15) { try Self.text(phone).contains("Your thanks to Friend 1") }
        try Self.bothThemes(driver, phone, "thanks-celebrant-375", showing: "#thanks")

        // The giver's same page, never reloaded, shows the thanks with a player.
        try waitUntil("the thanks arrive live", timeout: 15) { try Self.text(laptop).contains("Thanks from Alex") }
        #expect((try laptop.execute("return window.__marker;") as? Int) == 42, "the page was not reloaded")
        try Self.bothThemes(driver, laptop, "thanks-giver-1280", showing: "#thanks")
        let source = try laptop.execute("const s = document.querySelector('.thanks audio source'); return s ? s.getAttribute('src') : null;") as? String
        #expect(source?.contains("/thanks/") == true)
        let stored = try app.app.database.read { db in
            try db.queryOne("SELECT media_kind, duration_ms FROM occasion_thanks WHERE gift_id = \(gift)")
                .map { (try $0.get("media_kind") as String?, try $0.get("duration_ms") as Int?) }
        }
        #expect(stored?.0 == "audio")
        #expect((stored?.1 ?? 0) >= 1000, "the browser's measured duration is kept")
        // The giver reacts with a heart in place; the celebrant's open page counts it live.
        try laptop.click(".reactions__button[value=heart]")
        try waitUntil("the heart is pressed", timeout: 10) {
            (try laptop.execute("return document.querySelector('.reactions__button[value=heart]').getAttribute('aria-pressed');") as? String) == "true"
        }
        #expect((try laptop.execute("return window.__marker;") as? Int) == 42, "reacting did not reload the page")
        try waitUntil("the celebrant sees the heart live", timeout: 15) {
            (try phone.execute("const b = document.querySelector('.reactions__button[value=heart]'); return b ? b.getAttribute('aria-label') : null;")
                as? String)?.contains("1 person reacted with heart") == true
        }
        try waitUntil("the voice note plays for the giver", timeout: 15) {
            (try laptop.execute("const a = document.querySelector('.thanks audio'); return !!a && a.readyState >= 1;") as? Bool) == true
        }
    }

    @Test(
        "with reduced motion the reveal fades instead of turning, and still shows the gift",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func calmReveal() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let gift = try party.sendGift(party.contributors[0], letter: "Quietly: happy birthday.")
        try party.price(gift, cost: 10)
        #expect(try party.complete(try party.addChallenge("Sing", points: 20)).status == 303)
        let base = "http://127.0.0.1:\(app.port)"
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: Self.capabilities(width: 375, reducedMotion: true))
        defer { phone.delete() }
        try BrowserTests.signIn(phone, base: base, username: "alex_star")
        try phone.navigate(to: "\(base)\(party.base)/gifts/\(gift)")
        try phone.click(".gift-card__unlock button")
        try waitUntil("the reveal opens", timeout: 15) {
            (try phone.execute("return !!document.querySelector('dialog.reveal.reveal--open');") as? Bool) == true
        }
        #expect((try phone.execute("return matchMedia('(prefers-reduced-motion: reduce)').matches;") as? Bool) == true)
        let back = "getComputedStyle(document.querySelector('dialog.reveal .reveal__back'))"
        #expect((try phone.execute("return \(back).transform;") as? String) == "none", "no turn")
        try waitUntil("the letter fades in") { (try phone.execute("return \(back).opacity;") as? String) == "1" }
        #expect(try phone.text("dialog.reveal .reveal__back").contains("Quietly: happy birthday."))
        // Closing on the gift's own page leaves the opened gift behind it.
        try phone.click("[data-reveal-close]")
        try waitUntil("the page shows the opened gift", timeout: 15) {
            (try phone.execute("return !document.querySelector('dialog.reveal') && !!document.querySelector('[data-gift-content]');") as? Bool) == true
        }
        #expect(try Self.text(phone).contains("Say thank you to Friend 1"))
    }

    @Test(
        "a contributor records a video gift with the camera: a live preview while recording, play it back, record again, save",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func videoGift() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let base = "http://127.0.0.1:\(app.port)"
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: Self.capabilities(width: 375))
        defer { phone.delete() }
        try BrowserTests.signIn(phone, base: base, username: "friend_1")
        try phone.navigate(to: "\(base)\(party.base)/gift")
        let recorder = "[data-recorder-kind=video]"
        try waitUntil("the video recorder is offered") {
            (try phone.execute("return !document.querySelector('\(recorder)').hidden;") as? Bool) == true
        }
        func record() throws {
            try phone.click("\(recorder) [data-recorder-start]")
            try waitUntil("the camera shows in the preview", timeout: 10) {
                (try phone.execute(
                    "const v = document.querySelector('\(recorder) video'); return !v.hidden && !!v.srcObject && v.srcObject.getVideoTracks().length === 1;")
                    as? Bool) == true
            }
            try waitUntil("a second is recorded", timeout: 10) { (try phone.text("\(recorder) [data-recorder-timer]")) >= "0:01" }
            Thread.sleep(forTimeInterval: 0.4)
            try phone.click("\(recorder) [data-recorder-stop]")
            try waitUntil("the recording can be watched", timeout: 10) {
                (try phone.execute(
                    "const v = document.querySelector('\(recorder) video'); return !v.hidden && !v.srcObject && v.src.startsWith('blob:');")
                    as? Bool) == true
            }
        }
        try record()
        try phone.click("\(recorder) [data-recorder-again]")
        #expect((try phone.execute("return document.querySelector('\(recorder) video').hidden;") as? Bool) == true)
        try record()
        #expect(try Self.fits(phone))
        try phone.click("\(recorder) [data-recorder-save]")
        try waitUntil("the video is the draft's", timeout: 20) { try Self.text(phone).contains("Video from you") }
        let stored = try app.app.database.read { db in
            try db.queryOne("""
                SELECT g.kind, f.mime_type, m.duration_ms FROM occasion_media m JOIN media_files f USING (sha256)
                JOIN occasion_gifts g ON g.id = m.gift_id WHERE g.author_id = \(party.userIDs["friend_1"]!)
                """).map { (try $0.get("kind") as String, try $0.get("mime_type") as String, try $0.get("duration_ms") as Int?) }
        }
        #expect(stored?.0 == "video")
        #expect(stored?.1 == "video/webm")
        #expect((stored?.2 ?? 0) >= 1000)
    }
}
