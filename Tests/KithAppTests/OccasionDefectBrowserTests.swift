import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// Occasion defects that lived in the browser: an upload's refusal shown as
/// the page's date line, a keepsake one long word made 1,250 px wide, a
/// current tab cut off on a phone, and the printed keepsake.
@Suite("Occasion defects in a real browser", .serialized)
struct OccasionDefectBrowserTests {
    static let enabled = Tools.browser && Tools.python3

    /// Sets a file input's file from bytes, as choosing a file would.
    static func choose(_ browser: WebDriverSession, input: String, name: String, type: String, text: String) throws {
        try browser.execute(
            """
            const input = document.querySelector(arguments[0]);
            const transfer = new DataTransfer();
            transfer.items.add(new File([arguments[3]], arguments[1], { type: arguments[2] }));
            input.files = transfer.files;
            """, [input, name, type, text])
    }

    /// A phone-sized Chromium, signed in as `username` when given, for `body`.
    static func onPhone(_ app: AppHarness, as username: String?, _ body: (WebDriver, WebDriverSession, String) throws -> Void) throws {
        let base = "http://127.0.0.1:\(app.port)"
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { phone.delete() }
        // Headless windows have a minimum width above a phone's, so the
        // page is given a phone's viewport directly.
        try driver.command(
            "POST", "/session/\(phone.id)/goog/cdp/execute",
            ["cmd": "Emulation.setDeviceMetricsOverride", "params": ["width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": true]])
        if let username { try BrowserTests.signIn(phone, base: base, username: username) }
        try body(driver, phone, base)
    }

