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
}

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
        /// and DC). The others are drawn, but inert and unlabelled.
        public var playable: Set<String>
        /// Where tapping a state leads, by postal code; nil draws a map to
        /// look at only (another player's board). A page has at most one
        /// playable map: its controls carry ids (`usmap-RI`), so focus
        /// survives the board being swapped in after a spot.
        public var link: (@Sendable (String) -> String)?

        public init(label: String, playable: Set<String>, link: (@Sendable (String) -> String)? = nil) {
            self.label = label
            self.playable = playable
            self.link = link
        }
    }

    /// Callout boxes for the states a finger cannot hit, in a column off
    /// the Atlantic coast, north to south.
    static let callouts: [String] = ["VT", "NH", "MA", "RI", "CT", "NJ", "DE", "MD", "DC"]
    static let calloutX = 712
    static let calloutTop = 84
    static let calloutWidth = 46
    static let calloutHeight = 24
    static let calloutGap = 3

    /// The data's plane widened on the right for the callout column.
    public static var viewBox: USMapBox {
        let data = USMapData.viewBox
        let right = calloutX + calloutWidth + 4
        return USMapBox(minX: data.minX, minY: data.minY, width: max(data.width, right - data.minX), height: data.height)
    }

    public static func render(statuses: [String: Status], options: Options) -> HTML {
        let interactive = options.link != nil
        var parts: [HTML] = []
        parts.reserveCapacity(USMapData.shapes.count)
        for shape in USMapData.shapes {
            parts.append(state(shape, status: statuses[shape.code] ?? .unspotted, options: options))
        }
        let role: HTML =
            interactive
            ? "role=\"group\"\(attribute: "aria-label", options.label)"
            : "role=\"img\"\(attribute: "aria-label", options.label + ": " + summary(statuses, options))"
        return """
            <svg class="usmap\(interactive ? " usmap--playable" : "")" xmlns="http://www.w3.org/2000/svg"\(attribute: "viewBox", viewBox.attribute) \(role) focusable="false">
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
            return "<path class=\"usmap__state usmap__state--inert\"\(attribute: "d", shape.path) aria-hidden=\"true\"/>"
        }
        let classes = "usmap__state usmap__state--\(status.modifier)"
        let outline: HTML = "<path class=\"usmap__shape\"\(attribute: "d", shape.path)/>"
        let callout = self.callout(for: shape)
        guard let link = options.link else {
            return "<g\(attribute: "class", classes)>\(outline)\(callout)</g>"
        }
        return
            "<a\(attribute: "id", "usmap-" + shape.code)\(attribute: "class", classes)\(attribute: "href", link(shape.code))\(attribute: "aria-label", "\(shape.name), \(status.spoken)")\(attribute: "data-state", shape.code)\(attribute: "data-name", shape.name)>\(outline)\(callout)</a>"
    }

    /// A box with the postal code and a leader line to the state, for the
    /// states in `callouts`; nothing for the rest.
    static func callout(for shape: USMapShape) -> HTML {
        guard let index = callouts.firstIndex(of: shape.code) else { return .empty }
        let top = calloutTop + index * (calloutHeight + calloutGap)
        let middle = top + calloutHeight / 2
        return """
            <g class="usmap__callout"><line class="usmap__leader" x1="\(calloutX)" y1="\(middle)"\(attribute: "x2", decimal(shape.labelX))\(attribute: "y2", decimal(shape.labelY))/>\
            <rect class="usmap__box" x="\(calloutX)" y="\(top)" width="\(calloutWidth)" height="\(calloutHeight)" rx="4"/>\
            <text class="usmap__code" x="\(calloutX + calloutWidth / 2)" y="\(middle + 5)" text-anchor="middle">\(shape.code)</text></g>
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
