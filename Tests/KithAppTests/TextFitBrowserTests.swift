import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// A 60-character word with no place to break (someone will type one) in
/// every field people fill in must not make any page wider than a 375 px
/// phone, and the small links people tap must stay at least 24 px tall.
@Suite("Long words fit a phone", .serialized)
struct TextFitBrowserTests {
    static let word = String(repeating: "W", count: 60)

    /// Everything people type, each a 60-character word, shown on every page that shows it.
    struct World {
        let app: AppHarness
        let party: OccasionParty
        let tally: Int64
        let game: Int64
        let challenge: Int64
        let gift: Int64
    }

    static func makeWorld() throws -> World {
        let clock = Locked(Int64(time(nil)))
        let app = try Tallies.harness(clock: clock)
        let word = Self.word
        let host = try Tallies.person(app, "hana", name: word)
        let friend = try Tallies.person(app, "fred", name: word)
        let celebrant = try Tallies.person(app, "cele", name: word)
        try Tallies.befriend(host.session, "fred")
        let tally = try Tallies.create(host.session, name: word, shares: [(friend.id, "edit")])
        #expect(try Tallies.post(friend.session, "/tallies/\(tally)/increment").status == 303)
        let game = try Plates.create(host.session, name: word)
        #expect(try Plates.join(app, friend.session, game).status == 303)
        #expect(try Plates.spot(friend.session, game, "ID").status == 303)

        let created = try host.session.post(
            "/occasions", [("name", word), ("kind", "birthday"), ("celebrant_name", word), ("date", "2026-12-12"), ("host_name", word)],
            csrf: try host.session.token(from: "/occasions/new"))
        let id = try #require(created.header("Location").flatMap { $0.split(separator: "/").compactMap { Int64($0) }.first })
        let (contributorCode, celebrantCode) = try OccasionParty.codes(app, id)
        try OccasionParty.join(friend.session, code: contributorCode)
        try OccasionParty.join(celebrant.session, code: celebrantCode)
        let party = OccasionParty(
            app: app, id: id, host: host.session, contributors: [friend.session], celebrant: celebrant.session,
            stranger: WebSession(port: app.port), visitor: WebSession(port: app.port), userIDs: [:])
        let base = party.base
        let added = try party.post(
            host.session, "\(base)/host/challenges",
            [("title", word), ("description", word), ("option_b", word), ("points", "10"), ("difficulty", "easy"), ("category", "social")],
            from: "\(base)/host")
        #expect(added.status == 303)
        let challenge = try party.newest("occasion_challenges")
        let dare = try party.post(friend.session, "\(base)/dare", [("title", word), ("description", word), ("points", "10")], from: "\(base)/dare")
        #expect(dare.status == 303)
        let gift = try party.sendGift(friend.session, letter: word)
        try party.price(gift, cost: 10)
        #expect(try party.complete(challenge, proof: "text", text: word, option: "b").status == 303)
        #expect(try party.post(host.session, "\(base)/host/points", [("delta", "50"), ("reason", word)], from: "\(base)/host").status == 303)
        #expect(try party.post(friend.session, "\(base)/reports?challenge=\(challenge)", [("reason", word)], from: "\(base)/challenges/\(challenge)").status == 303)
        #expect(try party.unlock(gift).status == 303)
        clock.withLock { $0 += Notifications.maximumDelay + 1 }
        _ = try app.app.notifications.sweep(now: clock.value)
        return World(app: app, party: party, tally: tally, game: game, challenge: challenge, gift: gift)
    }

    /// How far the page reaches past the viewport, and the first few elements that do.
    static let measure = """
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('body *')].filter(e => {
            const r = e.getBoundingClientRect();
            if (r.width <= 1 || r.height <= 1) return false;
            const style = getComputedStyle(e);
            if (style.position === 'absolute' && style.clip && style.clip !== 'auto') return false;
            // Inside something that scrolls or clips sideways on purpose (the tab bar), it does not widen the page.
            for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
                if (getComputedStyle(p).overflowX !== 'visible') return false;
            }
            return r.right > width + 0.5 || r.left < -0.5;
        }).map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? '.' + String(e.className).split(' ').join('.') : '')).slice(0, 6);
        return JSON.stringify({ width: width, scroll: document.documentElement.scrollWidth, wide: wide });
        """

