import Foundation
@testable import KithApp
import KithTemplates
import KithTestSupport
import Testing

/// What a first visit to each page costs on the wire: the HTML, every
/// stylesheet and script it links, and every module those scripts import,
/// fetched as a browser with an empty cache would (`Accept-Encoding: br,
/// gzip`). Images, icons, avatars and the service worker are not a
/// first-visit cost of the page and are left out.
@Suite("Page weight", .serialized)
struct PageWeightTests {
    /// The budget for one page, HTML + CSS + JS, compressed.
    static let budget = 60 * 1024

    /// The engine compresses responses (CompressionTests), so every response
    /// over 1 KB must arrive compressed and is weighed as it arrived: a page
    /// that loses compression fails the budget or the encoding check, naming
    /// itself.
    static let engineCompresses = true

    struct Weight {
        var html = 0, css = 0, js = 0
        var total: Int { html + css + js }
    }

    /// Fetches and weighs pages for one visitor; assets are weighed once.
    final class Scale {
        let session: WebSession
        /// Whether a response over 1 KB sent plain is a problem.
        let requireCompression: Bool
        private var cache: [String: Int] = [:]
        private(set) var problems: [String] = []
        private let scratch: TemporaryDirectory

        init(_ session: WebSession, requireCompression: Bool = PageWeightTests.engineCompresses) throws {
            self.session = session
            self.requireCompression = requireCompression
            scratch = try TemporaryDirectory("kith-weight")
        }

        func weigh(_ path: String) throws -> Weight {
            let page = try session.get(path, headers: ["Accept-Encoding": "br, gzip"])
            guard page.status == 200 else {
                problems.append("\(path) answered \(page.status)")
                return Weight()
            }
            return try weigh(html: page.text, of: path, htmlBytes: try wire(page, path))
        }

        /// Everything `html` (the page at `path`) makes a first visit fetch.
        func weigh(html: String, of path: String, htmlBytes: Int) throws -> Weight {
            var weight = Weight(html: htmlBytes)
            // The map's outline sprite is a picture, outside the budget, but
            // it must be there.
            let sprites = Set(PageWeightTests.links(in: html, tag: "use", rel: nil, attribute: "href").map { String($0.prefix { $0 != "#" }) })
            for sprite in sprites where cache[sprite] == nil {
                let response = try session.get(sprite)
                if response.status != 200 { problems.append("\(path) draws its map from \(sprite), which answered \(response.status)") }
                cache[sprite] = 0
            }
            for sheet in PageWeightTests.links(in: html, tag: "link", rel: "stylesheet", attribute: "href") {
                weight.css += try asset(sheet, from: path)
            }
            var scripts = PageWeightTests.links(in: html, tag: "script", rel: nil, attribute: "src")
            var seen = Set<String>()
            while let script = scripts.first {
                scripts.removeFirst()
                guard seen.insert(script).inserted else { continue }
                weight.js += try asset(script, from: path)
                let source = try session.get(script).text
                scripts += PageWeightTests.imports(in: source).map { PageWeightTests.resolve($0, against: script) }
            }
            return weight
        }

        private func asset(_ url: String, from page: String) throws -> Int {
            if let known = cache[url] { return known }
            let response = try session.get(url, headers: ["Accept-Encoding": "br, gzip"])
            guard response.status == 200 else {
                problems.append("\(page) links \(url), which answered \(response.status)")
                return 0
            }
            let size = try wire(response, url)
            cache[url] = size
            return size
        }

        /// Bytes sent for the body: as sent when compressed, else the estimate.
        private func wire(_ response: TestResponse, _ url: String) throws -> Int {
            if let encoding = response.header("Content-Encoding"), encoding != "identity" { return response.body.count }
            if requireCompression, response.body.count > 1024 {
                problems.append("\(url) was sent uncompressed (\(response.body.count) bytes) to a browser that accepts br and gzip")
            }
            return try PageWeightTests.gzipped(response.body, in: scratch)
        }
    }

