import Foundation
import Testing

/// A link typed as a string can drift from the route that serves it; one
/// built from the route cannot. Templates and scripts therefore take every
/// app path from the app (a page model, `SiteLinks`, a `data-` attribute),
/// and this test keeps it so by reading their source.
@Suite("Links come from routes")
struct RouteLiteralTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Files allowed a path literal. Every template and script takes its
    /// links from routes; keep it that way.
    static let exempt: [String] = []

    /// A quote, then `/` and a letter: `"/join"`, `\"/settings\"`, `` `/live?` ``.
    /// Not `//` (scheme-relative), not `"/"` alone, not `</p>`.
    static var pathLiteral: Regex<(Substring, Substring)> { /["'`](\/[A-Za-z][^"'`\s]*)/ }

    /// Content-hashed assets are served by the file server, not by a route.
    static func isAsset(_ path: String) -> Bool { path.hasPrefix("/static/") }

    /// The app paths a line of source spells out. Comment lines may quote a
    /// path to explain a shape.
    static func typedPaths(in line: String) -> [String] {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("//") || trimmed.hasPrefix("*") || trimmed.hasPrefix("/*") { return [] }
        return line.matches(of: pathLiteral).map { String($0.1) }.filter { !isAsset($0) }
    }

    static func sources() throws -> [(path: String, text: String)] {
        let folders = [("Templates", "swift"), ("Public/js", "js")]
        var found: [(String, String)] = []
        for (folder, suffix) in folders {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == suffix {
                let relative = folder + "/" + url.path.dropFirst(base.path.count + 1)
                if exempt.contains(where: { relative.hasPrefix($0) }) { continue }
                found.append((relative, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    @Test("no template or script types an app path")
    func noTypedPaths() throws {
        let files = try Self.sources()
        #expect(files.contains { $0.path.hasPrefix("Templates/") }, "the templates were not found")
        #expect(files.contains { $0.path.hasPrefix("Public/js/") }, "the scripts were not found")
        var offences: [String] = []
        for file in files {
            for (number, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for path in Self.typedPaths(in: String(line)) { offences.append("\(file.path):\(number + 1): \(path)") }
            }
        }
        #expect(offences.isEmpty, "build these from a route instead:\n\(offences.joined(separator: "\n"))")
    }

    @Test(
        "the check sees a typed path in each shape a template or script writes one",
        arguments: [
            #"<a href="/join">Join</a>"#,
            #"<form method="post" action="/signout">"#,
            #"Button.link("New game", href: "/games/new")"#,
            #"let base = "/occasions/\(header.id)/host""#,
            #"? "<a href=\"/settings#devices\">settings</a>""#,
            #"const response = await fetch("/inbox/list", { credentials: "same-origin" });"#,
            #"const url = `/live?topics=${topics}`;"#,
            #"navigator.serviceWorker.register('/sw.js');"#,
        ])
    func seesTypedPaths(line: String) {
        #expect(!Self.typedPaths(in: line).isEmpty)
    }

    @Test(
        "the check lets through assets, other sites, anchors, the bare root and comments",
        arguments: [
            #"<link rel="stylesheet" href="\(context.assetURL("css/app.css"))">"#,
            #"icon: "/static/icons/kith-192.png","#,
            #"<a href="https://example.org/about">"#,
            #"<script src="//cdn.example.org/x.js">"#,
            ##"<a class="skip-link" href="#main">Skip</a>"##,
            #"return found ? found : self.location.origin + "/";"#,
            #"<path d="M14 20.5l4 4 8-9"/></svg>"#,
            #"/// `/games/7/players`: the invite, "/games/7" in prose"#,
            #"// {"title": "...", "url": "/path"}"#,
        ])
    func allows(line: String) {
        #expect(Self.typedPaths(in: line).isEmpty)
    }
}
