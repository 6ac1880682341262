import Foundation
@testable import KithApp
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

/// An occasion at its finale: friend 1's and friend 2's letters unlocked,
/// friend 3 quiet, on a clock the test moves.
struct FinishedParty {
    let party: OccasionParty
    let clock: Locked<Int64>
    let first: Int64
    let second: Int64

    var base: String { party.base }

    static func make(unlock: Bool = true) throws -> FinishedParty {
        let clock = Locked(digestStart)
        let app = try accountsHarness(clock: clock)
        let party = try OccasionParty.make(app)
        let first = try party.sendGift(party.contributors[0], letter: "First letter, from friend one")
        let second = try party.sendGift(party.contributors[1], letter: "Second letter, from friend two")
        try party.price(first, cost: 10)
        try party.price(second, cost: 10)
        let adjusted = try party.post(party.host, "\(party.base)/host/points", [("delta", "50"), ("reason", "Start")], from: "\(party.base)/host")
        guard adjusted.status == 303 else { throw TestError("adjusting failed: \(adjusted.status)") }
        if unlock {
            for gift in [first, second] {
                let response = try party.unlock(gift)
                guard response.status == 303 else { throw TestError("unlocking failed: \(response.status) \(response.text.prefix(300))") }
            }
        }
        return FinishedParty(party: party, clock: clock, first: first, second: second)
    }

    func count(_ sql: SQL) throws -> Int64 {
        try party.app.app.database.read { try $0.queryValue(sql, as: Int64.self) } ?? -1
    }
}

/// Who sees a page, by status: the host, friend 1, the celebrant, a
/// signed-in stranger, a signed-out visitor.
private func statuses(_ party: OccasionParty, _ path: String) throws -> [Int] {
    try [party.host, party.contributors[0], party.celebrant, party.stranger, party.visitor].map { try $0.get(path).status }
}

@Suite("Occasions: the shared book, the scheduled reveal, nudges and party mode")
struct OccasionBookTests {
    // MARK: The book

