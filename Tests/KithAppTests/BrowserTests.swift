import Foundation
import Glibc
@testable import KithApp
import KithHTTP
import KithTemplates
import KithTestSupport
import Testing

/// A tiny page under the real layout with the two things `app.js` enhances:
/// a live fragment and a form that submits without a reload. The count lives
/// in the `settings` table, so the page reads it the way a feature would.
enum CounterPage {
    static let show = Route(.get, "/test/counter")
    static let add = Route(.post, "/test/counter")
    static let fragment = Route(.get, "/test/counter/fragment")
    static let topic = "open:counter"

    static func register(on app: KithApp) {
        app.liveTopics.register(kind: "open") { _, _ in true }
        app.on(show) { context in
            // The cursor is taken before the count is read, as every live page does.
            let page = context.pageContext(topics: [topic])
            let main = section(count: try count(in: context.app), csrf: context.csrfToken)
            return context.app.page(Layout.page(title: "Counter", context: page, main: main))
        }
        app.on(fragment) { context in
            context.app.page(section(count: try count(in: context.app), csrf: context.csrfToken))
        }
        app.on(add) { context in
            let hub = context.app.live
            try context.app.database.write { tx in
                try tx.execute(
                    """
                    INSERT INTO settings (key, value) VALUES ('counter', '1')
                    ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(settings.value AS INTEGER) + 1 AS TEXT)
                    """)
                tx.afterCommit { hub.publish(topic: topic, fragments: ["counter"]) }
            }
            return .redirect(to: show.path())
        }
    }

    static func section(count: Int64, csrf: String) -> HTML {
        """
        <section id="counter" data-fragment="\(fragment.path())"><p>Count: \(count)</p>\
        <form method="post" action="\(add.path())" data-enhance data-target="counter">\
        \(Layout.csrfField(csrf))<button type="submit">Add one</button></form></section>
        """
    }

    static func count(in app: KithApp) throws -> Int64 {
        try app.database.read {
            try $0.queryValue("SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'counter'", as: Int64.self)
        } ?? 0
    }
}

@Suite("Pages in a real browser", .serialized)
struct BrowserTests {
    static let chromedriver = Tools.path("chromedriver") ?? "/usr/bin/chromedriver"
    static let chromium = Tools.path("chromium") ?? "/usr/bin/chromium"

    /// A phone-sized headless Chromium. Tests run as root, hence no sandbox.
    static var capabilities: [String: Any] {
        [
            "alwaysMatch": [
                "browserName": "chrome",
                "goog:chromeOptions": [
                    "binary": chromium,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=375,800"],
                ],
            ]
        ]
    }

    /// Signs a browser in through the sign-in form, as a person would, and
    /// waits for the dashboard.
    static func signIn(_ browser: WebDriverSession, base: String, username: String) throws {
        try browser.navigate(to: base + "/signin")
        try browser.execute(
            """
            document.querySelector('[name=username]').value = arguments[0];
            document.querySelector('[name=password]').value = 'correct horse';
            document.querySelector('[name=username]').form.submit();
            """, [username])
        try waitUntil("\(username) is signed in") {
            (try browser.execute("return document.querySelector('.user-menu') !== null && location.pathname === '/';") as? Bool) == true
        }
    }

    /// The count as the person sees it, or nil while the section is missing.
    static func shownCount(_ browser: WebDriverSession) throws -> String? {
        try browser.execute("const p = document.querySelector('#counter p'); return p ? p.textContent : null;") as? String
    }

    /// Set in a document to prove later that the same document is still there:
    /// a reload or a navigation would start a fresh `window` without it.
    static func setMarker(_ browser: WebDriverSession) throws {
        try browser.execute("window.__marker = 42;")
    }

    static func marker(_ browser: WebDriverSession) throws -> Int? {
        try browser.execute("return window.__marker === undefined ? null : window.__marker;") as? Int
    }

