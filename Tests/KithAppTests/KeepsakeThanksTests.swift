import Foundation
@testable import KithApp
import KithStorage
import KithTestSupport
import Testing

@Suite("The keepsake keeps each gift's thank-you and reactions")
struct KeepsakeThanksTests {
    @Test("a thanked gift carries its words, its photo in media/ and its reaction counts; an unthanked one carries none")
    func thanksInKeepsake() throws {
        let app = try OccasionThanksTests.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, _) = try party.unlockedGift()
        #expect(try party.thank(party.celebrant, gift: gift, words: "You remembered the llama", photo: Fixture.jpegWithLocation()).status == 303)
        #expect(try party.react(party.contributors[0], gift: gift, "heart").status == 303)
        #expect(try party.react(party.host, gift: gift, "heart").status == 303)
        #expect(try party.react(party.host, gift: gift, "party").status == 303)

        let zip = try party.host.get("\(party.base)/keepsake")
        #expect(zip.status == 200)
        let text = String(decoding: zip.body, as: UTF8.self)
        #expect(text.contains("<h4>Thanks from Alex</h4>"))
        #expect(text.contains("<blockquote class=\"gift__thanks-words\"><p>You remembered the llama</p></blockquote>"))
        let sha = try #require(try app.app.database.read {
            try $0.queryValue("SELECT sha256 FROM occasion_thanks WHERE gift_id = \(gift)", as: String.self)
        })
        let name = "media/\(sha.prefix(16)).jpg"
        #expect(text.contains("src=\"\(name)\""), "the thank-you's photo is in the page")
        // The zip's central directory names each file once more after its local header.
        #expect(text.components(separatedBy: name).count - 1 >= 3, "and in the archive as a file")
        #expect(text.contains("2<span class=\"visually-hidden\"> (heart, 2 people)</span>"))
        #expect(text.contains("1<span class=\"visually-hidden\"> (party popper, 1 person)</span>"))
        #expect(!text.contains("(laughter,"), "a reaction nobody chose is left out")

        // The thanks sit inside the gift's article, which prints on its own page.
        let article = try #require(text.range(of: "<article class=\"gift\">").map { String(text[$0.lowerBound...]) })
        let end = try #require(article.range(of: "</article>"))
        #expect(article[..<end.lowerBound].contains("gift__thanks"))
        let sheet = String(decoding: try #require(app.app.assets.asset(named: "css/keepsake.css")).bytes, as: UTF8.self)
        let print = try #require(sheet.range(of: "@media print").map { String(sheet[$0.lowerBound...]) })
        #expect(print.contains(".gift__thanks { break-inside: avoid;"))
    }

    @Test("a voice-note thank-you goes into the keepsake as its file, named in the page")
    func voiceInKeepsake() throws {
        let app = try OccasionThanksTests.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, _) = try party.unlockedGift()
        #expect(try party.thank(party.celebrant, gift: gift, voice: wavFixture()).status == 303)
        let text = String(decoding: try party.host.get("\(party.base)/keepsake").body, as: UTF8.self)
        let sha = try #require(try app.app.database.read {
            try $0.queryValue("SELECT sha256 FROM occasion_thanks WHERE gift_id = \(gift)", as: String.self)
        })
        #expect(text.contains("media/\(sha.prefix(16))."))
        #expect(text.contains("Thank-you voice note from Alex"))
        #expect(!text.contains("class=\"gift__thanks-words\""), "no words were written, so no empty quote")
    }

    @Test(
        "the keepsake with thanks and reactions passes the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable && Tools.python3, "needs Java, the Nu HTML checker and python3"))
    func keepsakeValidates() throws {
        let app = try OccasionThanksTests.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (gift, _) = try party.unlockedGift()
        #expect(try party.thank(party.celebrant, gift: gift, words: "Thank you!", photo: Fixture.jpegWithLocation()).status == 303)
        #expect(try party.react(party.host, gift: gift, "wow").status == 303)
        let directory = try TemporaryDirectory("kith-keepsake-thanks")
        try party.saveKeepsakePage(into: directory.path)
        try HTMLValidationTests.expectValid(directory: directory.path)
    }
}

extension OccasionParty {
    /// The host's keepsake's `index.html`, read out of the zip with python3,
    /// as `keepsake.html` in `directory`, for the Nu checker.
    func saveKeepsakePage(into directory: String) throws {
        try Data(try host.get("\(base)/keepsake").body).write(to: URL(fileURLWithPath: directory + "/keepsake.zip"))
        let unzip = try runProgram(
            Tools.path("python3")!, ["-c", "import zipfile,sys; open(sys.argv[2],'wb').write(zipfile.ZipFile(sys.argv[1]).read('index.html'))",
                                     directory + "/keepsake.zip", directory + "/keepsake.html"])
        #expect(unzip.status == 0)
        try FileManager.default.removeItem(atPath: directory + "/keepsake.zip")
    }
}
