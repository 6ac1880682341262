/// A rectangle in the map's plane, for the SVG `viewBox`.
public struct USMapBox: Sendable, Equatable {
    public var minX: Int
    public var minY: Int
    public var width: Int
    public var height: Int

    public init(minX: Int, minY: Int, width: Int, height: Int) {
        self.minX = minX
        self.minY = minY
        self.width = width
        self.height = height
    }

    /// `min-x min-y width height`, as the attribute wants it.
    public var attribute: String { "\(minX) \(minY) \(width) \(height)" }
}

/// One state (or DC) as the generator wrote it: codes, name, where its
/// label sits, and its outline as SVG path data (`M x,y L x,y … Z` per ring).
public struct USMapShape: Sendable, Equatable {
    /// The postal code: `ID`, `RI`, `DC`.
    public let code: String
    /// The two-digit FIPS code: `16`.
    public let fips: String
    public let name: String
    /// The centroid of the largest piece: where a label or callout line points.
    public let labelX: Double
    public let labelY: Double
    public let path: String

    public init(code: String, fips: String, name: String, labelX: Double, labelY: Double, path: String) {
        self.code = code
        self.fips = fips
        self.name = name
        self.labelX = labelX
        self.labelY = labelY
        self.path = path
    }

    /// What a plate chip or callout box shows: the postal code, without a
    /// country prefix (`CA-PE` shows `PE`).
    public var shortCode: String {
        guard let dash = code.lastIndex(of: "-") else { return code }
        return String(code[code.index(after: dash)...])
    }

    /// The outline's bounding box in map units, read back from the path
    /// (the generator writes only numbers, commas, spaces and M/L/Z).
    public var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var isX = true
        for token in path.split(whereSeparator: { "MLZ ,".contains($0) }) {
            guard let value = Double(token) else { continue }
            if isX { minX = min(minX, value); maxX = max(maxX, value) } else { minY = min(minY, value); maxY = max(maxY, value) }
            isX.toggle()
        }
        return (minX, minY, maxX, maxY)
    }
}

/// One drawable map: its regions, its plane, and where the callout boxes
/// for regions too small to tap go. Two exist: the 50 states and DC
/// (us-atlas, Albers USA), and North America (Natural Earth, the states,
/// DC and Canada's provinces and territories), which games whose rules
/// reach past the US draw.
public struct MapAtlas: Sendable {
    public let shapes: [USMapShape]
    /// The data's plane.
    public let dataBox: USMapBox
    /// Callout boxes, north to south, in a column at `calloutX` from `calloutTop`.
    public let callouts: [String]
    public let calloutX: Int
    public let calloutTop: Int
    /// Regions whose outline is under a finger's 24 CSS px in one direction
    /// when the map is drawn `phoneWidth` px wide: they get a plate chip
    /// under the map on a phone.
    public let smallOnPhone: Set<String>
    /// The atlas's outlines as one SVG file in `Public/` (`USMap.sprite`),
    /// which a browser's map draws by reference: fetched once and cached,
    /// instead of every page and every live refresh carrying them inline.
    public let sprite: String
    private let byCode: [String: USMapShape]

    /// The narrowest the map is drawn on a phone (a 360 px screen, less margins).
    public static let phoneWidth = 320.0
    /// The smallest target a finger should get, in CSS px.
    public static let minimumTarget = 24.0

    init(shapes: [USMapShape], dataBox: USMapBox, callouts: [String], calloutX: Int, calloutTop: Int, sprite: String) {
        self.shapes = shapes
        self.sprite = sprite
        self.dataBox = dataBox
        self.callouts = callouts
        self.calloutX = calloutX
        self.calloutTop = calloutTop
        byCode = Dictionary(uniqueKeysWithValues: shapes.map { ($0.code, $0) })
        let view = Self.widened(dataBox, callouts: callouts.count, x: calloutX, top: calloutTop)
        let pixelsPerUnit = Self.phoneWidth / Double(view.width)
        smallOnPhone = Set(shapes.filter { shape in
            let box = shape.bounds
            return min(box.maxX - box.minX, box.maxY - box.minY) * pixelsPerUnit < Self.minimumTarget
        }.map(\.code))
    }

