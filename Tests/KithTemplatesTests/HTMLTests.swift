import KithTemplates
import Testing

@Suite("HTML escapes by default")
struct HTMLTests {
    @Test("interpolated text escapes all five special characters")
    func escapesText() {
        let name = "<script>alert('x') & \"y\"</script>"
        let html: HTML = "<p>\(name)</p>"
        #expect(html.string == "<p>&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;</p>")
    }

    @Test("text without special characters is copied as it is, multibyte included")
    func copiesRuns() {
        let html: HTML = "<b>\("Zoë 🎉 plain")</b>"
        #expect(html.string == "<b>Zoë 🎉 plain</b>")
    }

    @Test("HTML values are spliced raw, so templates compose")
    func composes() {
        let inner: HTML = "<em>\("a<b")</em>"
        let outer: HTML = "<p>\(inner)</p>"
        #expect(outer.string == "<p><em>a&lt;b</em></p>")
    }

    @Test("arrays and optionals of HTML splice in order; nil is nothing")
    func arrays() {
        let items: [HTML] = ["<li>1</li>", "<li>2</li>"]
        let missing: HTML? = nil
        let html: HTML = "<ul>\(items)\(missing)</ul>"
        #expect(html.string == "<ul><li>1</li><li>2</li></ul>")
    }

    @Test("numbers are written as digits")
    func numbers() {
        let html: HTML = "<span>\(42)</span><span>\(Int64(-7))</span>"
        #expect(html.string == "<span>42</span><span>-7</span>")
    }

    @Test("integers of every size and sign are written as the same digits String gives")
    func integerDigits() {
        for value: Int64 in [0, 7, -7, 10, 99, 100, -100, 1_234_567_890, .max, .min, Int64(Int32.max) + 1] {
            let html: HTML = "<td>\(value)</td>"
            #expect(html.string == "<td>\(String(value))</td>")
            let narrow = Int(value)
            let asInt: HTML = "\(narrow)"
            #expect(asInt.string == String(value))
        }
        let small: UInt8 = 255
        let html: HTML = "\(small)"
        #expect(html.string == "255")
    }

    @Test("escaping finds special characters at every offset of the eight-byte scan, and nothing else changes")
    func escapingAtEveryOffset() {
        // A reference escaper, one scalar at a time.
        let entities: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]
        func reference(_ text: String) -> String {
            text.unicodeScalars.map { entities[$0] ?? String($0) }.joined()
        }
        // Bytes that sit next to the specials in value, and multibyte text, so
        // the word-at-a-time check meets its near misses and its borrows.
        let alphabet: [String] = ["a", "&", "<", ">", "\"", "'", "%", "(", "=", "?", ";", "!", "#", "\u{7F}", "\u{1}", "é", "ü", "日", "🦊", " "]
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            for _ in 0..<25 {
                let text = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
                let html: HTML = "\(text)"
                #expect(html.string == reference(text), "text: \(Array(text.utf8))")
            }
        }
        for offset in 0..<17 {
            for special in ["&", "<", ">", "\"", "'"] {
                let text = String(repeating: "x", count: offset) + special + String(repeating: "y", count: 16 - offset)
                #expect(HTML.text(text).string == reference(text))
            }
        }
        let long = String(repeating: "plain text without anything to escape ", count: 20)
        #expect(HTML.text(long).string == long)
    }

    @Test("attribute helper quotes and escapes, and omits nil")
    func attributes() {
        let title: String? = "say \"hi\" & <go>"
        let none: String? = nil
        let html: HTML = "<a\(attribute: "title", title)\(attribute: "href", none)>x</a>"
        #expect(html.string == "<a title=\"say &quot;hi&quot; &amp; &lt;go&gt;\">x</a>")
    }

    @Test("a value that tries to break out of an attribute stays inside it")
    func attributeBreakout() {
        let evil = "\" onmouseover=\"alert(1)"
        let html: HTML = "<input value=\"\(evil)\">"
        #expect(html.string == "<input value=\"&quot; onmouseover=&quot;alert(1)\">")
    }

    @Test("boolean attributes appear only when true")
    func booleanAttributes() {
        let html: HTML = "<input\(attribute: "required", when: true)\(attribute: "disabled", when: false)>"
        #expect(html.string == "<input required>")
    }

    @Test("unsafeRaw is the one door for trusted markup")
    func unsafeRaw() {
        let html: HTML = "<div>\(HTML.unsafeRaw("<svg></svg>"))</div>"
        #expect(html.string == "<div><svg></svg></div>")
    }

    @Test("joined puts a separator between parts")
    func joined() {
        let parts: [HTML] = ["a", "b", "c"]
        #expect(parts.joined(separator: ", ").string == "a, b, c")
    }
}

@Suite("Markdown through cmark, safely")
struct MarkdownTests {
    @Test("emphasis, links and lists render")
    func basics() {
        #expect(Markdown.render("Hello *there*").string == "<p>Hello <em>there</em></p>\n")
        #expect(Markdown.render("[Kith](https://example.org)").string == "<p><a href=\"https://example.org\">Kith</a></p>\n")
        #expect(Markdown.render("- a\n- b").string == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n")
    }

    @Test("raw HTML is dropped, not passed through")
    func rawHTMLDropped() {
        let html = Markdown.render("<script>alert(1)</script>\n\nhi <b onclick=x>there</b>").string
        #expect(!html.contains("<script"))
        #expect(!html.contains("onclick"))
        #expect(html.contains("<!-- raw HTML omitted -->"))
    }

    @Test("javascript: links lose their target")
    func javascriptLinks() {
        let html = Markdown.render("[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=)").string
        #expect(!html.contains("javascript:"))
        #expect(!html.contains("data:text/html"))
        #expect(html.contains("<a href=\"\">click</a>"))
    }

    @Test("text with special characters is escaped")
    func escaping() {
        #expect(Markdown.render("1 < 2 & \"quotes\"").string == "<p>1 &lt; 2 &amp; “quotes”</p>\n")
    }
}
