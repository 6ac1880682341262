import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Occasions in real browsers", .serialized)
struct OccasionBrowserTests {
    static func text(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.body.innerText;") as? String ?? ""
    }

    @Test(
        "the celebrant completes challenges and dares and unlocks every gift in the browser; the host's open pages follow live without reloading; the badge opens",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func story() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let base = "http://127.0.0.1:\(app.port)"
        let occasion = base + party.base
        let sing = try party.addChallenge("Sing in the square", points: 20)
        let swim = try party.addChallenge("Swim in the sea", points: 30, optionB: "Run a mile")
        var gifts: [Int64] = []
        for (index, friend) in party.contributors.enumerated() {
            try party.fileDare(friend, title: "Dare number \(index + 1)", points: 10)
            let gift = try party.sendGift(friend, letter: "Love from friend \(index + 1)")
            try party.price(gift, cost: 25, position: index)
            gifts.append(gift)
        }

        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let host = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { host.delete() }
        let celebrant = try driver.newSession(capabilities: BrowserTests.capabilities)
        defer { celebrant.delete() }
        try BrowserTests.signIn(host, base: base, username: "hana_host")
        try BrowserTests.signIn(celebrant, base: base, username: "alex_star")

        // The host watches the timeline; it must follow along without a reload.
        try host.navigate(to: occasion + "/timeline")
        try waitUntil("the host's timeline shows the badge") { try Self.text(host).contains("0 of 3") }
        try BrowserTests.setMarker(host)

        // Challenges, through their forms.
        try celebrant.navigate(to: "\(occasion)/challenges/\(sing)")
        try celebrant.click("form[action$='/complete'] button[type=submit]")
        try waitUntil("the first challenge is done") { try Self.text(celebrant).contains("Done! The points are yours.") }
        try celebrant.navigate(to: "\(occasion)/challenges/\(swim)")
        try celebrant.click("input[name=option][value=b]")
        try celebrant.click("form[action$='/complete'] button[type=submit]")
        try waitUntil("the second challenge is done") { try Self.text(celebrant).contains("Chose option B: Run a mile") }
        try waitUntil("the host's timeline shows both, live") { try Self.text(host).contains("Swim in the sea") }
        #expect(try BrowserTests.marker(host) == 42, "the host's page reloaded")

        // The hidden entry: ??? on the board opens the classified file.
        try celebrant.navigate(to: occasion + "/challenges")
        try celebrant.click(".secret-entry a")
        try celebrant.click("form[action$='/classified/open'] button[type=submit]")
        try waitUntil("the dares are revealed") { try Self.text(celebrant).contains("Dare number 3") }
        let dareLinks = try celebrant.execute(
            "return [...document.querySelectorAll('.challenge-list a')].map(a => a.getAttribute('href'));") as? [String] ?? []
        #expect(dareLinks.count == 3)
        for link in dareLinks {
            try celebrant.navigate(to: base + link)
            try celebrant.click("form[action$='/complete'] button[type=submit]")
            try waitUntil("a dare is done") { try Self.text(celebrant).contains("Done! The points are yours.") }
        }
        #expect(try party.balance() == 80)

        // Every gift, from the carousel.
        for gift in gifts {
            try celebrant.navigate(to: occasion + "/gifts")
            try celebrant.execute("document.querySelector(arguments[0]).scrollIntoView();", ["form[action$='/gifts/\(gift)/unlock'] button"])
            try celebrant.click("form[action$='/gifts/\(gift)/unlock'] button")
            try waitUntil("gift \(gift) is unlocked") { try Self.text(celebrant).contains("Unlocked!") }
        }
        #expect(try party.balance() == 5)

        // The host's timeline, never reloaded, now shows the open badge.
        try waitUntil("the host's badge opens live") { try Self.text(host).contains("Every gift is yours") }
        #expect(try BrowserTests.marker(host) == 42, "the host's page reloaded")
        try celebrant.navigate(to: occasion + "/timeline")
        let celebrantTimeline = try Self.text(celebrant)
        #expect(celebrantTimeline.contains("Happy birthday, Alex! Every gift is yours."))
        #expect(celebrantTimeline.contains("Love from friend 1") || celebrantTimeline.contains("Letter from Friend 1"))
        for (name, browser) in [("host", host), ("celebrant", celebrant)] {
            let errors = try BrowserTests.consoleErrors(browser) ?? []
            #expect(errors.isEmpty, "console errors in the \(name)'s browser: \(errors)")
        }
    }
}
