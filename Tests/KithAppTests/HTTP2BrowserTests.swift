import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// Chromium over HTTPS: ALPN picks HTTP/2, and seven pages of one origin —
/// one past HTTP/1.1's six connections, each page holding a live stream —
/// load and all follow a change live, because they share one connection.
@Suite("HTTP/2 in a real browser", .serialized)
struct HTTP2BrowserTests {
    static let pages = 7

    /// A desktop-sized headless Chromium that trusts the test certificate.
    static var capabilities: [String: Any] {
        [
            "alwaysMatch": [
                "browserName": "chrome",
                "acceptInsecureCerts": true,
                "goog:chromeOptions": [
                    "binary": BrowserTests.chromium,
                    "args": [
                        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
                        "--ignore-certificate-errors",
                    ],
                ],
            ]
        ]
    }

    /// The protocol the page itself arrived over, as the browser reports it.
    static func protocolOfPage(_ browser: WebDriverSession) throws -> String? {
        try browser.execute("return performance.getEntriesByType('navigation')[0].nextHopProtocol;") as? String
    }

    @Test(
        "seven pages over HTTPS speak h2, hold seven live streams at once and all follow one change",
        .enabled(if: Tools.browser && Tools.openssl, "needs chromium, chromedriver and openssl; `make test` installs them"))
    func sevenPagesLive() throws {
        let app = try httpsHarness(prepare: { CounterPage.register(on: $0) })
        let url = "https://localhost:\(app.httpsPort)\(CounterPage.show.path())"
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let browser = try driver.newSession(capabilities: Self.capabilities)
        defer { browser.delete() }

        // Windows rather than background tabs: a hidden page closes its stream
        // (app.js), and every one of these must hold its stream open at once.
        var handles = [try browser.currentTab()]
        for _ in 1..<Self.pages { handles.append(try browser.newTab(window: true)) }
        for (index, handle) in handles.enumerated() {
            try browser.switchTo(handle)
            try browser.navigate(to: url)
            try waitUntil("page \(index + 1) shows count 0") { try BrowserTests.shownCount(browser) == "Count: 0" }
            #expect(try Self.protocolOfPage(browser) == "h2")
            try waitUntil("page \(index + 1)'s live stream is open", timeout: 15) { app.app.live.openStreams == index + 1 }
        }

        #expect(app.app.live.openStreams == Self.pages)
        // The change is made in the last page; the other six learn of it only live.
        try browser.click("#counter button[type=submit]")
        for (index, handle) in handles.enumerated() {
            try browser.switchTo(handle)
            try waitUntil("page \(index + 1) shows count 1", timeout: 15) { try BrowserTests.shownCount(browser) == "Count: 1" }
        }
        #expect(try CounterPage.count(in: app.app) == 1)
        let errors = try BrowserTests.consoleErrors(browser) ?? []
        #expect(errors.isEmpty, "console errors: \(errors)")
    }
}
