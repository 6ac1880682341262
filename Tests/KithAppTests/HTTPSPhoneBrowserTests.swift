import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// Kith as a phone user meets it over HTTPS: HTTP/2 for every page, a secure
/// context (and with it the service worker, the install manifest, push and
/// the microphone), Secure cookies and HSTS, the live stream surviving a
/// tunnel, and a double tap that changes things once.
@Suite("A phone over HTTPS and HTTP/2", .serialized)
struct HTTPSPhoneBrowserTests {
    static let enabled = Tools.browser && Tools.openssl

    /// A touch phone 375 px wide at pixel ratio 2 (emulated: headless windows
    /// have a minimum width), or a 1280 px laptop; both trust the test
    /// certificate and have a fake microphone that needs no prompt.
    static func capabilities(phone: Bool, waitsForPages: Bool = true) -> [String: Any] {
        let args = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(phone ? 375 : 1280),800",
            "--ignore-certificate-errors", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        ]
        var options: [String: Any] = ["binary": BrowserTests.chromium, "args": args]
        if phone { options["mobileEmulation"] = ["deviceMetrics": ["width": 375, "height": 800, "pixelRatio": 2, "touch": true]] }
        return [
            "alwaysMatch": [
                "browserName": "chrome", "acceptInsecureCerts": true, "goog:chromeOptions": options,
                "pageLoadStrategy": waitsForPages ? "normal" : "none",
            ]
        ]
    }

    /// A browser and the chromedriver behind it, closed in that order.
    final class Phone {
        let driver: WebDriver
        let browser: WebDriverSession
        let width: Int
        let theme: String

        init(phone: Bool, theme: String, waitsForPages: Bool = true) throws {
            width = phone ? 375 : 1280
            self.theme = theme
            driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
            do {
                browser = try driver.newSession(capabilities: HTTPSPhoneBrowserTests.capabilities(phone: phone, waitsForPages: waitsForPages))
                // The person's system theme: Kith follows it until they choose one in settings.
                try browser.devTools("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": theme]]])
            } catch {
                driver.stop()
                throw error
            }
        }

        func close() {
            browser.delete()
            driver.stop()
        }
    }

    /// The occasion form's fields, filled in.
    static let occasion = [("name", "Alex turns 30"), ("kind", "birthday"), ("celebrant_name", "Alex"), ("date", "2026-12-12"), ("host_name", "Ada")]

    static func base(_ app: AppHarness) -> String { "https://localhost:\(app.httpsPort)" }

    /// Screenshots go where `KITH_SCREENSHOTS` says, to be looked at.
    static func screenshot(_ browser: WebDriverSession, _ name: String) throws {
        guard let folder = ProcessInfo.processInfo.environment["KITH_SCREENSHOTS"] else { return }
        try browser.screenshot().write(to: URL(fileURLWithPath: "\(folder)/\(name).png"))
    }

    /// Visible controls smaller than 24x24 CSS px, as "tag.class text WxH".
    /// Exempt as WCAG 2.5.8 has it: a link inside a sentence; a checkbox or
    /// radio counts with its label, which is what a finger taps.
    static func smallTargets(_ browser: WebDriverSession) throws -> [String] {
        try browser.execute(
            """
            const small = [];
            const controls = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex="-1"])';
            for (const e of document.querySelectorAll(controls)) {
              const style = getComputedStyle(e);
              if (style.visibility === 'hidden') continue;
              let r = e.getBoundingClientRect();
              if (r.width <= 1 || r.height <= 1 || r.bottom < 0) continue; // not drawn, or the skip link until focused
              if (e.tagName === 'A' && style.display === 'inline' && e.parentElement.textContent.trim() !== e.textContent.trim()) continue;
              const label = e.closest('label') || (e.id && document.querySelector(`label[for="${e.id}"]`));
              if ((e.type === 'checkbox' || e.type === 'radio') && label) r = label.getBoundingClientRect();
              if (r.width < 24 || r.height < 24) {
                small.push(`${e.tagName.toLowerCase()}.${e.className} "${(e.textContent || e.name || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
              }
            }
            return small;
            """) as? [String] ?? ["(no answer)"]
    }

    /// What every page must be over HTTPS on this device: arrived over h2 in
    /// a secure context, drawn in the system theme, no sideways scroll, tap
    /// targets of 24 px or more and nothing for axe. Saves a screenshot.
    static func expectGoodPage(_ phone: Phone, _ name: String) throws {
        let browser = phone.browser
        try waitUntil("\(name) loads") { try browser.execute("return document.readyState;") as? String == "complete" }
        let facts = try browser.execute(
            """
            const page = performance.getEntries()[0];
            return [page.nextHopProtocol || (page.workerStart > 0 ? 'the worker' : ''), window.isSecureContext,
                    matchMedia('(prefers-color-scheme: dark)').matches, window.innerWidth,
                    document.documentElement.scrollWidth <= window.innerWidth];
            """) as? [Any] ?? []
        #expect(facts.count == 5, "\(name): \(facts)")
        guard facts.count == 5 else { return }
        // A page the service worker fetched for the tab reports no protocol of its own; the worker shares the tab's connections.
        #expect(facts[0] as? String == "h2" || facts[0] as? String == "the worker", "\(name) arrived over \(facts[0])")
        let direct = try fetchedAgain(browser)
        #expect(direct.protocol == "h2", "\(name) fetched again arrived over \(direct.protocol)")
        #expect(direct.hsts == "max-age=63072000", "\(name) carries HSTS: \(direct.hsts)")
        #expect(facts[1] as? Bool == true, "\(name) is a secure context")
        #expect(facts[2] as? Bool == (phone.theme == "dark"), "\(name) sees the \(phone.theme) system theme")
        #expect(facts[3] as? Int == phone.width, "\(name) is \(facts[3]) px wide")
        #expect(facts[4] as? Bool == true, "\(name) scrolls sideways at \(phone.width) px")
        let small = try smallTargets(browser)
        #expect(small.isEmpty, "\(name) at \(phone.width) px has tap targets under 24 px: \(small)")
        let violations = try Axe.violations(browser)
        #expect(violations.isEmpty, "axe on \(name), \(phone.theme), \(phone.width) px: \(violations)")
        try screenshot(browser, "\(name)-\(phone.width)-\(phone.theme)")
    }

    /// The page's own address fetched from the page, past the service worker
    /// (which answers only navigations and assets): the protocol the network
    /// spoke and the HSTS header it sent.
    static func fetchedAgain(_ browser: WebDriverSession) throws -> (protocol: String, hsts: String) {
        let answer = try browser.execute(
            """
            return (async () => {
              const response = await fetch(location.href, { cache: 'no-store' });
              await response.text();
              const hsts = response.headers.get('strict-transport-security') || 'none';
              for (let i = 0; i < 100; i++) {
                const entry = performance.getEntriesByName(location.href, 'resource').pop();
                if (entry) return [entry.nextHopProtocol, hsts];
                await new Promise((ok) => setTimeout(ok, 20));
              }
              return ['no timing entry', hsts];
            })();
            """) as? [String] ?? []
        return (answer.first ?? "no answer", answer.last ?? "no answer")
    }

    /// Fills a form's fields by name, as typing would (input events), and
    /// taps its submit button.
    static func submit(_ browser: WebDriverSession, _ fields: [(String, String)], double: Bool = false) throws {
        try browser.execute(
            """
            let form = null;
            for (const [name, value] of arguments[0]) {
              const field = document.querySelector(`[name="${name}"]`);
              field.value = value;
              field.dispatchEvent(new Event('input', { bubbles: true }));
              field.dispatchEvent(new Event('change', { bubbles: true }));
              form = field.form;
            }
            document.querySelectorAll('[data-test-submit]').forEach((b) => b.removeAttribute('data-test-submit'));
            form.querySelector('button[type=submit], button:not([type])').setAttribute('data-test-submit', '');
            form.querySelector('[data-test-submit]').scrollIntoView({ block: 'center' });
            """, [fields.map { [$0.0, $0.1] }])
        guard double else { return try browser.click("[data-test-submit]") }
        // Counted where the next page can read it, to prove the button got both taps.
        try browser.execute(
            """
            sessionStorage.setItem('taps', '0');
            document.querySelector('[data-test-submit]').addEventListener('click', () => {
              sessionStorage.setItem('taps', String(Number(sessionStorage.getItem('taps')) + 1));
            });
            """)
        try browser.doubleTap("[data-test-submit]")
    }

    static func waitForPath(_ browser: WebDriverSession, _ pattern: String, _ what: String) throws {
        try waitUntil(what, timeout: 15) {
            (try browser.execute("return new RegExp(arguments[0]).test(location.pathname) && document.readyState === 'complete';", [pattern])
                as? Bool) == true
        }
    }

    static func rows(_ app: AppHarness, _ table: String) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT count(*) FROM \(identifier: table)", as: Int64.self) } ?? -1
    }

    /// Signs up over HTTPS through the form, outside the browser.
    static func person(_ app: AppHarness, _ username: String, name: String) throws -> WebSession {
        let session = app.secureSession()
        let response = try session.post(
            "/signup", [("display_name", name), ("username", username), ("password", "correct horse"), ("time_zone", "UTC")],
            csrf: try session.token(from: "/signup"))
        guard response.status == 200, session.sessionCookie != nil else { throw TestError("sign-up failed: \(response.status)") }
        return session
    }

    /// Sign up, then a tally and an occasion, each page checked as it comes.
    static func tour(phone: Bool, theme: String) throws {
        let app = try httpsHarness()
        let base = base(app)
        let device = try Phone(phone: phone, theme: theme)
        defer { device.close() }
        let browser = device.browser

        try browser.navigate(to: base + "/signup")
        try expectGoodPage(device, "signup")
        try submit(browser, [("display_name", "Ada Lovelace"), ("username", "ada"), ("password", "correct horse"), ("time_zone", "UTC")])
        try waitUntil("Ada is signed up", timeout: 15) {
            (try browser.execute("return document.querySelector('.user-menu') !== null && document.readyState === 'complete';") as? Bool) == true
        }
        try expectGoodPage(device, "welcome")

        // The cookie the browser keeps is Secure, and out of reach of scripts.
        let cookies = try browser.devTools("Network.getCookies", ["urls": [base + "/"]])?["cookies"] as? [[String: Any]] ?? []
        let session = try #require(cookies.first { $0["name"] as? String == "kith_session" }, "cookies: \(cookies)")
        #expect(session["secure"] as? Bool == true)
        #expect(session["httpOnly"] as? Bool == true)

        try browser.navigate(to: base + "/")
        try expectGoodPage(device, "home")
        // Nothing started yet: each section's title sits on its own line on a
        // phone, all three alike, and beside its invitation on a laptop.
        let stacked = try browser.execute("""
            return [...document.querySelectorAll('.dashboard-start')].map((section) => {
              const title = section.querySelector('.dashboard-start__title').getBoundingClientRect();
              const text = section.querySelector('.dashboard-start__text').getBoundingClientRect();
              return title.bottom <= text.top + 1;
            });
            """) as? [Bool]
        #expect(stacked == Array(repeating: phone, count: 3), "titles stacked above their text: \(stacked ?? [])")
        try browser.navigate(to: base + "/tallies/new")
        try expectGoodPage(device, "tally-new")
        try submit(browser, [("name", "Glasses of water")])
        try waitForPath(browser, "^/tallies/[0-9]+$", "the tally is shown")
        try expectGoodPage(device, "tally")
        #expect(try rows(app, "tallies") == 1)

        try browser.navigate(to: base + "/occasions/new")
        try expectGoodPage(device, "occasion-new")
        try submit(
            browser,
            Self.occasion)
        try waitForPath(browser, "^/occasions/[0-9]+", "the occasion is shown")
        try expectGoodPage(device, "occasion")
        #expect(try rows(app, "occasions") == 1)

        try browser.navigate(to: base + "/settings")
        try expectGoodPage(device, "settings")
        let errors = try BrowserTests.consoleErrors(browser) ?? []
        #expect(errors.isEmpty, "console errors: \(errors)")
    }

    @Test(
        "HTTPS answers carry HSTS over HTTP/2 as over HTTP/1.1: a page, an asset and a refusal",
        .enabled(if: Tools.openssl && Tools.path("curl") != nil, "needs openssl and curl"))
    func strictTransportOverHTTP2() throws {
        let app = try httpsHarness()
        let stylesheet = try #require(app.secureSession().get("/signin").text.firstMatch(of: /href="([^"]*app\.[0-9a-f]+\.css)"/)?.1)
        for path in ["/signin", String(stylesheet), "/no-such-page"] {
            for version in ["--http1.1", "--http2"] {
                let result = try runProgram(
                    Tools.path("curl")!, ["-sk", version, "-o", "/dev/null", "-D", "-", "https://localhost:\(app.httpsPort)\(path)"])
                let head = result.output.lowercased()
                #expect(head.hasPrefix(version == "--http2" ? "http/2 " : "http/1.1 "), "\(path) \(version): \(head.prefix(40))")
                #expect(head.contains("strict-transport-security: max-age=63072000"), "\(path) \(version) has no HSTS:\n\(head)")
            }
        }
    }

    @Test(
        "at 375 px with touch in the dark theme: sign-up, a tally and an occasion arrive over h2 in a secure context with a Secure cookie and HSTS, fit, have 24 px targets and pass axe",
        .enabled(if: enabled && Axe.isAvailable, "needs chromium, chromedriver, openssl and axe-core; `make test-deps` installs them"))
    func phoneDark() throws {
        try Self.tour(phone: true, theme: "dark")
    }

    @Test(
        "at 1280 px in the light theme the same pages arrive over h2, fit and pass axe",
        .enabled(if: enabled && Axe.isAvailable, "needs chromium, chromedriver, openssl and axe-core; `make test-deps` installs them"))
    func laptopLight() throws {
        try Self.tour(phone: false, theme: "light")
    }

    @Test(
        "over HTTPS the service worker registers and controls the page, the manifest and its icons load, and settings offer notifications",
        .enabled(if: enabled, "needs chromium, chromedriver and openssl; `make test` installs them"))
    func installable() throws {
        let app = try httpsHarness()
        // The worker is registered by pages with something to keep offline, as a tally is.
        _ = try Tallies.create(try Self.person(app, "ada", name: "Ada"), name: "Laps")
        let device = try Phone(phone: true, theme: "light")
        defer { device.close() }
        let browser = device.browser
        try BrowserTests.signIn(browser, base: Self.base(app), username: "ada")

        let worker = try browser.execute(
            """
            return Promise.race([
              navigator.serviceWorker.ready.then((r) => [r.scope, r.active ? r.active.scriptURL : '']),
              new Promise((resolve) => setTimeout(() => resolve(['not ready', '']), 15000)),
            ]);
            """) as? [String] ?? []
        #expect(worker.first == Self.base(app) + "/", "the worker's scope: \(worker)")
        #expect(worker.last?.hasPrefix(Self.base(app) + "/") == true)
        try OfflineBrowserTests.waitUntilKept(browser)

        let manifest = try browser.execute(
            """
            const link = document.querySelector('link[rel=manifest]');
            if (!link) return 'no manifest link';
            return fetch(link.href, { credentials: 'include' }).then(async (r) => {
              if (!r.ok) return 'manifest ' + r.status;
              const m = await r.json();
              const icons = await Promise.all((m.icons || []).map((i) => fetch(new URL(i.src, link.href)).then((a) => a.ok ? i.sizes : 'missing ' + i.src)));
              return [m.name || '', m.start_url || '', m.display || '', new URL(m.start_url, link.href).origin === location.origin, icons];
            });
            """)
        let facts = try #require(manifest as? [Any], "\(String(describing: manifest))")
        #expect((facts[0] as? String)?.isEmpty == false, "the manifest names the app")
        #expect(facts[2] as? String == "standalone" || facts[2] as? String == "minimal-ui", "display: \(facts[2])")
        #expect(facts[3] as? Bool == true, "it starts in this origin")
        let icons = facts[4] as? [String] ?? []
        #expect(icons.contains { $0.contains("192x192") } && icons.contains { $0.contains("512x512") }, "icons: \(icons)")
        #expect(!icons.contains { $0.hasPrefix("missing") }, "icons: \(icons)")

        // Push itself needs a push service; what HTTPS changes is that the switch is offered at all.
        try browser.navigate(to: Self.base(app) + "/settings")
        try waitUntil("the notifications switch is ready") {
            (try browser.execute("return document.querySelector('[data-push-status]').textContent !== '';") as? Bool) == true
        }
        let control = try browser.execute(
            """
            const b = document.querySelector('[data-push-subscribe]');
            return [b.disabled, b.textContent.trim(), document.querySelector('[data-push-status]').textContent];
            """) as? [Any] ?? []
        #expect(control.first as? Bool == false, "the switch works over HTTPS: \(control)")
        #expect(control.dropFirst().first as? String == "Turn on notifications on this device")
        #expect((control.last as? String)?.contains("HTTPS") == false, "\(control)")
    }

    @Test(
        "over HTTPS a contributor on a phone records a voice note with the microphone, uploads it over h2, and the gift page shows it",
        .enabled(if: enabled, "needs chromium, chromedriver and openssl; `make test` installs them"))
    func voiceNote() throws {
        let app = try httpsHarness()
        let host = try Self.person(app, "hana_host", name: "Hana Host")
        let made = try host.post(
            "/occasions", Self.occasion,
            csrf: try host.token(from: "/occasions/new"))
        let occasion = try #require(made.header("Location")?.split(separator: "/").compactMap { Int64($0) }.first)
        let friend = try Self.person(app, "friend_1", name: "Friend 1")
        #expect(try OccasionParty.join(friend, code: try OccasionParty.codes(app, occasion).contributor).status == 303)

        let device = try Phone(phone: true, theme: "dark")
        defer { device.close() }
        let phone = device.browser
        try BrowserTests.signIn(phone, base: Self.base(app), username: "friend_1")
        try phone.navigate(to: "\(Self.base(app))/occasions/\(occasion)/gift")
        try waitUntil("the recorder is offered") {
            (try phone.execute("return !document.querySelector('[data-recorder]').hidden;") as? Bool) == true
        }
        // The upload ends in a navigation, so its protocol is kept where the next page can read it.
        try phone.execute(
            """
            sessionStorage.removeItem('upload-protocol');
            new PerformanceObserver((list) => {
              for (const e of list.getEntries()) if (e.initiatorType === 'xmlhttprequest') sessionStorage.setItem('upload-protocol', e.nextHopProtocol);
            }).observe({ type: 'resource' });
            """)
        try phone.click("[data-recorder-start]")
        try waitUntil("it records", timeout: 10) { try OccasionMediaBrowserTests.text(phone).contains("Recording…") }
        try waitUntil("a second is recorded", timeout: 10) { try phone.text("[data-recorder-timer]") == "0:01" }
        try phone.click("[data-recorder-stop]")
        try waitUntil("the recording can be heard", timeout: 10) {
            (try phone.execute("return !document.querySelector('[data-recorder-preview]').hidden;") as? Bool) == true
        }
        try phone.execute("document.querySelector('[data-recorder]').scrollIntoView({ block: 'center' });")
        try Self.screenshot(phone, "voice-recorded-375-dark")
        try phone.click("[data-recorder-save]")
        try waitUntil("the voice note is part of the draft", timeout: 20) { try OccasionMediaBrowserTests.text(phone).contains("Voice note from you") }
        #expect(try phone.execute("return sessionStorage.getItem('upload-protocol');") as? String == "h2")
        #expect(try phone.execute("return performance.getEntries()[0].nextHopProtocol;") as? String == "h2")
        #expect((try phone.execute("return document.querySelectorAll('audio.media-item__player').length;") as? Int ?? 0) >= 1)
        try phone.execute("document.querySelector('audio.media-item__player').scrollIntoView({ block: 'center' });")
        try Self.screenshot(phone, "voice-saved-375-dark")
        let stored = try app.app.database.read { db in
            try db.queryOne("SELECT f.mime_type, m.duration_ms FROM occasion_media m JOIN media_files f USING (sha256)")
                .map { (try $0.get("mime_type") as String, try $0.get("duration_ms") as Int?) }
        }
        #expect(stored?.0.hasPrefix("audio/") == true, "stored: \(String(describing: stored))")
        #expect((stored?.1 ?? 0) >= 1000, "the browser's measured duration is kept")
    }

    @Test(
        "cut off while a second phone changes the tally, the first catches up through its h2 live stream without a reload, and its offline taps arrive once",
        .enabled(if: enabled, "needs chromium, chromedriver and openssl; `make test` installs them"))
    func networkCut() throws {
        let app = try httpsHarness()
        let ada = try Self.person(app, "ada", name: "Ada")
        let tally = try Tallies.create(ada, name: "Laps", count: 10)
        let first = try Phone(phone: true, theme: "dark")
        defer { first.close() }
        let second = try Phone(phone: true, theme: "light")
        defer { second.close() }
        for device in [first, second] {
            try BrowserTests.signIn(device.browser, base: Self.base(app), username: "ada")
            try waitUntil("the tally shows 10") { try TallyBrowserTests.spoken(device.browser, tally) == "Laps, 10, increment" }
        }
        try waitUntil("both live streams are open", timeout: 15) { app.app.live.openStreams == 2 }
        let a = first.browser, b = second.browser
        try BrowserTests.setMarker(a)
        #expect(try a.execute("return performance.getEntries()[0].nextHopProtocol;") as? String == "h2")

        // Only the stream can tell the first phone: it sends nothing of its own.
        try OfflineBrowserTests.goOffline(a)
        try b.click("#tally-\(tally) .tally-count")
        try waitUntil("the change is made") { try Tallies.count(app, tally) == 11 }
        #expect(try TallyBrowserTests.spoken(a, tally) == "Laps, 10, increment", "offline, the first phone cannot know yet")
        try a.setOffline(false)
        try waitUntil("the first phone catches up live", timeout: 20) { try TallyBrowserTests.spoken(a, tally) == "Laps, 11, increment" }
        #expect(try BrowserTests.marker(a) == 42, "without a reload")
        // An open stream has no timing entry yet; the origin's one connection, which the stream shares, speaks h2.
        #expect(try Self.fetchedAgain(a).protocol == "h2")

        // Taps made in the tunnel wait on the phone and arrive once, beside the other phone's.
        try OfflineBrowserTests.goOffline(a)
        for _ in 0..<2 { try a.click("#tally-\(tally) .tally-count") }
        try waitUntil("two taps wait") { try OfflineBrowserTests.pending(a, tally) == "+2 waiting for network" }
        try a.execute("document.querySelector('#tally-\(tally)').scrollIntoView({ block: 'center' });")
        try Self.screenshot(a, "tally-offline-375-dark")
        try b.click("#tally-\(tally) .tally-count")
        try waitUntil("the other phone's tap arrives") { try Tallies.count(app, tally) == 12 }
        try a.setOffline(false)
        try waitUntil("the waiting taps arrive", timeout: 20) { try Tallies.count(app, tally) == 14 }
        for (name, browser) in [("first", a), ("second", b)] {
            try waitUntil("the \(name) phone shows 14", timeout: 20) {
                try TallyBrowserTests.spoken(browser, tally) == "Laps, 14, increment" && OfflineBrowserTests.pending(browser, tally) == nil
            }
        }
        try waitUntil("nothing waits on the first phone") { try OfflineBrowserTests.queued(a) == 0 }
        #expect(try Tallies.count(app, tally) == 14, "each tap counted once")
        #expect(try BrowserTests.marker(a) == 42, "the first phone never reloaded")
        try waitUntil("its live stream is open again", timeout: 15) { app.app.live.openStreams == 2 }
        let errors = try BrowserTests.consoleErrors(a) ?? []
        #expect(errors.allSatisfy { $0.contains("ERR_INTERNET_DISCONNECTED") }, "console errors: \(errors)")
    }

    @Test(
        "a double tap on a form's submit over h2 creates one tally and one occasion",
        .enabled(if: enabled, "needs chromium, chromedriver and openssl; `make test` installs them"))
    func doubleTap() throws {
        let app = try httpsHarness()
        _ = try Self.person(app, "ada", name: "Ada")
        // chromedriver would otherwise hold the second tap until the first one's page has loaded.
        let device = try Phone(phone: true, theme: "dark", waitsForPages: false)
        defer { device.close() }
        let browser = device.browser
        let formReady = { (field: String) in
            try waitUntil("the form is ready", timeout: 15) {
                (try browser.execute("return document.readyState === 'complete' && document.querySelector(arguments[0]) !== null;", ["[name=\(field)]"])
                    as? Bool) == true
            }
        }
        try browser.navigate(to: Self.base(app) + "/signin")
        try formReady("username")
        try Self.submit(browser, [("username", "ada"), ("password", "correct horse")])
        try Self.waitForPath(browser, "^/$", "Ada is signed in")

        // On a slow phone network, where a second tap is most tempting, the first answer cannot beat it.
        try browser.setLatency(400)
        try browser.navigate(to: Self.base(app) + "/tallies/new")
        try formReady("name")
        try Self.submit(browser, [("name", "Push-ups")], double: true)
        try Self.waitForPath(browser, "^/tallies/[0-9]+$", "the tally is shown")
        #expect(try browser.execute("return sessionStorage.getItem('taps');") as? String == "2", "both taps reached the button")
        #expect(try browser.execute("return performance.getEntries()[0].nextHopProtocol;") as? String == "h2")
        try browser.navigate(to: Self.base(app) + "/occasions/new")
        try formReady("celebrant_name")
        try Self.submit(browser, Self.occasion, double: true)
        try Self.waitForPath(browser, "^/occasions/[0-9]+", "the occasion is shown")
        // The page shown answers the last request sent, so by now both taps' requests, had there been two, were handled.
        #expect(try browser.execute("return sessionStorage.getItem('taps');") as? String == "2", "both taps reached the button")
        #expect(try Self.rows(app, "tallies") == 1)
        #expect(try Self.rows(app, "occasions") == 1)
        // Pages here are left before they finish loading (no load wait, slow network), which can cut
        // Chromium's own manifest fetch short and log it as unparsable; `installable` checks the manifest.
        let errors = try BrowserTests.consoleErrors(browser) ?? []
        #expect(errors.filter { !$0.contains("manifest.webmanifest") }.isEmpty, "console errors: \(errors)")
    }
}
