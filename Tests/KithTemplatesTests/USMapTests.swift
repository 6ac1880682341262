import Foundation
import KithTemplates
import Testing

/// Every state and DC, as the Census Bureau and USPS name and code them.
let expectedStates: [(code: String, fips: String, name: String)] = [
    ("AL", "01", "Alabama"), ("AK", "02", "Alaska"), ("AZ", "04", "Arizona"), ("AR", "05", "Arkansas"), ("CA", "06", "California"),
    ("CO", "08", "Colorado"), ("CT", "09", "Connecticut"), ("DE", "10", "Delaware"), ("DC", "11", "District of Columbia"),
    ("FL", "12", "Florida"), ("GA", "13", "Georgia"), ("HI", "15", "Hawaii"), ("ID", "16", "Idaho"), ("IL", "17", "Illinois"),
    ("IN", "18", "Indiana"), ("IA", "19", "Iowa"), ("KS", "20", "Kansas"), ("KY", "21", "Kentucky"), ("LA", "22", "Louisiana"),
    ("ME", "23", "Maine"), ("MD", "24", "Maryland"), ("MA", "25", "Massachusetts"), ("MI", "26", "Michigan"), ("MN", "27", "Minnesota"),
    ("MS", "28", "Mississippi"), ("MO", "29", "Missouri"), ("MT", "30", "Montana"), ("NE", "31", "Nebraska"), ("NV", "32", "Nevada"),
    ("NH", "33", "New Hampshire"), ("NJ", "34", "New Jersey"), ("NM", "35", "New Mexico"), ("NY", "36", "New York"),
    ("NC", "37", "North Carolina"), ("ND", "38", "North Dakota"), ("OH", "39", "Ohio"), ("OK", "40", "Oklahoma"), ("OR", "41", "Oregon"),
    ("PA", "42", "Pennsylvania"), ("RI", "44", "Rhode Island"), ("SC", "45", "South Carolina"), ("SD", "46", "South Dakota"),
    ("TN", "47", "Tennessee"), ("TX", "48", "Texas"), ("UT", "49", "Utah"), ("VT", "50", "Vermont"), ("VA", "51", "Virginia"),
    ("WA", "53", "Washington"), ("WV", "54", "West Virginia"), ("WI", "55", "Wisconsin"), ("WY", "56", "Wyoming"),
]

/// A path's points, read back with a parser of its own: the grammar the
/// generator promises is `M x,y L x,y x,y … Z`, repeated per ring.
struct ParsedPath {
    var rings: [[(x: Double, y: Double)]] = []

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(_ d: String) throws {
        var rest = Substring(d)
        while !rest.isEmpty {
            guard rest.first == "M" else { throw Malformed(description: "ring does not start with M: \(rest.prefix(20))") }
            guard let close = rest.firstIndex(of: "Z") else { throw Malformed(description: "ring never closes") }
            let body = rest[rest.index(after: rest.startIndex)..<close]
            let parts = body.split(separator: "L", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw Malformed(description: "expected one M point and one L run") }
            let tokens = [String(parts[0])] + parts[1].split(separator: " ").map(String.init)
            var ring: [(x: Double, y: Double)] = []
            for token in tokens {
                let xy = token.split(separator: ",", omittingEmptySubsequences: false)
                guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]), x.isFinite, y.isFinite else {
                    throw Malformed(description: "bad point \(token)")
                }
                ring.append((x, y))
            }
            guard ring.count >= 3 else { throw Malformed(description: "a ring of \(ring.count) points") }
            rings.append(ring)
            rest = rest[rest.index(after: close)...]
        }
        guard !rings.isEmpty else { throw Malformed(description: "no rings") }
    }

    var box: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let points = rings.flatMap { $0 }
        return (points.map(\.x).min()!, points.map(\.y).min()!, points.map(\.x).max()!, points.map(\.y).max()!)
    }
}