    /// Links (not buttons styled as links) shorter than 24 px on the page.
    static let smallLinks = """
        return JSON.stringify([...document.querySelectorAll('main a, nav a, .page-header a')].filter(a => {
            if (a.closest('svg')) return false;
            const r = a.getBoundingClientRect();
            if (r.width <= 1) return false;
            const inline = getComputedStyle(a).display === 'inline' && a.closest('p, li, td, dd') && a.closest('p, li, td, dd').textContent.trim() !== a.textContent.trim();
            return !inline && r.height < 24;
        }).map(a => a.textContent.trim().slice(0, 40) + ' (' + a.className + ' in ' + a.parentElement.tagName.toLowerCase() + '.' + a.parentElement.className + ')'));
        """

    /// A phone's viewport, exactly: headless Chromium will not make a window narrower than 500 px.
    static var capabilities: [String: Any] { BrowserTests.emulating(width: 375, height: 800) }

    static func session(_ driver: WebDriver, signedInAs session: WebSession, base: String) throws -> WebDriverSession {
        let browser = try driver.newSession(capabilities: Self.capabilities)
        try browser.navigate(to: base + "/healthz")
        _ = try driver.command("POST", "/session/\(browser.id)/cookie", ["cookie": ["name": "kith_session", "value": session.sessionCookie ?? "", "path": "/"]])
        return browser
    }

    @Test(
        "every page showing a 60-character word, for each person who sees it, fits 375 px without sideways scrolling, and its links are 24 px tall",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func longWordsFit() throws {
        let world = try Self.makeWorld()
        let base = "http://127.0.0.1:\(world.app.port)"
        let occasion = world.party.base
        let pages: [(WebSession, [String])] = [
            (world.party.host, [
                "/", "/tallies/\(world.tally)", "/tallies/new", "/friends", "/inbox", "/settings", "/games/\(world.game)",
                "/games/\(world.game)/players", "/games/\(world.game)/spot", "/games/\(world.game)/states/ID", "/games/\(world.game)/leave",
                occasion, "\(occasion)/challenges", "\(occasion)/challenges/\(world.challenge)", "\(occasion)/gifts",
                "\(occasion)/gifts/\(world.gift)", "\(occasion)/timeline", "\(occasion)/people", "\(occasion)/host",
            ]),
            (world.party.contributors[0], ["/", "/tallies/\(world.tally)", "/inbox", "\(occasion)/dare", "\(occasion)/gift", occasion]),
            (world.party.celebrant, ["/", "/inbox", occasion, "\(occasion)/classified", "\(occasion)/timeline", "\(occasion)/gifts/\(world.gift)"]),
        ]
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        for (person, paths) in pages {
            let browser = try Self.session(driver, signedInAs: person, base: base)
            defer { browser.delete() }
            for path in paths {
                try browser.navigate(to: base + path)
                let json = try #require(try browser.execute(Self.measure) as? String)
                let found = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                let width = found["width"] as? Double ?? 0
                let scroll = found["scroll"] as? Double ?? 0
                #expect(width <= 375, "\(path): the viewport is a phone's")
                #expect(scroll <= 375 && scroll <= width, "\(path) is \(scroll) px wide: \(found["wide"] ?? [])")
                #expect((found["wide"] as? [String])?.isEmpty == true, "\(path): elements past the edge: \(found["wide"] ?? [])")
                let small = try #require(try browser.execute(Self.smallLinks) as? String)
                #expect(small == "[]", "\(path): links under 24 px tall: \(small)")
            }
        }
    }
}
