import Foundation
import Glibc
@testable import KithApp
import KithHTTP
import KithTemplates
import KithTestSupport
import Testing

/// A page with a note form of each kind, enhanced and plain, whose posts
/// take a while: long enough for a second press to land while the first is
/// on its way, as on a slow phone connection. Notes live in `settings`. The
/// list is a live fragment, and its draft field is named after the number of
/// notes, so a new note makes a field the next version does not have.
enum NotePage {
    static let show = Route(.get, "/test/notes")
    static let add = Route(.post, "/test/notes")
    static let addPlain = Route(.post, "/test/notes/plain")
    static let fragment = Route(.get, "/test/notes/fragment")
    static let topic = "open:notes"

    static func register(on app: KithApp) {
        app.liveTopics.register(kind: "open") { _, _ in true }
        app.on(show) { context in
            let page = context.pageContext(topics: [topic])
            let main = section(notes: try notes(in: context.app), csrf: context.csrfToken)
            return context.app.page(Layout.page(title: "Notes", context: page, main: main))
        }
        app.on(fragment) { context in
            context.app.page(section(notes: try notes(in: context.app), csrf: context.csrfToken))
        }
        for route in [add, addPlain] {
            app.on(route) { context in
                usleep(400_000)
                let note = context.request.form["note"] ?? ""
                let hub = context.app.live
                try context.app.database.write { tx in
                    try tx.execute(
                        """
                        INSERT INTO settings (key, value)
                        VALUES ('note:' || (SELECT count(*) FROM settings WHERE key LIKE 'note:%'), \(note))
                        """)
                    tx.afterCommit { hub.publish(topic: topic, fragments: ["notes"]) }
                }
                return .redirect(to: show.path())
            }
        }
    }

    static func section(notes: [String], csrf: String) -> HTML {
        let items = notes.map { "<li>\($0)</li>" as HTML }
        return """
            <section id="notes" data-fragment="\(fragment.path())"><ul class="notes">\(items)</ul>
            <p><label for="draft-\(notes.count)">Draft</label><input id="draft-\(notes.count)" name="draft-\(notes.count)"></p>
            <form id="enhanced" method="post" action="\(add.path())" data-enhance data-target="notes">\(Layout.csrfField(csrf))
            <label for="note">Note</label><input id="note" name="note"><button type="submit">Add note</button></form>
            <form id="plain" method="post" action="\(addPlain.path())">\(Layout.csrfField(csrf))
            <label for="plain-note">Plain note</label><input id="plain-note" name="note"><button type="submit">Add plain note</button></form>
            </section>
            """
    }

    static func notes(in app: KithApp) throws -> [String] {
        try app.database.read {
            try $0.query("SELECT value FROM settings WHERE key LIKE 'note:%' ORDER BY key").map { try $0.get("value", as: String.self) }
        }
    }
}

