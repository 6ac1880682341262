@testable import KithApp
import KithTemplates
import KithStorage
import KithTestSupport
import Testing

@Suite("The text policy")
struct TextPolicyTests {
    static let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"

    @Test("a bidi override in a tally name is refused with the invisible-character message")
    func overrideInName() {
        let (_, problem) = TextPolicy.name("abc\u{202E}fed", max: 60)
        #expect(problem == .reordering)
        #expect(FormMessages.message(for: .reordering, label: "the tally name")
            == "The tally name has an invisible character that changes how text reads; please type it again.")
        for scalar in ["\u{202A}", "\u{202D}", "\u{2066}", "\u{2069}", "\u{200F}"] {
            #expect(TextPolicy.name("a\(scalar)b", max: 60).problem == .reordering)
        }
    }

    @Test("a right-to-left mark, a soft hyphen, joiners and isolates are kept in a letter")
    func marksInLetter() {
        let letter = "Dear \u{2067}\u{0633}\u{0627}\u{0631}\u{0627}\u{2069},\u{200F} won\u{00AD}der\u{200C}ful\n\tlove"
        let (value, problem) = TextPolicy.text(letter, max: 20_000)
        #expect(problem == nil)
        #expect(value == letter)
    }

    @Test("overrides, embeddings and other control characters are refused in a letter")
    func refusedInLetter() {
        #expect(TextPolicy.text("one \u{202E}two", max: 100).problem == .reordering)
        #expect(TextPolicy.text("one \u{202B}two", max: 100).problem == .reordering)
        #expect(TextPolicy.text("bell\u{7}", max: 100).problem == .invisible)
    }

    @Test("two zero-width spaces are an empty game name")
    func invisibleOnlyIsEmpty() {
        #expect(TextPolicy.name("\u{200B}\u{200B}", max: 60).problem == .empty)
        #expect(TextPolicy.name(" \u{200D}\u{00AD}\u{2060}\u{FE0F} ", max: 60).problem == .empty)
        #expect(FormMessages.message(for: .empty, label: "the game name") == "Enter the game name.")
        // Inside a real name a zero-width space is still refused: nobody can see it.
        #expect(TextPolicy.name("Road\u{200B}Trip", max: 60).problem == .invisible)
    }

    @Test("ten family emoji are a 10-character name, and the limit counts Characters")
    func emojiCountAsCharacters() {
        let ten = String(repeating: TextPolicyTests.family, count: 10)
        #expect(ten.unicodeScalars.count == 70)
        #expect(TextPolicy.name(ten, max: 10) == (ten, nil))
        #expect(TextPolicy.name(ten + "x", max: 10).problem == .tooLong(max: 10))
        #expect(FormMessages.message(for: .tooLong(max: 10), label: "your name") == "Keep your name to 10 characters or fewer.")
    }

    @Test("one Character stacked with endless marks is too long, so the schema can store what is accepted")
    func stackedMarks() {
        let heavy = "a" + String(repeating: "\u{0301}", count: 20)
        #expect(heavy.count == 1)
        #expect(TextPolicy.name(heavy, max: 1).problem == .tooLong(max: 1))
    }

    @Test("NBSP and ideographic spaces are trimmed, inner whitespace becomes one space, and names are NFC")
    func cleaning() {
        #expect(TextPolicy.cleanName("\u{00A0}Road\u{3000}\t\n Trip\u{00A0}") == "Road Trip")
        #expect(TextPolicy.cleanName("Cafe\u{0301}").unicodeScalars.elementsEqual("Caf\u{00E9}".unicodeScalars))
        // Persian needs ZWNJ inside words.
        #expect(TextPolicy.name("\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", max: 60).problem == nil)
    }

    @Test("CRLF and lone CR become LF in long text")
    func lineEndings() {
        #expect(TextPolicy.cleanText("one\r\ntwo\rthree\n") == "one\ntwo\nthree")
    }
}

@Suite("The text policy through real forms")
struct TextPolicyFormTests {
    @Test("a tally name with a bidi override gets 422, the message beside the field and the typed text kept")
    func overrideInTallyName() throws {
        let app = try Tallies.harness()
        let owner = try Tallies.person(app, "owner")
        let id = try Tallies.create(owner.session)
        let before = try Tallies.row(app, id)
        let typed = "Coffee\u{202E}eettaL"
        let response = try Tallies.post(owner.session, "/tallies/\(id)/rename", [("name", typed)])
        #expect(response.status == 422)
        #expect(response.text.contains("The tally name has an invisible character that changes how text reads; please type it again."))
        #expect(response.text.contains("value=\"\(typed)\""))
        #expect(try Tallies.row(app, id) == before)
    }

