import Foundation
@testable import KithApp
import KithTemplates
import KithTestSupport
import Testing

/// Tallies on a phone: the full-screen count owns the screen, every number
/// fits its box in every style, the sharing table keeps its words, and a
/// count never steps back.
@Suite("Tally layout in a real browser", .serialized)
struct TallyLayoutBrowserTests {
    static let enabled = Tools.browser

    static func capabilities(width: Int, height: Int) -> [String: Any] { BrowserTests.emulating(width: width, height: height) }

    /// Opens `path` for `session`'s person in a browser of the given size.
    static func browse(
        _ app: AppHarness, _ session: WebSession, _ path: String, width: Int = 375, height: Int = 800,
        _ body: (WebDriver, WebDriverSession) throws -> Void
    ) throws {
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: Self.capabilities(width: width, height: height))
        defer { browser.delete() }
        let base = "http://127.0.0.1:\(app.port)"
        try browser.navigate(to: base + "/healthz")
        _ = try driver.command("POST", "/session/\(browser.id)/cookie", ["cookie": ["name": "kith_session", "value": session.sessionCookie ?? "", "path": "/"]])
        try browser.navigate(to: base + path)
        try waitUntil("the page script has run") {
            (try browser.execute("return document.documentElement.classList.contains('js') && document.readyState === 'complete';") as? Bool) == true
        }
        try body(driver, browser)
    }

    /// Ada and her friend Bob, on a Kith whose clock is the real one.
    static func friends() throws -> (AppHarness, (session: WebSession, id: Int64), (session: WebSession, id: Int64)) {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        try Tallies.befriend(ada.session, "bob")
        return (app, ada, bob)
    }

    static func setStyle(_ app: AppHarness, _ userID: Int64, _ style: String) throws {
        try app.app.database.write { try $0.execute("UPDATE users SET number_style = \(style) WHERE id = \(userID)") }
    }

    /// Nothing on the page is wider than the viewport.
    static func noSidewaysScroll(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute("return document.documentElement.scrollWidth <= document.documentElement.clientWidth;") as? Bool) == true
    }

    static func spoken(_ browser: WebDriverSession, _ id: Int64) throws -> String? {
        try browser.execute("const b = document.querySelector('#tally-\(id) .tally-count'); return b ? b.getAttribute('aria-label') : null;")
            as? String
    }

    @Test("on a 375×800 phone the full-screen count is at least 40% of the screen tall, and the settings are below the fold, grouped and closed",
          .enabled(if: enabled, "needs chromium and chromedriver; `make test` installs them"))
    func bigCountOnAPhone() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let id = try Tallies.create(ada.session, name: "Glasses of water", count: 7)
        for style in ["arabic", "roman", "stick"] {
            try Self.setStyle(app, ada.id, style)
            try Self.browse(app, ada.session, "/tallies/\(id)") { _, browser in
                let measured = try #require(try browser.execute("""
                    const count = document.querySelector('.tally-face__count').getBoundingClientRect();
                    const groups = [...document.querySelectorAll('.tally-settings > details')];
                    const marks = document.querySelector('.tally-face__count .sticks__group');
                    return {
                      ratio: count.height / window.innerHeight,
                      settingsTop: groups.length ? groups[0].getBoundingClientRect().top : 0,
                      height: window.innerHeight,
                      groups: groups.map(g => g.querySelector('summary').textContent.trim()),
                      open: groups.filter(g => g.open).length,
                      marks: marks ? marks.getBoundingClientRect().height : null,
                    };
                    """) as? [String: Any])
                let ratio = try #require(measured["ratio"] as? Double)
                #expect(ratio >= 0.4, "\(style): the count is \(Int(ratio * 100))% of the screen")
                #expect(try #require(measured["settingsTop"] as? Double) >= Double(try #require(measured["height"] as? Int)), "\(style): the settings start below the fold")
                #expect(measured["groups"] as? [String] == ["Count", "Goal", "Sharing", "Name & schedule", "Home screen", "Notifications", "Delete"])
                #expect(measured["open"] as? Int == 0, "every group starts closed")
                if style == "stick" { #expect(try #require(measured["marks"] as? Double) >= 32, "stick marks are drawn big") }
                #expect(try Self.noSidewaysScroll(browser))
                // Every form is still there, one tap away.
                for action in ["/count", "/reset", "/rename", "/schedule", "/fireworks", "/mute", "/delete"] {
                    #expect((try browser.execute("return !!document.querySelector(\"details form[action$='\(action)']\");") as? Bool) == true, "\(action)")
                }
            }
        }
    }

    @Test("3,999 and 999,999,999 fit a 375 px phone and a 1280 px laptop in every style, on the list and full screen, without squeezing the owner's face or breaking the name mid-word",
          .enabled(if: enabled, "needs chromium and chromedriver; `make test` installs them"))
    func longNumbersFit() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let big = try Tallies.create(ada.session, name: "Steps walked around the neighbourhood", count: 999_999_999)
        let mid = try Tallies.create(ada.session, name: "Pages read this year", count: 3_999)
        let check = """
            const out = [];
            const root = document.documentElement;
            if (root.scrollWidth > root.clientWidth) out.push('page is ' + root.scrollWidth + ' px wide');
            for (const count of document.querySelectorAll('.tally-count')) {
              const box = count.getBoundingClientRect();
              if (box.left < 0 || box.right > window.innerWidth + 0.5) out.push('count box leaves the screen');
              const numeral = count.querySelector('.numeral').getBoundingClientRect();
              if (numeral.left < box.left - 0.5 || numeral.right > box.right + 0.5) out.push('numeral ' + numeral.width + ' px wider than its box ' + box.width);
              if (count.scrollWidth > count.clientWidth + 1) out.push('count overflows its box');
            }
            for (const face of document.querySelectorAll('.tally-row > .tally-avatar')) {
              if (face.getBoundingClientRect().width < 35.5) out.push('avatar squeezed to ' + face.getBoundingClientRect().width);
            }
            for (const name of document.querySelectorAll('.tally-row__name, .tally-face__name')) {
              const walker = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                let start = 0;
                for (const word of node.textContent.split(' ')) {
                  const range = document.createRange();
                  range.setStart(node, start); range.setEnd(node, start + word.length);
                  const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                  if (lines.size > 1) out.push('"' + word + '" broken across lines in a ' + name.getBoundingClientRect().width + ' px name');
                  start += word.length + 1;
                }
              }
            }
            return out;
            """
        let base = "http://127.0.0.1:\(app.port)"
        for (width, height) in [(375, 800), (1280, 800)] {
            try Self.browse(app, ada.session, "/", width: width, height: height) { _, browser in
                for style in ["arabic", "roman", "stick"] {
                    try Self.setStyle(app, ada.id, style)
                    for path in ["/", "/tallies/\(big)", "/tallies/\(mid)"] {
                        try browser.navigate(to: base + path)
                        try waitUntil("the page is drawn") { (try browser.execute("return document.readyState === 'complete';") as? Bool) == true }
                        let problems = try #require(try browser.execute(check) as? [String])
                        #expect(problems.isEmpty, "\(style) at \(width) px on \(path): \(problems)")
                    }
                }
            }
        }
    }

    @Test("the sharing table at 375 px shows each choice whole and each friend's @username, so two friends called Sam can be told apart",
          .enabled(if: enabled, "needs chromium and chromedriver; `make test` installs them"))
    func sharingTableFits() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let first = try Tallies.person(app, "samwise", name: "Sam Gardener-Hobbiton")
        let second = try Tallies.person(app, "samantha", name: "Sam Gardener-Hobbiton")
        try Tallies.befriend(ada.session, "samwise")
        try Tallies.befriend(ada.session, "samantha")
        let id = try Tallies.create(ada.session, name: "Coffee", shares: [(first.id, "view")])
        let check = """
            const out = [];
            for (const select of document.querySelectorAll('.tally-people select')) {
              const box = select.getBoundingClientRect();
              if (box.left < 0 || box.right > window.innerWidth + 0.5) out.push(select.name + ' leaves the screen');
              const style = getComputedStyle(select);
              const probe = document.createElement('span');
              probe.style.font = style.font;
              probe.style.position = 'absolute';
              probe.style.whiteSpace = 'nowrap';
              document.body.append(probe);
              for (const option of select.options) {
                probe.textContent = option.textContent;
                const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
                if (probe.getBoundingClientRect().width > room + 0.5) out.push(select.name + ' cuts "' + option.textContent + '"');
              }
              probe.remove();
            }
            const handles = [...document.querySelectorAll('.tally-people .tally-person__handle')]
              .filter(h => h.getBoundingClientRect().width > 0).map(h => h.textContent);
            if (document.documentElement.scrollWidth > document.documentElement.clientWidth) out.push('page too wide');
            return { out, handles };
            """
        for path in ["/tallies/\(id)", "/tallies/new"] {
            try Self.browse(app, ada.session, path) { _, browser in
                // The sharing group opens as a person would, with its heading.
                if path != "/tallies/new" {
                    try browser.click(".tally-group:nth-child(2) > summary")
                    try waitUntil("the sharing group opens") {
                        (try browser.execute("return document.querySelector('.tally-people select')?.getBoundingClientRect().width > 0;") as? Bool) == true
                    }
                }
                let result = try #require(try browser.execute(check) as? [String: Any])
                #expect(result["out"] as? [String] == [], "\(path): \(result["out"] ?? "")")
                #expect(Set(result["handles"] as? [String] ?? []) == ["@samwise", "@samantha"], "\(path)")
            }
        }
    }

    @Test("a tap at 999,999,999 says the maximum beside the count and leaves the count as it was",
          .enabled(if: enabled, "needs chromium and chromedriver; `make test` installs them"))
    func maximumSaidWithScript() throws {
        let app = try Tallies.harness(clock: Locked(Int64(time(nil))))
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let id = try Tallies.create(ada.session, name: "Stars", count: 999_999_999)
        try Self.browse(app, ada.session, "/") { _, browser in
            try browser.click("#tally-\(id) .tally-count")
            try waitUntil("the row says the maximum") {
                (try browser.execute("return document.querySelector('#tally-\(id) .tally-note')?.textContent || '';") as? String)?
                    .contains("maximum, 999,999,999") == true
            }
            #expect(try Self.spoken(browser, id) == "Stars, 999,999,999, increment")
            #expect(try Self.noSidewaysScroll(browser))
        }
        #expect(try Tallies.count(app, id) == 999_999_999)
    }

    @Test("a live refresh that brings an older version of a row than the one shown never steps the count back",
          .enabled(if: enabled, "needs chromium and chromedriver; `make test` installs them"))
    func neverBackwards() throws {
        let (app, ada, bob) = try Self.friends()
        let id = try Tallies.create(ada.session, name: "Pancakes", count: 52, shares: [(bob.id, "edit")])
        try Self.browse(app, ada.session, "/") { _, browser in
            try waitUntil("the row shows 52") { try Self.spoken(browser, id) == "Pancakes, 52, increment" }
            // The row as the server draws it now, at 52: an answer that
            // could still be on its way when a newer one has landed.
            try browser.execute("""
                const row = document.getElementById('tally-\(id)');
                window.__stale = null;
                fetch(row.dataset.fragment, { headers: { 'X-Kith-Enhanced': 'fragment' } }).then(r => r.text()).then(t => { window.__stale = t; });
                """)
            try waitUntil("the old row is kept") { (try browser.execute("return window.__stale !== null;") as? Bool) == true }
            try browser.click("#tally-\(id) .tally-count")
            try waitUntil("the tap lands: 53") { try Tallies.count(app, id) == 53 }
            try waitUntil("Ada sees the server's 53") {
                (try browser.execute("return document.querySelector('#tally-\(id)').dataset.version;") as? String)
                    == (try app.app.database.read { try $0.queryValue("SELECT version FROM tallies WHERE id = \(id)", as: Int64.self) }).map(String.init)
            }
            #expect(try Self.spoken(browser, id) == "Pancakes, 53, increment")
            // From now on the row's live refresh is answered with the old row.
            try browser.execute("""
                const real = window.fetch;
                const row = document.getElementById('tally-\(id)');
                const url = row.dataset.fragment;
                window.__served = 0;
                window.fetch = (input, init) => {
                  if (String(input) === url) { window.__served++; return Promise.resolve(new Response(window.__stale, { headers: { 'Content-Type': 'text/html' } })); }
                  return real(input, init);
                };
                """)
            // Bob's tap tells Ada's page to refresh the row.
            #expect(try Tallies.post(bob.session, "/tallies/\(id)/increment").status == 303)
            try waitUntil("the old row was served") { (try browser.execute("return window.__served;") as? Int ?? 0) > 0 }
            usleep(300_000)
            #expect(try Self.spoken(browser, id) == "Pancakes, 53, increment", "never back to 52")
        }
    }

    @Test("landing on the list, a changed row far down is scrolled into view before it celebrates",
          .enabled(if: enabled, "needs chromium and chromedriver; `make test` installs them"))
    func scrollsBeforeCelebrating() throws {
        let (app, ada, bob) = try Self.friends()
        let shared = try Tallies.create(ada.session, name: "Shared laps", shares: [(bob.id, "edit")])
        for index in 1...9 { _ = try Tallies.create(ada.session, name: "Tally \(index)") }
        // Newest first: the shared tally is the last row.
        #expect(try Tallies.post(ada.session, "/tallies/sort", [("sort", "created")]).status == 303)
        #expect(try Tallies.post(bob.session, "/tallies/\(shared)/increment").status == 303)
        try Self.browse(app, ada.session, "/") { _, browser in
            try waitUntil("the changed row celebrates") {
                (try browser.execute("return document.querySelector('#tally-\(shared)').dataset.celebrated || null;") as? String) != nil
            }
            #expect(try browser.execute("return document.querySelector('#tally-\(shared)').dataset.celebrated;") as? String == "in-view")
            #expect((try browser.execute("return window.scrollY;") as? Int ?? 0) > 0, "the page scrolled to the row")
        }
    }
}

/// The same defects as the server answers them, without the page script.
@Suite("Tally layout without script")
struct TallyLayoutTests {
    @Test("a plain tap and a sort come back to the row and the list, not the top of the page")
    func anchors() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let id = try Tallies.create(ada.session, name: "Coffee")
        let tap = try Tallies.post(ada.session, "/tallies/\(id)/increment", [("return", "/")])
        #expect(tap.status == 303)
        #expect(tap.header("Location") == "/#tally-\(id)")
        let sort = try Tallies.post(ada.session, "/tallies/sort", [("sort", "created")])
        #expect(sort.status == 303)
        #expect(sort.header("Location") == "/#tally-list")
        let page = try ada.session.get("/")
        #expect(page.text.contains("id=\"tally-\(id)\""), "the anchor names the row")
        #expect(page.text.contains("id=\"tally-list\""), "the anchor names the list")
    }

    @Test("a tap at 999,999,999 says the maximum: a message on the page without script, a 422 with it from the script")
    func maximum() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let id = try Tallies.create(ada.session, name: "Stars", count: 999_999_999)
        let plain = try Tallies.post(ada.session, "/tallies/\(id)/increment", [("return", "/")])
        #expect(plain.status == 303)
        let landed = try ada.session.get(try #require(plain.header("Location")).replacingOccurrences(of: "#tally-\(id)", with: ""))
        #expect(landed.text.contains("This tally is at its maximum, 999,999,999, and can&#39;t count any higher.")
            || landed.text.contains("This tally is at its maximum, 999,999,999, and can't count any higher."))
        #expect(landed.text.contains("role=\"alert\""))
        let enhanced = try Tallies.post(ada.session, "/tallies/\(id)/increment", [("fragment", "row"), ("return", "/")], headers: ["X-Kith-Enhanced": "1"])
        #expect(enhanced.status == 422)
        #expect(enhanced.text.contains("maximum, 999,999,999"))
        #expect(try Tallies.count(app, id) == 999_999_999)
    }

    @Test("the count's size class follows how wide it is drawn")
    func fitClasses() {
        #expect(Numerals.fit(7, style: .arabic) == 3)
        #expect(Numerals.fit(999_999_999, style: .arabic) == 11)
        #expect(Numerals.fit(3_999, style: .roman) == 9)
        #expect(Numerals.fit(999_999_999, style: .roman) == 18)
        #expect(Numerals.fit(888_888_888, style: .roman) == 40)
        #expect(Numerals.fit(999_999_999, style: .stick) == 14)
        #expect(Numerals.render(999_999_999, style: .arabic).string.contains("numeral--fit-11"))
    }
}