func shape(_ code: String) throws -> USMapShape { try #require(USMapData.shape(code: code)) }
func box(_ code: String) throws -> (minX: Double, minY: Double, maxX: Double, maxY: Double) { try ParsedPath(try shape(code).path).box }

@Suite("The US map data")
struct USMapDataTests {
    @Test("all 50 states plus DC are present, once each, with their names, postal codes and FIPS codes")
    func everyState() {
        #expect(USMapData.shapes.count == 51)
        let byCode = Dictionary(grouping: USMapData.shapes, by: \.code)
        for expected in expectedStates {
            let found = byCode[expected.code] ?? []
            #expect(found.count == 1, "\(expected.code)")
            #expect(found.first?.name == expected.name, "\(expected.code)")
            #expect(found.first?.fips == expected.fips, "\(expected.code)")
        }
        #expect(USMapData.shapes.map(\.name) == USMapData.shapes.map(\.name).sorted(), "listed by name")
    }

    @Test("every path is well formed and lies inside the viewBox")
    func pathsInsideViewBox() throws {
        let view = USMapData.viewBox
        #expect(view.width > 0 && view.height > 0)
        for shape in USMapData.shapes {
            let parsed = try ParsedPath(shape.path)
            let box = parsed.box
            #expect(box.minX >= Double(view.minX) && box.maxX <= Double(view.minX + view.width), "\(shape.code) x \(box)")
            #expect(box.minY >= Double(view.minY) && box.maxY <= Double(view.minY + view.height), "\(shape.code) y \(box)")
            #expect(box.maxX - box.minX > 0.5 && box.maxY - box.minY > 0.5, "\(shape.code) has an area")
            // The label point sits inside the state's own box.
            #expect(shape.labelX >= box.minX && shape.labelX <= box.maxX && shape.labelY >= box.minY && shape.labelY <= box.maxY, "\(shape.code)")
        }
    }

    @Test("states sit where they belong: north is up, east is right")
    func geography() throws {
        let maine = try box("ME"), texas = try box("TX"), washington = try box("WA"), florida = try box("FL")
        let california = try box("CA"), minnesota = try box("MN"), louisiana = try box("LA")
        #expect(maine.minX > texas.maxX, "Maine is east of Texas")
        #expect(maine.maxY < texas.minY, "Maine is north of Texas (y grows downward)")
        #expect(washington.maxY < california.minY + 60 && washington.minX < minnesota.minX, "Washington is north-west")
        #expect(florida.minX > louisiana.minX && florida.maxY > minnesota.maxY, "Florida is south-east")
        #expect(try box("RI").minX > (try box("NY")).minX, "Rhode Island is east of New York")
    }

    @Test("Alaska and Hawaii are insets in the lower left, clear of the lower 48")
    func insets() throws {
        let view = USMapData.viewBox
        let alaska = try box("AK"), hawaii = try box("HI")
        let lower48 = USMapData.shapes.filter { !["AK", "HI"].contains($0.code) }.map { try! ParsedPath($0.path).box }
        let west = lower48.map(\.minX).min()!, east = lower48.map(\.maxX).max()!
        let middleX = Double(view.minX) + Double(view.width) / 2
        let middleY = Double(view.minY) + Double(view.height) / 2
        for (name, inset) in [("Alaska", alaska), ("Hawaii", hawaii)] {
            #expect(inset.maxX < middleX, "\(name) is in the left half")
            #expect(inset.minY > middleY, "\(name) is in the lower half")
        }
        // Neither inset overlaps a contiguous state's box in the far west
        // (California, Oregon, Washington, Nevada, Arizona).
        for code in ["CA", "OR", "WA", "NV", "AZ"] {
            let other = try box(code)
            for inset in [alaska, hawaii] {
                let overlaps = inset.minX < other.maxX && inset.maxX > other.minX && inset.minY < other.maxY && inset.maxY > other.minY
                #expect(!overlaps, "\(code) overlaps an inset")
            }
        }
        #expect(hawaii.minX > alaska.minX, "Hawaii's inset is right of Alaska's")
        #expect(east - west > 600, "the lower 48 span the map")
    }
}

@Suite("The US map component")
struct USMapComponentTests {
    static let fifty = Set(expectedStates.map(\.code).filter { $0 != "DC" })

    static func playable(_ statuses: [String: USMap.Status] = [:], playable: Set<String> = fifty) -> String {
        USMap.render(
            statuses: statuses,
            options: USMap.Options(label: "Summer Road Trip map", playable: playable, link: { "/games/7/states/" + $0 })
        ).string
    }

    /// The `<a …>` opening tag of one state's control.
    static func control(_ html: String, _ code: String) -> String? {
        guard let marker = html.range(of: "data-state=\"\(code)\"") else { return nil }
        let start = html[..<marker.lowerBound].range(of: "<a ", options: .backwards)!.lowerBound
        let end = html[marker.upperBound...].firstIndex(of: ">")!
        return String(html[start...end])
    }

    @Test("each playable state is a link with its name and status spoken, to its confirm page")
    func controls() throws {
        let html = Self.playable(["ID": .mine, "OH": .others(by: "Mom"), "UT": .player(colour: 3, name: "Maya")])
        #expect(html.hasPrefix("<svg class=\"usmap usmap--playable\""))
        #expect(html.contains("role=\"group\" aria-label=\"Summer Road Trip map\""))
        for state in expectedStates where state.code != "DC" {
            let tag = try #require(Self.control(html, state.code), "\(state.code) is a control")
            #expect(tag.contains("href=\"/games/7/states/\(state.code)\""), "\(state.code)")
            #expect(tag.hasPrefix("<a id=\"usmap-\(state.code)\""), "an id keeps focus across a swap")
            #expect(tag.contains("aria-label=\"\(state.name), "), "\(state.code)")
        }
        #expect(Self.control(html, "ID")!.contains("class=\"usmap__state usmap__state--mine\""))
        #expect(Self.control(html, "ID")!.contains("aria-label=\"Idaho, spotted by you\""))
        #expect(Self.control(html, "OH")!.contains("usmap__state--others") && Self.control(html, "OH")!.contains("Ohio, spotted by Mom"))
        #expect(Self.control(html, "UT")!.contains("usmap__state--p3") && Self.control(html, "UT")!.contains("Utah, spotted by Maya"))
        #expect(Self.control(html, "TX")!.contains("usmap__state--unspotted") && Self.control(html, "TX")!.contains("Texas, not spotted yet"))
        #expect(html.components(separatedBy: "<a ").count - 1 == 50, "one control per state, DC not counted")
    }

    @Test("a region outside the rules is drawn but inert; with DC in the rules it becomes a control")
    func rulesDecidePlayable() {
        let fifty = Self.playable()
        #expect(Self.control(fifty, "DC") == nil)
        #expect(fifty.contains("usmap__state--inert"))
        let withDC = Self.playable(playable: Self.fifty.union(["DC"]))
        #expect(Self.control(withDC, "DC")?.contains("District of Columbia, not spotted yet") == true)
        #expect(!withDC.contains("usmap__state--inert"))
    }

    @Test("small north-eastern states carry a labelled callout inside their own control")
    func callouts() throws {
        let html = Self.playable(["RI": .mine])
        for code in ["RI", "DE", "CT", "NJ", "MD", "MA", "NH", "VT"] {
            guard let start = html.range(of: "data-state=\"\(code)\"") else {
                Issue.record("no control for \(code)")
                continue
            }
            let end = html[start.upperBound...].range(of: "</a>")!
            let inside = html[start.upperBound..<end.lowerBound]
            #expect(inside.contains("class=\"usmap__box\""), "\(code) has a callout box")
            #expect(inside.contains(">\(code)</text>"), "\(code) is labelled")
        }
        // Big states need none.
        let texas = html.range(of: "data-state=\"TX\"")!
        let texasEnd = html[texas.upperBound...].range(of: "</a>")!
        #expect(!html[texas.upperBound..<texasEnd.lowerBound].contains("usmap__box"))
        // Callout boxes stay inside the widened viewBox.
        let view = USMap.viewBox
        #expect(USMap.viewBox.minX + view.width >= 712 + 46)
    }

    @Test("a map to look at is a picture with a summary, and no controls")
    func readOnly() {
        let html = USMap.render(
            statuses: ["ID": .player(colour: 1, name: "Mom"), "OH": .player(colour: 1, name: "Mom")],
            options: USMap.Options(label: "Mom's board", playable: Self.fifty)
        ).string
        #expect(html.contains("role=\"img\" aria-label=\"Mom&#39;s board: 2 of 50 spotted\""))
        #expect(!html.contains("<a "))
        #expect(!html.contains("href="))
        #expect(html.contains("usmap__state usmap__state--p1"))
    }

    @Test("names in statuses are escaped")
    func escaping() {
        let html = Self.playable(["ID": .others(by: "<script>\"Eve\"")])
        #expect(html.contains("Idaho, spotted by &lt;script&gt;&quot;Eve&quot;"))
        #expect(!html.contains("<script>"))
    }

    @Test("the same statuses render the same bytes")
    func pure() {
        let statuses: [String: USMap.Status] = ["ID": .mine, "ME": .others(by: "Dad")]
        #expect(Self.playable(statuses) == Self.playable(statuses))
    }
}

/// Canada's provinces and territories, by ISO 3166-2 code.
let expectedProvinces: [(code: String, name: String)] = [
    ("CA-AB", "Alberta"), ("CA-BC", "British Columbia"), ("CA-MB", "Manitoba"), ("CA-NB", "New Brunswick"),
    ("CA-NL", "Newfoundland and Labrador"), ("CA-NS", "Nova Scotia"), ("CA-NT", "Northwest Territories"), ("CA-NU", "Nunavut"),
    ("CA-ON", "Ontario"), ("CA-PE", "Prince Edward Island"), ("CA-QC", "Québec"), ("CA-SK", "Saskatchewan"), ("CA-YT", "Yukon"),
]

let expectedMexicanStates: [(code: String, name: String)] = [
    ("MX-AGU", "Aguascalientes"), ("MX-BCN", "Baja California"), ("MX-BCS", "Baja California Sur"), ("MX-CAM", "Campeche"),
    ("MX-CHH", "Chihuahua"), ("MX-CHP", "Chiapas"), ("MX-CMX", "Ciudad de México"), ("MX-COA", "Coahuila"), ("MX-COL", "Colima"),
    ("MX-DUR", "Durango"), ("MX-GRO", "Guerrero"), ("MX-GUA", "Guanajuato"), ("MX-HID", "Hidalgo"), ("MX-JAL", "Jalisco"),
    ("MX-MEX", "Estado de México"), ("MX-MIC", "Michoacán"), ("MX-MOR", "Morelos"), ("MX-NAY", "Nayarit"), ("MX-NLE", "Nuevo León"),
    ("MX-OAX", "Oaxaca"), ("MX-PUE", "Puebla"), ("MX-QUE", "Querétaro"), ("MX-ROO", "Quintana Roo"), ("MX-SIN", "Sinaloa"),
    ("MX-SLP", "San Luis Potosí"), ("MX-SON", "Sonora"), ("MX-TAB", "Tabasco"), ("MX-TAM", "Tamaulipas"), ("MX-TLA", "Tlaxcala"),
    ("MX-VER", "Veracruz"), ("MX-YUC", "Yucatán"), ("MX-ZAC", "Zacatecas"),
]

func northAmerica(_ code: String) throws -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
    try ParsedPath(try #require(MapAtlas.northAmerica.shape(code: code), "\(code)").path).box
}

@Suite("The North America map data")
struct NorthAmericaMapDataTests {
    @Test("every state, DC, province, territory and Mexican state is present once, by name, with codes that cannot collide")
    func everyRegion() {
        let shapes = NorthAmericaMapData.shapes
        #expect(shapes.count == 96)
        let byCode = Dictionary(grouping: shapes, by: \.code)
        for expected in expectedStates.map({ ($0.code, $0.name) }) + expectedProvinces.map({ ($0.code, $0.name) }) + expectedMexicanStates {
            #expect(byCode[expected.0]?.count == 1, "\(expected.0)")
            #expect(byCode[expected.0]?.first?.name == expected.1, "\(expected.0)")
        }
        #expect(shapes.map(\.name) == shapes.map(\.name).sorted(), "listed by name")
        #expect(MapAtlas.northAmerica.shape(code: "CA")?.name == "California", "CA stays California")
        #expect(MapAtlas.northAmerica.shape(code: "CA-PE")?.shortCode == "PE")
    }

    @Test("every path is well formed and lies inside the viewBox, with its label inside its own box")
    func pathsInsideViewBox() throws {
        let view = NorthAmericaMapData.viewBox
        for shape in NorthAmericaMapData.shapes {
            let box = try ParsedPath(shape.path).box
            #expect(box.minX >= Double(view.minX) && box.maxX <= Double(view.minX + view.width), "\(shape.code) x \(box)")
            #expect(box.minY >= Double(view.minY) && box.maxY <= Double(view.minY + view.height), "\(shape.code) y \(box)")
            #expect(box.maxX - box.minX > 0.5 && box.maxY - box.minY > 0.5, "\(shape.code) has an area")
            #expect(shape.labelX >= box.minX && shape.labelX <= box.maxX && shape.labelY >= box.minY && shape.labelY <= box.maxY, "\(shape.code)")
        }
    }

    @Test("regions sit where they belong: Québec north-east of Ontario, Canada north of the US, Alaska beside Yukon")
    func geography() throws {
        let quebec = try #require(MapAtlas.northAmerica.shape(code: "CA-QC")), ontario = try #require(MapAtlas.northAmerica.shape(code: "CA-ON"))
        #expect(quebec.labelX > ontario.labelX && quebec.labelY < ontario.labelY, "Québec is north-east of Ontario")
        #expect(try northAmerica("CA-BC").minY < northAmerica("WA").minY, "British Columbia is north of Washington")
        #expect(try northAmerica("CA-NU").maxY < northAmerica("ND").minY, "Nunavut is north of North Dakota")
        #expect(try northAmerica("CA-NS").minX > northAmerica("ME").minX, "Nova Scotia is east of Maine")
        #expect(try northAmerica("TX").maxY > northAmerica("CA-AB").maxY, "Texas is south of Alberta")
        let alaska = try northAmerica("AK"), yukon = try northAmerica("CA-YT")
        #expect(alaska.maxX > yukon.minX && alaska.minX < yukon.minX && alaska.maxY > yukon.minY, "Alaska borders Yukon: no inset")
    }

    @Test("Mexico sits where it belongs: Baja California south of California, Sonora south of Arizona, Yucatán east of Texas")
    func mexico() throws {
        let baja = try northAmerica("MX-BCN"), california = try northAmerica("CA")
        #expect(baja.minY > california.minY && baja.maxY > california.maxY, "Baja California is south of California")
        #expect(baja.minX < california.maxX && baja.maxX > california.minX, "and below it, not beside it")
        #expect(try northAmerica("MX-BCS").minY > baja.minY, "Baja California Sur continues the peninsula southwards")
        #expect(try northAmerica("MX-SON").minY > northAmerica("AZ").minY, "Sonora is south of Arizona")
        #expect(try northAmerica("MX-YUC").minX > northAmerica("TX").maxX, "Yucatán is east of Texas")
        #expect(try northAmerica("MX-CHP").maxY > northAmerica("FL").maxY, "Chiapas is the map's far south")
        #expect(MapAtlas.northAmerica.shape(code: "MX-CMX")?.shortCode == "CMX")
    }

    @Test("Hawaii is an inset in the empty Pacific, clear of every other region")
    func hawaiiInset() throws {
        let hawaii = try northAmerica("HI")
        for shape in NorthAmericaMapData.shapes where shape.code != "HI" {
            let other = try ParsedPath(shape.path).box
            let overlaps = hawaii.minX < other.maxX && hawaii.maxX > other.minX && hawaii.minY < other.maxY && hawaii.maxY > other.minY
            #expect(!overlaps, "\(shape.code) overlaps Hawaii's inset")
        }
        #expect(hawaii.maxX < (try northAmerica("CA")).minX, "west of California")
    }
}

@Suite("The plate map on a phone")
struct USMapPhoneTests {
    static let withCanada = USMapComponentTests.fifty.union(expectedProvinces.map(\.code))
    static let withMexico = withCanada.union(expectedMexicanStates.map(\.code))

    @Test("a game's rules pick the map: the US map for US regions, North America once Canada counts")
    func atlasFollowsRules() {
        #expect(USMap.Options(label: "x", playable: USMapComponentTests.fifty).atlas.shapes.count == 51)
        #expect(USMap.Options(label: "x", playable: Self.withCanada).atlas.shapes.count == 96)
        #expect(USMap.Options(label: "x", playable: Self.withMexico).atlas.shapes.count == 96)
        let html = USMap.render(statuses: ["CA-PE": .mine], options: USMap.Options(label: "Trip", playable: Self.withCanada, link: { "/s/" + $0 }))
            .string
        #expect(html.contains("viewBox=\"\(MapAtlas.northAmerica.viewBox.attribute)\""))
        #expect(html.contains("aria-label=\"Prince Edward Island, spotted by you\""))
        #expect(html.contains(">PE</text>"), "the callout shows the postal code without the country")
        #expect(html.components(separatedBy: "<a ").count - 1 == 63)
    }

    @Test("every playable region is at least 24 px across on a 320 px map, or has a plate chip")
    func everyTargetBigEnough() {
        for (atlas, playable) in [
            (MapAtlas.unitedStates, USMapComponentTests.fifty.union(["DC"])), (.northAmerica, Self.withCanada.union(["DC"])),
            (.northAmerica, Self.withMexico.union(["DC"])),
        ] {
            let scale = MapAtlas.phoneWidth / Double(atlas.viewBox.width)
            for code in playable {
                let shape = atlas.shape(code: code)!
                let box = shape.bounds
                let big = min(box.maxX - box.minX, box.maxY - box.minY) * scale >= 24
                #expect(big != atlas.smallOnPhone.contains(code), "\(code) on a \(atlas.shapes.count)-region map")
            }
        }
        for code in ["RI", "DE", "DC", "CT", "NJ"] { #expect(MapAtlas.unitedStates.smallOnPhone.contains(code), "\(code)") }
        #expect(!MapAtlas.unitedStates.smallOnPhone.contains("TX"))
        #expect(MapAtlas.northAmerica.smallOnPhone.contains("CA-PE"))
        #expect(!MapAtlas.northAmerica.smallOnPhone.contains("CA-QC"))
        for code in ["MX-CMX", "MX-TLA", "MX-MOR"] { #expect(MapAtlas.northAmerica.smallOnPhone.contains(code), "\(code)") }
    }

    @Test("chips carry the map's link, status and data-state, only for small playable regions, only on a playable map")
    func chips() throws {
        let options = USMap.Options(label: "Trip", playable: USMapComponentTests.fifty, link: { "/games/7/states/" + $0 })
        let html = USMap.chips(statuses: ["RI": .mine, "DE": .others(by: "Mom")], options: options).string
        #expect(html.hasPrefix("<ul class=\"usmap-chips\""))
        #expect(html.contains(
            "<a id=\"usmap-chip-RI\" class=\"usmap-chip usmap__state usmap__state--mine\" href=\"/games/7/states/RI\" aria-label=\"Rhode Island, spotted by you\" data-state=\"RI\" data-name=\"Rhode Island\">RI</a>"
        ))
        #expect(html.contains("usmap__state--others\" href=\"/games/7/states/DE\" aria-label=\"Delaware, spotted by Mom\""))
        #expect(!html.contains("data-state=\"DC\""), "DC is not playable here")
        #expect(!html.contains("data-state=\"TX\""))
        let chipCount = html.components(separatedBy: "<a ").count - 1
        #expect(chipCount == MapAtlas.unitedStates.smallOnPhone.subtracting(["DC"]).count)
        #expect(USMap.chips(statuses: [:], options: USMap.Options(label: "Mom's board", playable: USMapComponentTests.fifty)).string.isEmpty)
    }

    @Test("on a map of three countries the chips come in one named group per country, each chip in its own country's")
    func chipGroups() throws {
        let options = USMap.Options(label: "Trip", playable: Self.withMexico, link: { "/games/7/states/" + $0 })
        let html = USMap.chips(statuses: [:], options: options).string
        #expect(html.hasPrefix("<div class=\"usmap-chips usmap-chips--grouped\" role=\"group\""))
        let groups = html.components(separatedBy: "<p class=\"usmap-chips__country\"").dropFirst()
        #expect(groups.map { $0.components(separatedBy: ">")[1].components(separatedBy: "<")[0] } == ["United States", "Canada", "Mexico"])
        for (group, prefix) in zip(groups, ["", "CA-", "MX-"]) {
            let codes = group.components(separatedBy: "data-state=\"").dropFirst().map { $0.components(separatedBy: "\"")[0] }
            #expect(!codes.isEmpty)
            for code in codes { #expect(prefix.isEmpty ? !code.contains("-") : code.hasPrefix(prefix), "\(code) in \(prefix)") }
        }
        #expect(html.components(separatedBy: "<a ").count - 1 == MapAtlas.northAmerica.smallOnPhone.intersection(Self.withMexico).count)
    }
}
