import Testing
import KithTemplates

/// Interpolation writes into storage longer than what is written and trims
/// it at the end: what comes out must be exactly what went in, however far
/// past the first guess of its size the page grows.
@Suite("HTML built in place")
struct HTMLBufferTests {
    @Test("a page many times its reserved size comes out whole, in order, with nothing after its last byte")
    func growsPastReservation() {
        let rows = (0..<500).map { (id: Int64($0 * 7 - 100), name: "row <\($0)> & 'more' \"text\" ünïcödé") }
        var page = HTML.StringInterpolation(literalCapacity: 0, interpolationCount: 0)
        var expected = ""
        page.appendLiteral("<table>")
        expected += "<table>"
        for row in rows {
            // Each row is its own small interpolation, spliced into the page.
            page.appendInterpolation("<tr><td>\(row.id)</td><td>\(row.name)</td></tr>" as HTML)
            expected += "<tr><td>\(row.id)</td><td>\(Escaping.escape(row.name))</td></tr>"
        }
        page.appendLiteral("</table>")
        expected += "</table>"
        let html = HTML(stringInterpolation: page)
        #expect(html.bytes.count == expected.utf8.count)
        #expect(html.string == expected)
    }

    @Test("an interpolation that writes nothing is empty, not its reserved zeros")
    func empty() {
        let nothing: HTML = "\(HTML?.none)"
        #expect(nothing.bytes.isEmpty)
        let page = HTML.StringInterpolation(literalCapacity: 100, interpolationCount: 3)
        #expect(HTML(stringInterpolation: page).bytes.isEmpty)
    }

    @Test("every kind of interpolation lands in one page in the order written")
    func everyKind() {
        let part: HTML = "<b>bold</b>"
        let parts: [HTML] = ["<i>1</i>", "<i>2</i>"]
        let text: Substring = "a<b"[...]
        let html: HTML = "\(part)\(parts)\(text)\(UInt16(65535))\(-12)\(attribute: "title", "x\"y")\(attribute: "hidden", when: true)"
        #expect(html.string == #"<b>bold</b><i>1</i><i>2</i>a&lt;b65535-12 title="x&quot;y" hidden"#)
    }
}
