import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import KithApp
import Testing

@Suite("Avatars and avatar colours")
struct AvatarTests {
    static let avatarsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Public/avatars")

    @Test("there are at least eight avatars, each with a unique id, its own file name and a label")
    func catalogue() {
        #expect(Avatars.all.count >= 8)
        #expect(Set(Avatars.all.map(\.id)).count == Avatars.all.count)
        for avatar in Avatars.all {
            #expect(avatar.file == "avatars/\(avatar.id).svg")
            #expect(!avatar.label.isEmpty)
            #expect(Avatars.named(avatar.id) == avatar)
        }
        #expect(Avatars.named("dragon") == nil)
        #expect(Avatars.named("") == nil)
        #expect(Avatars.named("../fox") == nil)
    }

    @Test("every avatar file is a small, well-formed 96×96 SVG on its own background circle")
    func filesAreWellFormed() throws {
        for avatar in Avatars.all {
            let url = Self.avatarsFolder.deletingLastPathComponent().appendingPathComponent(avatar.file)
            let data = try #require(try? Data(contentsOf: url), "\(avatar.file) is missing")
            #expect(data.count < 2048, "\(avatar.file) is \(data.count) bytes")
            let outline = SVGOutline(data)
            #expect(outline.error == nil, "\(avatar.file): \(outline.error ?? "")")
            let root = try #require(outline.elements.first, "\(avatar.file) is empty")
            #expect(root.name == "svg")
            #expect(root.attributes["viewBox"] == "0 0 96 96", "\(avatar.file)")
            let background = try #require(outline.elements.dropFirst().first)
            #expect(background.name == "circle", "\(avatar.file) starts with its background circle")
            #expect(background.attributes["r"] == "48" && background.attributes["fill"] != nil, "\(avatar.file)")
        }
    }

    @Test("no avatar carries script, inline style or a reference to anything outside it")
    func filesAreSelfContained() throws {
        let allowedElements: Set<String> = ["svg", "circle", "ellipse", "rect", "path", "g"]
        for avatar in Avatars.all {
            let url = Self.avatarsFolder.deletingLastPathComponent().appendingPathComponent(avatar.file)
            let data = try Data(contentsOf: url)
            let text = String(decoding: data, as: UTF8.self).lowercased()
            for forbidden in ["style=", "<script", "href", "url(", "<!doctype", "<!entity", "javascript:"] {
                #expect(!text.contains(forbidden), "\(avatar.file) contains \(forbidden)")
            }
            for element in SVGOutline(data).elements {
                #expect(allowedElements.contains(element.name), "\(avatar.file) has <\(element.name)>")
                for name in element.attributes.keys {
                    #expect(!name.lowercased().hasPrefix("on"), "\(avatar.file) has an \(name) handler")
                }
            }
        }
    }

    @Test("every SVG in Public/avatars is listed, so no unused drawing ships")
    func noStrayFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.avatarsFolder.path)
        #expect(Set(files) == Set(Avatars.all.map { "\($0.id).svg" }))
    }

    @Test("the hash is 32-bit FNV-1a (the published test vectors)")
    func fnv1a() {
        #expect(Avatars.fnv1a32("") == 0x811C_9DC5)
        #expect(Avatars.fnv1a32("a") == 0xE40C_292C)
        #expect(Avatars.fnv1a32("foobar") == 0xBF9C_F968)
    }

    @Test("the default avatar and colour for a name never change")
    func stableDefaults() {
        #expect(Avatars.forName("Dad").id == "fox")
        #expect(Avatars.forName("Auntie May").id == "bear")
        #expect(Avatars.forName("Sam").id == "cat")
        #expect(Avatars.colour(forName: "Dad").id == "gold")
        #expect(Avatars.colour(forName: "Auntie May").id == "blue")
        #expect(Avatars.colour(forName: "Sam").id == "pink")
        // Non-ASCII names hash their UTF-8 bytes.
        #expect(Avatars.forName("Zoë").id == "fox")
        #expect(Avatars.colour(forName: "Zoë").id == "teal")
    }

    @Test("a hundred names spread over the avatars and the colours")
    func spread() {
        let names = (1...100).map { "Friend \($0)" }
        let avatars = Set(names.map { Avatars.forName($0).id })
        let colours = Set(names.map { Avatars.colour(forName: $0).id })
        #expect(avatars.count >= 6, "\(avatars.sorted())")
        #expect(colours.count >= 6, "\(colours.sorted())")
        // Avatar and colour read different parts of the hash: names that
        // share an avatar do not all share a colour too.
        let pairs = Set(names.map { "\(Avatars.forName($0).id)/\(Avatars.colour(forName: $0).id)" })
        #expect(pairs.count > max(avatars.count, colours.count) * 3)
    }

    @Test("every avatar colour has 3:1 contrast against the light and the dark page")
    func colourContrast() throws {
        #expect(Avatars.colours.count == 8)
        #expect(Set(Avatars.colours.map(\.id)).count == Avatars.colours.count)
        for colour in Avatars.colours {
            #expect(Avatars.colour(named: colour.id) == colour)
            let light = try Contrast.ratio(colour.hex, "#FBF7F4")
            let dark = try Contrast.ratio(colour.hex, "#17141D")
            #expect(light >= 3, "\(colour.id) on cream: \(light)")
            #expect(dark >= 3, "\(colour.id) on dark: \(dark)")
        }
    }

    @Test("the contrast formula matches known ratios")
    func contrastFormula() throws {
        #expect(abs(try Contrast.ratio("#000000", "#FFFFFF") - 21) < 0.001)
        #expect(abs(try Contrast.ratio("#7C5CFC", "#FBF7F4") - 4.11) < 0.01)
    }
}