    /// Errors the page logged since the last call (script failures, failed
    /// loads), or nil when the driver does not expose the console.
    static func consoleErrors(_ browser: WebDriverSession) throws -> [String]? {
        try browser.browserLog()?.filter { $0.level == "SEVERE" }.map(\.message)
    }

    @Test(
        "Add one updates the count in place, and a second open browser follows live, neither reloading",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func enhancedFormAndLiveUpdate() throws {
        let app = try AppHarness(prepare: { CounterPage.register(on: $0) })
        let url = "http://127.0.0.1:\(app.port)\(CounterPage.show.path())"
        // Deferred in this order, sessions close their browsers before chromedriver stops.
        let driver = try WebDriver(executable: Self.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let first = try driver.newSession(capabilities: Self.capabilities)
        defer { first.delete() }

        try first.navigate(to: url)
        try waitUntil("the first browser shows count 0") { try Self.shownCount(first) == "Count: 0" }
        // The module script ran: it marks the document before doing anything else.
        // Without it nothing below can work, so stop here and say why.
        let scriptRan = try first.execute("return document.documentElement.classList.contains('js');") as? Bool
        if scriptRan != true {
            let console = try Self.consoleErrors(first) ?? []
            try #require(scriptRan == true, "app.js did not run; console errors: \(console)")
        }
        try Self.setMarker(first)

        try first.click("#counter button[type=submit]")
        try waitUntil("the first browser shows count 1") { try Self.shownCount(first) == "Count: 1" }
        #expect(try Self.marker(first) == 42, "the page reloaded instead of swapping the section")
        #expect(try first.currentURL() == url)
        // One click, one write: the script did not also let the browser submit.
        #expect(try CounterPage.count(in: app.app) == 1)

        let second = try driver.newSession(capabilities: Self.capabilities)
        defer { second.delete() }
        try second.navigate(to: url)
        try waitUntil("the second browser shows count 1") { try Self.shownCount(second) == "Count: 1" }
        try Self.setMarker(second)

        try first.click("#counter button[type=submit]")
        // The second browser learns of it only through its live stream and the fragment refetch.
        try waitUntil("the second browser shows count 2") { try Self.shownCount(second) == "Count: 2" }
        #expect(try Self.marker(second) == 42, "the second browser reloaded instead of refetching the fragment")
        #expect(try second.currentURL() == url)
        try waitUntil("the first browser shows count 2") { try Self.shownCount(first) == "Count: 2" }
        #expect(try Self.marker(first) == 42)
        #expect(try CounterPage.count(in: app.app) == 2)

        for (name, browser) in [("first", first), ("second", second)] {
            let errors = try Self.consoleErrors(browser) ?? []
            #expect(errors.isEmpty, "console errors in the \(name) browser: \(errors)")
        }
    }

    @Test("without JavaScript the same form posts, redirects with 303 and the page shows the new count")
    func worksWithoutJavaScript() throws {
        let app = try AppHarness(prepare: { CounterPage.register(on: $0) })
        let page = try app.get(CounterPage.show.path())
        #expect(page.status == 200)
        #expect(page.text.contains("<p>Count: 0</p>"))
        #expect(page.text.contains("<form method=\"post\" action=\"/test/counter\""))
        #expect(page.text.contains("<meta name=\"kith-live\" content=\"open:counter\" data-cursor=\""))

        let browser = WebSession(port: app.port)
        let response = try browser.post(CounterPage.add.path(), [], csrf: try browser.token(from: CounterPage.show.path()))
        #expect(response.status == 303)
        #expect(response.header("Location") == "/test/counter")

        let after = try app.get(response.header("Location") ?? "")
        #expect(after.text.contains("<p>Count: 1</p>"))
        #expect(!after.text.contains("<p>Count: 0</p>"))
        let fragment = try app.get(CounterPage.fragment.path())
        #expect(fragment.text.hasPrefix("<section id=\"counter\""))
        #expect(fragment.text.contains("<p>Count: 1</p>"))
        #expect(!fragment.text.contains("<html"))
    }
}