    static func gzipped(_ bytes: [UInt8], in directory: TemporaryDirectory) throws -> Int {
        let file = "\(directory.path)/body"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let result = try runProgram("/bin/sh", ["-c", "gzip -9c '\(file)' | wc -c"])
        guard let size = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestError("gzip failed: \(result.output) \(result.errors)")
        }
        return size
    }

    /// The `attribute` of every `tag` (with `rel` when given) in `html`.
    static func links(in html: String, tag: String, rel: String?, attribute: String) -> [String] {
        let pattern = "<\(tag)\\b[^>]*>"
        let expression = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
        let range = NSRange(html.startIndex..., in: html)
        return expression.matches(in: html, range: range).compactMap { match -> String? in
            let element = String(html[Range(match.range, in: html)!])
            if let rel, !element.contains("rel=\"\(rel)\"") { return nil }
            return value(of: attribute, in: element)
        }
    }

    static func value(of attribute: String, in element: String) -> String? {
        guard let start = element.range(of: " \(attribute)=\"") else { return nil }
        let rest = element[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Static and dynamic module specifiers of a script: all are counted,
    /// as a browser may fetch any of them on first visit.
    static func imports(in source: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: #"(?:\bimport\s*\(\s*|\bfrom\s+|^import\s+)["'](\.{1,2}/[^"']+)["']"#, options: [.anchorsMatchLines])
        let range = NSRange(source.startIndex..., in: source)
        return expression.matches(in: source, range: range).map { String(source[Range($0.range(at: 1), in: source)!]) }
    }

    static func resolve(_ specifier: String, against script: String) -> String {
        var parts = script.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        for part in specifier.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": parts.removeLast()
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    /// Every kind of page, as the person who would see it.
    static func everyPage(_ app: AppHarness) throws -> [(name: String, session: WebSession, path: String)] {
        let ada = try Tallies.person(app, "ada", name: "Ada")
        let bob = try Tallies.person(app, "bob", name: "Bob")
        try Tallies.befriend(ada.session, "bob")
        let tally = try Tallies.create(ada.session, name: "Coffee", count: 3)
        let shared = try Tallies.create(ada.session, name: "Push-ups", shares: [(bob.id, "edit")])
        #expect(try Tallies.post(bob.session, "/tallies/\(shared)/increment").status == 303)

        let created = try ada.session.post(
            "/games", [("name", "Road trip"), ("mode", "competitive"), ("countries", "us-ca-mx")], csrf: try ada.session.token(from: "/games/new"))
        let game = try #require(created.header("Location").flatMap { Int64($0.dropFirst("/games/".count)) })
        #expect(try Plates.join(app, bob.session, game).status == 303)
        for state in ["TX", "CA", "CA-ON", "CA-QC", "MX-JAL"] { #expect(try Plates.spot(ada.session, game, state).status == 303) }
        #expect(try Plates.spot(bob.session, game, "NY").status == 303)

        let party = try OccasionParty.make(app, contributors: 2)
        let gift = try party.sendGift(party.contributors[0], letter: "Happy **birthday**")
        try party.price(gift, cost: 10)
        _ = try party.sendGift(party.contributors[1], letter: "Many happy returns")
        try party.addChallenge("Sing", points: 10)
        #expect(try party.post(party.host, "\(party.base)/host/points", [("delta", "50"), ("reason", "Start")], from: "\(party.base)/host").status == 303)
        #expect(try party.unlock(gift).status == 303)
        #expect(try party.post(party.host, "\(party.base)/host/book/open", from: "\(party.base)/host").status == 303)
        // A second occasion, ended, for the finale and closed pages.
        let ended = try OccasionParty.createOccasion(app, host: party.host, name: "Farewell Sam")
        let endedBase = "/occasions/\(ended)"
        #expect(try party.host.postConfirming("\(endedBase)/host/close", [], csrf: try party.host.token(from: "\(endedBase)/host")).status == 303)
        let (code, _) = try OccasionParty.codes(app, party.id)

        let visitor = WebSession(port: app.port)
        let base = party.base
        var pages: [(String, WebSession, String)] = [
            ("landing", visitor, "/"), ("sign-in", visitor, "/signin"), ("sign-up", visitor, "/signup"), ("join", visitor, "/join"),
            ("invite", visitor, "/join/\(code)"), ("recover", visitor, "/recover"),
            ("dashboard", ada.session, "/"), ("settings", ada.session, "/settings"), ("password", ada.session, "/settings/password"),
            ("inbox", bob.session, "/inbox"), ("friends", ada.session, "/friends"),
            ("new-tally", ada.session, "/tallies/new"), ("tally", ada.session, "/tallies/\(tally)"),
            ("shared-tally", bob.session, "/tallies/\(shared)"),
            ("new-game", ada.session, "/games/new"), ("game", ada.session, "/games/\(game)"), ("game-as-player", bob.session, "/games/\(game)"),
            ("game-spot", ada.session, "/games/\(game)/spot"),
            ("game-state", ada.session, "/games/\(game)/states/MX-JAL"), ("game-players", ada.session, "/games/\(game)/players"),
            ("game-trip", ada.session, "/games/\(game)/trip"),
            ("new-occasion", party.host, "/occasions/new"), ("occasion", party.host, base),
            ("occasion-celebrant", party.celebrant, base), ("challenges", party.contributors[0], "\(base)/challenges"),
            ("gifts", party.celebrant, "\(base)/gifts"), ("gift", party.celebrant, "\(base)/gifts/\(gift)"),
            ("write-gift", party.contributors[1], "\(base)/gift"), ("dare", party.contributors[0], "\(base)/dare"),
            ("timeline", party.contributors[0], "\(base)/timeline"), ("people", party.host, "\(base)/people"),
            ("host", party.host, "\(base)/host"), ("book", party.host, "\(base)/book"), ("party", party.host, "\(base)/party"),
            ("closed-occasion", party.host, endedBase), ("closed-timeline", party.host, "\(endedBase)/timeline"),
        ]
        if try visitor.get("/styleguide").status == 200 { pages.append(("styleguide", visitor, "/styleguide")) }
        return pages
    }

    @Test("every page's HTML, stylesheets and scripts weigh at most 60 KB compressed on a first visit")
    func everyPageWithinBudget() throws {
        let app = try Tallies.harness()
        let pages = try Self.everyPage(app)
        var scales: [ObjectIdentifier: Scale] = [:]
        var table = "page                  HTML     CSS      JS   total\n"
        var over: [String] = []
        for (name, session, path) in pages {
            let scale = try scales[ObjectIdentifier(session)] ?? Scale(session)
            scales[ObjectIdentifier(session)] = scale
            let weight = try scale.weigh(path)
            table += name.padding(toLength: 18, withPad: " ", startingAt: 0)
                + [weight.html, weight.css, weight.js, weight.total].map { String(format: "%8d", $0) }.joined() + "\n"
            if weight.total > Self.budget { over.append("\(name) (\(path)): \(weight.total) bytes") }
        }
        print(table)
        let problems = scales.values.flatMap(\.problems)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(over.isEmpty, "over the \(Self.budget)-byte budget:\n\(over.joined(separator: "\n"))")
    }

    @Test("the map sprites in Public/maps hold exactly the atlases' outlines, and a board draws from them")
    func mapSprites() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for atlas in MapAtlas.all {
            let file = root.appendingPathComponent("Public/\(atlas.sprite)")
            let expected = USMap.sprite(atlas)
            if ProcessInfo.processInfo.environment["KITH_WRITE_SPRITES"] == "1" {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try expected.write(to: file, atomically: true, encoding: .utf8)
            }
            let stored = try? String(contentsOf: file, encoding: .utf8)
            #expect(stored == expected, "Public/\(atlas.sprite) is not the map data's: after `make map`, run KITH_WRITE_SPRITES=1 swift test --filter PageWeightTests")
        }
        let app = try Plates.harness()
        let (dad, game, _) = try Plates.family(app, mode: "competitive")
        let board = try dad.session.get("/games/\(game)").text
        #expect(!board.contains("<path"), "no outline is inline")
        let uses = Self.links(in: board, tag: "use", rel: nil, attribute: "href")
        #expect(uses.count > 100, "the board and Mom's mini board draw every state")
        #expect(Set(uses.map { $0.prefix { $0 != "#" } }).count == 1)
        #expect(try dad.session.get(String(try #require(uses.first).prefix { $0 != "#" })).status == 200)
    }

    @Test("the weighing can fail: a missing stylesheet is reported, and the link and import finders see what a browser fetches")
    func weighingCanFail() throws {
        let app = try Tallies.harness()
        let scale = try Scale(WebSession(port: app.port))
        _ = try scale.weigh("/")
        #expect(scale.problems.isEmpty)
        // A page that links a stylesheet the server does not have.
        let html = #"<link rel="stylesheet" href="/static/css/gone.css"><script type="module" src="/static/js/app.js"></script>"#
        #expect(Self.links(in: html, tag: "link", rel: "stylesheet", attribute: "href") == ["/static/css/gone.css"])
        #expect(Self.links(in: html, tag: "script", rel: nil, attribute: "src") == ["/static/js/app.js"])
        let weight = try scale.weigh(html: html, of: "/broken", htmlBytes: 0)
        #expect(scale.problems == ["/broken links /static/css/gone.css, which answered 404"])
        #expect(weight.js > 1000, "app.js and the modules it imports are weighed")
        // Demanding compression: the engine sends the stylesheet compressed,
        // so nothing is named.
        let strict = try Scale(WebSession(port: app.port), requireCompression: true)
        _ = try strict.weigh("/signin")
        #expect(strict.problems.isEmpty)
        let source = "import * as queue from \"./queue.js\";\nconst m = import(\"./motion.js\");\nimport { a } from '../x/y.js';\n"
        #expect(Self.imports(in: source) == ["./queue.js", "./motion.js", "../x/y.js"])
        #expect(Self.resolve("./motion.js", against: "/static/js/app.1a2b.js") == "/static/js/motion.js")
        #expect(Self.resolve("../x/y.js", against: "/static/js/app.js") == "/static/x/y.js")
    }

    @Test("a page links only the stylesheets and scripts of its own feature")
    func featureAssetsStayHome() throws {
        let app = try Tallies.harness()
        let ada = try Tallies.person(app, "ada")
        let tally = try Tallies.create(ada.session)
        let game = try Plates.create(ada.session)
        let occasion = try OccasionParty.createOccasion(app, host: ada.session)
        func assets(_ path: String) throws -> [String] {
            let html = try ada.session.get(path).text
            return Self.links(in: html, tag: "link", rel: "stylesheet", attribute: "href")
                + Self.links(in: html, tag: "script", rel: nil, attribute: "src")
        }
        let features: [(name: String, pages: [String], files: [String])] = [
            ("tallies", ["/tallies/new", "/tallies/\(tally)"], ["tallies.", "tally-"]),
            ("plates", ["/games/new", "/games/\(game)"], ["plates.", "plate-map."]),
            ("occasions", ["/occasions/\(occasion)", "/occasions/\(occasion)/timeline"], ["occasions.", "timeline.", "reveal.", "party.", "keepsake."]),
        ]
        for feature in features {
            for page in feature.pages {
                #expect(try assets(page).contains { url in feature.files.contains { url.contains("/\($0)") } }, "\(page) links its own assets")
            }
            let others = features.filter { $0.name != feature.name }.flatMap(\.pages) + ["/settings", "/friends", "/inbox"]
            for page in others {
                let foreign = try assets(page).filter { url in feature.files.contains { url.contains("/\($0)") } }
                #expect(foreign.isEmpty, "\(page) links \(feature.name) assets: \(foreign)")
            }
        }
    }
}
