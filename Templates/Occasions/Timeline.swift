/// The living timeline: a vertical path of nodes, oldest at the top, joined by
/// S-curve connectors that swing left and right, over a field of bokeh and
/// sparkles, with the final badge at its foot.
///
/// Every entry is one list item holding its own words and its own piece of
/// the drawing: a node, and the curve from that node down to the next one.
/// The curve is drawn in a 100×100 box stretched to the row's height
/// (`preserveAspectRatio="none"`, strokes that do not scale), so a title that
/// wraps onto three lines on a phone lengthens the curve instead of leaving
/// the node beside the wrong words. Screen readers read the list; the
/// drawing is hidden from them.
///
/// Motion is all CSS (`Public/css/timeline.css`): staggered entrances by
/// `stagger-N` class, the newest node breathing. The CSP forbids style
/// attributes, so nothing here writes one; SVG presentation attributes carry
/// the colours and positions.
public enum Timeline {
    public static func render(_ view: TimelineView) -> HTML {
        let count = view.entries.count
        let body: HTML
        if view.entries.isEmpty {
            body = EmptyState.render(
                title: "The path starts here",
                message: "Each completed challenge and every unlocked gift will appear here as a glowing node.")
        } else {
            let items = view.entries.enumerated().map { index, entry in
                row(entry, index: index, isNewest: index == count - 1)
            }
            body = "<ol class=\"timeline__list\">\n\(items.joined(separator: "\n"))\n</ol>"
        }
        return """
            <section class="timeline" aria-label="Timeline">
            \(Bokeh.render(seed: view.seed, rows: count))
            \(body)
            \(badge(view.badge))
            </section>
            """
    }

    // MARK: - Entries

    /// Which side of the rail a node sits on: even rows left, odd rows right.
    static func side(_ index: Int) -> Int { index.isMultiple(of: 2) ? 30 : 70 }

    /// The last stagger class; later rows arrive with it rather than keep a
    /// long timeline waiting.
    static let staggerSteps = 12

    /// The newest entry is the last; every other one draws the curve down
    /// to the entry after it.
    static func row(_ entry: TimelineEntryView, index: Int, isNewest: Bool) -> HTML {
        let style = NodeStyle(entry.kind)
        let classes = [
            "timeline__entry", "timeline__entry--\(entry.kind.rawValue)",
            index.isMultiple(of: 2) ? "timeline__entry--left" : "timeline__entry--right",
            "stagger-\(min(index + 1, staggerSteps))", isNewest ? "timeline__entry--newest" : nil,
        ].compactMap { $0 }.joined(separator: " ")
        let connector: HTML = isNewest ? "" : """
            <svg class="timeline__connector" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true" focusable="false">\
            <path class="timeline__trail"\(attribute: "d", connectorPath(from: side(index), to: side(index + 1))) fill="none" stroke="#7C5CFC" stroke-width="3" stroke-linecap="round" vector-effect="non-scaling-stroke" opacity="0.55"/>\
            </svg>\
            <svg class="timeline__midpoint" viewBox="-6 -6 12 12" width="12" height="12" aria-hidden="true" focusable="false">\
            <path\(attribute: "d", Bokeh.sparklePath(5))\(attribute: "fill", Palette.gold)/></svg>
            """
        let detail: HTML = entry.detail.map { "\(comma)<span class=\"timeline__detail\">\($0)</span>" } ?? ""
        let amount = points(entry.points)
        let amountPart: HTML = amount.isEmpty ? HTML() : "\(comma)\(amount)"
        return """
            <li\(attribute: "class", classes)\(attribute: "data-entry", String(entry.id))>\
            <div class="timeline__rail">\(connector)\(node(style, kind: entry.kind))</div>\
            <div class="timeline__card">\
            <span class="timeline__kind">\(style.label)<span class="visually-hidden">:</span></span> \
            <strong class="timeline__title">\(entry.title)</strong>\(detail)\
            \(amountPart)\(comma)\
            <time class="timeline__time"\(attribute: "datetime", entry.isoTime)>\(entry.when)</time>\
            \(entry.media.map { "<div class=\"timeline__media\">\($0)</div>" as HTML } ?? HTML())\
            </div></li>
            """
    }

    /// Read aloud between the parts of an entry, which the eye separates by
    /// line and colour instead.
    static let comma: HTML = "<span class=\"visually-hidden\">, </span>"

    /// An S-curve from one node straight down to the next, in the 100×100
    /// box: it leaves vertically, swings across at mid-height and arrives
    /// vertically.
    static func connectorPath(from startX: Int, to endX: Int) -> String {
        "M\(startX) 0C\(startX) 50 \(endX) 50 \(endX) 100"
    }

    static func points(_ points: Int) -> HTML {
        guard points != 0 else { return "" }
        let unit = abs(points) == 1 ? "point" : "points"
        let sign = points > 0 ? "+" : "\u{2212}"
        let tone = points > 0 ? "gain" : "spend"
        return "<span class=\"timeline__points timeline__points--\(tone)\">\(sign)\(abs(points)) \(unit)</span>"
    }

