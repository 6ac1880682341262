/// The board as a picture to share: the same map the page draws, on the
/// paper of the road atlas, with the game's name and count. A standalone
/// SVG (its own styles, no page stylesheet) for `rsvg-convert` to paint.
public enum PlateShareImage {
    /// The light theme's map colours, as `plates.css` has them.
    static let style: HTML = """
        <style>
        .usmap__state .usmap__shape, .usmap__state--inert { stroke: #8A7D63; stroke-width: 0.6; stroke-linejoin: round; fill-rule: evenodd; }
        .usmap__state--unspotted .usmap__shape { fill: #FFFDF6; }
        .usmap__state--mine .usmap__shape { fill: #1E6B43; }
        .usmap__state--others .usmap__shape { fill: #559D72; }
        .usmap__state--inert { fill: #E4DCC6; }
        .usmap__state--p0 .usmap__shape { fill: #1E6B43; } .usmap__state--p1 .usmap__shape { fill: #1D4F91; }
        .usmap__state--p2 .usmap__shape { fill: #A8261C; } .usmap__state--p3 .usmap__shape { fill: #875A00; }
        .usmap__state--p4 .usmap__shape { fill: #6B3FA0; } .usmap__state--p5 .usmap__shape { fill: #0F6E75; }
        .usmap__state--p6 .usmap__shape { fill: #B8154F; } .usmap__state--p7 .usmap__shape { fill: #4F5B24; }
        .usmap__leader { stroke: #8A7D63; stroke-width: 0.8; }
        .usmap__box { fill: #FFFDF6; stroke: #8A7D63; stroke-width: 1; }
        .usmap__state--mine .usmap__box { fill: #1E6B43; stroke: #1E6B43; }
        .usmap__state--others .usmap__box { fill: #559D72; stroke: #559D72; }
        .usmap__code { fill: #2B2620; font: 700 13px sans-serif; }
        .usmap__state--mine .usmap__code { fill: #FFFFFF; }
        </style>
        """

    public static func svg(model: PlateBoardPage.Model, width: Int, height: Int) -> HTML {
        let map = USMap.render(
            statuses: model.statuses,
            options: USMap.Options(label: "\(model.name): \(model.progress) of \(model.target)", playable: model.playable))
        // The map fills the space under the title; its own viewBox keeps its shape.
        var text = map.string
        if let opening = text.firstRange(of: "<svg ") {
            text.replaceSubrange(
                opening, with: "<svg x=\"40\" y=\"128\" width=\"\(width - 80)\" height=\"\(height - 160)\" preserveAspectRatio=\"xMidYMid meet\" ")
        }
        let placed = HTML.unsafeRaw(text)
        let whose = model.isCompetitive ? "on my board" : "spotted together"
        return """
            <svg xmlns="http://www.w3.org/2000/svg"\(attribute: "width", String(width))\(attribute: "height", String(height))\(attribute: "viewBox", "0 0 \(width) \(height)")>
            \(style)
            <rect\(attribute: "width", String(width))\(attribute: "height", String(height)) fill="#F7F0DF"/>
            <rect x="40" y="28" width="\(width - 80)" height="64" rx="10" fill="#1E6B43"/>
            <text x="64" y="72" font-family="sans-serif" font-size="34" font-weight="800" fill="#FFFFFF">\(clipped(model.name))</text>
            <text\(attribute: "x", String(width - 64)) y="72" text-anchor="end" font-family="sans-serif" font-size="30" font-weight="700" fill="#FFFFFF">\(model.progress) of \(model.target) \(whose)</text>
            \(placed)
            </svg>
            """
    }

    /// A name short enough to sit beside the count on the sign.
    static func clipped(_ name: String) -> String {
        name.count <= 34 ? name : String(name.prefix(33)) + "…"
    }
}