    /// The 50 states and DC.
    public static let unitedStates = MapAtlas(
        shapes: USMapData.shapes, dataBox: USMapData.viewBox, callouts: ["VT", "NH", "MA", "RI", "CT", "NJ", "DE", "MD", "DC"],
        calloutX: 712, calloutTop: 84, sprite: "maps/us.svg")

    /// The states, DC, and Canada's provinces and territories; the callout
    /// column stands in the Atlantic off the Carolinas.
    public static let northAmerica = MapAtlas(
        shapes: NorthAmericaMapData.shapes, dataBox: NorthAmericaMapData.viewBox,
        callouts: ["CA-PE", "VT", "NH", "MA", "RI", "CT", "NJ", "DE", "MD", "DC"], calloutX: 220, calloutTop: -40,
        sprite: "maps/north-america.svg")

    public static let all = [unitedStates, northAmerica]

    /// The map that draws these regions: the US map while every region is
    /// a US one, North America as soon as one is not.
    public static func covering(_ codes: Set<String>) -> MapAtlas {
        codes.allSatisfy { USMapData.shape(code: $0) != nil } ? .unitedStates : .northAmerica
    }

    public func shape(code: String) -> USMapShape? { byCode[code] }

    /// The data's plane, widened for the callout column.
    public var viewBox: USMapBox { Self.widened(dataBox, callouts: callouts.count, x: calloutX, top: calloutTop) }

    static func widened(_ data: USMapBox, callouts: Int, x: Int, top: Int) -> USMapBox {
        let right = x + USMap.calloutWidth + 4
        let bottom = top + callouts * (USMap.calloutHeight + USMap.calloutGap) + 4
        return USMapBox(
            minX: data.minX, minY: data.minY, width: max(data.width, right - data.minX), height: max(data.height, bottom - data.minY))
    }
}

/// The generated North America map (`NorthAmericaMapData.swift`, written by `make map`).
public enum NorthAmericaMapData {}

/// The generated map (`USMapData.swift`, written by `make map`), with lookups.
public enum USMapData {
    private static let byCode: [String: USMapShape] = Dictionary(uniqueKeysWithValues: shapes.map { ($0.code, $0) })

    /// The shape with this postal code, or nil.
    public static func shape(code: String) -> USMapShape? { byCode[code] }
}

/// The plate game's map: a pure function from each state's status to inline
/// SVG. It knows nothing of games or storage. In a playable map every state
/// is a link (a control that says its name and status); the page's script
/// turns a tap into a spot, and without script the link opens a small
/// confirm page whose form posts it. States too small to tap on the map
/// (Rhode Island, Delaware, DC…) also get a labelled callout box beside the
/// coast, inside the same link, so the box is part of the target.
public enum USMap {
    /// What one state shows.
    public enum Status: Sendable, Equatable {
        case unspotted
        /// Spotted by the person looking.
        case mine
        /// Spotted by someone else, named.
        case others(by: String)
        /// On a board drawn in player colours: the player's colour slot
        /// (0 to `playerColours - 1`) and name.
        case player(colour: Int, name: String)

        var modifier: String {
            switch self {
            case .unspotted: "unspotted"
            case .mine: "mine"
            case .others: "others"
            case .player(let colour, _): "p\(((colour % USMap.playerColours) + USMap.playerColours) % USMap.playerColours)"
            }
        }

        /// What a screen reader hears after the state's name.
        var spoken: String {
            switch self {
            case .unspotted: "not spotted yet"
            case .mine: "spotted by you"
            case .others(let name), .player(_, let name): "spotted by \(name)"
            }
        }
    }

    /// How many player colours the stylesheet defines.
    public static let playerColours = 8

