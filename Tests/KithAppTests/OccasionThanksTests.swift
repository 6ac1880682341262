import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

/// A short, valid WAV file: what a voice-note thank-you sends.
func wavFixture(samples: Int = 800) -> [UInt8] {
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
    func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
    let data = (0..<samples).flatMap { index in le16(Int((sin(Double(index) / 5) * 8000).rounded()) & 0xFFFF) }
    return Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVE".utf8) + Array("fmt ".utf8) + le32(16) + le16(1) + le16(1)
        + le32(8000) + le32(16000) + le16(2) + le16(16) + Array("data".utf8) + le32(data.count) + data
}

extension OccasionParty {
    /// Friend 1's letter, priced and unlocked by the celebrant; Friend 2's
    /// letter on offer, still locked. Returns (unlocked, locked).
    func unlockedGift() throws -> (unlocked: Int64, locked: Int64) {
        let gift = try sendGift(contributors[0], letter: "Happy birthday from Friend 1")
        try price(gift, cost: 10)
        let other = try sendGift(contributors[1], letter: "A second letter")
        try price(other, cost: 500)
        let challenge = try addChallenge("Sing", points: 20)
        guard try complete(challenge).status == 303, try unlock(gift).status == 303 else { throw TestError("unlocking failed") }
        return (gift, other)
    }

    /// Posts a thank-you as the multipart form does.
    func thank(
        _ session: WebSession, gift: Int64, words: String = "", photo: [UInt8]? = nil, voice: [UInt8]? = nil, csrf: Bool = true
    ) throws -> TestResponse {
        var form = MultipartForm()
        if csrf { form.field("_csrf", try session.token(from: "\(base)/gifts/\(gift)")) }
        form.field("words", words)
        if let photo { form.file("photo", filename: "thanks.jpg", type: "image/jpeg", photo) }
        if let voice { form.file("voice", filename: "thanks.wav", type: "audio/wav", voice) }
        return try session.post("\(base)/gifts/\(gift)/thanks", rawBody: form.body, headers: ["Content-Type": MultipartForm.contentType])
    }

    func thanksCount() throws -> Int {
        try app.app.database.read { try $0.queryValue("SELECT count(*) FROM occasion_thanks", as: Int.self) } ?? -1
    }

    func react(_ session: WebSession, gift: Int64, _ emoji: String) throws -> TestResponse {
        try post(session, "\(base)/gifts/\(gift)/reactions", [("emoji", emoji)], from: "\(base)/gifts/\(gift)")
    }
}

