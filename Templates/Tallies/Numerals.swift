/// A tally's count in the viewer's number style: Arabic digits, Roman
/// numerals, or stick tally marks drawn in SVG. Rendered on the server, so
/// the style needs no script; the visible form is hidden from screen
/// readers, which hear the plain number instead.
public enum Numerals {
    public enum Style: String, Sendable, CaseIterable {
        case arabic, roman, stick
    }

    /// The count as the style draws it, with the plain number for assistive
    /// technology alongside.
    public static func render(_ count: Int64, style: Style) -> HTML {
        let fit = "numeral--fit-\(fit(count, style: style))"
        switch style {
        case .arabic:
            return "<span class=\"numeral numeral--arabic \(fit)\">\(arabic(count))</span>"
        case .roman:
            return """
                <span class="numeral numeral--roman \(fit)"><span aria-hidden="true">\(roman(count))</span><span class="visually-hidden">\(arabic(count))</span></span>
                """
        case .stick:
            return """
                <span class="numeral numeral--stick \(fit)"><span class="sticks" aria-hidden="true">\(sticks(count))</span><span class="visually-hidden">\(arabic(count))</span></span>
                """
        }
    }

    /// How many characters wide the count is drawn, rounded up to one of a
    /// few sizes the stylesheet knows (`numeral--fit-N`), so it scales the
    /// count down to fit its box without script: 999,999,999 is 11, its
    /// Roman form 18 (overlines take no width). Stick marks wrap in rows,
    /// so only the "× n" beside a bundle of hundreds counts.
    public static func fit(_ count: Int64, style: Style) -> Int {
        let width: Int
        switch style {
        case .arabic: width = arabic(count).count
        case .roman: width = roman(count).unicodeScalars.filter { $0.properties.generalCategory != .nonspacingMark }.count
        case .stick: width = count >= 100 ? arabic(count / 100).count + 4 : 3
        }
        return fitSizes.first { $0 >= width } ?? fitSizes[fitSizes.count - 1]
    }

    /// The widths `fit` rounds up to; tallies.css has a rule for each.
    public static let fitSizes = [3, 5, 7, 9, 11, 14, 18, 24, 32, 40]

    /// Digits grouped in threes: "12,345".
    public static func arabic(_ count: Int64) -> String {
        let digits = String(count.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return count < 0 ? "-" + grouped : grouped
    }

    /// Roman numerals. Zero is "N" (nulla); up to 3,999 the usual letters;
    /// above, the thousands are written with a line over them (each letter
    /// followed by U+0305 COMBINING OVERLINE), and millions with a double
    /// line (U+033F) when even the thousands pass 3,999: 4,500 is I̅V̅D,
    /// 1,000,000 is M̅, 5,000,000 is V̿.
    public static func roman(_ count: Int64) -> String {
        guard count > 0 else { return "N" }
        return roman(count, level: 0)
    }

    private static func roman(_ value: Int64, level: Int) -> String {
        if value <= 3999 { return overlined(plainRoman(value), level: level) }
        return roman(value / 1000, level: level + 1) + (value % 1000 == 0 ? "" : overlined(plainRoman(value % 1000), level: level))
    }

    private static func overlined(_ letters: String, level: Int) -> String {
        switch level {
        case 0: return letters
        case 1: return letters.map { String($0) + "\u{0305}" }.joined()
        default: return letters.map { String($0) + "\u{033F}" }.joined()
        }
    }

    private static let romanValues: [(Int64, String)] = [
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ]

    private static func plainRoman(_ value: Int64) -> String {
        var rest = value, letters = ""
        for (amount, symbol) in romanValues {
            while rest >= amount {
                letters += symbol
                rest -= amount
            }
        }
        return letters
    }

    /// Tally marks: groups of five (four strokes and a bar across), then
    /// the strokes left over. Large counts stay readable: every hundred is
    /// one tied bundle, shown once with "× n" beside it.
    public static func sticks(_ count: Int64) -> HTML {
        let value = max(count, 0)
        let bundles = value / 100, fives = (value % 100) / 5, ones = value % 5
        var parts: [HTML] = []
        if bundles > 0 {
            parts.append("<span class=\"sticks__bundle\">\(bundleSVG)<span class=\"sticks__times\">× \(arabic(bundles))</span></span>")
        }
        for _ in 0..<fives { parts.append(groupSVG(strokes: 4, crossed: true)) }
        if ones > 0 { parts.append(groupSVG(strokes: Int(ones), crossed: false)) }
        if parts.isEmpty { parts.append("<span class=\"sticks__none\">–</span>") }
        return parts.joined()
    }

    /// One group: up to four upright strokes, and the fifth drawn across.
    static func groupSVG(strokes: Int, crossed: Bool) -> HTML {
        var lines: [HTML] = []
        for index in 0..<strokes {
            let x = 6 + index * 8
            lines.append("<line x1=\"\(x)\" y1=\"4\" x2=\"\(x)\" y2=\"36\"/>")
        }
        if crossed { lines.append("<line class=\"sticks__bar\" x1=\"1\" y1=\"30\" x2=\"35\" y2=\"10\"/>") }
        let width = crossed ? 36 : 4 + strokes * 8
        return """
            <svg class="sticks__group" viewBox="0 0 \(width) 40" width="\(width)" height="40" focusable="false" \
            stroke="currentColor" stroke-width="3.5" stroke-linecap="round">\(lines.joined())</svg>
            """
    }

    /// A bundle of a hundred: strokes tied with a band.
    static let bundleSVG: HTML = """
        <svg class="sticks__group sticks__group--bundle" viewBox="0 0 40 40" width="40" height="40" focusable="false" \
        stroke="currentColor" stroke-width="3" stroke-linecap="round" fill="none">\
        <line x1="8" y1="4" x2="14" y2="36"/><line x1="14" y1="4" x2="17" y2="36"/><line x1="20" y1="4" x2="20" y2="36"/>\
        <line x1="26" y1="4" x2="23" y2="36"/><line x1="32" y1="4" x2="26" y2="36"/>\
        <path d="M9 20h22" stroke-width="5" class="sticks__band"/></svg>
        """
}