    public struct Options: Sendable {
        /// Names the map for assistive technology ("Summer Road Trip map").
        public var label: String
        /// Postal codes that take part (the game's rules: 50 states, or 50
        /// and DC, and Canada's regions). The others are drawn, but inert and unlabelled.
        public var playable: Set<String>
        /// The map drawn: the one that covers `playable`.
        public var atlas: MapAtlas
        /// Where tapping a state leads, by postal code; nil draws a map to
        /// look at only (another player's board). A page has at most one
        /// playable map: its controls carry ids (`usmap-RI`), so focus
        /// survives the board being swapped in after a spot.
        public var link: (@Sendable (String) -> String)?
        /// Where the browser finds `atlas.sprite`: each region's outline is
        /// then a `<use>` of it. Nil draws the outlines inline, for a
        /// renderer that fetches nothing (the share picture).
        public var spriteURL: String?

        /// `assetURL` maps the atlas's sprite to its URL.
        public init(
            label: String, playable: Set<String>, link: (@Sendable (String) -> String)? = nil,
            assetURL: ((String) -> String)? = nil
        ) {
            self.label = label
            self.playable = playable
            self.link = link
            atlas = MapAtlas.covering(playable)
            spriteURL = assetURL?(atlas.sprite)
        }
    }

    static let calloutWidth = 46
    static let calloutHeight = 24
    static let calloutGap = 3

    /// The US map's plane, widened on the right for the callout column.
    public static var viewBox: USMapBox { MapAtlas.unitedStates.viewBox }

    public static func render(statuses: [String: Status], options: Options) -> HTML {
        let interactive = options.link != nil
        var parts: [HTML] = []
        parts.reserveCapacity(options.atlas.shapes.count)
        for shape in options.atlas.shapes {
            parts.append(state(shape, status: statuses[shape.code] ?? .unspotted, options: options))
        }
        let role: HTML =
            interactive
            ? "role=\"group\"\(attribute: "aria-label", options.label)"
            : "role=\"img\"\(attribute: "aria-label", options.label + ": " + summary(statuses, options))"
        return """
            <svg class="usmap\(interactive ? " usmap--playable" : "")" xmlns="http://www.w3.org/2000/svg"\(attribute: "viewBox", options.atlas.viewBox.attribute) \(role) focusable="false">
            \(parts.joined(separator: "\n"))
            </svg>
            """
    }

    /// "12 of 50 spotted", for a map that is a picture rather than controls.
    static func summary(_ statuses: [String: Status], _ options: Options) -> String {
        let spotted = options.playable.filter { (statuses[$0] ?? .unspotted) != .unspotted }.count
        return "\(spotted) of \(options.playable.count) spotted"
    }

    static func state(_ shape: USMapShape, status: Status, options: Options) -> HTML {
        guard options.playable.contains(shape.code) else {
            return outline(shape, class: "usmap__state usmap__state--inert", options, hidden: true)
        }
        let classes = "usmap__state usmap__state--\(status.modifier)"
        let outline = outline(shape, class: "usmap__shape", options, hidden: false)
        let callout = self.callout(for: shape, in: options.atlas)
        guard let link = options.link else {
            return "<g\(attribute: "class", classes)>\(outline)\(callout)</g>"
        }
        return
            "<a\(attribute: "id", "usmap-" + shape.code)\(attribute: "class", classes)\(attribute: "href", link(shape.code))\(attribute: "aria-label", "\(shape.name), \(status.spoken)")\(attribute: "data-state", shape.code)\(attribute: "data-name", shape.name)>\(outline)\(callout)</a>"
    }

    /// A region's outline: a reference into the sprite when there is one.
    /// Fills and strokes set on the `<use>` reach the path it draws by
    /// inheritance, so the stylesheet's rules work on either.
    static func outline(_ shape: USMapShape, class name: String, _ options: Options, hidden: Bool) -> HTML {
        let hiding: HTML = hidden ? " aria-hidden=\"true\"" : ""
        guard let sprite = options.spriteURL else {
            return "<path\(attribute: "class", name)\(attribute: "d", shape.path)\(hiding)/>"
        }
        return "<use\(attribute: "class", name)\(attribute: "href", sprite + "#" + shape.code)\(hiding)/>"
    }

    /// The outlines of every region of `atlas`, each a path whose id is its
    /// code, with no fill or stroke of its own: the file behind
    /// `atlas.sprite`. A test keeps the file in `Public/` equal to this.
    public static func sprite(_ atlas: MapAtlas) -> String {
        let paths = atlas.shapes.map { "<path id=\"\($0.code)\" d=\"\($0.path)\"/>" }.joined(separator: "\n")
        return "<svg xmlns=\"http://www.w3.org/2000/svg\">\n\(paths)\n</svg>\n"
    }