    /// How a kind of entry looks and is announced.
    struct NodeStyle {
        var fill: String
        var label: String

        init(_ kind: TimelineEntryView.Kind) {
            switch kind {
            case .challenge: (fill, label) = (Palette.blue, "Challenge completed")
            case .dare: (fill, label) = (Palette.blue, "Secret dare completed")
            case .gift: (fill, label) = (Palette.gold, "Gift unlocked")
            case .adjustment: (fill, label) = (Palette.neutral, "Points adjusted")
            case .finale: (fill, label) = (Palette.purple, "Finale")
            case .thanks: (fill, label) = (Palette.pink, "Thank-you")
            }
        }
    }

    enum Palette {
        static let blue = "#5B8DEF"
        static let gold = "#F5A623"
        static let neutral = "#8C839A"
        static let purple = "#7C5CFC"
        static let red = "#D7262D"
        static let pink = "#E0529C"
    }

    /// A glowing node: a soft halo (the part that breathes), the disc, a
    /// highlight that makes it read as a bead, and a small mark by kind.
    static func node(_ style: NodeStyle, kind: TimelineEntryView.Kind) -> HTML {
        let mark: HTML
        switch kind {
        case .challenge:
            mark = "<path d=\"M14 20.5l4 4 8-9\" fill=\"none\" stroke=\"#FFFFFF\" stroke-width=\"3\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>"
        case .dare:
            // Classified: a red redaction band across the bead.
            mark = "<rect class=\"timeline__classified\" x=\"7\" y=\"17\" width=\"26\" height=\"6\" rx=\"1\" fill=\"\(Palette.red)\" transform=\"rotate(-24 20 20)\"/><path d=\"M17 16.5a3 3 0 1 1 4 2.8c-1 .4-1 1-1 2\" fill=\"none\" stroke=\"#FFFFFF\" stroke-width=\"2.2\" stroke-linecap=\"round\"/><circle cx=\"20\" cy=\"25\" r=\"1.3\" fill=\"#FFFFFF\"/>"
        case .gift:
            mark = "<path d=\"M13 18h14v9H13zM20 18v9M13 18q3-5 7 0q4-5 7 0\" fill=\"none\" stroke=\"#2A2433\" stroke-width=\"2\" stroke-linejoin=\"round\"/>"
        case .adjustment:
            mark = "<path d=\"M15 17h10M20 12v10M15 27h10\" fill=\"none\" stroke=\"#FFFFFF\" stroke-width=\"2.4\" stroke-linecap=\"round\"/>"
        case .finale:
            mark = "<path d=\"M20 11l2.6 5.6 6 .6-4.5 4 1.3 6-5.4-3.1-5.4 3.1 1.3-6-4.5-4 6-.6z\" fill=\"#FFFFFF\"/>"
        case .thanks:
            mark = "<path d=\"M20 27s-7-4.4-7-9a3.8 3.8 0 0 1 7-2 3.8 3.8 0 0 1 7 2c0 4.6-7 9-7 9z\" fill=\"#FFFFFF\"/>"
        }
        return """
            <svg class="timeline__node timeline__node--\(kind.rawValue)" viewBox="0 0 40 40" width="40" height="40" aria-hidden="true" focusable="false">\
            <circle class="timeline__halo" cx="20" cy="20" r="19"\(attribute: "fill", style.fill) opacity="0.28"/>\
            <circle class="timeline__bead" cx="20" cy="20" r="13"\(attribute: "fill", style.fill)/>\
            <circle cx="15.5" cy="15" r="4.5" fill="#FFFFFF" opacity="0.3"/>\
            \(mark)</svg>
            """
    }

    // MARK: - The final badge

    /// How many glow steps the badge has, above "none at all".
    static let glowSteps = 5

    /// 0 with nothing unlocked, `glowSteps` only when open or when every gift
    /// is unlocked; each unlock moves at least one step, so even one gift of
    /// many is seen to count.
    static func glowLevel(_ badge: BadgeView) -> Int {
        if badge.isOpen { return glowSteps }
        guard badge.offered > 0, badge.unlocked > 0 else { return 0 }
        if badge.unlocked >= badge.offered { return glowSteps }
        let scaled = (badge.unlocked * glowSteps + badge.offered - 1) / badge.offered
        return min(max(scaled, 1), glowSteps - 1)
    }

    static func badge(_ badge: BadgeView) -> HTML {
        let level = glowLevel(badge)
        let progress: String =
            badge.offered == 0
            ? "No gifts on offer yet"
            : "\(badge.unlocked) of \(badge.offered) \(badge.offered == 1 ? "gift" : "gifts") unlocked"
        if badge.isOpen {
            return """
                <div class="final-badge final-badge--open glow-\(level)" data-finale="confetti" role="status">\
                \(badgeArt(open: true))\
                <div class="final-badge__text">\
                <p class="final-badge__title">Final badge unlocked</p>\
                <p class="final-badge__message">\(badge.message)</p>\
                <p class="final-badge__progress">\(progress)</p>\
                </div></div>
                """
        }
        return """
            <div class="final-badge final-badge--sealed glow-\(level)">\
            \(badgeArt(open: false))\
            <div class="final-badge__text">\
            <p class="final-badge__title">Final badge</p>\
            <p class="final-badge__progress">\(progress)</p>\
            <p class="final-badge__hint">It opens when every gift on offer is unlocked.</p>\
            </div></div>
            """
    }