/// What a person sees at the edges: a live update arriving while they type,
/// what they were looking at ending under them, a form sent with no signal,
/// a button pressed twice.
@Suite("Edges in a real browser", .serialized, .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
struct EdgeBrowserTests {
    static func text(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.body.innerText;") as? String ?? ""
    }

    static func bool(_ browser: WebDriverSession, _ script: String, _ arguments: [Any] = []) throws -> Bool {
        try browser.execute(script, arguments) as? Bool == true
    }

    /// Every button of a posting form in the page's main part that could still be pressed.
    static func pressable(_ browser: WebDriverSession) throws -> Int {
        try browser.execute(
            """
            return [...document.querySelectorAll('main form')].filter((form) => form.method === 'post')
              .flatMap((form) => [...form.querySelectorAll('button, input[type=submit]')])
              .filter((button) => !button.disabled).length;
            """) as? Int ?? -1
    }

    /// The ending banner: its heading, that it is an alert at the top of
    /// <main>, and that focus went to it.
    static func banner(_ browser: WebDriverSession) throws -> (title: String, placed: Bool) {
        let title = try browser.execute("return document.querySelector('main > .ending h2')?.textContent ?? '';") as? String ?? ""
        let placed = try bool(
            browser,
            """
            const banner = document.querySelector('main > .ending');
            return banner === document.querySelector('main').firstElementChild && banner.getAttribute('role') === 'alert'
              && document.activeElement === banner.querySelector('h2');
            """)
        return (title, placed)
    }

    /// One headless browser, open while `body` runs, at `path` (signed in as
    /// `username` first when given), marked to prove later it never reloaded.
    static func browse(_ base: String, _ path: String, as username: String? = nil, _ body: (WebDriverSession) throws -> Void) throws {
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { browser.delete() }
        if let username { try BrowserTests.signIn(browser, base: base, username: username) }
        try browser.navigate(to: base + path)
        try BrowserTests.setMarker(browser)
        try body(browser)
    }

    /// Lin, signed up on her laptop, counting push-ups alone.
    static func linsPushUps() throws -> (app: AppHarness, laptop: (session: WebSession, id: Int64), tally: Int64) {
        let app = try Tallies.harness()
        let laptop = try Tallies.person(app, "lin")
        return (app, laptop, try Tallies.create(laptop.session, name: "Push-ups"))
    }

    static func noHorizontalOverflow(_ browser: WebDriverSession) throws -> Bool {
        try Self.bool(browser, "return document.documentElement.scrollWidth <= window.innerWidth;")
    }

    @Test("a host's half-written challenge, its open form and focus survive live refreshes of the host panel, and the refreshes arrive")
    func typingSurvivesLiveRefresh() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let base = "http://127.0.0.1:\(app.port)"
        let sing = try party.addChallenge("Sing in the square", points: 20)

        try Self.browse(base, party.base + "/host", as: "hana_host") { host in
            let details = "details:has(form[action$='/host/challenges'])"
            let title = "form[action$='/host/challenges'] [name=title]"
            #expect(try Self.bool(host, "return !document.querySelector(arguments[0]).open;", [details]), "the form starts closed when a challenge exists")
            try host.click(details + " > summary")
            let difficulty = "form[action$='/host/challenges'] [name=difficulty]"
            try host.execute("document.querySelector(arguments[0]).value = 'hard';", [difficulty])
            try host.execute(
                """
                const field = document.querySelector(arguments[0]);
                field.focus();
                field.value = 'Juggle three oranges';
                field.dispatchEvent(new Event('input', { bubbles: true }));
                field.setSelectionRange(7, 12);
                """, [title])

            // The celebrant completes a challenge: the host's panel refreshes while the host types.
            let done = try party.post(party.celebrant, "\(party.base)/challenges/\(sing)/complete", [("proof", "done")], from: "\(party.base)/challenges/\(sing)")
            #expect(done.status == 303)
            try waitUntil("the completion reaches the host's panel") { try Self.text(host).contains("Done ✓") }
            #expect(try host.execute("return document.querySelector(arguments[0]).value;", [title]) as? String == "Juggle three oranges")
            #expect(try Self.bool(host, "return document.querySelector(arguments[0]).open;", [details]))
            #expect(try host.execute("return document.querySelector(arguments[0]).value;", [difficulty]) as? String == "hard")
            #expect(try Self.bool(host, "return document.activeElement === document.querySelector(arguments[0]);", [title]), "focus left the field")
            #expect(
                try host.execute("const f = document.querySelector(arguments[0]); return [f.selectionStart, f.selectionEnd];", [title]) as? [Int]
                    == [7, 12], "the selection moved")
            #expect(try BrowserTests.marker(host) == 42, "the page reloaded")

            // Focus elsewhere now; a contributor files a dare, which the host sees.
            try host.execute("document.activeElement.blur(); document.querySelector('h1').scrollIntoView();")
            try party.fileDare(party.contributors[0], title: "Dance with a stranger", points: 10)
            try waitUntil("the dare reaches the host's panel") { try Self.text(host).contains("Dance with a stranger") }
            #expect(try host.execute("return document.querySelector(arguments[0]).value;", [title]) as? String == "Juggle three oranges")
            #expect(try Self.bool(host, "return document.querySelector(arguments[0]).open;", [details]))
            #expect(try BrowserTests.marker(host) == 42)

            // Sending it is saving it: the form comes back empty, as the server renders it.
            try host.click(details + " form button[type=submit]")
            try waitUntil("the new challenge is listed") {
                try app.app.database.read {
                    try $0.queryValue("SELECT count(*) FROM occasion_challenges WHERE title = 'Juggle three oranges' AND difficulty = 'hard'", as: Int.self)
                } == 1
            }
            let errors = try BrowserTests.consoleErrors(host) ?? []
            #expect(errors.isEmpty, "console errors: \(errors)")
        }
    }

    @Test("a friend's open tally page says it isn't shared any more, keeps the count, offers nothing to press and stops following")
    func unsharedTally() throws {
        let app = try Tallies.harness()
        let ann = try Tallies.person(app, "annie")
        let bob = try Tallies.person(app, "bobby")
        try Tallies.befriend(ann.session, "bobby")
        let tally = try Tallies.create(ann.session, name: "Coffees", count: 7, shares: [(bob.id, "edit")])
        let base = "http://127.0.0.1:\(app.port)"

        try Self.browse(base, "/tallies/\(tally)", as: "bobby") { browser in
            #expect(try Self.pressable(browser) > 0)

            #expect(try Tallies.confirm(ann.session, "/tallies/\(tally)/sharing", [("share-\(bob.id)", "none")]).status == 303)
            try waitUntil("the page explains") { try Self.banner(browser).title == "Coffees isn't shared with you any more" }
            #expect(try Self.banner(browser).placed)
            #expect(try BrowserTests.marker(browser) == 42, "the page reloaded into a 404")
            let face = "#tally-\(tally)-face"
            #expect(try browser.text(face + " .tally-face__name") == "Coffees")
            #expect(try browser.text(face + " .tally-count").contains("7"), "the count vanished")
            #expect(try Self.pressable(browser) == 0, "a button still leads to a 404")
            #expect(try Self.bool(browser, "return [...document.querySelectorAll('main > .ending a')].some((a) => a.getAttribute('href') === '/');"))
            #expect(try Self.noHorizontalOverflow(browser))

            // Nothing live arrives any more, and pressing the count does nothing.
            #expect(try Tallies.post(ann.session, "/tallies/\(tally)/increment").status == 303)
            try browser.execute("document.querySelector(arguments[0]).click();", [face + " .tally-count"])
            usleep(800_000)
            #expect(try browser.text(face + " .tally-count").contains("7"))
            #expect(try Tallies.count(app, tally) == 8)
            #expect(try BrowserTests.marker(browser) == 42)
        }
    }

    @Test("another script's kith:ended gone: the home list, about many things, notes it and stays usable; a tally's page, about one, ends")
    func endedEventFromScripts() throws {
        let (app, _, tally) = try Self.linsPushUps()
        let base = "http://127.0.0.1:\(app.port)"
        let gone = "document.dispatchEvent(new CustomEvent('kith:ended', { detail: { reason: 'gone' } }));"
        try Self.browse(base, "/", as: "lin") { browser in
            #expect(try Self.pressable(browser) > 0)
            try browser.execute(gone)
            try waitUntil("the list notes it") { try Self.text(browser).contains("no longer shared with you") }
            #expect(try Self.bool(browser, "return !document.querySelector('.ending');"), "a list page showed the page-wide banner")
            #expect(try Self.bool(browser, "return document.querySelector('#flashes [role=status]') !== null;"))
            #expect(try Self.pressable(browser) > 0, "the rest of the list stopped working")
            #expect(try BrowserTests.marker(browser) == 42)

            try browser.navigate(to: "\(base)/tallies/\(tally)")
            try browser.execute(gone)
            try waitUntil("the tally's page ends") { try Self.banner(browser).title == "Push-ups was deleted" }
            #expect(try Self.pressable(browser) == 0)
        }
    }

    @Test("a removed player's open board says they are no longer in the game; its map and spot button do nothing")
    func removedPlayer() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "OH")
        let base = "http://127.0.0.1:\(app.port)"

        try Self.browse(base, "/games/\(game)", as: "mom") { browser in
            #expect(try Self.bool(browser, "return !!document.querySelector('main a.button:not([hidden])');"))

            let removed = try dad.session.postConfirming(
                "/games/\(game)/players/\(mom.id)/remove", [], csrf: try dad.session.token(from: "/games/\(game)/players"))
            #expect(removed.status == 303)
            try waitUntil("the board explains") { try Self.banner(browser).title == "You're no longer in Summer Road Trip" }
            #expect(try Self.banner(browser).placed)
            #expect(try BrowserTests.marker(browser) == 42)
            #expect(try Self.text(browser).contains("1 of 50"), "the board vanished")
            #expect(try Self.bool(browser, "return !document.querySelector('main .plate-game a.button:not([hidden])');"), "the spot button is still there")
            #expect(try Self.pressable(browser) == 0)

            // A tap on the map posts nothing.
            try browser.execute("document.querySelector('.usmap--playable a[data-state=\"TX\"]')?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));")
            usleep(600_000)
            #expect(try Plates.spotRows(app, game).allSatisfy { !$0.contains("TX") })
            #expect(try BrowserTests.marker(browser) == 42)
        }
    }

    @Test("signing out everywhere from another device: the open page says so, with a sign-in link back to it")
    func signedOutEverywhere() throws {
        let (app, laptop, tally) = try Self.linsPushUps()
        let base = "http://127.0.0.1:\(app.port)"
        try Self.browse(base, "/tallies/\(tally)", as: "lin") { phone in
            #expect(try Tallies.post(laptop.session, "/signout/everywhere").status == 303)
            // Heard on the page's stream; generous, since CI machines are shared.
            try waitUntil("the page says so", timeout: 20) { try Self.banner(phone).title == "You were signed out" }
            #expect(try Self.banner(phone).placed)
            #expect(try BrowserTests.marker(phone) == 42)
            let link = try phone.execute("return document.querySelector('main > .ending a.button')?.getAttribute('href');") as? String
            #expect(link == "/signin?next=%2Ftallies%2F\(tally)")
            #expect(try Self.pressable(phone) == 0)
            #expect(try Self.shows(phone, count: "0", tally: tally))

            // The link signs in and comes back here.
            try phone.click("main > .ending a.button")
            try phone.execute(
                """
                document.querySelector('[name=username]').value = 'lin';
                document.querySelector('[name=password]').value = 'correct horse';
                document.querySelector('[name=username]').form.submit();
                """)
            // Signing in hashes the password on purpose slowly.
            try waitUntil("back on the tally", timeout: 20) {
                try phone.execute("return location.pathname;") as? String == "/tallies/\(tally)"
                    && (try? Self.banner(phone).title) == ""
            }
        }
    }

    static func shows(_ browser: WebDriverSession, count: String, tally: Int64) throws -> Bool {
        try browser.text("#tally-\(tally)-face .tally-count").contains(count)
    }

    @Test("an enhanced form sent with no signal keeps what was typed and says Not saved; back online, Retry saves it once")
    func offlineSubmit() throws {
        let app = try AppHarness(prepare: { NotePage.register(on: $0) })
        let base = "http://127.0.0.1:\(app.port)"
        let path = NotePage.show.path()
        try Self.browse(base, path) { browser in
            try browser.execute("document.querySelector('#note').value = 'Buy oat milk';")

            try browser.setOffline(true)
            defer { try? browser.setOffline(false) }
            try browser.click("#enhanced button[type=submit]")
            try waitUntil("the form says it was not saved") {
                try browser.execute("return document.querySelector('#enhanced .not-saved')?.textContent ?? '';") as? String == "Not saved — Retry"
            }
            #expect(try Self.bool(browser, "return document.querySelector('#enhanced .not-saved').getAttribute('role') === 'alert';"))
            #expect(try browser.execute("return document.querySelector('#note').value;") as? String == "Buy oat milk")
            #expect(try BrowserTests.marker(browser) == 42, "the browser showed its own error page")
            #expect(try Self.bool(browser, "return !document.querySelector('#enhanced').hasAttribute('aria-busy');"))
            #expect(try NotePage.notes(in: app.app).isEmpty)

            try browser.setOffline(false)
            try browser.click("#enhanced .not-saved button")
            try waitUntil("the note is saved and listed") { try Self.text(browser).contains("Buy oat milk") && (try NotePage.notes(in: app.app)) == ["Buy oat milk"] }
            #expect(try Self.bool(browser, "return !document.querySelector('.not-saved');"))
            // The list and the emptied form arrive in one swap, but a loaded
            // machine may show the list a moment before the input is reset.
            try waitUntil("the saved form is emptied", timeout: 5) {
                try browser.execute("return document.querySelector('#note').value;") as? String == ""
            }
            usleep(600_000)
            #expect(try NotePage.notes(in: app.app) == ["Buy oat milk"])
            #expect(try BrowserTests.marker(browser) == 42)
        }
    }

    @Test("a plain form sent with no signal stays on the page with what was typed and says Not saved; back online, Retry posts it")
    func offlinePlainSubmit() throws {
        let app = try AppHarness(prepare: { NotePage.register(on: $0) })
        let base = "http://127.0.0.1:\(app.port)"
        try Self.browse(base, NotePage.show.path()) { browser in
            try browser.execute("document.querySelector('#plain-note').value = 'Call the vet';")
            try browser.setOffline(true)
            defer { try? browser.setOffline(false) }
            try browser.click("#plain button[type=submit]")
            try waitUntil("the form says it was not saved") {
                try browser.execute("return document.querySelector('#plain .not-saved')?.textContent ?? '';") as? String
                    == "Not saved — you're offline. Retry"
            }
            #expect(try BrowserTests.marker(browser) == 42, "the browser showed its own error page")
            #expect(try browser.execute("return document.querySelector('#plain-note').value;") as? String == "Call the vet")
            #expect(try NotePage.notes(in: app.app).isEmpty)

            try browser.setOffline(false)
            try browser.click("#plain .not-saved button")
            try waitUntil("the note is saved") { try NotePage.notes(in: app.app) == ["Call the vet"] }
        }
    }

    @Test("an update that would drop a typed field waits behind \"Updated — show\", which applies it on request")
    func heldUpdate() throws {
        let app = try AppHarness(prepare: { NotePage.register(on: $0) })
        let base = "http://127.0.0.1:\(app.port)"
        let path = NotePage.show.path()
        try Self.browse(base, path) { browser in
            try browser.execute("document.querySelector('[name=draft-0]').value = 'Half a thought';")
            let other = WebSession(port: app.port)
            #expect(try other.post(NotePage.add.path(), [("note", "From elsewhere")], csrf: try other.token(from: path)).status == 303)
            try waitUntil("the update waits") {
                try browser.execute("return document.querySelector('.live-held')?.textContent ?? '';") as? String == "Updated — show"
            }
            #expect(try Self.bool(browser, "return document.querySelector('.live-held').getAttribute('role') === 'status';"))
            #expect(try browser.execute("return document.querySelector('[name=draft-0]').value;") as? String == "Half a thought")
            #expect(try !Self.text(browser).contains("From elsewhere"))

            try browser.click(".live-held button")
            try waitUntil("the update is shown") { try Self.text(browser).contains("From elsewhere") }
            #expect(try Self.bool(browser, "return !document.querySelector('.live-held') && !!document.querySelector('[name=draft-1]');"))
            #expect(try BrowserTests.marker(browser) == 42)
        }
    }

    @Test("pressing a create button twice, or Enter twice, while the first is on its way creates once, with script and without")
    func doubleSubmit() throws {
        let app = try AppHarness(prepare: { NotePage.register(on: $0) })
        let base = "http://127.0.0.1:\(app.port)"
        let path = NotePage.show.path()
        try Self.browse(base, path) { browser in
            // The enhanced form: a click, a second click, then Enter.
            try browser.execute(
                """
                const form = document.querySelector('#enhanced');
                form.querySelector('#note').value = 'Once';
                const button = form.querySelector('button');
                button.click();
                setTimeout(() => button.click(), 80);
                setTimeout(() => form.requestSubmit(), 160);
                """)
            #expect(try Self.bool(browser, "return document.querySelector('#enhanced').getAttribute('aria-busy') === 'true';"))
            #expect(try Self.bool(browser, "return document.querySelector('#enhanced button').classList.contains('is-busy');"))
            try waitUntil("the note is listed") { try Self.text(browser).contains("Once") }
            usleep(1_000_000)
            #expect(try NotePage.notes(in: app.app) == ["Once"])
            #expect(try Self.bool(browser, "return !document.querySelector('#enhanced').hasAttribute('aria-busy');"))
            #expect(try BrowserTests.marker(browser) == 42)

            // The plain form: the browser posts and leaves; a second click meanwhile is ignored.
            try browser.execute(
                """
                const form = document.querySelector('#plain');
                form.querySelector('#plain-note').value = 'Twice?';
                const button = form.querySelector('button');
                button.click();
                setTimeout(() => button.click(), 100);
                """)
            try waitUntil("the page came back with the note") {
                (try? BrowserTests.marker(browser)) == nil && (try? Self.text(browser).contains("Twice?")) == true
            }
            usleep(1_000_000)
            #expect(try NotePage.notes(in: app.app) == ["Once", "Twice?"])
        }
    }
}