    @Test("the book opens only after the finale and only by the host; while open every member reads every unlocked gift, closed again only their own")
    func bookAccess() throws {
        let finished = try FinishedParty.make(unlock: false)
        let party = finished.party
        let base = finished.base
        let friend = party.contributors[0]
        // Before the finale: refused, and the book stays closed.
        let early = try party.post(party.host, "\(base)/host/book/open", from: "\(base)/host")
        #expect(early.status == 409)
        #expect(early.text.contains("The book opens after the finale"))
        for gift in [finished.first, finished.second] { #expect(try party.unlock(gift).status == 303) }
        #expect(try finished.count("SELECT count(*) FROM occasions WHERE finale_at IS NOT NULL") == 1)

        // Closed: friend 1 reads only their own letter; friend 2's is not found to them.
        #expect(try friend.get("\(base)/book").text.contains("First letter") == true)
        #expect(try friend.get("\(base)/book").text.contains("Second letter") == false)
        #expect(try friend.get("\(base)/gifts/\(finished.second)").status == 404)
        #expect(try !party.app.app.database.read { try OccasionBook.isOpen($0, occasionID: party.id) })

        // Only the host opens it; outsiders meet 404, a forged post 403; nothing changes.
        #expect(try party.post(friend, "\(base)/host/book/open").status == 403)
        #expect(try party.post(party.celebrant, "\(base)/host/book/open").status == 403)
        #expect(try party.stranger.post("\(base)/host/book/open", [], csrf: try party.stranger.token(from: "/")).status == 404)
        #expect(try party.host.post("\(base)/host/book/open", [], csrf: "forged").status == 403)
        #expect(try finished.count("SELECT count(*) FROM occasions WHERE book_opened_at IS NOT NULL") == 0)
        #expect(try statuses(party, "\(base)/book") == [200, 200, 200, 404, 303])

        // Open: friend 1 reads friend 2's letter, on the book, its page and the gifts list.
        let opened = try party.post(party.host, "\(base)/host/book/open", from: "\(base)/host")
        #expect(opened.status == 303)
        #expect(opened.header("Location") == "\(base)/book")
        let book = try friend.get("\(base)/book")
        #expect(book.text.contains("First letter") && book.text.contains("Second letter"))
        #expect(try friend.get("\(base)/gifts/\(finished.second)").text.contains("Second letter"))
        #expect(try friend.get("\(base)/gifts").text.contains("\(base)/gifts/\(finished.second)"))
        #expect(try friend.get(base).text.contains("The book is open"))
        // The finale's news leads to the timeline: the way in is there too, with party mode.
        let timeline = try friend.get("\(base)/timeline").text
        #expect(timeline.contains("The book is open") && timeline.contains("href=\"\(base)/party\""))
        #expect(try party.contributors[2].get("\(base)/book").text.contains("Second letter"))
        #expect(try party.stranger.get("\(base)/book").status == 404)
        #expect(try party.app.app.database.read { try OccasionBook.isOpen($0, occasionID: party.id) })

        // Closed again: back to their own.
        #expect(try party.post(party.host, "\(base)/host/book/close", from: "\(base)/host").status == 303)
        #expect(try friend.get("\(base)/book").text.contains("Second letter") == false)
        #expect(try friend.get("\(base)/gifts/\(finished.second)").status == 404)
    }

    @Test("the open book lets every member read the celebrant's thanks for every gift, and closing it takes them back")
    func bookShowsThanks() throws {
        let finished = try FinishedParty.make()
        let party = finished.party
        let base = finished.base
        let page = "\(base)/gifts/\(finished.second)"
        #expect(try party.thank(party.celebrant, gift: finished.second, words: "Thank you, friend two").status == 303)
        // Closed: friend 1 sees neither friend 2's gift nor its thanks.
        #expect(try party.contributors[0].get(page).status == 404)
        #expect(!(try party.contributors[0].get("\(base)/timeline").text.contains("Thank you, friend two")))

        #expect(try party.post(party.host, "\(base)/host/book/open", from: "\(base)/host").status == 303)
        #expect(try party.contributors[0].get(page).text.contains("Thank you, friend two"))
        #expect(try party.contributors[0].get("\(base)/timeline").text.contains("Thank you, friend two"))
        // Reacting follows reading: friend 1 may now react to friend 2's gift.
        #expect(try party.react(party.contributors[0], gift: finished.second, "heart").status == 303)

        #expect(try party.post(party.host, "\(base)/host/book/close", from: "\(base)/host").status == 303)
        #expect(try party.contributors[0].get(page).status == 404)
        #expect(!(try party.contributors[0].get("\(base)/timeline").text.contains("Thank you, friend two")))
        #expect(try party.react(party.contributors[0], gift: finished.second, "party").status == 404)
    }

    // MARK: The scheduled reveal

    @Test("gifts wait for the moment the host set in the celebrant's zone: refused a minute before, unlockable on the minute; contributors add gifts meanwhile")
    func scheduledReveal() throws {
        let finished = try FinishedParty.make(unlock: false)
        let party = finished.party
        let base = finished.base
        // The celebrant lives in Auckland (UTC+13 in January); everyone else in London.
        let zone = try party.post(
            party.celebrant, "/settings/profile",
            [("display_name", "Alex Star"), ("username", "alex_star"), ("email", ""), ("avatar", "fox"), ("time_zone", "Pacific/Auckland")],
            from: "/settings")
        #expect(zone.status == 303)
        // The clock starts at 2027-01-15 08:00 UTC. 08:00 on the 16th in
        // Auckland is 19:00 UTC on the 15th — eleven hours on, not 24.
        let moment = digestStart + 11 * 3600
        let set = try party.post(party.host, "\(base)/host/reveal", [("reveal_at", "2027-01-16T08:00")], from: "\(base)/host")
        #expect(set.status == 303)
        #expect(try finished.count("SELECT reveal_at FROM occasions") == moment)
        let panel = try party.host.get("\(base)/host").text
        #expect(panel.contains("In Alex&#39;s time zone, Pacific/Auckland."))
        #expect(panel.contains("value=\"2027-01-16T08:00\""))

        // The celebrant's pages count down, in their own time.
        let gifts = try party.celebrant.get("\(base)/gifts").text
        #expect(gifts.contains("Your gifts open"))
        #expect(gifts.contains("Sat 16 Jan 2027, 08:00"))
        #expect(gifts.contains("data-countdown=\"\(moment)\" data-now=\"\(digestStart)\">11 hours</span>"))
        #expect(!gifts.contains("\(base)/gifts/\(finished.first)/unlock"))
        let card = try party.celebrant.get("\(base)/gifts/\(finished.first)").text
        #expect(card.contains("Your gifts open") && !card.contains("\(base)/gifts/\(finished.first)/unlock"))

        // A minute before: refused, in words, and nothing is spent.
        finished.clock.withLock { $0 = moment - 60 }
        #expect(try party.celebrant.get(base).text.contains("data-countdown=\"\(moment)\" data-now=\"\(moment - 60)\">1 minute</span>"))
        let refused = try party.unlock(finished.first)
        #expect(refused.status == 409)
        #expect(refused.text.contains("Not yet: gifts open Sat 16 Jan 2027, 08:00 (Pacific/Auckland time)"))
        let forced = try party.post(party.host, "\(base)/host/gifts/\(finished.first)/unlock", from: "\(base)/host")
        #expect(forced.status == 409)
        #expect(try party.balance() == 50)
        #expect(try finished.count("SELECT count(*) FROM occasion_gifts WHERE state = 'unlocked'") == 0)
        // Contributors still add gifts until then.
        let late = try party.sendGift(party.contributors[2], letter: "A late letter")
        #expect(try finished.count("SELECT count(*) FROM occasion_gifts WHERE id = \(late) AND state = 'submitted'") == 1)

        // On the minute: the countdown goes and the unlock works.
        finished.clock.withLock { $0 = moment }
        #expect(try !party.celebrant.get("\(base)/gifts").text.contains("data-countdown"))
        #expect(try party.unlock(finished.first).status == 303)
        #expect(try party.balance() == 40)
    }

    @Test("setting the reveal: host only, outsiders 404, a forged post 403, past and malformed times refused beside the field, and it can be removed")
    func revealInput() throws {
        let finished = try FinishedParty.make(unlock: false)
        let party = finished.party
        let path = "\(finished.base)/host/reveal"
        let from = "\(finished.base)/host"
        #expect(try party.post(party.contributors[0], path, [("reveal_at", "2027-02-01T08:00")], from: finished.base).status == 403)
        #expect(try party.post(party.celebrant, path, [("reveal_at", "2027-02-01T08:00")], from: finished.base).status == 403)
        #expect(try party.stranger.post(path, [("reveal_at", "2027-02-01T08:00")], csrf: try party.stranger.token(from: "/")).status == 404)
        #expect(try party.host.post(path, [("reveal_at", "2027-02-01T08:00")], csrf: "forged").status == 403)
        for (value, words) in [
            ("2020-01-01T08:00", "already passed"), ("tomorrow", "Choose a real day and time"), ("2027-02-30T08:00", "Choose a real day and time"),
            ("2027-02-01T25:00", "Choose a real day and time"), ("", "Choose a day and a time"),
        ] {
            let response = try party.post(party.host, path, [("reveal_at", value)], from: from)
            #expect(response.status == 422, "\(value)")
            #expect(response.text.contains(words), "\(value)")
            // Beside the field on the host panel, with what was typed, not on a bare error page.
            #expect(response.text.contains("id=\"big-day-heading\"") && response.text.contains("field__error"), "\(value)")
            #expect(response.text.contains("value=\"\(value)\"") || value.isEmpty, "\(value)")
        }
        #expect(try finished.count("SELECT count(*) FROM occasions WHERE reveal_at IS NOT NULL") == 0)
        #expect(try party.post(party.host, path, [("reveal_at", "2027-02-01T08:00")], from: from).status == 303)
        #expect(try finished.count("SELECT count(*) FROM occasions WHERE reveal_zone = 'Europe/London'") == 1)
        #expect(try party.post(party.host, path, [("reveal_at", ""), ("clear", "1")], from: from).status == 303)
        #expect(try finished.count("SELECT count(*) FROM occasions WHERE reveal_at IS NULL AND reveal_zone IS NULL") == 1)
    }

    // MARK: The tracker and nudges

    @Test("the host sees who has written what and nudges a quiet contributor once a day: an inbox entry, a polite refusal the second time, the button's time")
    func nudges() throws {
        let finished = try FinishedParty.make(unlock: false)
        let party = finished.party
        let base = finished.base
        let quiet = try #require(party.userIDs["friend_3"])
        let nudge = "\(base)/host/members/\(quiet)/nudge"
        try party.fileDare(party.contributors[0], title: "Dance", points: 10)

        let panel = try party.host.get("\(base)/host").text
        #expect(panel.contains("Who has written"))
        #expect(panel.contains("Sent, waiting for a price") || panel.contains("On offer"))
        #expect(panel.contains(nudge))
        // Friend 1 sent a gift and wrote a dare: nothing to nudge them about.
        #expect(!panel.contains("\(base)/host/members/\(party.userIDs["friend_1"]!)/nudge"))

        // Only the host, only with the form's token; outsiders see nothing.
        #expect(try party.post(party.contributors[0], nudge).status == 403)
        #expect(try party.post(party.celebrant, nudge).status == 403)
        #expect(try party.stranger.post(nudge, [], csrf: try party.stranger.token(from: "/")).status == 404)
        #expect(try party.host.post(nudge, [], csrf: "forged").status == 403)
        #expect(try finished.count("SELECT count(*) FROM occasion_nudges") == 0)
        // Not the celebrant, nor someone with nothing left to write.
        #expect(try party.post(party.host, "\(base)/host/members/\(party.userIDs["alex_star"]!)/nudge", from: "\(base)/host").status == 404)
        let done = try party.post(party.host, "\(base)/host/members/\(party.userIDs["friend_1"]!)/nudge", from: "\(base)/host")
        #expect(done.status == 409)

        let first = try party.post(party.host, nudge, from: "\(base)/host")
        #expect(first.status == 303)
        #expect(try party.host.get("\(base)/host").text.contains("Nudged just now; again from"))
        let delivered = try party.app.app.notifications.sweep(now: finished.clock.value + Notifications.maximumDelay + 1)
        #expect(delivered.filter { $0.userID == quiet }.map(\.body) == ["Hana is hoping for a gift and a dare from you in Alex turns 30"])

        // An hour later: refused politely, with when it may go again.
        finished.clock.withLock { $0 += 3600 }
        let second = try party.post(party.host, nudge, from: "\(base)/host")
        #expect(second.status == 429)
        #expect(second.text.contains("one nudge a day is plenty. You can nudge them again from Sat 16 Jan, 08:00"))
        #expect(try party.host.get("\(base)/host").text.contains("again from Sat 16 Jan, 08:00"))
        #expect(try !party.host.get("\(base)/host").text.contains(nudge))
        #expect(try finished.count("SELECT count(*) FROM occasion_nudges") == 1)

        // A day after the first: allowed again.
        finished.clock.withLock { $0 = digestStart + 86_400 }
        #expect(try party.post(party.host, nudge, from: "\(base)/host").status == 303)
        #expect(try finished.count("SELECT count(*) FROM occasion_nudges") == 2)
    }

    // MARK: Party mode

    @Test("party mode: the host and the celebrant always, contributors once the book is open, outsiders 404; it shows the unlocked gifts and the QR code of the contributor link")
    func partyAccess() throws {
        let finished = try FinishedParty.make()
        let party = finished.party
        let base = finished.base
        let path = "\(base)/party"
        let refused = try party.contributors[0].get(path)
        #expect(refused.status == 403)
        #expect(refused.text.contains("once the host opens the book"))
        #expect(try statuses(party, path) == [200, 403, 200, 404, 303])
        let page = try party.host.get(path).text
        #expect(page.contains("First letter") && page.contains("Second letter"))
        #expect(page.contains("data-party=\"\(PartyPage.secondsPerSlide)\""))
        #expect(page.contains("<svg") && page.contains("QR code to join Alex turns 30"))
        let code = try OccasionParty.codes(party.app, party.id).contributor
        #expect(page.contains("/join/\(code)"))
        #expect(try party.post(party.host, "\(base)/host/book/open", from: "\(base)/host").status == 303)
        #expect(try statuses(party, path) == [200, 200, 200, 404, 303])
    }

    @Test("the new pages never write on GET and pass the Nu checker, both roles, with the countdown and the open book")
    func pagesReadAndValidate() throws {
        let finished = try FinishedParty.make()
        let party = finished.party
        let base = finished.base
        #expect(try party.post(party.host, "\(base)/host/book/open", from: "\(base)/host").status == 303)
        #expect(try party.post(party.host, "\(base)/host/reveal", [("reveal_at", "2027-02-01T08:00")], from: "\(base)/host").status == 303)
        try party.fileDare(party.contributors[0], title: "Dance", points: 10)
        #expect(try party.post(party.host, "\(base)/host/members/\(party.userIDs["friend_3"]!)/nudge", from: "\(base)/host").status == 303)
        let pages: [(name: String, session: WebSession, path: String)] = [
            ("host-panel", party.host, "\(base)/host"), ("book-host", party.host, "\(base)/book"),
            ("book-friend", party.contributors[0], "\(base)/book"), ("party-host", party.host, "\(base)/party"),
            ("party-friend", party.contributors[1], "\(base)/party"), ("gifts-celebrant", party.celebrant, "\(base)/gifts"),
            ("overview-celebrant", party.celebrant, base), ("overview-friend", party.contributors[2], base),
        ]
        let watch = try WriteWatch(party.app)
        func version() throws -> String { try watch.version() }
        for page in pages { _ = try page.session.get(page.path) }
        let before = try version()
        for page in pages { #expect(try page.session.get(page.path).status == 200, "\(page.path)") }
        #expect(try version() == before)
        if HTMLValidationTests.isAvailable {
            try HTMLValidationTests.expectValid(pages, directory: try TemporaryDirectory("kith-book-html"))
        }
    }
}
