import Foundation
@testable import KithApp
import KithTemplates
import KithTestSupport
import Testing

@Suite("QR codes")
struct QRCodeTests {
    static let link = "https://kith.example.org/join/Xq7-Hb2_kP9wZ"

    @Test("a QR code is one SVG with a white square and a single path, labelled for screen readers")
    func structure() throws {
        let svg = QRCode.svg(for: Self.link, label: "QR code of the invite link").string
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"shape-rendering="crispEdges""#))
        #expect(svg.contains(#"role="img""#))
        #expect(svg.contains(#"aria-label="QR code of the invite link""#))
        #expect(svg.contains(##"fill="#2A2433""##))
        #expect(svg.components(separatedBy: "<path").count == 2)
        #expect(svg.components(separatedBy: "<rect").count == 2)
        // 44 bytes is more than version 3 holds at level M (42), so version
        // 4: 33 modules, plus a 4-module quiet zone on each side.
        #expect(svg.contains(#"viewBox="0 0 41 41""#))
        #expect(!svg.contains("style="))
    }

    @Test("runs of dark modules merge, so the path stays small")
    func compact() {
        let svg = QRCode.svg(for: Self.link, label: "QR").string
        #expect(svg.utf8.count < 6_000, "\(svg.utf8.count) bytes")
        // A finder pattern's top row is seven dark modules in one rectangle,
        // starting at the quiet zone.
        #expect(svg.contains("M4 4h7v1h-7z"))
        #expect(QRCode.darkModulesPath(width: 3) { row, column in row == 1 && column != 1 } == "M4 5h1v1h-1zM6 5h1v1h-1z")
        #expect(QRCode.darkModulesPath(width: 3) { _, _ in true } == "M4 4h3v1h-3zM4 5h3v1h-3zM4 6h3v1h-3z")
    }

    @Test("the label is escaped")
    func escapedLabel() {
        let svg = QRCode.svg(for: "x", label: #"Join "<b>Mum & Dad's</b>""#).string
        #expect(svg.contains(#"aria-label="Join &quot;&lt;b&gt;Mum &amp; Dad&#39;s&lt;/b&gt;&quot;""#))
        #expect(!svg.contains("<b>"))
    }

    @Test("text too long for any QR code gives no markup rather than a broken code")
    func tooLong() {
        #expect(QRCode.svg(for: String(repeating: "x", count: 3_000), label: "QR").isEmpty)
    }

    @Test(
        "a scanner reads back exactly the text that was encoded",
        .enabled(if: Tools.qrScanner, "needs rsvg-convert (librsvg2-bin) and zbarimg (zbar-tools); `make test` installs them"),
        arguments: [
            link,
            "https://kith.example.org/occasions/42/invite?code=AbCdEf-123_xyz&lang=en#join",
            "http://127.0.0.1:8080/continue/" + String(repeating: "k7Q_", count: 16),
        ]
    )
    func decodes(_ text: String) throws {
        let folder = try TemporaryDirectory("kith-qr")
        let svgFile = folder.file("code.svg")
        let pngFile = folder.file("code.png")
        try Data(QRCode.svg(for: text, label: "QR code").bytes).write(to: URL(fileURLWithPath: svgFile))

        let converted = try runProgram(Tools.path("rsvg-convert")!, ["--zoom", "8", "--output", pngFile, svgFile])
        #expect(converted.status == 0, "rsvg-convert: \(converted.errors)")
        // Standard error is kept apart: zbarimg reports there when it cannot
        // reach D-Bus, which is noise in a container.
        let scanned = try runProgram(Tools.path("zbarimg")!, ["--raw", "-q", pngFile])
        #expect(scanned.status == 0, "zbarimg found no code: \(scanned.errors)")
        #expect(scanned.output.trimmingCharacters(in: .newlines) == text)
    }
}