    /// Whether the page is wider than the window (something pushes it sideways).
    static func overflows(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute("return document.documentElement.scrollWidth > window.innerWidth;") as? Bool) ?? true
    }

    @Test(
        "a refused photo or voice note shows its own refusal in its own form's status, not the page's date line",
        .enabled(if: enabled, "needs chromium, chromedriver and python3"))
    func uploadRefusalMessage() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        try Self.onPhone(app, as: "friend_1") { _, phone, base in try Self.refusals(app, party, phone, base) }
    }

    static func refusals(_ app: AppHarness, _ party: OccasionParty, _ phone: WebDriverSession, _ base: String) throws {
        try phone.navigate(to: base + party.base + "/gift")

        let forms = [("#gift-photos", "note.jpg", "image/jpeg"), ("#gift-voice", "memo.m4a", "audio/mp4")]
        for (index, (input, name, type)) in forms.enumerated() {
            try Self.choose(phone, input: input, name: name, type: type, text: "not a photo, not a sound")
            try phone.execute("document.querySelector(arguments[0]).form.requestSubmit();", [input])
            let status = "form:has(\(input)) .upload-form__status"
            try waitUntil("the refusal shows in that form", timeout: 15) {
                let text = try phone.execute("return document.querySelector(arguments[0]).textContent;", [status]) as? String ?? ""
                return !text.isEmpty && !text.hasPrefix("Uploading")
            }
            let shown = try phone.execute("return document.querySelector(arguments[0]).textContent;", [status]) as? String ?? ""
            #expect(shown.contains("can't use “\(name)”"), "form \(index): \(shown)")
            #expect(!shown.contains("2026"), "not the page's date line: \(shown)")
        }
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM occasion_media", as: Int.self) } == 0)
    }

    @Test(
        "the keepsake on a phone: a long unbroken word in a letter, a proof or a link never widens the page; printed, each gift has its own page",
        .enabled(if: enabled, "needs chromium, chromedriver and python3"))
    func keepsakeOnAPhoneAndOnPaper() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 3)
        let word = String(repeating: "Happybirthday", count: 20)
        var gifts: [Int64] = []
        for (index, friend) in party.contributors.enumerated() {
            let letter = index == 0 ? "\(word)\n\n[\(word)](https://example.org/\(word))\n\n`\(word)`\n\n```\n\(word)\n```" : "Gift \(index + 1)"
            gifts.append(try party.sendGift(friend, letter: letter))
        }
        for gift in gifts { try party.price(gift, cost: 1) }
        let challenge = try party.addChallenge("Say it", points: 10)
        #expect(try party.complete(challenge, proof: "text", text: word).status == 303)
        for gift in gifts { #expect(try party.unlock(gift).status == 303) }

        let zip = try party.host.get("\(party.base)/keepsake")
        #expect(zip.status == 200)
        let folder = try TemporaryDirectory("kith-keepsake-print")
        try Data(zip.body).write(to: URL(fileURLWithPath: folder.path + "/keepsake.zip"))
        let unzipped = try runProgram(Tools.path("python3")!, ["-m", "zipfile", "-e", folder.path + "/keepsake.zip", folder.path + "/out"])
        #expect(unzipped.status == 0)
        try Self.onPhone(app, as: nil) { driver, phone, _ in
            try Self.keepsake(at: folder.path + "/out/index.html", word: word, gifts: gifts.count, driver, phone)
        }
    }

    static func keepsake(at path: String, word: String, gifts: Int, _ driver: WebDriver, _ phone: WebDriverSession) throws {
        try phone.navigate(to: "file://\(path)")
        try waitUntil("the keepsake's stylesheet applies") {
            (try phone.execute("return getComputedStyle(document.querySelector('.hero')).textAlign;") as? String) == "center"
        }
        let widths = try phone.execute("return [document.documentElement.scrollWidth, window.innerWidth];") as? [Int] ?? []
        #expect(widths.count == 2 && widths[1] == 375 && widths[0] <= widths[1], "page \(widths) at a 375 px window")
        #expect(try phone.execute("return document.body.innerText.includes(arguments[0]);", [String(word.prefix(40))]) as? Bool == true)

        // Printed: the cover, one page per gift, then the timeline.
        let printed = try driver.command("POST", "/session/\(phone.id)/print", ["background": false, "shrinkToFit": true]) as? String ?? ""
        let pdf = String(decoding: Data(base64Encoded: printed) ?? Data(), as: UTF8.self)
        #expect(pdf.hasPrefix("%PDF"))
        let pageObjects = try NSRegularExpression(pattern: "/Type\\s*/Page(?![a-zA-Z])")
        let pages = pageObjects.numberOfMatches(in: pdf, range: NSRange(pdf.startIndex..., in: pdf))
        #expect(pages >= gifts + 1, "a page per gift after the cover: \(pages) pages")
    }

    @Test(
        "on a phone the current tab is in view, role chips fit their words, the host panel has section links and nothing overflows",
        .enabled(if: enabled, "needs chromium, chromedriver and python3"))
    func phoneLayout() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let long = String(repeating: "Congratulations", count: 20)
        let gift = try party.sendGift(party.contributors[0], letter: "# \(long)\n\n```\n\(long)\n```")
        try Self.onPhone(app, as: "hana_host") { driver, phone, base in
            try Self.layout(party, gift: gift, phone, base)
            try Self.calmButtons(party, driver, phone, base)
        }
    }

    /// The host panel's destructive buttons, drawn calm, still read clearly:
    /// their words against their own background at 4.5:1 or more, in both themes.
    static func calmButtons(_ party: OccasionParty, _ driver: WebDriver, _ phone: WebDriverSession, _ base: String) throws {
        var backgrounds: [String] = []
        for scheme in ["light", "dark"] {
            try driver.command(
                "POST", "/session/\(phone.id)/goog/cdp/execute",
                ["cmd": "Emulation.setEmulatedMedia", "params": ["features": [["name": "prefers-color-scheme", "value": scheme]]]])
            try phone.navigate(to: base + party.base + "/host")
            let ratios = try phone.execute(
                """
                const channels = (text) => (text.match(/[0-9.]+/g) || []).slice(0, 3).map(Number);
                const luminance = (rgb) => {
                  const [r, g, b] = rgb.map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
                  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
                };
                return [...document.querySelectorAll('.host-panel .button--danger')].map((button) => {
                  const style = getComputedStyle(button);
                  const [a, b] = [luminance(channels(style.color)), luminance(channels(style.backgroundColor))];
                  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
                });
                """) as? [Double] ?? []
            #expect(!ratios.isEmpty)
            #expect(ratios.allSatisfy { $0 >= 4.5 }, "\(scheme): \(ratios)")
            #expect(try !Self.overflows(phone), "\(scheme) host panel overflows")
            backgrounds.append(try phone.execute("return getComputedStyle(document.documentElement).getPropertyValue('--page');") as? String ?? "")
        }
        #expect(Set(backgrounds).count == 2, "both themes were drawn: \(backgrounds)")
    }

    static func layout(_ party: OccasionParty, gift: Int64, _ phone: WebDriverSession, _ base: String) throws {
        for path in ["/gifts", "/timeline", "/people", "/host", "/gifts/\(gift)"] {
            try phone.navigate(to: base + party.base + path)
            let box = try phone.execute(
                """
                const r = document.querySelector('.tabs__link--current').getBoundingClientRect();
                return [r.left, r.right, window.innerWidth, r.height];
                """) as? [Double] ?? []
            #expect(box.count == 4 && box[2] == 375 && box[0] >= 0 && box[1] <= box[2], "current tab on \(path) at \(box)")
            #expect(box.count == 4 && box[3] >= 24, "tab tall enough to tap")
            #expect(try !Self.overflows(phone), "\(path) overflows sideways")
        }
        try phone.navigate(to: base + party.base + "/people")
        let chips = try phone.execute(
            """
            return [...document.querySelectorAll('.roster .chip')].map(c => [c.getBoundingClientRect().width, c.parentElement.getBoundingClientRect().width]);
            """) as? [[Double]] ?? []
        #expect(!chips.isEmpty)
        for chip in chips { #expect(chip.count == 2 && chip[0] < chip[1] / 2, "a role chip as wide as its words: \(chip)") }

        try phone.navigate(to: base + party.base + "/host")
        let links = try phone.execute("return [...document.querySelectorAll('.host-nav a')].map(a => a.getAttribute('href'));") as? [String] ?? []
        #expect(links.count >= 8)
        for link in links {
            #expect(try phone.execute("return document.querySelector(arguments[0]) !== null;", [link]) as? Bool == true, "\(link) leads somewhere")
        }
        let small = try phone.execute(
            "return [...document.querySelectorAll('.host-nav a, .host-panel .button')].filter(e => e.offsetParent && e.getBoundingClientRect().height < 24).length;")
            as? Int
        #expect(small == 0, "tap targets at least 24 px")
    }
}