    @Test("a letter with a right-to-left mark is saved as written")
    func letterWithMark() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let letter = "Happy birthday \u{200F}\u{05D9}\u{05D5}\u{05DD} \u{05D4}\u{05D5}\u{05DC}\u{05D3}\u{05EA} \u{05E9}\u{05DE}\u{05D7}\r\nwith love"
        let gift = try party.sendGift(party.contributors[0], letter: letter)
        let stored = try app.app.database.read { try $0.queryValue("SELECT body FROM occasion_gifts WHERE id = \(gift)", as: String.self) }
        #expect(stored == letter.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    @Test("a game name of 60 emoji Characters is accepted and stored whole")
    func emojiGameName() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let name = String(repeating: TextPolicyTests.family, count: 30) + String(repeating: "\u{1F1EC}\u{1F1E7}", count: 30)
        #expect(name.count == 60 && name.unicodeScalars.count == 270)
        let game = try Plates.create(dad.session, name: name)
        #expect(try app.app.database.read { try $0.queryValue("SELECT name FROM plate_games WHERE id = \(game)", as: String.self) } == name)
    }

    @Test("every name field in every form goes through the name policy, every long text through the text policy")
    func everyFieldJudged() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let base = party.base
        let tally = try Tallies.create(party.host)
        let game = try Plates.create(party.host)
        let friend = party.contributors[0]
        let reversed = "Al\u{202E}ex"
        let message = "has an invisible character that changes how text reads; please type it again."
        // Who posts, the page holding the form, where it posts, the other fields, and the field under test.
        let forms: [(WebSession, String, String, [(String, String)], String)] = [
            (party.host, "/settings", "/settings/profile", [("username", "hana_host"), ("avatar", "fox"), ("time_zone", "UTC")], "display_name"),
            (party.host, "/tallies/new", "/tallies", [("count", "0"), ("schedule", "off")], "name"),
            (party.host, "/tallies/\(tally)", "/tallies/\(tally)/rename", [], "name"),
            (party.host, "/games/new", "/games", [("mode", "collaborative")], "name"),
            (party.host, "/games/\(game)/players", "/games/\(game)/settings", [("mode", "collaborative")], "name"),
            (party.host, "/occasions/new", "/occasions", [("name", "N"), ("kind", "birthday"), ("celebrant_name", "C"), ("date", "2026-12-12"), ("host_name", "H")], "name"),
            (party.host, "/occasions/new", "/occasions", [("name", "N"), ("kind", "birthday"), ("celebrant_name", "C"), ("date", "2026-12-12"), ("host_name", "H")], "celebrant_name"),
            (party.host, "/occasions/new", "/occasions", [("name", "N"), ("kind", "birthday"), ("celebrant_name", "C"), ("date", "2026-12-12"), ("host_name", "H")], "host_name"),
            (party.host, "\(base)/host", "\(base)/host/challenges", [("title", "T"), ("points", "5"), ("difficulty", "easy"), ("category", "social")], "title"),
            (party.host, "\(base)/host", "\(base)/host/challenges", [("title", "T"), ("points", "5"), ("difficulty", "easy"), ("category", "social")], "option_b"),
            (party.host, "\(base)/host", "\(base)/host/challenges", [("title", "T"), ("points", "5"), ("difficulty", "easy"), ("category", "social")], "description"),
            (party.host, "\(base)/host", "\(base)/host/points", [("delta", "5")], "reason"),
            (friend, "\(base)/dare", "\(base)/dare", [("title", "T"), ("points", "10")], "title"),
            (friend, "\(base)/dare", "\(base)/dare", [("title", "T"), ("points", "10")], "description"),
            (friend, "\(base)/gift", "\(base)/gift", [], "body"),
        ]
        for (session, page, action, fields, field) in forms {
            let csrf = try session.token(from: page)
            let sent = fields.filter { $0.0 != field } + [(field, reversed)]
            let response = try session.post(action, sent, csrf: csrf)
            #expect(response.status == 422, "\(action) \(field): \(response.status)")
            #expect(response.text.contains(message), "\(action) \(field)")
        }
    }

    @Test("a name field's maxlength lets the browser take as many family emoji as the server accepts; the server says when it is too long")
    func maxlengthCountsLikeTheServer() throws {
        #expect(FormField.utf16UnitsPerCharacter == TextPolicy.scalarsPerCharacter * 2)
        let app = try accountsHarness()
        let party = try OccasionParty.make(app, contributors: 1)
        let pages: [(WebSession, String, String, Int)] = [
            (party.host, "/tallies/new", "name", 60), (party.host, "/games/new", "name", 60), (party.host, "/occasions/new", "name", 80),
            (party.host, "/occasions/new", "celebrant_name", 60), (party.host, "/settings", "display_name", 60),
            (WebSession(port: app.port), "/signup", "display_name", 60),
        ]
        for (session, page, field, limit) in pages {
            let text = try session.get(page).text
            let pattern = "name=\"\(field)\"[^>]*maxlength=\"([0-9]+)\""
            let range = try #require(text.range(of: pattern, options: .regularExpression), "\(page) \(field) has a maxlength")
            let found = Int(text[range].split(separator: "\"").last ?? "") ?? 0
            #expect(found >= String(repeating: TextPolicyTests.family, count: limit).utf16.count, "\(page) \(field): \(found)")
        }
        // What the browser lets through past the limit, the server refuses with its message.
        let tooLong = String(repeating: TextPolicyTests.family, count: 61)
        let csrf = try party.host.token(from: "/tallies/new")
        let refused = try party.host.post("/tallies", [("name", tooLong), ("count", "0"), ("schedule", "off")], csrf: csrf)
        #expect(refused.status == 422)
        #expect(refused.text.contains("60 characters"))
    }
}
