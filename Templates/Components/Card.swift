/// A rounded surface that holds one thing: a game, a gift, a tally. An
/// accent paints a band along the top in a brand colour, which is decoration
/// only, never the sole carrier of meaning.
public enum Card {
    public enum Accent: String, Sendable {
        case none, purple, pink, gold, green
    }

    /// `headingLevel` fits the card into the page outline (2 to 6).
    public static func render(
        title: String? = nil, headingLevel: Int = 2, accent: Accent = .none, body: HTML, footer: HTML? = nil
    ) -> HTML {
        let classes = accent == .none ? "card" : "card card--\(accent.rawValue)"
        var parts: [HTML] = []
        if let title {
            let level = min(max(headingLevel, 2), 6)
            parts.append("<h\(level) class=\"card__title\">\(title)</h\(level)>")
        }
        parts.append(body)
        if let footer {
            parts.append("<footer class=\"card__footer\">\(footer)</footer>")
        }
        return """
            <article\(attribute: "class", classes)>
            \(parts.joined(separator: "\n"))
            </article>
            """
    }
}
