import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// Occasion defects people ran into, each pinned by what they saw: a photo
/// that would not change, a paid gift that vanished, a removed celebrant's
/// link that still opened her place, a price mistake on a bare error page,
/// and words that contradicted each other.
@Suite("Occasion defects")
struct OccasionDefectTests {
    static func harness() throws -> AppHarness {
        try AppHarness(configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
        })
    }

    /// The media addresses a page shows, in page order.
    static func mediaURLs(_ page: String, _ party: OccasionParty) -> [String] {
        let pattern = "\(party.base)/media/[0-9]+\\?v=[0-9a-f]+"
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: page, range: NSRange(page.startIndex..., in: page)).compactMap { match in
            Range(match.range, in: page).map { String(page[$0]) }
        }
    }

    /// A gift sent by a contributor and priced: on offer.
    static func offered(_ party: OccasionParty, by index: Int, letter: String, cost: Int) throws -> Int64 {
        let gift = try party.sendGift(party.contributors[index], letter: letter)
        try party.price(gift, cost: cost)
        return gift
    }

    /// A gift sent by friend 1, priced, and unlocked by the celebrant with points from a challenge.
    static func unlockedGift(_ party: OccasionParty, letter: String = "Happy birthday!") throws -> Int64 {
        let gift = try offered(party, by: 0, letter: letter, cost: 10)
        let challenge = try party.addChallenge("Sing", points: 10)
        #expect(try party.complete(challenge).status == 303)
        #expect(try party.unlock(gift).status == 303)
        return gift
    }

    // MARK: 1. Media addresses

    @Test("a replaced photo gets a new address: the row id comes back, the address does not, and the old one never serves the new bytes")
    func replacedPhotoNewAddress() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let friend = party.contributors[0]
        #expect(try party.upload(friend, "photos", files: [("a.jpg", "image/jpeg", Fixture.jpegWithLocation())]).status == 303)
        let gift = try party.giftOf("friend_1")
        let first = try #require(try party.mediaIDs(gift: gift).first)
        let before = try #require(Self.mediaURLs(try friend.get("\(party.base)/gift").text, party).first)
        #expect(try friend.get(before).header("Content-Type") == "image/jpeg")

        #expect(try party.post(friend, "\(party.base)/gift/media/\(first)/remove", [], from: "\(party.base)/gift").status == 303)
        #expect(try party.upload(friend, "photos", files: [("b.png", "image/png", Fixture.pngWithLocation())]).status == 303)
        // SQLite hands the newest row's id to the next row once it is
        // deleted, the case an address must survive; PostgreSQL's identity
        // never repeats, so there only the address itself can be checked.
        let second = try #require(try party.mediaIDs(gift: gift).first)
        switch app.app.database.dialect {
        case .sqlite: #expect(second == first, "the database hands the same id to the new photo")
        case .postgres: #expect(second != first)
        }

        let after = try #require(Self.mediaURLs(try friend.get("\(party.base)/gift").text, party).first)
        #expect(after != before)
        let served = try friend.get(after)
        #expect(served.status == 200)
        #expect(served.header("Content-Type") == "image/png")
        #expect(served.header("Cache-Control") == "private, max-age=3600")
        // The old address, still in someone's cache or open tab, names bytes that are gone.
        #expect(try friend.get(before).status == 404)
    }

    // MARK: 3. Paid gifts

    @Test("the host cannot delete an unlocked gift: a clear refusal, no button, the gift and the badge's count stay")
    func unlockedGiftStays() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        // A second gift stays on offer, so the badge counts instead of opening.
        let offered = try Self.offered(party, by: 1, letter: "Later", cost: 5)
        let gift = try Self.unlockedGift(party)
        let panel = try party.host.get("\(party.base)/host").text
        #expect(!panel.contains("\(party.base)/host/gifts/\(gift)/delete"), "no delete button for an unlocked gift")
        let badgeBefore = try party.host.get("\(party.base)/timeline").text

        let refused = try party.host.postConfirming(
            "\(party.base)/host/gifts/\(gift)/delete", [], csrf: try party.host.token(from: "\(party.base)/host"))
        #expect(refused.status == 409)
        #expect(refused.text.contains("unlocked this gift with their points, so it stays"))
        #expect(try app.app.database.read { try OccasionStore.gift($0, occasionID: party.id, id: gift) }?.state == .unlocked)
        #expect(try party.celebrant.get("\(party.base)/gifts/\(gift)").status == 200)
        #expect(try party.balance() == 0 && party.derivedBalance() == 0)
        #expect(Self.badge(try party.host.get("\(party.base)/timeline").text) == Self.badge(badgeBefore))
        #expect(Self.badge(badgeBefore) == "1 of 2 gifts")

        // A gift not yet unlocked can still go, after the question.
        let deleted = try party.host.postConfirming(
            "\(party.base)/host/gifts/\(offered)/delete", [], csrf: try party.host.token(from: "\(party.base)/host"))
        #expect(deleted.status == 303)
        #expect(try app.app.database.read { try OccasionStore.gift($0, occasionID: party.id, id: offered) } == nil)
    }

    /// "1 of 1"-style counts the final badge announces.
    static func badge(_ page: String) -> String? {
        guard let range = page.range(of: #"[0-9]+ of [0-9]+ gifts?"#, options: .regularExpression) else { return nil }
        return String(page[range])
    }

    // MARK: 4. The celebrant link

    @Test("removing the celebrant makes a new celebrant link; the old one opens nothing and joins no one")
    func removedCelebrantLink() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let old = try OccasionParty.codes(app, party.id).celebrant
        let celebrantID = try #require(party.userIDs["alex_star"])
        let removed = try party.host.postConfirming(
            "\(party.base)/host/members/\(celebrantID)/remove", [], csrf: try party.host.token(from: "\(party.base)/host"))
        #expect(removed.status == 303)
        let fresh = try OccasionParty.codes(app, party.id).celebrant
        #expect(fresh != old)

        let preview = try party.stranger.get("/join/\(old)")
        #expect(preview.status == 404)
        #expect(preview.text.contains("That code doesn"))
        #expect(!preview.text.contains("Join as"))
        let join = try party.stranger.post("/join/\(old)", [], csrf: try party.stranger.token(from: "/join"))
        #expect(join.status == 404)
        #expect(try app.app.database.read { try OccasionStore.membership($0, occasionID: party.id, userID: party.userIDs["sam_stranger"]!) } == nil)
        // The new link works for the next celebrant.
        #expect(try OccasionParty.join(party.stranger, code: fresh).status == 303)
        #expect(try app.app.database.read { try OccasionStore.membership($0, occasionID: party.id, userID: party.userIDs["sam_stranger"]!) }?.role == .celebrant)
    }

    // MARK: 6. Price errors

    @Test("a price mistake comes back beside the price field, typed values kept, 422 — with and without the page script")
    func priceErrorBesideField() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let gift = try party.sendGift(party.contributors[0], letter: "Hi")
        for headers in [[:], ["X-Kith-Enhanced": "1"]] as [[String: String]] {
            let response = try party.host.post(
                "\(party.base)/host/gifts/\(gift)/price", [("cost", "lots"), ("position", "3")],
                csrf: try party.host.token(from: "\(party.base)/host"), headers: headers)
            #expect(response.status == 422)
            let page = response.text
            #expect(page.contains("id=\"cost-\(gift)-error\""), "the error sits beside the cost field")
            #expect(page.contains("Enter the cost as a whole number"))
            #expect(page.contains("aria-describedby=\"cost-\(gift)-error\""))
            #expect(page.contains("id=\"cost-\(gift)\" value=\"lots\""), "what was typed is kept")
            #expect(page.contains("id=\"position-\(gift)\" value=\"3\""))
            #expect(page.contains("Host panel"), "the panel, not a bare error page")
            #expect(!page.contains("error-page"))
        }
        let tooBig = try party.host.post(
            "\(party.base)/host/gifts/\(gift)/price", [("cost", "5"), ("position", "5000")], csrf: try party.host.token(from: "\(party.base)/host"))
        #expect(tooBig.status == 422)
        #expect(tooBig.text.contains("id=\"position-\(gift)-error\""))
        #expect(tooBig.text.contains("id=\"cost-\(gift)\" value=\"5\""))
        #expect(try app.app.database.read { try OccasionStore.gift($0, occasionID: party.id, id: gift) }?.cost == nil, "nothing was priced")
    }

    // MARK: 7. Wording

    @Test("join links say where one stands: a used celebrant link is a short page, members are not offered a join, the zone hint is the occasion's")
    func joinWording() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let codes = try OccasionParty.codes(app, party.id)

        let used = try party.visitor.get("/join/\(codes.celebrant)")
        #expect(used.text.contains("already been used"))
        #expect(!used.text.contains("name=\"display_name\""), "no guest form")
        #expect(!used.text.contains("Join as"))

        for member in [party.host, party.contributors[0], party.celebrant] {
            for code in [codes.celebrant, codes.contributor] {
                let page = try member.get("/join/\(code)")
                #expect(!page.text.contains("Join as"), "a member is told they are in, not offered a join")
                #expect(page.text.contains("already in"))
            }
        }

        let guest = try party.visitor.get("/join/\(codes.contributor)").text
        #expect(guest.contains("Join as contributor"))
        #expect(guest.contains("Times in Alex turns 30 are shown in this zone."))
        #expect(!guest.contains("Tallies reset"))
        // A stranger with an account is still offered the join.
        #expect(try party.stranger.get("/join/\(codes.contributor)").text.contains("Join as contributor"))
    }

    @Test("a removed giver has one name everywhere: the timeline and the gift page both say a former member")
    func removedAuthorName() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let gift = try Self.unlockedGift(party)
        let friendID = try #require(party.userIDs["friend_1"])
        #expect(try party.host.postConfirming(
            "\(party.base)/host/members/\(friendID)/remove", [], csrf: try party.host.token(from: "\(party.base)/host")).status == 303)
        for path in ["\(party.base)/timeline", "\(party.base)/gifts/\(gift)"] {
            let page = try party.celebrant.get(path).text
            #expect(page.contains("Letter from a former member"), "\(path)")
            #expect(!page.contains("(removed)") && !page.contains("Someone"), "\(path)")
        }
    }

    @Test("the sealed dossier counts its sealed files and never also says it has none; dares show no chips their authors never chose")
    func dossierWording() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        try party.fileDare(party.contributors[0], title: "Dance on a table", points: 20)
        try party.fileDare(party.contributors[1], title: "Sing the anthem", points: 20)
        let sealed = try party.celebrant.get("\(party.base)/classified").text
        #expect(sealed.contains("2 sealed files waiting"))
        #expect(!sealed.contains("No files yet"))

        #expect(try party.post(party.celebrant, "\(party.base)/classified/open", [], from: "\(party.base)/classified").status == 303)
        let opened = try party.celebrant.get("\(party.base)/classified").text
        #expect(opened.contains("challenge-row--dare"))
        #expect(!opened.contains("chip--category"), "a dare has no category")
        let dare = try party.newest("occasion_challenges")
        let found = try party.celebrant.get("\(party.base)/challenges/\(dare)")
        if found.status == 200 { #expect(!found.text.contains("chip--category")) }
    }

    @Test("the balance: once on the celebrant's gift pages, never '0 points to spend' for the host, no card linking to its own page")
    func balanceWording() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let gift = try Self.offered(party, by: 0, letter: "Soon", cost: 50)

        let host = try party.host.get(party.base).text
        #expect(!host.contains("points to spend</span>"))
        #expect(host.contains("for Alex to spend"))

        for path in ["\(party.base)/gifts", "\(party.base)/gifts/\(gift)"] {
            let page = try party.celebrant.get(path).text
            let shown = page.components(separatedBy: "class=\"points-balance\"").count - 1
                + page.components(separatedBy: "class=\"gift-carousel__balance\"").count - 1
            #expect(shown == 1, "the balance once on \(path)")
        }
        let own = try party.celebrant.get("\(party.base)/gifts/\(gift)").text
        #expect(!own.contains("href=\"\(party.base)/gifts/\(gift)\""), "a locked gift's page does not link to itself")
        #expect(try party.celebrant.get("\(party.base)/gifts").text.contains("href=\"\(party.base)/gifts/\(gift)\""))
        #expect(try party.celebrant.get(party.base).text.contains("points to spend"))
    }

    // MARK: 8. Headings

    @Test("a letter's '# heading' is never a second h1, and an empty timeline's heading follows the page's h1")
    func headings() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let empty = try party.celebrant.get("\(party.base)/timeline").text
        #expect(empty.contains("<h2 class=\"empty-state__title\">"))
        #expect(!empty.contains("<h3 class=\"empty-state__title\">"))
        let gifts = try party.celebrant.get("\(party.base)/gifts").text
        #expect(gifts.contains("<h2 class=\"empty-state__title\">"))

        let gift = try party.sendGift(party.contributors[0], letter: "# Dear Alex\n\n## The day we met\n\nText.")
        let page = try party.host.get("\(party.base)/gifts/\(gift)").text
        #expect(page.components(separatedBy: "<h1").count - 1 == 1)
        #expect(page.contains("<h3>Dear Alex</h3>"))
        #expect(page.contains("<h4>The day we met</h4>"))
    }

    // MARK: 5. The keepsake

    @Test("the keepsake keeps each challenge's proof: the words and the photo")
    func keepsakeProofs() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let challenge = try party.addChallenge("Selfie with a llama", points: 10)
        var form = MultipartForm()
        form.field("_csrf", try party.celebrant.token(from: "\(party.base)/challenges/\(challenge)"))
        form.field("proof", "photo")
        form.field("proof_text", "The llama approved")
        form.file("photo", filename: "llama.jpg", type: "image/jpeg", Fixture.jpegWithLocation())
        #expect(try party.celebrant.post(
            "\(party.base)/challenges/\(challenge)/complete", rawBody: form.body, headers: ["Content-Type": MultipartForm.contentType]).status == 303)
        let written = try party.addChallenge("Tell a joke", points: 5)
        #expect(try party.complete(written, proof: "text", text: "Why did the cake cry?").status == 303)

        let zip = try party.host.get("\(party.base)/keepsake")
        #expect(zip.status == 200)
        let text = String(decoding: zip.body, as: UTF8.self)
        #expect(text.contains("<blockquote class=\"moment__proof\"><p>The llama approved</p></blockquote>"))
        #expect(text.contains("Why did the cake cry?"))
        let sha = try #require(try app.app.database.read {
            try $0.queryValue("SELECT sha256 FROM occasion_media WHERE challenge_id = \(challenge)", as: String.self)
        })
        #expect(text.contains("src=\"media/\(sha.prefix(16)).jpg\""), "the proof photo is in the page")
        #expect(text.contains("media/\(sha.prefix(16)).jpg"), "and in the archive")
    }

    // MARK: Valid pages

    @Test(
        "the pages these fixes changed pass the Nu HTML checker: the price mistake, the join answers, the empty timeline, the host panel, the keepsake with proofs",
        .enabled(if: HTMLValidationTests.isAvailable && Tools.python3, "needs Java, the Nu HTML checker and python3"))
    func changedPagesValidate() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let codes = try OccasionParty.codes(app, party.id)
        let directory = try TemporaryDirectory("kith-defect-html")
        func save(_ name: String, _ response: TestResponse, status: Int) throws {
            #expect(response.status == status, "\(name)")
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        try save("timeline-empty", try party.celebrant.get("\(party.base)/timeline"), status: 200)
        try save("join-used", try party.visitor.get("/join/\(codes.celebrant)"), status: 409)
        try save("join-member", try party.host.get("/join/\(codes.contributor)"), status: 200)
        try save("join-guest", try party.visitor.get("/join/\(codes.contributor)"), status: 200)
        let gift = try party.sendGift(party.contributors[1], letter: "# Dear Alex\n\nA long one.")
        try save("price-error", try party.host.post(
            "\(party.base)/host/gifts/\(gift)/price", [("cost", "lots"), ("position", "")],
            csrf: try party.host.token(from: "\(party.base)/host")), status: 422)
        _ = try Self.unlockedGift(party)
        #expect(try party.complete(try party.addChallenge("Joke", points: 1), proof: "text", text: "Why did the cake cry?").status == 303)
        try save("host", try party.host.get("\(party.base)/host"), status: 200)
        try save("gift-host", try party.host.get("\(party.base)/gifts/\(gift)"), status: 200)
        try party.saveKeepsakePage(into: directory.path)
        try HTMLValidationTests.expectValid(directory: directory.path)
    }

    @Test("the keepsake links its stylesheet, which prints one gift per page; the timeline's sheet prints without its drawing")
    func printRules() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let zip = String(decoding: try party.host.get("\(party.base)/keepsake").body, as: UTF8.self)
        #expect(zip.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
        let keepsake = String(decoding: try #require(app.app.assets.asset(named: "css/keepsake.css")).bytes, as: UTF8.self)
        let print = try #require(keepsake.range(of: "@media print").map { String(keepsake[$0.lowerBound...]) })
        #expect(print.contains(".gift { break-before: page;"))
        #expect(print.contains("max-height"))
        #expect(zip.contains("@media print"), "the archive's style.css is that sheet")
        let timeline = String(decoding: try #require(app.app.assets.asset(named: "css/timeline.css")).bytes, as: UTF8.self)
        #expect(timeline.contains("@media print"))
        #expect(try party.celebrant.get("\(party.base)/timeline").text.contains("timeline"))
    }
}
