import Foundation
import KithCrypto
import Testing

@Suite("JSON string literals")
struct JSONStringTests {
    @Test("each character that needs it is escaped, exactly as written here", arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("say \"hi\"", #""say \"hi\"""#),
        (#"C:\path\"#, #""C:\\path\\""#),
        ("one\ntwo\r\tthree", #""one\ntwo\r\tthree""#),
        ("\u{0}\u{1}\u{8}\u{c}\u{1b}\u{1f}", #""\u0000\u0001\u0008\u000c\u001b\u001f""#),
        ("a\u{2028}b\u{2029}c", #""a\u2028b\u2029c""#),
        // Neither a control character nor a separator: left as it is.
        ("\u{7f}é€", "\"\u{7f}é€\""),
        // Beyond the BMP: one scalar, four UTF-8 bytes, never a surrogate pair.
        ("🎂", "\"🎂\""),
    ])
    func escapes(_ text: String, _ literal: String) {
        #expect(JSONString.quoted(text) == literal)
    }

    @Test("a JSON parser reads back exactly the text that went in")
    func roundTrips() throws {
        let text = "\"\\/\u{0}\u{1f} line\u{2028}para\u{2029} 🎂 é \u{7f}"
        let json = Data(("[" + JSONString.quoted(text) + "]").utf8)
        let parsed = try #require(try JSONSerialization.jsonObject(with: json) as? [String])
        #expect(parsed == [text])
    }

    @Test("the emoji stays four UTF-8 bytes, not a \\u escape")
    func nonBMPIsUTF8() {
        #expect(Array(JSONString.quoted("🎂").utf8) == [0x22, 0xF0, 0x9F, 0x8E, 0x82, 0x22])
    }
}