    /// Plate chips for the playable regions too small to tap on a phone,
    /// for under the map: the same links, statuses and `data-state` as the
    /// map's controls, so the page's script spots from either. The
    /// stylesheet shows them on narrow screens only, where it hides the
    /// map's own callout boxes (a 46-unit box is 17 px wide there).
    /// Nothing for a map to look at only.
    public static func chips(statuses: [String: Status], options: Options) -> HTML {
        guard let link = options.link else { return .empty }
        let small = options.atlas.shapes.filter { options.playable.contains($0.code) && options.atlas.smallOnPhone.contains($0.code) }
        guard !small.isEmpty else { return .empty }
        func items(_ shapes: [USMapShape]) -> HTML {
            shapes.map { shape -> HTML in
                let status = statuses[shape.code] ?? .unspotted
                return """
                    <li><a\(attribute: "id", "usmap-chip-" + shape.code)\(attribute: "class", "usmap-chip usmap__state usmap__state--\(status.modifier)")\(attribute: "href", link(shape.code))\(attribute: "aria-label", "\(shape.name), \(status.spoken)")\(attribute: "data-state", shape.code)\(attribute: "data-name", shape.name)>\(shape.shortCode)</a></li>
                    """
            }.joined(separator: "\n")
        }
        // On a map of several countries, "AL" beside "AGU" reads as one
        // alphabet: the chips come in a group per country, each named.
        let countries = chipCountries.filter { country in small.contains { Self.country(of: $0.code) == country.code } }
        guard countries.count > 1 else {
            return """
                <ul class="usmap-chips" aria-label="Regions too small to tap on the map">
                \(items(small))
                </ul>
                """
        }
        let groups = countries.map { country -> HTML in
            let shapes = small.filter { Self.country(of: $0.code) == country.code }
            return """
                <p class="usmap-chips__country"\(attribute: "id", "usmap-chips-" + country.code)>\(country.name)</p>
                <ul\(attribute: "aria-labelledby", "usmap-chips-" + country.code)>
                \(items(shapes))
                </ul>
                """
        }
        return """
            <div class="usmap-chips usmap-chips--grouped" role="group" aria-label="Regions too small to tap on the map">
            \(groups.joined(separator: "\n"))
            </div>
            """
    }

    /// The countries a chip group can name, in the order they are shown.
    static let chipCountries: [(code: String, name: String)] = [("US", "United States"), ("CA", "Canada"), ("MX", "Mexico")]

    /// A region's country: the prefix of an ISO 3166-2 code (`CA-ON`), or
    /// the United States for a bare postal code (`CA` is California).
    static func country(of code: String) -> String {
        code.split(separator: "-", maxSplits: 1).count == 2 ? String(code.split(separator: "-")[0]) : "US"
    }

    /// A box with the postal code and a leader line to the state, for the
    /// states in `callouts`; nothing for the rest.
    static func callout(for shape: USMapShape, in atlas: MapAtlas) -> HTML {
        guard let index = atlas.callouts.firstIndex(of: shape.code) else { return .empty }
        let calloutX = atlas.calloutX
        let top = atlas.calloutTop + index * (calloutHeight + calloutGap)
        let middle = top + calloutHeight / 2
        return """
            <g class="usmap__callout"><line class="usmap__leader" x1="\(calloutX)" y1="\(middle)"\(attribute: "x2", decimal(shape.labelX))\(attribute: "y2", decimal(shape.labelY))/>\
            <rect class="usmap__box" x="\(calloutX)" y="\(top)" width="\(calloutWidth)" height="\(calloutHeight)" rx="4"/>\
            <text class="usmap__code" x="\(calloutX + calloutWidth / 2)" y="\(middle + 5)" text-anchor="middle">\(shape.shortCode)</text></g>
            """
    }

    /// One decimal place, as the generator writes coordinates.
    static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = abs(tenths)
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