extension AvatarTests {
    /// WCAG 2.x contrast: relative luminance of sRGB colours, then
    /// (lighter + 0.05) / (darker + 0.05).
    enum Contrast {
        struct BadColour: Error { let hex: String }

        static func ratio(_ first: String, _ second: String) throws -> Double {
            let (a, b) = (try luminance(first), try luminance(second))
            return (max(a, b) + 0.05) / (min(a, b) + 0.05)
        }

        static func luminance(_ hex: String) throws -> Double {
            guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else {
                throw BadColour(hex: hex)
            }
            func channel(_ shift: UInt32) -> Double {
                let c = Double((value >> shift) & 0xFF) / 255
                return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
        }
    }

    /// The elements of an XML document in order, with their attributes, or the
    /// parser's complaint when it is not well-formed.
    struct SVGOutline {
        struct Element {
            let name: String
            let attributes: [String: String]
        }

        private(set) var elements: [Element] = []
        private(set) var error: String?

        init(_ data: Data) {
            let parser = XMLParser(data: data)
            let collector = Collector()
            parser.delegate = collector
            parser.shouldResolveExternalEntities = false
            if !parser.parse() {
                error = parser.parserError.map { "\($0)" } ?? "not well-formed"
            }
            elements = collector.elements
        }

        private final class Collector: NSObject, XMLParserDelegate {
            var elements: [Element] = []

            func parser(
                _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]
            ) {
                elements.append(Element(name: elementName, attributes: attributes))
            }
        }
    }
}

@Suite("A person's picture is the same everywhere")
struct AvatarPlacementTests {
    /// The picture beside the avatar choice settings has checked, or nil when none is.
    static func settingsPicture(_ session: WebSession) throws -> String? {
        let page = try session.get("/settings")
        return page.text.firstMatch(of: /name="avatar" type="radio" value="[^"]+" checked> <img src="([^"]+)"/).map { String($0.1) }
    }

    /// The viewer's own picture on the occasion's people page.
    static func occasionPicture(_ session: WebSession, occasion: Int64, name: String) throws -> String? {
        let page = try session.get(OccasionRoutes.people.path(occasion))
        return page.text.firstMatch(of: /<img class="avatar" src="([^"]+)"[^>]*>\s*<span[^>]*><strong>([^<]+) \(you\)<\/strong>/)
            .flatMap { $0.2 == name ? String($0.1) : nil }
    }

    @Test("the occasion page shows the picture settings show, chosen or by default, whatever the person is called there")
    func occasionMatchesSettings() throws {
        let app = try accountsHarness()
        // Account name, occasion name and a stale stored id each give a
        // different default, so a fallback from the wrong one shows.
        #expect(Set([Avatars.forName("Hana Host"), Avatars.forName("Hana"), Avatars.forName("dragon")].map(\.id)).count == 3)
        let host = try signUp(app, name: "Hana Host", username: "hana_host")
        let occasion = try OccasionParty.createOccasion(app, host: host)
        let userID = try #require(try app.app.database.read { try AccountStore.credentials($0, username: "hana_host") }?.user.id)
        let defaultPicture = app.app.assets.url(Avatars.forName("Hana Host").file)

        #expect(try Self.settingsPicture(host) == defaultPicture)
        #expect(try Self.occasionPicture(host, occasion: occasion, name: "Hana") == defaultPicture)

        try app.app.database.write { try $0.execute("UPDATE users SET avatar = 'moon' WHERE id = \(userID)") }
        let chosen = try #require(try Self.settingsPicture(host))
        #expect(chosen == app.app.assets.url(Avatars.named("moon")!.file))
        #expect(try Self.occasionPicture(host, occasion: occasion, name: "Hana") == chosen)

        // A drawing no longer bundled: the face the account started with.
        try app.app.database.write { try $0.execute("UPDATE users SET avatar = 'dragon' WHERE id = \(userID)") }
        #expect(try Self.occasionPicture(host, occasion: occasion, name: "Hana") == defaultPicture)
    }
}