@Suite("Occasion thanks and reactions: who sees and writes them")
struct OccasionThanksTests {
    static func harness() throws -> AppHarness {
        try AppHarness(configure: { $0.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1) })
    }

    @Test("the celebrant thanks the giver; the giver, the host and the celebrant see it, nobody else does")
    func thanksReach() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, locked) = try party.unlockedGift()
        let page = "\(party.base)/gifts/\(gift)"
        let giver = party.userIDs["friend_1"]!

        // The giver heard at once, not with the next digest: the entry is in their inbox already.
        let inbox = { (kind: String) in
            try app.app.database.read {
                try $0.queryValue("SELECT count(*) FROM notifications WHERE kind = \(kind) AND user_id = \(giver)", as: Int.self)
            }
        }
        #expect(try inbox("occasion.unlocked") == 1)
        #expect(try party.contributors[0].get("/inbox").text.contains("Alex Star unlocked your gift in Alex turns 30"))

        // The giver's page says when it was opened, before any thanks.
        let before = try party.contributors[0].get(page).text
        #expect(before.contains("Alex opened your gift on"))
        #expect(before.contains("No thank-you from Alex yet."))
        #expect(try party.celebrant.get(page).text.contains("Say thank you to Friend 1"))

        let sent = try party.thank(party.celebrant, gift: gift, words: "Thank you, it made me cry")
        #expect(sent.status == 303)
        #expect(sent.header("Location") == page)
        for viewer in [party.celebrant, party.host, party.contributors[0]] {
            let shown = try viewer.get(page)
            #expect(shown.status == 200)
            #expect(shown.text.contains("Thank you, it made me cry"))
        }
        #expect(try party.contributors[0].get("\(party.base)/timeline").text.contains("Alex thanked you"))
        #expect(try party.host.get("\(party.base)/timeline").text.contains("Thank you, it made me cry"))
        // Another contributor sees neither the gift nor its thanks, not even on the timeline.
        #expect(try party.contributors[1].get(page).status == 404)
        #expect(!(try party.contributors[1].get("\(party.base)/timeline").text.contains("made me cry")))
        #expect(try party.stranger.get(page).status == 404)
        // The giver hears of it through the digest engine.
        let waiting = try app.app.database.read {
            try $0.queryValue(
                "SELECT count(*) FROM notification_digests WHERE kind = 'occasion.thanked' AND user_id = \(party.userIDs["friend_1"]!)",
                as: Int.self)
        }
        #expect(waiting == 1)

        // One thank-you per gift, as sent: a second is refused and changes nothing.
        let again = try party.thank(party.celebrant, gift: gift, words: "Again")
        #expect(again.status == 409)
        #expect(try party.thanksCount() == 1)

        // Only the celebrant thanks; outsiders meet 404, and a gift still locked has nothing to thank.
        #expect(try party.thank(party.contributors[0], gift: gift, words: "Me?").status == 403)
        #expect(try party.thank(party.host, gift: gift, words: "Me?").status == 403)
        #expect(try party.thank(party.contributors[1], gift: gift, words: "Me?").status == 404)
        #expect(try party.thank(party.celebrant, gift: locked, words: "Early").status == 404)
        let outsider = try party.stranger.post(
            "\(party.base)/gifts/\(gift)/thanks", rawBody: Array("_csrf=x&words=hi".utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(outsider.status == 404)
        #expect(try party.thanksCount() == 1)
    }

    @Test("a thank-you needs CSRF and sane input; refusals keep nothing")
    func thanksInput() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, _) = try party.unlockedGift()
        let filesBefore = filesBelow(app.app.media.directory).count

        #expect(try party.thank(party.celebrant, gift: gift, words: "No token", csrf: false).status == 403)
        let empty = try party.thank(party.celebrant, gift: gift)
        #expect(empty.status == 422)
        #expect(empty.text.contains("Write a few words, or add a photo or a voice note."))
        #expect(try party.thank(party.celebrant, gift: gift, words: String(repeating: "a", count: 2001)).status == 422)
        let notImage = try party.thank(party.celebrant, gift: gift, photo: Array("just some text, not a photo".utf8))
        #expect(notImage.status == 422)
        let both = try party.thank(party.celebrant, gift: gift, photo: Fixture.jpegWithLocation(), voice: wavFixture())
        #expect(both.status == 422)
        #expect(both.text.contains("Choose a photo or a voice note, not both."))
        #expect(try party.thanksCount() == 0)
        #expect(filesBelow(app.app.media.directory).count == filesBefore)
        #expect(filesBelow(app.app.configuration.dataDirectory + "/tmp").isEmpty)

        // A voice note is kept, served to those who see the thanks, and to nobody else.
        #expect(try party.thank(party.celebrant, gift: gift, voice: wavFixture()).status == 303)
        let thanksID = try party.newest("occasion_thanks")
        let url = "\(party.base)/thanks/\(thanksID)/media"
        #expect(try party.contributors[0].get("\(party.base)/gifts/\(gift)").text.contains(url))
        let served = try party.contributors[0].get(url)
        #expect(served.status == 200)
        #expect(served.header("Content-Type")?.hasPrefix("audio/") == true)
        #expect(try party.contributors[1].get(url).status == 404)
        #expect(try party.stranger.get(url).status == 404)

        // The celebrant's account goes: the thank-you and its file go with it.
        #expect(try postDelete(party.celebrant, [("password", "correct horse")]).status == 303)
        #expect(try party.thanksCount() == 0)
        #expect(filesBelow(app.app.media.directory).count == filesBefore)
    }

    @Test("reactions: one of each per member, toggled, counted in words; outsiders and locked gifts refused")
    func reactions() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, locked) = try party.unlockedGift()
        let page = "\(party.base)/gifts/\(gift)"

        #expect(try party.react(party.contributors[0], gift: gift, "heart").status == 303)
        #expect(try party.react(party.celebrant, gift: gift, "heart").status == 303)
        #expect(try party.react(party.host, gift: gift, "party").status == 303)
        let giverView = try party.contributors[0].get(page).text
        #expect(giverView.contains("2 people reacted with heart, including you"))
        #expect(giverView.contains("1 person reacted with party popper"))
        #expect(giverView.contains("aria-pressed=\"true\""))
        // Pressing again takes it back.
        #expect(try party.react(party.celebrant, gift: gift, "heart").status == 303)
        #expect(try party.contributors[0].get(page).text.contains("1 person reacted with heart, including you"))

        #expect(try party.react(party.celebrant, gift: gift, "thumbs").status == 422)
        #expect(try party.react(party.celebrant, gift: gift, "").status == 422)
        #expect(try party.react(party.contributors[1], gift: gift, "heart").status == 404)
        #expect(try party.react(party.celebrant, gift: locked, "heart").status == 404)
        let noToken = try party.celebrant.post("\(page)/reactions", [("emoji", "wow")])
        #expect(noToken.status == 403)
        let count = try app.app.database.read { try $0.queryValue("SELECT count(*) FROM occasion_reactions", as: Int.self) }
        #expect(count == 2)
    }

    @Test(
        "the thanks form with an error, a thank-you with its player, reactions and the timeline pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func pagesValidate() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, _) = try party.unlockedGift()
        let directory = try TemporaryDirectory("kith-thanks-html")
        let refused = try party.thank(party.celebrant, gift: gift)
        #expect(refused.status == 422)
        try Data(refused.body).write(to: URL(fileURLWithPath: directory.path + "/thanks-refused.html"))
        #expect(try party.thank(party.celebrant, gift: gift, words: "Thank you!\nReally.", voice: wavFixture()).status == 303)
        #expect(try party.react(party.contributors[0], gift: gift, "tears").status == 303)
        let page = "\(party.base)/gifts/\(gift)"
        try HTMLValidationTests.expectValid(
            [
                ("thanks-giver", party.contributors[0], page), ("thanks-celebrant", party.celebrant, page), ("thanks-host", party.host, page),
                ("thanks-timeline", party.contributors[0], "\(party.base)/timeline"),
            ], directory: directory)
    }

    @Test("a gift the host opens from the panel reaches its giver's inbox at once too")
    func hostUnlockTellsAtOnce() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let gift = try party.sendGift(party.contributors[0], letter: "Hi")
        try party.price(gift, cost: 10)
        #expect(!(try party.contributors[0].get("/inbox").text.contains("unlocked your gift")))
        #expect(try party.post(party.host, "\(party.base)/host/gifts/\(gift)/unlock", [], from: "\(party.base)/host").status == 303)
        #expect(try party.contributors[0].get("/inbox").text.contains("Hana unlocked your gift in Alex turns 30"))
    }

    @Test("the rule: thanks and reactions follow an unlocked gift's readers, and the open book lets everyone in")
    func visibilityRule() {
        func sees(_ role: OccasionRole, viewer: Int64, unlocked: Bool = true, book: Bool = false) -> Bool {
            OccasionThanks.visible(unlocked: unlocked, authorID: 2, viewerID: viewer, role: role, bookIsOpen: book)
        }
        #expect(sees(.contributor, viewer: 2))
        #expect(sees(.celebrant, viewer: 3))
        #expect(sees(.host, viewer: 4))
        #expect(!sees(.contributor, viewer: 5))
        #expect(sees(.contributor, viewer: 5, book: true))
        #expect(!sees(.contributor, viewer: 2, unlocked: false, book: true))
        #expect(!sees(.celebrant, viewer: 3, unlocked: false))
    }
}