    /// A medal: sealed, a question mark under a ribbon; open, a star with
    /// rays.
    static func badgeArt(open: Bool) -> HTML {
        let face: HTML =
            open
            ? "<g class=\"final-badge__rays\" stroke=\"#F5A623\" stroke-width=\"3\" stroke-linecap=\"round\"><path d=\"M40 3v7M40 70v7M3 40h7M70 40h7M14 14l5 5M61 61l5 5M66 14l-5 5M19 61l-5 5\"/></g><circle cx=\"40\" cy=\"40\" r=\"24\" fill=\"#F5A623\"/><circle cx=\"40\" cy=\"40\" r=\"19\" fill=\"#FFC857\"/><path d=\"M40 27l3.9 8.2 9 1-6.7 6 1.9 8.8L40 46.4 31.9 51l1.9-8.8-6.7-6 9-1z\" fill=\"#FFFFFF\"/>"
            : "<circle cx=\"40\" cy=\"40\" r=\"24\" fill=\"#7C5CFC\"/><circle cx=\"40\" cy=\"40\" r=\"19\" fill=\"#9B82FF\"/><path d=\"M34.5 35a5.5 5.5 0 1 1 7.6 5.1c-1.5.7-2.1 1.6-2.1 3.4\" fill=\"none\" stroke=\"#FFFFFF\" stroke-width=\"3.4\" stroke-linecap=\"round\"/><circle cx=\"40\" cy=\"50\" r=\"2.2\" fill=\"#FFFFFF\"/>"
        return "<svg class=\"final-badge__art\" viewBox=\"0 0 80 80\" width=\"80\" height=\"80\" aria-hidden=\"true\" focusable=\"false\">\(face)</svg>"
    }
}

/// The background: soft bokeh circles and a few twinkling sparkles at
/// positions drawn from the occasion's seed, so a page looks the same on
/// every render and a live refresh never makes the background jump.
///
/// Positions are percentages of the section and sizes are pixels, with no
/// viewBox: circles stay round and the same size on a phone and on a wide
/// screen, however tall the timeline grows. A sparkle is a tiny nested SVG
/// placed by percentage, holding a star drawn around its origin.
enum Bokeh {
    /// Never more than this many shapes, however long the timeline.
    static let maximumShapes = 36

    static let colours = ["#7C5CFC", "#FF6B9D", "#F5A623", "#5B8DEF"]

    static func render(seed: Int64, rows: Int) -> HTML {
        var random = SplitMix64(seed: UInt64(bitPattern: seed))
        let shapes = min(10 + 3 * rows, maximumShapes)
        var parts: [HTML] = []
        for index in 0..<shapes {
            let x = percent(tenths: random.next(below: 1000))
            let y = percent(tenths: random.next(below: 1000))
            let colour = colours[Int(random.next(below: UInt64(colours.count)))]
            if index % 4 == 3 {
                let size = 4 + Int(random.next(below: 5))  // centre to tip, in pixels
                let twinkle = "timeline__sparkle timeline__sparkle--\(1 + index / 4 % 4)"
                parts.append(
                    "<svg\(attribute: "x", x)\(attribute: "y", y) overflow=\"visible\"><path\(attribute: "class", twinkle)\(attribute: "d", sparklePath(size))\(attribute: "fill", colour) opacity=\"0.75\"/></svg>"
                )
            } else {
                let radius = 12 + Int(random.next(below: 48))
                let opacity = 1 + random.next(below: 2)  // 0.1 or 0.2
                parts.append(
                    "<circle\(attribute: "cx", x)\(attribute: "cy", y)\(attribute: "r", String(radius))\(attribute: "fill", colour)\(attribute: "opacity", "0.\(opacity)")/>"
                )
            }
        }
        return """
            <svg class="timeline__bokeh" aria-hidden="true" focusable="false">\(parts)</svg>
            """
    }

    /// A percentage from a count of tenths, with at most one decimal, so the
    /// bytes never depend on floating-point formatting: 375 → "37.5%".
    static func percent(tenths: UInt64) -> String {
        tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }

    /// A four-pointed star around the origin, `size` pixels from centre to tip.
    static func sparklePath(_ size: Int) -> String {
        "M0 -\(size)Q0 0 \(size) 0Q0 0 0 \(size)Q0 0 -\(size) 0Q0 0 0 -\(size)Z"
    }
}

/// SplitMix64 (Steele, Lea and Flood): tiny, fast, and the same sequence
/// from the same seed on every platform.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform enough in 0..<bound for decoration (the modulo bias of a
    /// 64-bit value over bounds this small is negligible).
    mutating func next(below bound: UInt64) -> UInt64 { next() % bound }
}
